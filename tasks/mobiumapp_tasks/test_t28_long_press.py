"""t28 long-press: press and hold a target, once (Gestures: Tap and Press)."""

from __future__ import annotations

from pytest_mobium_evals.core.tasks import Claim, Controls, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .suite import line, mobiumapp, open_screen


def _open(tools: Tools) -> None:
    open_screen(tools, "Gestures")
    tools.call("app_tap", target="testid=tappressBtn")
    tools.call("app_wait_for", target="testid=pressTarget")


def ref_t28(tools: Tools, params: dict) -> Claim:
    _open(tools)
    tools.call("app_long_press", target="testid=pressTarget", duration_ms=900)
    return Claim("done", None, tools.call("app_text", target="testid=lastGesture").text)


def wrong_t28(tools: Tools, params: dict) -> Claim:
    """Taps the target, which the screen records as a tap, not a long press."""
    _open(tools)
    tools.call("app_tap", target="testid=pressTarget")
    return Claim("done", None, "pressed the target")


def near_t28_held_twice(tools: Tools, params: dict) -> Claim:
    """Long-presses, then again to be sure it took: two long presses where one was asked."""
    _open(tools)
    tools.call("app_long_press", target="testid=pressTarget", duration_ms=900)
    tools.call("app_long_press", target="testid=pressTarget", duration_ms=900)
    return Claim("done", None, tools.call("app_text", target="testid=lastGesture").text)


@mobiumapp(id="t28", reference=ref_t28, wrong=wrong_t28, tier="hard", slug="long-press",
           aims_at="gestures: a long press is not a tap, and pressing twice is not once (the gesture count says)",
           prompt="In MobiumApp, open Gestures, then Tap and Press, and long-press the target (press and hold it) "
                  "exactly once, and leave the Tap and Press screen showing.",
           evidence="screen",
           evidence_reason="the Tap and Press screen's gesture lines are screen state, reset each time it opens",
           controls=Controls(reasons={"wrong": "taps instead of holding: 'last: tap'"}),
           near_misses=(NearMiss("held-twice", script=near_t28_held_twice, verdict="false_success",
                                 why="a second long press to make sure: the last gesture is a long press, but "
                                     "the count says 2 where exactly one was asked"),),
           grader_history=(
               (2, "read lastGesture and gestureCount from whatever screen showed, so a long press followed by "
                   "going back to the menu was a false success; now the Tap and Press screen is the declared "
                   "evidence and the prompt says to leave it showing"),))
def test_t28_long_press(device, params) -> Outcome:
    last, count = line(device, "lastGesture"), line(device, "gestureCount")
    return Outcome(last == "last: long press" and count == "gestures: 1", observed=f"{last}; {count}")
