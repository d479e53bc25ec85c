"""t49 crash-message: a crash test of the Crash Demo: log a line, crash the app with its JavaScript error, report
the error message Android recorded for that crash, and leave the app running again on its home menu.

The message is on no screen: the app dies before it could show it, and its own log line just before the throw
("throwing now") is not it. Only Android's crash record (app_crashes, DropBox) carries it."""

from __future__ import annotations

import re

from mobiumapp import APP, mobiumapp, open_screen

from pytest_mobium_evals import answers
from pytest_mobium_evals.tasks import Claim, Controls, JudgeSpec, LabelledAnswer, Outcome
from pytest_mobium_evals.toolserver import Tools

#: The error the Crash Demo throws, as Android's crash record carries it ("…JavascriptException: Error: <it>").
CRASH_ERROR = "mobium-crash-control: an unhandled JavaScript error"
#: What the app logs (ReactNativeJS) just before it throws: on the way to the crash, not the crash.
THROWING_NOW = "mobium-crash-control: throwing now"
LOG_LINE = "mobium-log-control #"
# Where the precondition leaves the trial's start (the device's epoch seconds), so the outcome finds this trial's
# crash among the records DropBox keeps from every earlier one.
START_FILE = "/data/local/tmp/mobium-evals-t49-start"
SEPARATOR = "=" * 40
JS_ERROR = re.compile(r"JavascriptException: Error: (.*?)(?:, stack:|$)", re.M)


# ---- script steps, through the MCP tools -------------------------------------------------------------------------

def _crash_test(tools: Tools) -> None:
    """Open the Crash Demo, check a logged line reaches the device log, crash the app, and see it gone (closing
    Android's "keeps stopping" dialog, which a crash soon after another raises)."""
    open_screen(tools, "Crash Demo")
    tools.call("app_tap", target="testid=logLineBtn")
    tools.call("app_wait_for", target="testid=loggedCount", condition="text", text="logged: 1", exact=True)
    logged = tools.call("app_logs", app=APP, level="error", lines=20).data["entries"]
    if not any(e["message"].startswith(LOG_LINE) for e in logged):
        raise AssertionError(f"the logged line is not in the device log: {logged}")
    tools.call("app_tap", target="testid=crashJsBtn")
    state = tools.call("app_state", app=APP).data["state"]
    if state != "not_running":
        raise AssertionError(f"MobiumApp survived its crash button: {state}")
    if "keeps stopping" in tools.call("app_alert").text:
        tools.call("app_tap", target="text=Close app")


def _relaunch(tools: Tools) -> None:
    tools.call("app_launch", app=APP)
    tools.call("app_wait_for", target="testid=homeList")


def ref_t49(tools: Tools, params: dict) -> Claim:
    before = tools.call("app_crashes", app=APP, limit=1).data["crashes"]
    _crash_test(tools)
    newest = tools.call("app_crashes", app=APP, limit=1).data["crashes"]
    if not newest or newest[:1] == before[:1]:
        raise AssertionError(f"no new crash recorded for {APP}: {newest}")
    report = tools.call("app_crashes", id=newest[0]["id"]).text
    m = JS_ERROR.search(report)
    _relaunch(tools)
    return Claim("done", m.group(1) if m else report.split("\n\n", 1)[-1].splitlines()[0],
                 f"Android's crash record {newest[0]['id']}")


def wrong_t49(tools: Tools, params: dict) -> Claim:
    """Takes the app's own last error line before it died for the crash's message: read in the device log, not
    in Android's crash record."""
    _crash_test(tools)
    lines = tools.call("app_logs", app=APP, level="error", lines=200).data["entries"]
    said = [e["message"] for e in lines if e["tag"] == "ReactNativeJS"]
    _relaunch(tools)
    return Claim("done", said[-1] if said else "", "the app's last error line in the device log")


# ---- the harness's reads, over ADB -------------------------------------------------------------------------------

def pre_t49(device, params) -> None:
    device.shell(f"date +%s > {START_FILE}")


def _start(device) -> int:
    out = device.shell(f"cat {START_FILE}").strip()
    return int(out) if out.isdigit() else 0


def recorded_errors(device, since_s: int) -> list[str]:
    """The JavaScript error of each crash of MobiumApp DropBox recorded at or after `since_s`, oldest first."""
    found = []
    for block in device.shell("dumpsys dropbox -p -f data_app_crash").split(SEPARATOR + "\n")[1:]:
        lines = block.split("\n")
        m = re.match(r"/data/system/dropbox/data_app_crash@(\d+)\.", lines[1].strip()) if len(lines) > 2 else None
        if m is None or int(m.group(1)) < since_s * 1000 or f"Process: {APP}" not in lines:
            continue
        error = JS_ERROR.search("\n".join(lines[2:]))
        found.append(error.group(1) if error else "")
    return found


def logged_since(device, since_s: int) -> bool:
    """Whether the Crash Demo logged a line (its `mobium-log-control #N`) at or after `since_s`."""
    for row in device.shell("logcat -d -v epoch -s ReactNativeJS:E").splitlines():
        m = re.match(r"\s*(\d+)\.\d+\s.*: (.*)$", row)
        if m and int(m.group(1)) >= since_s and m.group(2).startswith(LOG_LINE):
            return True
    return False


ANSWER = answers.app_message("crash_error", CRASH_ERROR)
JUDGE = JudgeSpec(
    question="Crash MobiumApp's Crash Demo with its JavaScript error and report the error message Android "
             "recorded for that crash.",
    truth=CRASH_ERROR,
    answers=(
        LabelledAnswer(CRASH_ERROR, True, "the recorded message"),
        LabelledAnswer(f"Android recorded com.facebook.react.common.JavascriptException: Error: {CRASH_ERROR}, "
                       "stack: anonymous@1:734084", True, "the whole exception line, message included"),
        LabelledAnswer(f'The crash report says "Error: {CRASH_ERROR}." The app logged "{THROWING_NOW}" just '
                       "before.", True, "the message, with the log line before it named as such"),
        LabelledAnswer(THROWING_NOW, False, "the app's log line before the throw, not the recorded error"),
        LabelledAnswer("The app crashed with an unhandled JavaScript error.", False,
                       "a description, not the recorded message"),
    ))


@mobiumapp(id="t49", reference=ref_t49, wrong=wrong_t49, tier="hard", slug="crash-message", answer=ANSWER,
           judge=JUDGE, precondition=pre_t49,
           aims_at="a fact no tool states but one: the JavaScript error's message is on no screen and not in the "
                   "app's own last log line; only Android's crash record, read with app_crashes, carries it",
           prompt="Run a crash test of MobiumApp: in its Crash Demo, log one line first to check that logging "
                  "works, then crash the app with its JavaScript error button. Tell me the exact error message "
                  "Android recorded for that crash, then start MobiumApp again and leave it on its home screen.",
           controls=Controls(reasons={"wrong": f"reports the app's last log line before the throw "
                                               f"('{THROWING_NOW}') as the crash's message"}))
def test_t49_crash_message(device, params) -> Outcome:
    since = _start(device)
    errors = recorded_errors(device, since)
    logged = logged_since(device, since)
    home = device.foreground_package() == APP and device.find("homeList") is not None
    ok = bool(since) and CRASH_ERROR in errors and logged and home
    return Outcome(ok, observed=errors[-1] if errors else "")
