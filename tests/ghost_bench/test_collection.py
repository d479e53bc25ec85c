"""Ghost Bench task files under pytest: collected as trials with the ghost_bench marker, a malformed file failing
collection with one line (no traceback), a task for another platform skipped with the reason."""

from __future__ import annotations

import json

import pytest

pytest_plugins = ["pytester"]

WIFI_ON = {"id": "SystemWifiTurnOn", "goal": "Turn wifi on.", "app": "com.android.settings", "category": "settings",
           "complexity": 1, "init": {"cmd": "svc wifi disable", "desc": "Disable WiFi"},
           "eval": {"cmd": "settings get global wifi_on", "expect_in": ["1", "2"]}}
OPEN_CLOCK = {"id": "OpenAppClock", "goal": "Open the Clock app.", "app": "com.google.android.deskclock",
              "category": "navigation", "complexity": 1, "init": {"cmd": "input keyevent KEYCODE_HOME"},
              "eval": {"cmd": "dumpsys activity activities | grep ResumedActivity:",
                       "expect_contains": "com.google.android.deskclock"}}


def suite_file(pytester: pytest.Pytester, name: str, content) -> None:
    folder = pytester.path / "ghost_bench"
    folder.mkdir(exist_ok=True)
    text = content if isinstance(content, str) else json.dumps(content, indent=2)
    (folder / name).write_text(text, encoding="utf-8")


def run(pytester: pytest.Pytester, *args: str) -> pytest.RunResult:
    return pytester.runpytest_inprocess("-p", "no:cacheprovider", "--run-dir", "run", *args)


def test_each_task_is_a_trial_per_control_marked_ghost_bench(pytester):
    suite_file(pytester, "settings.json", [WIFI_ON])
    suite_file(pytester, "navigation.json", [OPEN_CLOCK])
    pytester.makepyfile(test_other="def test_plain():\n    pass\n")
    result = run(pytester, "--driver=controls", "-m", "ghost_bench", "--collect-only", "-q")
    result.stdout.fnmatch_lines([
        "ghost_bench/navigation.json::OpenAppClock[[]reference-r0[]]",
        "ghost_bench/navigation.json::OpenAppClock[[]null-r0[]]",
        "ghost_bench/navigation.json::OpenAppClock[[]wrong-r0[]]",
        "ghost_bench/navigation.json::OpenAppClock[[]reference+wait-r0[]]",
        "ghost_bench/navigation.json::OpenAppClock[[]near-miss-open-then-home-r0[]]",
        "ghost_bench/settings.json::SystemWifiTurnOn[[]reference-r0[]]",
        "ghost_bench/settings.json::SystemWifiTurnOn[[]null-r0[]]",
        "ghost_bench/settings.json::SystemWifiTurnOn[[]wrong-r0[]]",
        "ghost_bench/settings.json::SystemWifiTurnOn[[]reference+wait-r0[]]",
        "ghost_bench/settings.json::SystemWifiTurnOn[[]reference+home-r0[]]",
        "10/11 tests collected (1 deselected)*",
    ])


def test_repeats_multiply_trials(pytester):
    suite_file(pytester, "settings.json", [WIFI_ON])
    result = run(pytester, "--driver=reference", "--repeats=3", "--collect-only", "-q")
    result.stdout.fnmatch_lines(["*SystemWifiTurnOn[[]reference-r2[]]", "3 tests collected*"])


@pytest.mark.parametrize("content, message", [
    ('[{"id": "A",\n  "goal": }]', "ghost_bench/bad.json:2:11: not valid JSON: Expecting value"),
    ([dict(WIFI_ON, eval={"cmd": "settings get global wifi_on"})],
     "ghost_bench/bad.json: task SystemWifiTurnOn: eval has no expectation; give one of expect, expect_in, "
     "expect_contains"),
    ([{k: v for k, v in WIFI_ON.items() if k != "eval"}], "ghost_bench/bad.json: task SystemWifiTurnOn: no eval*"),
    ([dict(WIFI_ON, eval=dict(WIFI_ON["eval"], expect="1"))],
     "ghost_bench/bad.json: task SystemWifiTurnOn: eval has two kinds of expectation (expect and expect_in)*"),
    ([dict(WIFI_ON, teardwon={"cmd": "svc wifi enable"})],
     "ghost_bench/bad.json: task SystemWifiTurnOn: unknown key 'teardwon'*"),
])
def test_a_malformed_file_or_object_is_one_error_and_the_other_tasks_run(pytester, monkeypatch, content, message):
    from pytest_mobium_evals.drivers import agents

    monkeypatch.setattr(agents, "check_ready", lambda setting, base_url=None: None)  # the conftest's stand-in agent
    pytester.makeconftest(STEP_CONFTEST)
    suite_file(pytester, "good.json", [AIRPLANE_ON])
    # a malformed object beside a good one costs that object alone; a file that is not JSON is one error
    suite_file(pytester, "bad.json", content if isinstance(content, str) else [AIRPLANE_ON_TOO] + content)
    result = run(pytester, "--driver=agent", "--model=haiku", "-n", "0")
    result.assert_outcomes(passed=1 if isinstance(content, str) else 2, errors=1)
    out = result.stdout.str() + result.stderr.str()
    assert "error during collection" not in out
    result.stdout.fnmatch_lines(["*ERROR at setup of bad.json: *", f"*{message}", "*ERROR ghost_bench/bad.json::*"])
    assert "Traceback" not in out and "ghost_bench.py" not in out, out


def test_a_task_for_another_platform_is_skipped_with_the_reason(pytester):
    ios = dict(OPEN_CLOCK, id="OpenAppClockIos", app="com.apple.mobiletimer", platforms=["ios"],
               eval={"cmd": "xcrun simctl listapps booted", "expect_contains": "mobiletimer"})
    suite_file(pytester, "navigation.json", [ios])
    result = run(pytester, "--driver=reference", "-rs")
    result.assert_outcomes(skipped=1)
    result.stdout.fnmatch_lines(["SKIPPED*Ghost Bench task OpenAppClockIos is for ios; this harness drives android "
                                 "devices over ADB"])


AIRPLANE_ON = {"id": "SystemAirplaneModeOn", "goal": "Turn airplane mode on.", "app": "com.android.settings",
               "category": "settings", "complexity": 1.5, "init": {"cmd": "cmd connectivity airplane-mode disable"},
               "eval": {"cmd": "settings get global airplane_mode_on", "expect": "1"}}
AIRPLANE_ON_TOO = dict(AIRPLANE_ON, id="SystemAirplaneModeOnAgain")

STEP_CONFTEST = r'''
import json
import pytest
from pytest_mobium_evals.drivers.controls import DriverRun
from pytest_mobium_evals.core.tasks import Claim


class Phone:
    """Just enough of a device for a settings task: airplane mode as `settings` and `cmd connectivity` see it."""
    serial, adb_host, adb_port = "fake-1", "127.0.0.1", 0

    def __init__(self):
        self.airplane = "1"

    def restore_settings(self, ignored=None):
        return []

    def set_auto_advance(self, on):
        pass

    def hold_clock(self, on):
        pass

    def shell(self, cmd, timeout=None):
        if cmd == "cmd connectivity airplane-mode disable":
            self.airplane = "0"
        if cmd == "settings get global airplane_mode_on":
            return self.airplane + "\n"
        return ""

    def settings_snapshot(self):
        return {("global", "airplane_mode_on"): self.airplane}


    def settings_with_history(self):
        return self.settings_snapshot(), None  # a device that keeps no history of its settings

    def screencap(self):
        return None


PHONE = Phone()


@pytest.fixture(scope="session")
def mobium_device():
    return PHONE


def agent(setting, prompt, server, limits, on_event, workdir, base_url):
    # What the trial handed the agent as its tool-call limit is what this test is about.
    with open("limits.jsonl", "a") as fh:
        fh.write(json.dumps({"prompt": prompt, "max_tool_calls": limits.max_tool_calls}) + "\n")
    PHONE.airplane = "1"
    return DriverRun(claim=Claim("done"), tool_calls=2)


@pytest.fixture
def mobium_trial_env():
    def edit(env):
        env.server_spec = lambda device: None
        env.agent_runner = agent
        env.screenshots = False
    return edit
'''


@pytest.mark.parametrize("enforce, limit", [(False, 40), (True, 15)])
def test_max_steps_is_recorded_and_becomes_the_agents_limit_when_enforced(pytester, monkeypatch, enforce, limit):
    from pytest_mobium_evals.drivers import agents

    # The agent is a stand-in (the conftest's runner): no credentials to check. The run is in this process, so
    # monkeypatch puts the real check back afterwards.
    monkeypatch.setattr(agents, "check_ready", lambda setting, base_url=None: None)
    pytester.makeconftest(STEP_CONFTEST)
    airplane_on = {"id": "SystemAirplaneModeOn", "goal": "Turn airplane mode on.", "app": "com.android.settings",
                   "category": "settings", "complexity": 1.5,
                   "init": {"cmd": "cmd connectivity airplane-mode disable"},
                   "eval": {"cmd": "settings get global airplane_mode_on", "expect": "1"}}
    suite_file(pytester, "settings.json", [airplane_on])
    args = ["--driver=agent", "--model=haiku", "--max-tool-calls=40"] + (["--enforce-max-steps"] if enforce else [])
    result = run(pytester, *args)
    result.assert_outcomes(passed=1)
    (line,) = (pytester.path / "limits.jsonl").read_text().splitlines()
    assert json.loads(line) == {"prompt": "Turn airplane mode on.", "max_tool_calls": limit}
    (verdict,) = [json.loads(p.read_text()) for p in (pytester.path / "run" / "trials").glob("*/verdict.json")]
    assert verdict["max_steps"] == 15 and verdict["verdict"] == "pass" and verdict["suite"] == "ghost_bench"


def test_an_init_that_does_not_take_is_an_infra_error_with_its_reason(pytester, monkeypatch):
    from pytest_mobium_evals.suites.ghost_bench import adapter as ghost_bench

    monkeypatch.setattr(ghost_bench, "PRECONDITION_TIMEOUT_S", 0.2)
    # The stand-in phone ignores `cmd connectivity airplane-mode disable`: airplane mode stays on.
    pytester.makeconftest(STEP_CONFTEST.replace('if cmd == "cmd connectivity airplane-mode disable":',
                                                'if cmd == "never":'))
    airplane_on = {"id": "SystemAirplaneModeOn", "goal": "Turn airplane mode on.", "app": "com.android.settings",
                   "category": "settings", "init": {"cmd": "cmd connectivity airplane-mode disable"},
                   "eval": {"cmd": "settings get global airplane_mode_on", "expect": "1"}}
    suite_file(pytester, "settings.json", [airplane_on])
    run(pytester, "--driver=null")
    (verdict,) = [json.loads(p.read_text()) for p in (pytester.path / "run" / "trials").glob("*/verdict.json")]
    assert verdict["verdict"] == "infra_error"
    assert verdict["infra_error"].startswith("precondition: PreconditionError: ")
    assert ("task SystemAirplaneModeOn: after `cmd connectivity airplane-mode disable` the goal already holds "
            "(got '1' (expected '1'))") in verdict["infra_error"]
