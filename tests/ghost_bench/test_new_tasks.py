"""A Ghost Bench task nobody wrote code for, added as one JSON object in Ghost Bench's format, runs under the
control drivers on the virtual device and grades as it declares: a setting found through Settings' search, one
reached along our `ui` key, and an app opened from the launcher."""

from __future__ import annotations

import json

import pytest

pytest_plugins = ["pytester"]

MOBILE_DATA_OFF = {"id": "SystemMobileDataTurnOff", "goal": "Turn off mobile data.", "app": "com.android.settings",
                   "category": "settings", "complexity": 1, "init": {"cmd": "svc data enable", "desc": "Enable data"},
                   "eval": {"cmd": "settings get global mobile_data", "expect": "0"}}
AUTO_ROTATE_ON = {"id": "SystemAutoRotateOn", "goal": "Turn on auto-rotate.", "app": "com.android.settings",
                  "category": "display", "complexity": 1,
                  "init": {"cmd": "settings put system accelerometer_rotation 0", "desc": "Lock rotation"},
                  "eval": {"cmd": "settings get system accelerometer_rotation", "expect": "1"},
                  "ui": {"path": ["Display"], "label": "Auto-rotate screen"}}
OPEN_MOBIUMAPP = {"id": "OpenAppMobiumApp", "goal": "Open the MobiumApp app.", "app": "dev.mobium.mobiumapp",
                  "category": "navigation", "complexity": 1,
                  "init": {"cmd": "input keyevent KEYCODE_HOME", "desc": "Go home"},
                  "eval": {"cmd": "dumpsys activity activities | grep ResumedActivity:",
                           "expect_contains": "mobiumapp"}}


def test_new_tasks_grade_as_declared_under_the_controls(pytester: pytest.Pytester):
    folder = pytester.path / "ghost_bench"
    folder.mkdir()
    for name, task in (("mobile_data.json", MOBILE_DATA_OFF), ("rotate.json", AUTO_ROTATE_ON),
                       ("launch.json", OPEN_MOBIUMAPP)):
        (folder / name).write_text(json.dumps(task, indent=2), encoding="utf-8")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--run-dir", "run", "--driver=controls",
                                           "--device=sim", "--strict-markers", "-m", "ghost_bench", "-v")
    # each task's three declared controls, +wait, and +home (settings) or the near miss open-then-home (launch)
    result.assert_outcomes(passed=15)
    summary = json.loads((pytester.path / "run" / "ghost_bench.json").read_text())
    assert summary["status"] == "completed"
    by_driver = {run["driver"]: run for run in summary["runs"]}
    assert by_driver["reference"]["passed"] == 3 and by_driver["reference"]["status"] == "completed"
    assert by_driver["null"]["passed"] == 0 and by_driver["wrong"]["passed"] == 0
    wrong = {r["task_id"]: r["reason"] for r in by_driver["wrong"]["results"]}
    assert wrong["SystemMobileDataTurnOff"] == "got '1' (expected '0')"
    assert wrong["SystemAutoRotateOn"] == "got '0' (expected '1')"
    reference = {r["task_id"]: r["verdict"] for r in by_driver["reference"]["results"]}
    assert reference == {"SystemMobileDataTurnOff": "pass", "SystemAutoRotateOn": "pass", "OpenAppMobiumApp": "pass"}


def test_a_new_category_is_a_mark(pytester: pytest.Pytester):
    folder = pytester.path / "ghost_bench"
    folder.mkdir()
    (folder / "rotate.json").write_text(json.dumps(AUTO_ROTATE_ON), encoding="utf-8")
    (folder / "data.json").write_text(json.dumps(MOBILE_DATA_OFF), encoding="utf-8")
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--driver=controls", "--strict-markers",
                                          "-m", "ghost_bench and display", "--collect-only", "-q")
    result.stdout.fnmatch_lines(["ghost_bench/rotate.json::SystemAutoRotateOn[[]reference-r0[]]"])
    assert "SystemMobileDataTurnOff" not in result.stdout.str()
