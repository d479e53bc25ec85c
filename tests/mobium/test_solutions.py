"""Each MobiumApp task's reference solution reaches its outcome through the MCP tools alone, and its wrong driver
does not. Outcomes are read back from the device over ADB (the app's own lines, settings), never from the claim."""

from __future__ import annotations

import re

import adbutils
import mobiumapp_solutions as sol
import pytest

APP = "dev.mobium.mobiumapp"

PARAMS = {
    "t01": {"username": "mobium", "password": "hunter2"},
    "t02": {"password": "wrongpass1"},
    "t03": {"already": "terms", "plan": "team"},
    "t04": {},
    "t05": {"volume": 70},
    "t06": {"saves": 2},
    "t07": {"card": 8},
    "t08": {},
    "t09": {},
    "t10": {},
    "t11": {"choice": "Stay"},
    "t12": {},
    "t13": {},
    "t14": {},
    "t15": {},
    "t16": {"note": "buy milk"},
    "t17": {},
    "t18": {"text": "Ada Lovelace", "email": "ada@example.com"},
    "t19": {"text": "hello"},
    "t20": {"card": "4242 4242"},
    "t21": {},
    "t22": {},
    "t23": {},
}


def adb(sim_server):
    return adbutils.AdbClient("127.0.0.1", sim_server.port).device(sim_server.serials[0])


def line(tools, testid: str) -> str:
    """An outcome line as the app wrote it, scrolling it into view when the screen is long ('' when absent)."""
    for direction in (None, "up", "down"):
        if direction and tools.call("app_scroll_to", target=f"testid={testid}", direction=direction,
                                    check=False).is_error:
            continue
        if tools.call("app_find", locator=f"testid={testid}").data["elements"]:
            return tools.call("app_text", target=f"testid={testid}").text
    return ""


def precondition(tools, task: str, params: dict) -> None:
    if task == "t06":
        tools.call("app_tap", target="testid=storageBtn")
        for _ in range(params["saves"]):
            tools.call("app_tap", target="testid=saveOneMoreBtn")
        tools.call("app_launch", app=APP)
        tools.call("app_press", button="back")
        tools.call("app_launch", app=APP)


def outcome(tools, sim_server, task: str, params: dict) -> bool:
    if task == "t01":
        return line(tools, "welcomeText") == "Welcome, mobium!"
    if task == "t02":
        return line(tools, "loginError") == "Incorrect username or password."
    if task == "t03":
        return line(tools, "formState") == sol.t03_state_line(params)
    if task == "t04":
        return "terms=false" in line(tools, "formState")
    if task == "t05":
        return line(tools, "sliderState").startswith(f"volume: {params['volume']},")
    if task == "t06":
        tools.call("app_launch", app=APP)
        return "stored: 0" == line(tools, "storedCount")
    if task == "t07":
        return line(tools, "pagerTapped") == f"tapped: Card {params['card']}"
    if task == "t08":
        return line(tools, "feedState").startswith("rows: 60, end")
    if task == "t09":
        return line(tools, "busyOutcome") == "row B, generation 2: current"
    if task == "t10":
        return line(tools, "dialogOutcome") == "three-button: Don't Save"
    if task == "t11":
        return line(tools, "dialogOutcome") == f"late: {params['choice']}"
    if task == "t12":
        out = adb(sim_server).shell(f"dumpsys package {APP}")
        fine = re.search(r"ACCESS_FINE_LOCATION: granted=(\w+), flags=\[([^\]]*)\]", out)
        return bool(fine) and fine.group(1) == "true" and "ONE_TIME" not in fine.group(2)
    if task in ("t13", "t14", "t15"):
        got = line(tools, "obstructionOutcome")
        return {"t13": got == "0: nothing yet", "t14": got.endswith("target passTarget"),
                "t15": got.endswith("target toastTarget")}[task]
    if task == "t16":
        return line(tools, "dialogOutcome") == "pinned button: tapped" and \
            line(tools, "coverField") == params["note"]
    if task == "t17":
        return line(tools, "otpOutcome") == "verified" and re.fullmatch(r"entered: \d{6}", line(tools, "otpEntered"))
    if task == "t18":
        return f"mirror: {params['text']}" in tools.call("app_text").text and \
            params["email"] in tools.call("app_text").text
    if task == "t19":
        return line(tools, "readOnlyField") == "This field cannot be edited"
    if task == "t20":
        return f"typed: {params['card']}" in tools.call("app_text").text
    if task == "t21":
        return adb(sim_server).shell("cmd uimode night").strip() == "Night mode: yes"
    if task == "t22":
        return True
    if task == "t23":
        return line(tools, "audioState").startswith("finished: 440 Hz 2 s, silence 1 s, 880 Hz 2 s")
    raise AssertionError(task)


def right_answer(task: str, claim, sim_server) -> bool:
    if task == "t02":
        return claim.answer == "Incorrect username or password."
    if task == "t06":
        return claim.answer is not None and "stored: 0" in claim.answer
    if task == "t08":
        return claim.answer == "60"
    if task == "t22":
        release = adb(sim_server).getprop("ro.build.version.release")
        return claim.answer == f"Android {release}"
    if task == "t23":
        return claim.answer == "440 Hz and 880 Hz"
    return True


REFUSALS = {"t13", "t19"}
TASKS = sorted(PARAMS)


@pytest.mark.parametrize("task", TASKS)
def test_reference_reaches_the_outcome(fresh, sim_server, task):
    params = PARAMS[task]
    precondition(fresh, task, params)
    claim = sol.REFERENCE[task](fresh, params)
    assert claim.status == ("cannot" if task in REFUSALS else "done"), claim
    assert outcome(fresh, sim_server, task, params), claim
    assert right_answer(task, claim, sim_server), claim


@pytest.mark.parametrize("task", TASKS)
def test_wrong_driver_fails(fresh, sim_server, task):
    params = PARAMS[task]
    precondition(fresh, task, params)
    clock = sim_server.device(sim_server.serials[0]).clock
    speed = clock.speed
    if task == "t09":
        # Its stale tap races a quiet refresh of 0.4-1.6 s, 0.1-0.4 s real at this clock speed: a loaded host can
        # let the refresh land first. Held still, the clock keeps the old generation up for the whole driver.
        clock.speed = 1e-6
    try:
        claim = sol.WRONG[task](fresh, params)
    finally:
        clock.speed = speed
    reached = outcome(fresh, sim_server, task, params)
    if task in REFUSALS:
        # A refusal task's wrong driver acts and claims done: the claim, not the screen, is what is wrong.
        assert claim.status == "done"
    elif task == "t14":
        assert claim.status == "cannot" and not reached
    elif task in ("t02", "t06", "t08", "t22"):
        assert not (reached and right_answer(task, claim, sim_server)), claim
    else:
        assert claim.status == "done" and not reached, claim


def test_solution_tables_cover_every_task():
    assert sorted(sol.REFERENCE) == sorted(sol.WRONG) == sorted(sol.PARAMS) == [f"t{n:02d}" for n in range(1, 24)]
