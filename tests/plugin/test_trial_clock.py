"""Which clock a trial's virtual device keeps, said at every reset (run/trial.py): a trial only a script drives (a
control, or a scripted stand-in agent) holds the clock at a paced speed, so nothing the host's load does shows in its
verdict, and may jump it on a wait at the fast pace; a model's trial keeps real time at either pace, since its
thinking is time the app lives through. The pytest plugin says which pace the run's devices keep
(`--device-pace`)."""

from __future__ import annotations

import time
from pathlib import Path
from types import SimpleNamespace

import pytest

from pytest_mobium_evals import sim
from pytest_mobium_evals.core.tasks import Claim, Outcome, task, task_of
from pytest_mobium_evals.drivers import agents
from pytest_mobium_evals.drivers import controls as drivers
from pytest_mobium_evals.reach.device import Device
from pytest_mobium_evals.reach.toolserver import Tools, ToolServerSpec
from pytest_mobium_evals.run.trial import TrialEnv, TrialSpec, run_trial
from pytest_mobium_evals.sim import clock as clock_module
from pytest_mobium_evals.suites.catalog import load_task_definitions

ROOT = Path(__file__).resolve().parents[2]


class FakeDevice:
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


class FakeTools:
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
# (Ids that never start "agent-": the plugin takes a test id with "[agent-" in it for an agent trial of the run.)
@pytest.mark.parametrize("driver,scripted_agent,scripted", [
    pytest.param("reference", False, True, id="control"),
    pytest.param("agent", False, False, id="model"),
    # a stand-in injected by a test (TrialEnv.agent_auto_advance): a script
    pytest.param("agent", True, True, id="standin"),
])
def test_a_scripted_trial_holds_the_clock_at_a_paced_speed_and_a_models_keeps_real_time(pace, driver,
                                                                                        scripted_agent, scripted):
    device = FakeDevice()
    env = TrialEnv(seed=1, run_dir=None, server_spec=lambda device: None, limits=agents.Limits(), screenshots=False,
                   tools_factory=lambda spec, on_event: FakeTools(),
                   agent_runner=lambda *args: drivers.DriverRun(claim=Claim("done")),
                   auto_advance=pace == "fast", held_clock=pace != "fast", agent_auto_advance=scripted_agent)
    spec = TrialSpec(task=C01, driver=driver, repeat=0,
                     model_setting=agents.parse_models("openai/local-model")[0] if driver == "agent" else None)
    result = run_trial(spec, env, device, C01.outcome)
    assert result.error is None, result.record.infra_error
    assert (device.auto_advance, device.held_clock) == (scripted and pace == "fast", scripted and pace != "fast")


@pytest.fixture(scope="module")
def paced_device():
    with sim.start(devices=1, pace="emulator") as server:
        yield server


@pytest.mark.parametrize("held", [pytest.param(True, id="held"), pytest.param(False, id="running")])
def test_a_slow_host_changes_a_held_controls_verdict_in_nothing(paced_device, monkeypatch, held):
    """t09's wrong script taps row B by its place right after 'Refresh quietly', which lands the new rows 0.4-1.6 s
    later: on a quiet host the stale tap beats them. Here the host takes 2 s to get each call to the device (played,
    not waited: the device's clock is told the host's time runs 2 s on at each call). A held clock lives through
    none of it, and the control gets its declared verdict; a clock running with the host's time lets the refresh
    land first, and the wrong tap reads as a pass."""
    lag = [0.0]
    monkeypatch.setattr(clock_module, "time", SimpleNamespace(monotonic=lambda: time.monotonic() + lag[0],
                                                              time=time.time))
    serial = paced_device.serials[0]
    paced_device.device(serial).clock.hold(False)  # anchored to the lagging host's clock from here

    class SlowHost(Tools):
        def call(self, name, /, **kwargs):
            lag[0] += 2.0
            return super().call(name, **kwargs)

    t09 = load_task_definitions([ROOT / "tasks" / "mobiumapp_tasks"])["t09"]
    env = TrialEnv(seed=1, run_dir=None, limits=agents.Limits(), screenshots=False, held_clock=held,
                   server_spec=lambda device: ToolServerSpec.builtin(serial, "127.0.0.1", paced_device.port),
                   tools_factory=lambda spec, on_event: SlowHost(spec, timeout=120, on_event=on_event))
    spec = TrialSpec(task=t09, driver="wrong", repeat=0)
    record = run_trial(spec, env, Device.connect(serial, "127.0.0.1", paced_device.port), t09.outcome).record
    assert record.verdict == ("false_success" if held else "pass"), (record.verdict, record.outcome_observed)
