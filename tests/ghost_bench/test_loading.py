"""Loading Ghost Bench task files: the shipped suite, and every malformed case failing with file, task and what."""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from pytest_mobium_evals.suites import ghost_bench as gb

SUITE_DIR = Path(__file__).resolve().parents[2] / "tasks" / "ghost_bench"

GOOD = {
    "id": "SystemWifiTurnOn", "goal": "Turn wifi on.", "app": "com.android.settings", "category": "settings",
    "complexity": 1, "init": {"cmd": "svc wifi disable", "desc": "Disable WiFi"},
    "eval": {"cmd": "settings get global wifi_on", "expect_in": ["1", "2"]},
}


def write(tmp_path: Path, data, name: str = "settings.json") -> Path:
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data, indent=2), encoding="utf-8")
    return path


def task(**changes) -> dict:
    data = json.loads(json.dumps(GOOD))
    for key, value in changes.items():
        if value is None:
            data.pop(key, None)
        else:
            data[key] = value
    return data


def error_of(tmp_path: Path, data) -> str:
    path = write(tmp_path, data)
    with pytest.raises(gb.GhostBenchError) as info:
        gb.load_tasks(path)
    message = str(info.value)
    assert "\n" not in message, "a task-file error is one line"
    assert message.startswith(str(path)), message
    return message


# ---- the shipped suite -----------------------------------------------------------------------------------------

def test_the_suite_has_ghost_benchs_14_tasks():
    tasks = gb.load_dir(SUITE_DIR)
    assert sorted(t.id for t in tasks) == sorted(
        [f"OpenApp{a}" for a in ("Settings", "Contacts", "Clock", "Camera", "Chrome", "Calculator")]
        + [f"System{s}Turn{v}" for s in ("Wifi", "Bluetooth") for v in ("On", "Off")]
        + ["SystemBrightnessMax", "SystemBrightnessMin", "SystemAirplaneModeOn", "SystemAirplaneModeOff"])
    by_id = {t.id: t for t in tasks}
    assert by_id["SystemWifiTurnOn"].check == gb.Check("settings get global wifi_on", "expect_in", ("1", "2"))
    assert by_id["SystemAirplaneModeOn"].max_steps == 15
    assert by_id["SystemWifiTurnOff"].max_steps == 10
    assert {t.category for t in tasks} == {"navigation", "settings"}


#: sha256 of Ghost Bench's task files (ghost-in-the-droid/android-agent 7c09f6c,
#: gitd/benchmarks/ghost_bench/task_data/), each as canonical JSON (sorted keys, no spaces). Undoing the recorded
#: changes and dropping our keys must give these files back exactly.
UPSTREAM_SHA256 = {
    "navigation.json": "e11d27a7daa630d81f45358dcc5cda77689827a2cd3afdd44a48ea23db7b4584",
    "settings.json": "3ea8a498992bf0afd7f8a20bc69ce7ec6585e061287178d29bf33945c43a9f38",
}


def as_ghost_bench_wrote_it(raw: dict) -> dict:
    data = json.loads(json.dumps(raw))
    for change in data.pop("changed", []):
        *parents, leaf = change["field"].split(".")
        holder = data
        for part in parents:
            holder = holder[part]
        holder[leaf] = change["original"]
    for key in gb.loading.OUR_KEYS:
        data.pop(key, None)
    return data


@pytest.mark.parametrize("name", sorted(UPSTREAM_SHA256))
def test_the_recorded_changes_are_the_only_differences_from_ghost_bench(name):
    shipped = json.loads((SUITE_DIR / name).read_text(encoding="utf-8"))
    original = [as_ghost_bench_wrote_it(raw) for raw in shipped]
    canonical = json.dumps(original, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    assert hashlib.sha256(canonical.encode("utf-8")).hexdigest() == UPSTREAM_SHA256[name]


def test_every_change_says_why_and_only_the_open_app_checks_changed():
    for t in gb.load_dir(SUITE_DIR):
        if t.category != "navigation":
            assert not t.changed
            continue
        (change,) = t.changed
        assert change["field"] == "eval.cmd"
        assert "mResumedActivity" in change["original"]
        assert "Android 12" in change["reason"]
        assert "mResumedActivity" not in t.check.cmd


def test_a_changed_record_can_be_checked_against_ghost_bench(tmp_path):
    # The hash test fails when a value drifts without a record: a reworded goal is caught.
    shipped = json.loads((SUITE_DIR / "settings.json").read_text(encoding="utf-8"))
    shipped[0]["goal"] = "Switch Wi-Fi on."
    canonical = json.dumps([as_ghost_bench_wrote_it(r) for r in shipped], sort_keys=True, separators=(",", ":"))
    assert hashlib.sha256(canonical.encode("utf-8")).hexdigest() != UPSTREAM_SHA256["settings.json"]


def test_tasks_become_our_tasks_with_derived_controls():
    tasks = gb.load_tasks(SUITE_DIR)
    assert len(tasks) == 14
    for t in tasks:
        assert t.suite == "ghost_bench" and t.app == ""
        assert (t.controls.reference, t.controls.null, t.controls.wrong) == ("pass", "false_success",
                                                                             "false_success")
        assert set(t.controls.reasons) == {"reference", "null", "wrong"}
        assert t.render_prompt({}).endswith(".") and "{" not in t.prompt
    wifi = next(t for t in tasks if t.id == "SystemWifiTurnOn")
    assert wifi.allowed_settings == ("global/wifi_on",)
    assert wifi.prompt == "Turn wifi on." and wifi.max_steps == 10
    assert "Settings' search for 'wifi'" in wifi.controls.reasons["reference"]


def test_a_goal_with_braces_is_not_a_template(tmp_path):
    (t,) = gb.load_tasks(write(tmp_path, [task(goal="Turn wifi {on}.")]))
    assert t.render_prompt({}) == "Turn wifi {on}."


def test_one_object_is_a_file_of_one_task(tmp_path):
    (t,) = gb.load_file(write(tmp_path, GOOD))
    assert t.id == "SystemWifiTurnOn"


def test_complexity_times_ten_is_max_steps(tmp_path):
    (t,) = gb.load_file(write(tmp_path, [task(complexity=1.1)]))
    assert t.max_steps == 11
    (t,) = gb.load_file(write(tmp_path, [task(complexity=None)]))
    assert t.max_steps == 10


def test_a_number_as_expect_means_its_text(tmp_path):
    (t,) = gb.load_file(write(tmp_path, [task(eval={"cmd": "settings get system screen_brightness",
                                                  "expect": 255})]))
    assert t.check.expected == "255"


# ---- malformed files: one line, the file, the task, what is wrong -------------------------------------------------

def test_bad_json_names_line_and_column(tmp_path):
    message = error_of(tmp_path, '[\n  {"id": "A",\n   "goal": "x" "app": "y"}\n]\n')
    assert message.endswith("settings.json:3:16: not valid JSON: Expecting ',' delimiter")


def test_no_eval(tmp_path):
    message = error_of(tmp_path, [task(eval=None)])
    assert "task SystemWifiTurnOn: no eval" in message


def test_eval_without_expectation(tmp_path):
    message = error_of(tmp_path, [task(eval={"cmd": "settings get global wifi_on"})])
    assert "task SystemWifiTurnOn: eval has no expectation" in message


def test_two_kinds_of_expectation(tmp_path):
    message = error_of(tmp_path, [task(eval={"cmd": "settings get global wifi_on", "expect": "1",
                                             "expect_in": ["1", "2"]})])
    assert "task SystemWifiTurnOn: eval has two kinds of expectation (expect and expect_in)" in message


def test_unknown_key(tmp_path):
    message = error_of(tmp_path, [task(tear_down={"cmd": "svc wifi enable"})])
    assert "task SystemWifiTurnOn: unknown key 'tear_down'" in message


def test_unknown_key_in_eval(tmp_path):
    message = error_of(tmp_path, [task(eval={"cmd": "settings get global wifi_on", "expected": "1"})])
    assert "task SystemWifiTurnOn: unknown key 'expected' in eval" in message


def test_eval_without_cmd(tmp_path):
    message = error_of(tmp_path, [task(eval={"expect": "1"})])
    assert "task SystemWifiTurnOn: eval has no cmd" in message


def test_init_without_cmd(tmp_path):
    message = error_of(tmp_path, [task(init={"desc": "Disable WiFi"})])
    assert "task SystemWifiTurnOn: init has no cmd" in message


def test_a_task_without_id_is_named_by_position(tmp_path):
    message = error_of(tmp_path, [GOOD, task(id=None, eval=None)])
    assert "task #2 (no id): no id, eval" in message


def test_an_id_that_cannot_name_a_trial(tmp_path):
    message = error_of(tmp_path, [task(id="Wifi On/Off")])
    assert "id must be letters, digits" in message


def test_same_id_twice(tmp_path):
    message = error_of(tmp_path, [GOOD, GOOD])
    assert "task SystemWifiTurnOn: the id is used twice in this file (objects #1 and #2)" in message


def test_same_id_in_two_files(tmp_path):
    write(tmp_path, [GOOD], "a.json")
    write(tmp_path, [GOOD], "b.json")
    with pytest.raises(gb.GhostBenchError, match=r"b\.json: task SystemWifiTurnOn: the id is also used in .*a\.json"):
        gb.load_dir(tmp_path)


def test_not_an_array(tmp_path):
    assert error_of(tmp_path, '"tasks"').endswith("got a string")


def test_a_task_that_is_not_an_object(tmp_path):
    assert "task #1: a task is a JSON object, got an array" in error_of(tmp_path, [[1]])


def test_bad_complexity(tmp_path):
    assert "complexity must be a number > 0, got 0" in error_of(tmp_path, [task(complexity=0)])
    assert "complexity must be a number > 0, got \"1\"" in error_of(tmp_path, [task(complexity="1")])


def test_bad_expect_in(tmp_path):
    message = error_of(tmp_path, [task(eval={"cmd": "settings get global wifi_on", "expect_in": []})])
    assert "eval.expect_in must be a non-empty array of strings" in message


def test_a_category_that_is_not_a_marker_name(tmp_path):
    message = error_of(tmp_path, [task(category="system settings")])
    assert "category 'system settings' is not a pytest marker name" in message


def test_a_category_that_is_a_mark_already(tmp_path):
    assert "is a mark pytest or this harness already uses" in error_of(tmp_path, [task(category="skip")])


def test_any_marker_name_is_a_category(tmp_path):
    (t,) = gb.load_file(write(tmp_path, [task(category="system")]))
    assert t.category == "system"


def test_unknown_verdict_in_controls(tmp_path):
    message = error_of(tmp_path, [task(controls={"null": "fail"})])
    assert "controls.null must be a verdict" in message


def test_controls_are_read(tmp_path):
    (t,) = gb.load_tasks(write(tmp_path, [task(controls={"null": "pass", "reasons": {"null": "already on"}})]))
    assert t.controls.null == "pass" and t.controls.reasons["null"] == "already on"


def test_changed_must_name_a_key_of_the_task(tmp_path):
    change = {"field": "eval.command", "original": "x", "reason": "because"}
    assert 'field "eval.command" is not a key of this task' in error_of(tmp_path, [task(changed=[change])])


def test_changed_must_differ_from_the_original(tmp_path):
    change = {"field": "eval.cmd", "original": "settings get global wifi_on", "reason": "because"}
    assert "still holds the original value" in error_of(tmp_path, [task(changed=[change])])


def test_changed_needs_a_reason(tmp_path):
    change = {"field": "eval.cmd", "original": "x"}
    assert "changed #1: no reason" in error_of(tmp_path, [task(changed=[change])])


def test_unbalanced_quote_in_a_command(tmp_path):
    message = error_of(tmp_path, [task(eval={"cmd": "settings get global 'wifi_on", "expect": "1"})])
    assert "eval.cmd is not a well-formed shell command" in message


def test_a_setting_no_code_knows_still_loads(tmp_path):
    (t,) = gb.load_tasks(write(tmp_path, [task(eval={"cmd": "settings get global mobile_data", "expect": "0"})]))
    assert t.allowed_settings == ("global/mobile_data", "global/mobile_data1")
    assert "Settings' search for 'wifi'" in t.controls.reasons["reference"]


def test_an_eval_no_control_can_reach(tmp_path):
    message = error_of(tmp_path, [task(eval={"cmd": "dumpsys wifi", "expect_contains": "enabled"})])
    assert "no scripted controls can be derived" in message and "dumpsys wifi" in message


@pytest.mark.parametrize("ui, what", [
    ("Network & internet", "ui must be an object"),
    ({"path": ["Network & internet"]}, "ui.label must be a non-empty string"),
    ({"label": "Mobile data", "path": "Network & internet"}, "ui.path must be an array of row labels"),
    ({"label": "Brightness", "range": [255, 1]}, "ui.range must be [low, high]"),
    ({"label": "Mobile data", "screen": "SIMs"}, "unknown key 'screen' in ui"),
])
def test_a_malformed_ui_key(tmp_path, ui, what):
    assert what in error_of(tmp_path, [task(ui=ui)])


def test_the_ui_key_is_read(tmp_path):
    ui = {"path": ["Network & internet", "SIMs"], "label": "Mobile data"}
    (t,) = gb.load_file(write(tmp_path, [task(ui=ui)]))
    assert t.ui == gb.UI(path=("Network & internet", "SIMs"), label="Mobile data")


def test_a_switch_cannot_expect_both_on_and_off(tmp_path):
    message = error_of(tmp_path, [task(eval={"cmd": "settings get global wifi_on", "expect_in": ["0", "1"]})])
    assert "mix off" in message


def test_a_slider_value_out_of_range(tmp_path):
    message = error_of(tmp_path, [task(eval={"cmd": "settings get system screen_brightness", "expect": "300"})])
    assert "runs 1..255; the expected 300 cannot be reached" in message


def test_an_unreadable_file(tmp_path):
    path = tmp_path / "bad.json"
    path.write_bytes(b"\xff\xfe[")
    with pytest.raises(gb.GhostBenchError, match=r"bad\.json: not UTF-8 text"):
        gb.load_file(path)


# ---- platforms ---------------------------------------------------------------------------------------------------

def test_a_task_for_another_platform_loads_and_says_why_it_will_not_run(tmp_path):
    # Its controls are not derived (nothing to drive), so even a category we cannot script is accepted.
    (t,) = gb.load_file(write(tmp_path, [task(platforms=["ios"], category="settings",
                                              eval={"cmd": "xcrun simctl x", "expect": "1"})]))
    assert not t.runs_here
    assert t.skip_reason == ("Ghost Bench task SystemWifiTurnOn is for ios; this harness drives android devices "
                             "over ADB")
    (ours,) = gb.load_tasks(tmp_path / "settings.json")
    assert ours.platforms == ("ios",)


def test_platforms_must_be_names(tmp_path):
    assert "platforms must be a non-empty array of names" in error_of(tmp_path, [task(platforms="android")])
