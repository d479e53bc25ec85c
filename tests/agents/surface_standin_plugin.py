"""The surface-sensitive stand-in agent (surface_standin.py) as a pytest plugin: `-p surface_standin_plugin` with
tests/agents on PYTHONPATH makes every agent trial of the run use it in place of the model, whatever `--model` says
(the setting's name is still what the records carry). How `mobium-evals hillclimb` runs offline."""

from __future__ import annotations

import pytest
from surface_standin import surface_runner

from pytest_mobium_evals.plugin.collection import spec_of
from pytest_mobium_evals.plugin.session import SURFACE_READER


class StandinAgent:
    @pytest.fixture
    def mobium_trial_env(self, request):
        spec = spec_of(request.node)

        def edit(env):
            env.agent_runner = surface_runner(spec.task, spec.task.seeded_params(env.seed, spec.repeat))
            env.agent_auto_advance = True  # a script: its tool server's waits jump the clock, as a control's do
        return edit


@pytest.hookimpl(trylast=True)
def pytest_configure(config):
    # Registered after the plugin's own entry point (which `-p` loads before), so this fixture is the one in force.
    config.pluginmanager.register(StandinAgent(), "surface-standin-agent")
    # It reads the raw MCP result (an error's structured remedy, the map's text), not what a model's client passes.
    config.stash[SURFACE_READER] = "raw"
