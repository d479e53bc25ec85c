"""Ghost Bench's checks: the three kinds of expectation, and the OpenApp check on Android 15's activity dump.

The dumps below follow the shapes in reference/android-shell-outputs.md §1: Android 12+ prints the resumed activity
as `topResumedActivity=` (per task) and `ResumedActivity:` (per display), and no longer prints `mResumedActivity`;
Android 11 and older printed `mResumedActivity: ActivityRecord{…}`."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from pytest_mobium_evals.core.tasks import Outcome
from pytest_mobium_evals.suites import ghost_bench as gb

SUITE_DIR = Path(__file__).resolve().parents[2] / "tasks" / "ghost_bench"
LAUNCHER = "com.google.android.apps.nexuslauncher/.NexusLauncherActivity"


def android15_activities(front: str, behind: tuple[str, ...] = ()) -> str:
    """`dumpsys activity activities` of Android 15 with `front` resumed and `behind` in background tasks."""
    task_id = 40
    lines = ["ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)",
             "Display #0 (activities from top to bottom):"]
    pkg = front.split("/")[0]
    lines += [f"  * Task{{5d58b8c #{task_id} type=standard A=10150:{pkg} U=0 visible=true visibleRequested=true "
              f"mode=fullscreen translucent=false sz=1}}",
              "    mBounds=Rect(0, 0 - 0, 0)",
              "    isSleeping=false",
              f"    topResumedActivity=ActivityRecord{{77d5ede u0 {front} t{task_id}}}",
              f"    * Hist  #0: ActivityRecord{{77d5ede u0 {front} t{task_id}}}",
              f"      packageName={pkg} processName={pkg}",
              "      state=RESUMED delayedResume=false finishing=false"]
    for n, component in enumerate(behind, start=1):
        other = component.split("/")[0]
        lines += [f"  * Task{{a1b2c3{n} #{task_id + n} type=standard A=10151:{other} U=0 visible=false "
                  f"visibleRequested=false mode=fullscreen translucent=false sz=1}}",
                  f"    * Hist  #0: ActivityRecord{{9f8e7d{n} u0 {component} t{task_id + n}}}",
                  f"      packageName={other} processName={other}",
                  "      state=STOPPED delayedResume=false finishing=false"]
    lines += ["  Resumed activities in task display areas (from top to bottom):",
              f"    Resumed: ActivityRecord{{77d5ede u0 {front} t{task_id}}}",
              "",
              f"  ResumedActivity: ActivityRecord{{77d5ede u0 {front} t{task_id}}}",
              "ActivityTaskSupervisor state:",
              "  topDisplayFocusedRootTask=Task{5d58b8c #40 type=standard A=10150:%s}" % pkg]
    return "\n".join(lines) + "\n"


def android11_activities(front: str) -> str:
    return ("ACTIVITY MANAGER ACTIVITIES (dumpsys activity activities)\n"
            "Display #0 (activities from top to bottom):\n"
            "  Stack #12: type=standard mode=fullscreen\n"
            f"    mResumedActivity: ActivityRecord{{1e44eb8 u0 {front} t653}}\n"
            f"  ResumedActivity: ActivityRecord{{1e44eb8 u0 {front} t653}}\n")


class FakeDevice:
    """A device shell that knows a few outputs and does `cmd | grep WORD` the way toybox grep does (lines
    containing WORD; nothing when none)."""

    def __init__(self, outputs: dict[str, str]):
        self.outputs = dict(outputs)
        self.commands: list[str] = []

    def shell(self, cmd: str, timeout=None) -> str:
        self.commands.append(cmd)
        first, _, rest = cmd.partition("|")
        out = self._run(first.strip())
        for stage in filter(None, (s.strip() for s in rest.split("|"))):
            match = re.fullmatch(r"grep (\S+)", stage)
            assert match, f"the fake shell only greps, got {stage!r}"
            out = "".join(line + "\n" for line in out.splitlines() if match.group(1) in line)
        return out

    def _run(self, cmd: str) -> str:
        value = self.outputs.get(cmd, "")
        return value() if callable(value) else value


def suite(task_id: str) -> gb.GhostTask:
    return next(t for t in gb.load_dir(SUITE_DIR) if t.id == task_id)


def original_check(task: gb.GhostTask) -> gb.Check:
    (change,) = task.changed
    return gb.Check(change["original"], task.check.kind, task.check.expected)


# ---- the three kinds ---------------------------------------------------------------------------------------------

def test_expect_is_exact_after_stripping():
    check = gb.Check("settings get global airplane_mode_on", "expect", "1")
    assert check.judge("1\n") == (True, "got '1' (expected '1')")
    assert check.judge("10\n") == (False, "got '10' (expected '1')")


def test_expect_in_is_membership():
    check = gb.Check("settings get global wifi_on", "expect_in", ("1", "2"))
    assert check.judge("2\n") == (True, "got '2' (expected '1' or '2')")
    assert check.judge("0\n") == (False, "got '0' (expected '1' or '2')")
    assert check.judge("null\n")[0] is False


def test_expect_contains_is_a_case_insensitive_substring():
    check = gb.Check("dumpsys window", "expect_contains", "com.android.Settings")
    assert check.judge("mCurrentFocus=Window{413874c u0 com.android.settings/.Settings}")[0] is True
    passed, reason = gb.Check("x", "expect_contains", "chrome").judge("a" * 500)
    assert not passed and reason == f"got '{'a' * 200}…' (expected it to contain 'chrome')"


# ---- OpenApp on Android 15: the original check cannot pass, the fixed one reads the foreground app -----------------

@pytest.mark.parametrize("task_id", [f"OpenApp{a}" for a in ("Settings", "Contacts", "Clock", "Camera", "Chrome",
                                                             "Calculator")])
def test_original_open_app_check_fails_on_android_15_with_the_app_in_front(task_id):
    task = suite(task_id)
    dump = android15_activities(f"{task.app}/.Main")
    device = FakeDevice({"dumpsys activity activities": dump})
    passed, reason = original_check(task).judge(device.shell(original_check(task).cmd))
    assert not passed and reason.startswith("got '' ")  # mResumedActivity is not printed: grep prints nothing
    passed, reason = task.check.judge(device.shell(task.check.cmd))
    assert passed, reason


@pytest.mark.parametrize("task_id", ["OpenAppSettings", "OpenAppChrome"])
def test_fixed_check_fails_when_the_app_is_only_in_the_background(task_id):
    task = suite(task_id)
    dump = android15_activities(LAUNCHER, behind=(f"{task.app}/.Main",))
    assert task.app in dump  # a substring check over the whole dump would pass here
    passed, reason = task.check.judge(FakeDevice({"dumpsys activity activities": dump}).shell(task.check.cmd))
    assert not passed
    assert "nexuslauncher" in reason and f"(expected it to contain '{task.check.expected}')" in reason


def test_fixed_check_fails_on_the_wrong_app():
    task = suite("OpenAppCamera")
    device = FakeDevice({"dumpsys activity activities": android15_activities("com.android.chrome/.Main")})
    assert not task.check.judge(device.shell(task.check.cmd))[0]


def test_fixed_check_still_reads_android_11():
    task = suite("OpenAppSettings")
    device = FakeDevice({"dumpsys activity activities": android11_activities("com.android.settings/.Settings")})
    assert original_check(task).judge(device.shell(original_check(task).cmd))[0]
    assert task.check.judge(device.shell(task.check.cmd))[0]


# ---- the Task built from a Ghost Bench task: precondition and outcome -----------------------------------------------

def test_outcome_is_the_eval_with_got_x_expected_y():
    (task,) = [t for t in gb.load_tasks(SUITE_DIR) if t.id == "SystemWifiTurnOn"]
    assert task.outcome(FakeDevice({"settings get global wifi_on": "2\n"}), {}) == \
        Outcome(reached=True, observed="got '2' (expected '1' or '2')")
    assert task.outcome(FakeDevice({"settings get global wifi_on": "0\n"}), {}) == \
        Outcome(reached=False, observed="got '0' (expected '1' or '2')")


def test_precondition_stops_the_app_goes_home_twice_runs_init_and_checks_the_goal_does_not_hold():
    (task,) = [t for t in gb.load_tasks(SUITE_DIR) if t.id == "SystemWifiTurnOn"]
    state = {"wifi_on": "1"}
    device = FakeDevice({"settings get global wifi_on": lambda: state["wifi_on"] + "\n"})
    original = device._run

    def run(cmd):
        if cmd == "svc wifi disable":
            state["wifi_on"] = "0"
        return original(cmd)

    device._run = run
    task.precondition(device, {})
    assert device.commands[:4] == ["am force-stop com.android.settings", gb.HOME, gb.HOME, "svc wifi disable"]
    assert device.commands[4:] == ["settings get global wifi_on"]


def test_a_precondition_that_does_not_take_is_an_error(monkeypatch):
    monkeypatch.setattr(gb.adapter, "PRECONDITION_TIMEOUT_S", 0.3)
    (task,) = [t for t in gb.load_tasks(SUITE_DIR) if t.id == "SystemWifiTurnOn"]
    device = FakeDevice({"settings get global wifi_on": "1\n"})  # svc wifi disable does nothing here
    with pytest.raises(gb.PreconditionError, match=r"settings\.json: task SystemWifiTurnOn: after `svc wifi "
                                                   r"disable` the goal already holds \(got '1'"):
        task.precondition(device, {})


def test_teardown_runs_after_the_eval(tmp_path):
    path = tmp_path / "t.json"
    path.write_text('[{"id": "SystemWifiTurnOn", "goal": "Turn wifi on.", "app": "com.android.settings", '
                    '"category": "settings", "eval": {"cmd": "settings get global wifi_on", "expect": "1"}, '
                    '"teardown": {"cmd": "svc wifi disable"}}]')
    (task,) = gb.load_tasks(path)
    device = FakeDevice({"settings get global wifi_on": "1\n"})
    assert task.outcome(device, {}).reached
    assert device.commands == ["settings get global wifi_on", "svc wifi disable"]
