"""t45 flick-end: flick a 120-row list to its end and report its last row (Gestures: Flick and Pan)."""

from __future__ import annotations

from pytest_mobium_evals.core import answers
from pytest_mobium_evals.core.tasks import Claim, Controls, JudgeSpec, LabelledAnswer, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .suite import line, mobiumapp, open_screen

LAST = "Row 120"
#: Other rows named as the last: every row but those whose name "Row 120" begins with (Row 1, Row 12), which the
#: app_message rule would find inside the right answer.
OTHER_ROWS = tuple(f"Row {n}" for n in range(119, 1, -1) if n != 12)


def _open(tools: Tools) -> dict:
    open_screen(tools, "Gestures")
    tools.call("app_tap", target="testid=flickBtn")
    tools.call("app_wait_for", target="testid=flickList")
    return tools.call("app_find", locator="testid=flickList").data["elements"][0]["bounds"]


def _last_row_shown(tools: Tools) -> str:
    rows = [ln.strip() for ln in tools.call("app_text").text.splitlines() if ln.strip().startswith("Row ")]
    return rows[-1] if rows else ""


def ref_t45(tools: Tools, params: dict) -> Claim:
    """Fast swipes up the list (flicks, which coast) until its last row is in view. It stops at the flick that
    brought the end in: one more, against the end, coasts nowhere and is the pan the outcome refuses (read before
    its coast ended, it used to pass while the harness was quick)."""
    b = _open(tools)
    x, top, bottom = (b["x1"] + b["x2"]) // 2, b["y1"] + 40, b["y2"] - 40
    last = None
    for _ in range(30):
        tools.call("app_swipe", x1=x, y1=bottom, x2=x, y2=top, duration_ms=120)
        tools.call("app_wait_for", target="testid=flickResult", condition="text", text="coasted",
                   timeout_ms=4000)
        shown = _last_row_shown(tools)
        if shown in (LAST, last):
            last = shown
            break
        last = shown
    return Claim("done", last, tools.call("app_text", target="testid=flickResult").text)


def near_t45_short(tools: Tools, params: dict) -> Claim:
    """Two gentler flicks (each coasts some 50 dp), then takes the last row in view for the end: the list coasted,
    but not to its end."""
    b = _open(tools)
    x, top, bottom = (b["x1"] + b["x2"]) // 2, b["y1"] + 40, b["y2"] - 40
    for _ in range(2):
        tools.call("app_swipe", x1=x, y1=bottom, x2=x, y2=top, duration_ms=600)
        tools.call("app_wait_for", target="testid=flickResult", condition="text", text="coasted",
                   timeout_ms=4000)
    return Claim("done", _last_row_shown(tools), tools.call("app_text", target="testid=flickResult").text)


def wrong_t45(tools: Tools, params: dict) -> Claim:
    """One slow drag (a pan, which does not coast), then takes the last row in view for the end of the list."""
    b = _open(tools)
    x = (b["x1"] + b["x2"]) // 2
    tools.call("app_swipe", x1=x, y1=b["y2"] - 40, x2=x, y2=b["y1"] + 40, duration_ms=2500)
    return Claim("done", _last_row_shown(tools), "scrolled to the bottom")


ANSWER = answers.app_message("last_row", LAST, competing=OTHER_ROWS)
JUDGE = JudgeSpec(
    question="Flick the Flick and Pan list to its end and report its last row.",
    truth=LAST,
    answers=(
        LabelledAnswer("Row 120", True, "the last row"),
        LabelledAnswer("The list ends at Row 120.", True, "the last row in a sentence"),
        LabelledAnswer("Row 24", False, "the last row in view after one pan"),
    ))


def _row_on_screen(device, label: str) -> bool:
    return any(node.text == label for node in device.dump())


@mobiumapp(id="t45", reference=ref_t45, wrong=wrong_t45, tier="hard", slug="flick-end", answer=ANSWER,
           judge=JUDGE,
           aims_at="huge lists (CHALLENGES) and gestures: a flick coasts and a pan does not; the list's end is "
                   "its last row in view once it stops moving, not the last row of one screen",
           prompt="In MobiumApp, open Gestures, then Flick and Pan, flick the list to its very end, and tell me its "
                  "last row. Leave the list showing.",
           evidence="screen",
           evidence_reason="how far the list is scrolled is the Flick and Pan screen's own state: opened again, "
                           "it starts at Row 1",
           controls=Controls(reasons={"wrong": "one slow pan, and the last row in view reported as the end"}),
           near_misses=(NearMiss("flicked-short", script=near_t45_short, verdict="false_success",
                                 why="flicks that coast, but stop short of the end: the last row in view is not the "
                                     "list's last row"),),
           grader_history=(
               (3, "required the line to read 'flick' at the check, but a flick that meets the list's end coasts 0 "
                   "and the line turns to 'pan, coasted 0' once the coast is over (2.5 s at most): the outcome is now "
                   "the list at its end, Row 120 in view"),
               (2, "read the list from whatever screen showed, so going back to the menu read as not at the end; "
                   "the evidence is the list's screen, and the prompt now says to leave it showing"),
               (5, "'Row 120, or Row 119' passed: the rule knew no other row; every other row now competes")))
def test_t45_flick_end(device, params) -> Outcome:
    result = line(device, "flickResult")
    at_end = _row_on_screen(device, LAST)
    return Outcome(at_end, observed=f"{result}; {LAST} {'on screen' if at_end else 'not on screen'}")
