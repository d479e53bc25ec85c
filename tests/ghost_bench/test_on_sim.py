"""Ghost Bench on the virtual Android 15 device, over ADB as the harness reads it: Ghost Bench's original OpenApp check
cannot pass there, the fixed one reads the app in front, every init puts the device in the opposite state, and the
controls grade as declared through the whole plugin (a few tasks here; `pytest tasks --driver=controls` runs all)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from polling import wait_for

from pytest_mobium_evals.suites import ghost_bench as gb

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
SUITE = {t.id: t for t in gb.load_dir(ROOT / "tasks" / "ghost_bench")}


def original(task: gb.GhostTask) -> gb.Check:
    (change,) = task.changed
    return gb.Check(change["original"], task.check.kind, task.check.expected)


@pytest.mark.parametrize("task_id", ["OpenAppSettings", "OpenAppCalculator"])
def test_the_original_open_app_check_cannot_pass_on_android_15(phone, task_id):
    task = SUITE[task_id]
    phone.shell(gb.HOME)
    phone.launch(task.app)
    wait_for(lambda: phone.foreground_package() == task.app, 10.0, f"{task.app} in front")
    assert phone.getprop("ro.build.version.sdk") == "35"
    passed, reason = original(task).judge(phone.shell(original(task).cmd))
    assert not passed and reason.startswith("got '' "), reason
    passed, reason = gb.evaluate(task, phone)
    assert passed, reason
    assert task.app in reason and "ResumedActivity" in reason


def test_the_fixed_check_fails_with_the_app_behind_the_launcher(phone):
    task = SUITE["OpenAppSettings"]
    phone.launch(task.app)
    wait_for(lambda: phone.foreground_package() == task.app, 10.0, "Settings in front")
    phone.shell(gb.HOME)
    wait_for(lambda: phone.foreground_package() != task.app, 10.0, "the launcher in front")
    assert task.app in phone.shell("dumpsys activity activities")  # still listed, in a background task
    passed, reason = gb.evaluate(task, phone)
    assert not passed and "nexuslauncher" in reason


@pytest.mark.parametrize("task_id", [t for t in SUITE if t.startswith("System")])
def test_each_init_puts_the_device_in_the_opposite_state_and_the_goal_state_passes(phone, task_id):
    task = SUITE[task_id]
    gb.to_task(task).precondition(phone, {})  # raises PreconditionError if the goal still held
    assert not gb.evaluate(task, phone)[0]
    # The goal state, set from the shell as the opposite task's init would: the check accepts it.
    name = gb.setting_of(task.check)
    namespace, key = name.split("/")
    value = task.check.expected if task.check.kind == "expect" else task.check.expected[0]
    phone.shell(f"settings put {namespace} {key} {value}")
    assert wait_for(lambda: gb.evaluate(task, phone)[0], 10.0, f"{name} = {value}")


def test_controls_grade_as_declared_through_the_plugin(pytester):
    (pytester.path / "ghost_bench").mkdir()
    for name in ("navigation.json", "settings.json"):
        (pytester.path / "ghost_bench" / name).write_text((ROOT / "tasks" / "ghost_bench" / name).read_text())
    result = pytester.runpytest_subprocess(
        "-p", "no:cacheprovider", "--run-dir", "run", "--driver=controls", "--device=sim", "-m", "ghost_bench",
        "-k", "OpenAppClock or SystemWifiTurnOn or SystemBrightnessMax", "-v")
    # each task's three declared controls, +wait, and +home (settings) or the near miss open-then-home (launch)
    result.assert_outcomes(passed=15)
    summary = json.loads((pytester.path / "run" / "ghost_bench.json").read_text())
    by_driver = {run["driver"]: run for run in summary["runs"]}
    assert by_driver["reference"]["success_rate"] == 1.0 and by_driver["reference"]["total_tasks"] == 3
    assert by_driver["null"]["passed"] == 0 and by_driver["wrong"]["passed"] == 0
    reasons = {r["task_id"]: r["reason"] for r in by_driver["wrong"]["results"]}
    assert reasons["SystemBrightnessMax"] == "got '128' (expected '255')"
    assert reasons["SystemWifiTurnOn"] == "got '0' (expected '1' or '2')"


@pytest.mark.parametrize("command, namespace, key, value", [
    ("svc data disable", "global", "mobile_data", "0"),
    ("svc data enable", "global", "mobile_data", "1"),
    ("cmd location set-location-enabled false", "secure", "location_mode", "0"),
    ("cmd location set-location-enabled true", "secure", "location_mode", "3"),
    ("cmd notification set_dnd on", "global", "zen_mode", "1"),
    ("cmd notification set_dnd alarms", "global", "zen_mode", "3"),
    ("cmd notification set_dnd off", "global", "zen_mode", "0"),
])
def test_the_shell_commands_of_settings_tasks_write_their_setting(phone, command, namespace, key, value):
    phone.shell(command)
    assert phone.shell(f"settings get {namespace} {key}").strip() == value


def test_the_new_switches_are_on_the_screens_android_15_has_them_under():
    from pytest_mobium_evals.sim.apps.settings import search_results

    found = {title: crumb for title, crumb, _ in search_results("mobile data")}
    assert found == {"Mobile data": "Network & internet > SIMs"}
    assert [t for t, _, _ in search_results("wifi")] == ["Wi\u2011Fi"]
    assert [c for t, c, _ in search_results("do not disturb")] == ["Sound & vibration > Do Not Disturb"]
    assert [c for t, c, _ in search_results("auto-rotate")] == ["Display"]
    assert [t for t, _, _ in search_results("location")] == ["Use location"]
    assert search_results("") == [] and search_results("nothing like it") == []
