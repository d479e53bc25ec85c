"""Which clock a trial's virtual device keeps, said at every reset (run/trial.py): a trial only a script drives (a
control, or a scripted stand-in agent) holds the clock at a paced speed, so nothing the host's load does shows in its
verdict, and may jump it on a wait at the fast pace; a model's trial keeps real time at either pace, since its
thinking is time the app lives through. The pytest plugin says which pace the run's devices keep
(`--device-pace`)."""

from __future__ import annotations

import pytest

from pytest_mobium_evals.core.tasks import Claim, Outcome, task, task_of
from pytest_mobium_evals.drivers import agents
from pytest_mobium_evals.drivers import controls as drivers
from pytest_mobium_evals.run.trial import TrialEnv, TrialSpec, run_trial


class Device:
    """Enough of the harness's Device for a trial with no app, keeping what it was told about its clock."""

    serial = "fake-1"
    auto_advance = held_clock = None

    def restore_settings(self, ignored=None):
        return []

    def shell(self, command, timeout=None):
        return ""

    def settings_snapshot(self):
        return {}

    def settings_with_history(self):
        return {}, None  # a device that keeps no history of its settings

    def screencap(self):
        return b""

    def pass_time(self, seconds):
        pass

    def set_auto_advance(self, on):
        self.auto_advance = on

    def hold_clock(self, on):
        self.held_clock = on


class Tools:
    calls = 0

    def close(self):
        pass


def _task_c01():
    @task(id="c01", slug="clock", prompt="Open the thing.", app=None,
          reference=lambda tools, params: Claim("done"), wrong=lambda tools, params: Claim("done"))
    def check_c01(device, params):
        return Outcome(True, observed="open")
    return task_of(check_c01)


C01 = _task_c01()


@pytest.mark.parametrize("pace", ["fast", "emulator"])
@pytest.mark.parametrize("driver,scripted_agent,scripted", [
    ("reference", False, True),
    ("agent", False, False),
    ("agent", True, True),      # a stand-in injected by a test (TrialEnv.agent_auto_advance): a script
])
def test_a_scripted_trial_holds_the_clock_at_a_paced_speed_and_a_models_keeps_real_time(pace, driver,
                                                                                        scripted_agent, scripted):
    device = Device()
    env = TrialEnv(seed=1, run_dir=None, server_spec=lambda device: None, limits=agents.Limits(), screenshots=False,
                   tools_factory=lambda spec, on_event: Tools(),
                   agent_runner=lambda *args: drivers.DriverRun(claim=Claim("done")),
                   auto_advance=pace == "fast", held_clock=pace != "fast", agent_auto_advance=scripted_agent)
    spec = TrialSpec(task=C01, driver=driver, repeat=0,
                     setting=agents.parse_models("openai/local-model")[0] if driver == "agent" else None)
    result = run_trial(spec, env, device, C01.outcome)
    assert result.error is None, result.record.infra_error
    assert (device.auto_advance, device.held_clock) == (scripted and pace == "fast", scripted and pace != "fast")
