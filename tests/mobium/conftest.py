"""A virtual device and the built-in Mobium MCP server (a subprocess) talking to it over ADB, through the SDK's stdio
client. One device and one server per module: each test starts from a fresh MobiumApp (data cleared, launched)."""

from __future__ import annotations

import pytest

from pytest_mobium_evals.reach.toolserver import Tools, ToolServerSpec

APP = "dev.mobium.mobiumapp"
SERIAL = "emulator-5554"
# The app's own delays (sign-in 1 s, late alert 2 s, feed pages 2.5 s, audio 5 s) run this much faster; the
# server's waits stay in real time, so a refusal still takes its full 2 s.
CLOCK_SPEED = 4.0


@pytest.fixture(scope="module")
def sim_server():
    from pytest_mobium_evals import sim
    with sim.start(devices=1, clock_speed=CLOCK_SPEED) as s:
        yield s


@pytest.fixture(scope="module")
def tools(sim_server):
    with Tools(ToolServerSpec.builtin(sim_server.serials[0], "127.0.0.1", sim_server.port), timeout=120) as t:
        yield t


@pytest.fixture
def fresh(tools):
    """MobiumApp with no data, no grants, in front on its home menu; the device light."""
    tools.call("app_clear_data", app=APP)
    tools.call("app_appearance", appearance="light")
    tools.call("app_keyboard", hide=True)
    tools.call("app_launch", app=APP)
    return tools
