"""t49 crash-message: a crash test of the Crash Demo: log a line, crash the app with its JavaScript error, report
the error message Android recorded for that crash, and leave the app running again on its home menu.

The message is on no screen: the app dies before it could show it, and its own log line just before the throw
("throwing now") is not it. Only Android's crash record (app_crashes, DropBox) carries it."""

from __future__ import annotations

import re

from pytest_mobium_evals.core import answers
from pytest_mobium_evals.core.tasks import Claim, Controls, JudgeSpec, LabelledAnswer, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .hard import mark_log
from .suite import APP, mobiumapp, open_screen

#: The error the Crash Demo throws, as Android's crash record carries it ("…JavascriptException: Error: <it>").
CRASH_ERROR = "mobium-crash-control: an unhandled JavaScript error"
#: What the app logs (ReactNativeJS) just before it throws: on the way to the crash, not the crash.
THROWING_NOW = "mobium-crash-control: throwing now"
LOG_LINE = "mobium-log-control #"
# Where the precondition leaves the newest crash record of MobiumApp DropBox already held (its time in ms, 0 for none),
# so the outcome counts only this trial's crash among those DropBox keeps from every earlier one. A start time in
# seconds would not do: the trial before, on the same device, can crash and log within the same second.
START_FILE = "/data/local/tmp/mobium-evals-t49-start"
# A line the precondition writes to the device log: the Crash Demo's lines after the last of these are this trial's.
MARK_TAG, MARK = "mobium-evals", "t49 trial starts"  # the tag hard.mark_log writes under
SEPARATOR = "=" * 40
JS_ERROR = re.compile(r"JavascriptException: Error: (.*?)(?:, stack:|$)", re.M)


# ---- script steps, through the MCP tools -------------------------------------------------------------------------

def _crash_test(tools: Tools, *, log_first: bool = True) -> None:
    """Open the Crash Demo, check a logged line reaches the device log, crash the app, and see it gone (closing
    Android's "keeps stopping" dialog, which a crash soon after another raises)."""
    open_screen(tools, "Crash Demo")
    if log_first:
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


def _recorded(tools: Tools, *, log_first: bool = True) -> Claim:
    before = tools.call("app_crashes", app=APP, limit=1).data["crashes"]
    _crash_test(tools, log_first=log_first)
    newest = tools.call("app_crashes", app=APP, limit=1).data["crashes"]
    if not newest or newest[:1] == before[:1]:
        raise AssertionError(f"no new crash recorded for {APP}: {newest}")
    report = tools.call("app_crashes", id=newest[0]["id"]).text
    m = JS_ERROR.search(report)
    _relaunch(tools)
    return Claim("done", m.group(1) if m else report.split("\n\n", 1)[-1].splitlines()[0],
                 f"Android's crash record {newest[0]['id']}")


def ref_t49(tools: Tools, params: dict) -> Claim:
    return _recorded(tools)


def near_t49_no_log(tools: Tools, params: dict) -> Claim:
    """Goes straight to the crash: the message read from the crash record is right, but the check that logging
    works, which the crash test starts with, was never made."""
    return _recorded(tools, log_first=False)


def wrong_t49(tools: Tools, params: dict) -> Claim:
    """Takes the app's own last error line before it died for the crash's message: read in the device log, not
    in Android's crash record."""
    _crash_test(tools)
    lines = tools.call("app_logs", app=APP, level="error", lines=200).data["entries"]
    said = [e["message"] for e in lines if e["tag"] == "ReactNativeJS"]
    _relaunch(tools)
    return Claim("done", said[-1] if said else "", "the app's last error line in the device log")


# ---- the harness's reads, over ADB -------------------------------------------------------------------------------

def _crash_records(device) -> list[tuple[int, str]]:
    """Each crash of MobiumApp DropBox holds, as (its time in ms, its JavaScript error), oldest first."""
    found = []
    for block in device.shell("dumpsys dropbox -p -f data_app_crash").split(SEPARATOR + "\n")[1:]:
        lines = block.split("\n")
        m = re.match(r"/data/system/dropbox/data_app_crash@(\d+)\.", lines[1].strip()) if len(lines) > 2 else None
        if m is None or f"Process: {APP}" not in lines:
            continue
        error = JS_ERROR.search("\n".join(lines[2:]))
        found.append((int(m.group(1)), error.group(1) if error else ""))
    return found


def pre_t49(device, params) -> None:
    newest = max((ms for ms, _ in _crash_records(device)), default=0)
    device.shell(f"echo {newest} > {START_FILE}")
    mark_log(device, MARK)


def _start(device) -> int | None:
    """The newest earlier crash's time the precondition left, or None when it is gone (nothing to count from)."""
    out = device.shell(f"cat {START_FILE}").strip()
    return int(out) if out.isdigit() else None


def recorded_errors(device, after_ms: int) -> list[str]:
    """The JavaScript error of each crash of MobiumApp DropBox recorded after `after_ms`, oldest first."""
    return [error for ms, error in _crash_records(device) if ms > after_ms]


def logged_this_trial(device) -> bool:
    """Whether the Crash Demo logged a line (its `mobium-log-control #N`) after the precondition's mark."""
    rows = device.shell(f"logcat -d -s ReactNativeJS:E {MARK_TAG}:I").splitlines()
    marks = [i for i, row in enumerate(rows) if row.rstrip().endswith(MARK)]
    return bool(marks) and any(LOG_LINE in row for row in rows[marks[-1] + 1:])


_MESSAGE = answers.app_message("crash_error", CRASH_ERROR, competing=(THROWING_NOW,))
# A sentence that gives the app's last log line as its log line ("it logged … just before") names it as what it is,
# not as the crash's message.
_AS_LOGGED = re.compile(r"\b(logged|logs|log line|log said|just before|before it)\b")
_THROWING = answers.normalize(THROWING_NOW)


def _crash_error(answer: str, context: answers.AnswerContext) -> bool:
    sentences = re.split(r"[.!?;][\"')]*\s+|\n", answer)
    kept = [x.replace(_THROWING, "the log line") if _AS_LOGGED.search(x) else x for x in sentences]
    return _MESSAGE(" ; ".join(kept), context)


ANSWER = answers.AnswerRule("crash_error", _MESSAGE.accepts, _crash_error, rivals=_MESSAGE.rivals)
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
        LabelledAnswer(f"{CRASH_ERROR}, or {THROWING_NOW}", False, "the log line beside it, as another candidate"),
        LabelledAnswer(f"It was either {THROWING_NOW} or {CRASH_ERROR}.", False, "two candidates, one of them wrong"),
        LabelledAnswer(f"{CRASH_ERROR} (not {THROWING_NOW}, which is only the log line)", True,
                       "the log line named only to deny it"),
    ))


@mobiumapp(id="t49", reference=ref_t49, wrong=wrong_t49, tier="hard", slug="crash-message", answer=ANSWER,
           judge=JUDGE, precondition=pre_t49,
           aims_at="a fact no tool states but one: the JavaScript error's message is on no screen and not in the "
                   "app's own last log line; only Android's crash record, read with app_crashes, carries it",
           prompt="Run a crash test of MobiumApp: in its Crash Demo, log one line first to check that logging "
                  "works, then crash the app with its JavaScript error button. Tell me the exact error message "
                  "Android recorded for that crash, then start MobiumApp again and leave it on its home screen.",
           controls=Controls(reasons={"wrong": f"reports the app's last log line before the throw "
                                               f"('{THROWING_NOW}') as the crash's message"}),
           near_misses=(
               NearMiss("no-log-line", script=near_t49_no_log, verdict="false_success",
                        why="the right message from the crash record, but the crash test's first step (a line "
                            "logged to check logging works) was skipped: no such line since the trial began"),
           ),
           grader_history=(
               (5, f"an answer that gave the log line ('{THROWING_NOW}') beside the recorded message as another "
                   "candidate passed: the rule knew no rival; the log line is now a competing message, unless a "
                   "sentence names it as the log line or denies it"),
               (3, "crashing without first logging a line passed or failed by when it ran: 'since' was a start "
                   "time in whole seconds, and the trial before's log line in the same second counted; the log "
                   "line now counts only after a mark the precondition writes, and a crash only when newer than "
                   "the newest record at the start"),
               (8, "a start file gone read as 0, 'since the epoch'; it is now no start, and nothing is counted"),
           ))
def test_t49_crash_message(device, params) -> Outcome:
    since = _start(device)
    errors = recorded_errors(device, since) if since is not None else []
    logged = logged_this_trial(device)
    home = device.foreground_package() == APP and device.find("homeList") is not None
    ok = since is not None and CRASH_ERROR in errors and logged and home
    return Outcome(ok, observed=errors[-1] if errors else "")
