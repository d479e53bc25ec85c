"""The surface-sensitive stand-in (tests/agents/surface_standin.py) as every agent trial's agent, meeting the device
as a model's trial does: its device keeps real time (no auto-advance, no held clock), so its turns, which take no
thinking, race the app's timers as the quickest model's would, and the tool server's waits and settles run on the
host's time. `-p realtime_standin_plugin` with tests/load and tests/agents on PYTHONPATH."""

from __future__ import annotations

import pytest
from surface_standin import surface_runner

from pytest_mobium_evals.plugin.collection import spec_of
from pytest_mobium_evals.plugin.session import SURFACE_READER


class RealTimeStandin:
    @pytest.fixture
    def mobium_trial_env(self, request):
        spec = spec_of(request.node)

        def edit(env):
            env.agent_runner = surface_runner(spec.task, spec.task.seeded_params(env.seed, spec.repeat))
        return edit


@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    # Registered after the plugin's own entry point (which `-p` loads before), so this fixture is the one in force.
    config.pluginmanager.register(RealTimeStandin(), "realtime-standin-agent")
    config.stash[SURFACE_READER] = "raw"  # it reads the raw MCP result, as the surface stand-in does
