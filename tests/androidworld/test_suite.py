"""AndroidWorld's plain-ADB tasks as a suite: the shipped file holds its 15 classes with AndroidWorld's templates,
parameters, setup and checks; a malformed object fails alone in one line naming the file and the task; the
precondition runs AndroidWorld's start-up on the virtual device and checks the start state; a composite scores the
mean of its parts and is reached only at 1.0. (`pytest tasks -m androidworld --driver=controls` runs the controls.)"""

from __future__ import annotations

import json
import random
from pathlib import Path

import pytest

from pytest_mobium_evals.core.tasks import Claim
from pytest_mobium_evals.suites import androidworld as aw
from pytest_mobium_evals.suites.ghost_bench import PreconditionError

pytest_plugins = ["pytester"]

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "tasks" / "androidworld" / "system.json"
TASKS = {t.id: t for t in aw.load_file(SHIPPED)}
OURS = {t.id: t for t in aw.load_tasks(SHIPPED)}
OPEN_APPS = ("camera", "clock", "contacts", "settings", "dialer")

WIFI_ON = {"id": "aw.SystemWifiTurnOn", "class": "SystemWifiTurnOn", "template": "Turn wifi {on_or_off}.",
           "params": {"on_or_off": "on"}, "app_names": ["settings"], "complexity": 1,
           "setup": [{"cmd": "svc wifi disable", "desc": "adb_utils.toggle_wifi(off)"}],
           "eval": {"cmd": "settings get global wifi_on", "expect_in": ["1", "2"]}}
BT_ON = {**WIFI_ON, "id": "aw.SystemBluetoothTurnOn", "class": "SystemBluetoothTurnOn",
         "template": "Turn bluetooth {on_or_off}.", "setup": [{"cmd": "svc bluetooth disable"}],
         "eval": {"cmd": "settings get global bluetooth_on", "expect": "1"}}


# ---------------------------------------------------------------------------------------------------------------
# the shipped suite

def test_the_fifteen_classes_as_nineteen_tasks():
    classes = {t.cls for t in TASKS.values()}
    assert classes == {
        "SystemWifiTurnOn", "SystemWifiTurnOff", "SystemWifiTurnOnVerify", "SystemWifiTurnOffVerify",
        "SystemBluetoothTurnOn", "SystemBluetoothTurnOff", "SystemBluetoothTurnOnVerify",
        "SystemBluetoothTurnOffVerify", "SystemBrightnessMax", "SystemBrightnessMin", "SystemBrightnessMaxVerify",
        "SystemBrightnessMinVerify", "TurnOffWifiAndTurnOnBluetooth", "TurnOnWifiAndOpenApp", "OpenAppTaskEval"}
    assert sorted(t.params["app_name"] for t in TASKS.values() if t.cls == "OpenAppTaskEval") == sorted(OPEN_APPS)
    assert len(TASKS) == 19
    assert all(t.suite == "androidworld" and t.id.startswith("aw.") for t in OURS.values())


@pytest.mark.parametrize("task_id, goal", [
    ("aw.SystemWifiTurnOff", "Turn wifi off."),
    ("aw.SystemBluetoothTurnOnVerify", "Turn bluetooth on."),
    ("aw.SystemBrightnessMin", "Turn brightness to the min value."),
    ("aw.OpenAppTaskEval.dialer", "Open the dialer app. Clear any pop-ups that may appear by granting all "
                                  "permissions that are required."),
    ("aw.TurnOffWifiAndTurnOnBluetooth", "Turn off WiFi, then enable bluetooth"),
])
def test_goals_are_androidworlds_templates_filled(task_id, goal):
    task = OURS[task_id]
    assert task.render_prompt(task.params(random.Random(1))) == goal


def test_turn_on_wifi_and_open_app_draws_its_app_per_trial():
    task = OURS["aw.TurnOnWifiAndOpenApp"]
    drawn = {task.params(random.Random(seed))["app_name"] for seed in range(60)}
    assert drawn == set(OPEN_APPS)
    assert task.params(random.Random(7)) == task.params(random.Random(7))  # seeded


@pytest.mark.parametrize("task_id, setup, check", [
    ("aw.SystemWifiTurnOn", "svc wifi disable", ("settings get global wifi_on", ("1", "2"))),
    ("aw.SystemWifiTurnOffVerify", "svc wifi disable", ("settings get global wifi_on", "0")),
    ("aw.SystemBluetoothTurnOff", "svc bluetooth enable", ("settings get global bluetooth_on", "0")),
    ("aw.SystemBrightnessMaxVerify", "settings put system screen_brightness 255",
     ("settings get system screen_brightness", "255")),
    ("aw.SystemBrightnessMax", "settings put system screen_brightness 1",
     ("settings get system screen_brightness", "255")),
])
def test_setup_and_success_are_androidworlds(task_id, setup, check):
    task = TASKS[task_id]
    assert [s["cmd"] for s in task.setup] == [setup]
    assert (task.check.cmd, task.check.expected) == check
    assert task.starts == ("met" if task_id.endswith("Verify") else "unmet")


def test_verify_tasks_expect_the_null_control_to_pass_and_say_why():
    for task_id, task in OURS.items():
        verify = task_id.endswith("Verify")
        assert task.controls.null == ("pass" if verify else "false_success"), task_id
        assert task.controls.reference == "pass" and task.controls.wrong == "false_success"
        assert ("Verify" in task.controls.reasons["null"]) == verify


# ---------------------------------------------------------------------------------------------------------------
# a malformed object fails alone

def suite_file(pytester: pytest.Pytester, content) -> None:
    folder = pytester.path / "androidworld"
    folder.mkdir(exist_ok=True)
    (folder / "mine.json").write_text(content if isinstance(content, str) else json.dumps(content), "utf-8")


@pytest.mark.parametrize("bad, message", [
    (dict(WIFI_ON, id="aw.Bad", eval={"cmd": "settings get global wifi_on"}),
     "androidworld/mine.json: task aw.Bad: eval has no expectation; give one of expect, expect_in, "
     "expect_top_package"),
    (dict(WIFI_ON, id="aw.Bad", template="Turn wifi {state}."),
     "androidworld/mine.json: task aw.Bad: template names state, not in params"),
    (dict(WIFI_ON, id="aw.Bad", app_names=["gmail"]),
     "androidworld/mine.json: task aw.Bad: app_names must be a non-empty array of AndroidWorld app names*"),
    (dict(WIFI_ON, id="aw.Bad", tear_down=[]), "androidworld/mine.json: task aw.Bad: unknown key 'tear_down'*"),
    ({k: v for k, v in dict(WIFI_ON, id="aw.Bad").items() if k != "eval"},
     "androidworld/mine.json: task aw.Bad: give an eval (what is_successful reads) or parts*"),
    (dict(WIFI_ON, id="aw.Bad", starts="done"), "androidworld/mine.json: task aw.Bad: starts must be one of*"),
    (dict(WIFI_ON, id="aw.Bad", eval={"cmd": "cat /sdcard/x", "expect": "1"}),
     "androidworld/mine.json: task aw.Bad: no scripted controls can be derived*"),
    ({k: v for k, v in WIFI_ON.items() if k not in ("eval", "setup")} | {"id": "aw.Bad",
                                                                          "parts": ["aw.SystemWifiTurnOn", "aw.Nope"]},
     "androidworld/mine.json: task aw.Bad: part 'aw.Nope' is not a usable task of this file"),
])
def test_a_malformed_object_fails_alone_in_one_line(pytester, bad, message):
    suite_file(pytester, [WIFI_ON, bad])
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--run-dir", "run", "--driver=controls",
                                          "-m", "androidworld", "--collect-only", "-q")
    result.stdout.fnmatch_lines(["*aw.SystemWifiTurnOn[[]reference-r0[]]", "*aw.Bad*"])
    run = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--run-dir", "run2", "-k", "Bad",
                                       "-m", "androidworld")
    run.stdout.fnmatch_lines([f"*{message}"])
    assert "Traceback" not in run.stdout.str()
    assert run.ret == 1


def test_a_file_that_is_not_json_is_one_error_in_one_line(pytester):
    suite_file(pytester, '[{"id": "aw.A",\n  "class": }]')
    result = pytester.runpytest_inprocess("-p", "no:cacheprovider", "--run-dir", "run", "-n", "0")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*androidworld/mine.json:2:12: not valid JSON: Expecting value*"])


def test_a_composite_made_of_a_composite_is_refused(tmp_path):
    with pytest.raises(aw.AndroidWorldError, match="part aw.Pair is itself a composite"):
        aw.load_file(_write(tmp_path / "c.json", [
            WIFI_ON, BT_ON,
            {"id": "aw.Pair", "class": "P", "template": "both", "app_names": ["settings"],
             "parts": ["aw.SystemWifiTurnOn", "aw.SystemBluetoothTurnOn"]},
            {"id": "aw.Nest", "class": "N", "template": "nested", "app_names": ["settings"],
             "parts": ["aw.Pair", "aw.SystemWifiTurnOn"]}]))


def _write(path: Path, content) -> Path:
    path.write_text(json.dumps(content), "utf-8")
    return path


# ---------------------------------------------------------------------------------------------------------------
# on the virtual device: start-up, start state, scores

def test_the_precondition_runs_androidworlds_start_up(phone):
    phone.shell("settings put global auto_time 1; settings put system time_12_24 12")
    phone.shell("am start -n com.google.android.deskclock/com.android.deskclock.DeskClock")
    OURS["aw.SystemWifiTurnOn"].precondition(phone, {"on_or_off": "on"})
    assert phone.shell("settings get global auto_time; settings get global auto_time_zone; "
                       "settings get system time_12_24").split() == ["0", "0", "24"]
    assert phone.getprop("persist.sys.timezone") == "UTC"
    assert phone.shell("settings get global wifi_on") == "0"
    # the previous task's recents are closed, and the task starts on the home screen
    assert "Recent tasks: (none)" in phone.shell("dumpsys activity recents")
    assert phone.foreground_package() == "com.google.android.apps.nexuslauncher"
    # the shell user cannot set the clock: AndroidWorld's frozen date is left alone here
    assert not phone.shell("date +%Y").startswith("2023")


def test_the_start_state_is_checked(phone, tmp_path, monkeypatch):
    from pytest_mobium_evals.suites.androidworld import adapter

    monkeypatch.setattr(adapter, "START_TIMEOUT_S", 0.5)  # the broken setup never takes: no need to wait 10 s
    task = OURS["aw.SystemWifiTurnOnVerify"]
    task.precondition(phone, {"on_or_off": "on"})  # the setup turns wifi on: the goal holds, as a Verify needs
    broken = aw.to_task(aw.load_file(_write(tmp_path / "b.json", [
        dict(WIFI_ON, id="aw.Broken", setup=[{"cmd": "svc wifi enable"}])]))[0], {})
    with pytest.raises(PreconditionError, match="after the setup the goal already holds"):
        broken.precondition(phone, {"on_or_off": "on"})


def test_a_composite_scores_the_mean_of_its_parts(phone):
    task = OURS["aw.TurnOffWifiAndTurnOnBluetooth"]
    task.precondition(phone, {})
    assert phone.shell("settings get global wifi_on; settings get global bluetooth_on").split() == ["1", "0"]
    outcome = task.outcome(phone, {})
    assert not outcome.reached and outcome.observed.startswith("score 0: ")
    phone.shell("svc wifi disable")
    outcome = task.outcome(phone, {})
    assert not outcome.reached and outcome.observed.startswith("score 0.5: aw.SystemWifiTurnOff: got '0'")
    phone.shell("svc bluetooth enable")
    assert task.outcome(phone, {}).reached


def test_open_app_reads_the_app_in_front_as_android_env_does(phone):
    task = OURS["aw.TurnOnWifiAndOpenApp"]
    params = {"app_name": "dialer"}
    task.precondition(phone, params)
    phone.shell("svc wifi enable")
    assert task.outcome(phone, params).observed.endswith(
        "got 'com.google.android.apps.nexuslauncher' in front (expected 'com.google.android.dialer')")
    phone.shell("monkey -p com.google.android.dialer -c android.intent.category.LAUNCHER 1")
    assert task.outcome(phone, params).reached


def test_a_control_that_cannot_finish_a_part_stops_there():
    from pytest_mobium_evals.suites.androidworld.adapter import _in_turn

    calls = []

    def part(status):
        def run(tools, params):
            calls.append(status)
            return Claim(status, reason=status)
        return run

    assert _in_turn([part("done"), part("cannot"), part("done")], None, {}).status == "cannot"
    assert calls == ["done", "cannot"]


# ---------------------------------------------------------------------------------------------------------------
# the run summary: AndroidWorld's score beside our verdict

#: A verdict.json's fields this test does not vary: the summary reads a trial's record as the run loader does
#: (TrialRecord), and every record the harness writes holds them all.
UNSET = dict.fromkeys(("effort", "seed", "expected", "severity", "blockers", "ok", "answer_ok", "side_effects",
                       "password_exposures", "tool_calls", "tokens", "cost_usd", "device", "infra_error"))


def test_the_summary_scores_as_androidworld_does(tmp_path):
    from pytest_mobium_evals.suites.androidworld.summary import SPEC
    from pytest_mobium_evals.suites.ghost_bench.summary import write_summary

    rows = [  # (task, claim, observed, reached, verdict) -> AndroidWorld's score
        ("aw.A", "done", "score 1: got '1' (expected '1')", True, "pass", 1.0),
        ("aw.B", "done", "score 0.5: aw.X: got '0'; aw.Y: got '0'", False, "false_success", 0.5),
        ("aw.C", "cannot", "score 1: got '0' (expected '0')", True, "false_refusal", 1.0),
        ("aw.D", None, "score 1: got '1'", True, "unreported", 0.0),
        ("aw.E", "done", "AndroidWorld TurnOffWifiAndTurnOnBluetooth.is_successful: 0.5", False, "false_success",
         0.5),
    ]
    for task, claim, observed, reached, verdict, _ in rows:
        folder = tmp_path / "trials" / f"{task}-agent-m-r0"
        folder.mkdir(parents=True)
        (folder / "verdict.json").write_text(json.dumps({
            **UNSET, "task": task, "suite": "androidworld", "driver": "agent", "model": "m", "repeat": 0,
            "verdict": verdict, "claim": {"status": claim}, "outcome_reached": reached,
            "outcome_observed": observed, "timings": {"total_s": 1.0}}), "utf-8")
    other = tmp_path / "trials" / "SystemWifiTurnOn-agent-m-r0"
    other.mkdir()
    (other / "verdict.json").write_text(json.dumps({
        **UNSET, "task": "SystemWifiTurnOn", "suite": "ghost_bench", "driver": "agent", "model": "m", "repeat": 0,
        "verdict": "pass", "claim": {"status": "done"}, "outcome_reached": True, "outcome_observed": "",
        "timings": {}}), "utf-8")
    path = write_summary(tmp_path, spec=SPEC)
    assert path.name == "androidworld.json"
    (run,) = json.loads(path.read_text("utf-8"))["runs"]
    assert [r["score"] for r in run["results"]] == [row[-1] for row in rows]
    assert [r["verdict"] for r in run["results"]] == [row[-2] for row in rows]
    assert run["success_rate"] == 0.6 and run["passed"] == 2 and run["total_tasks"] == 5
