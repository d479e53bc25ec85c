"""t35 web-disabled: refuse to press a web button that is disabled (WebViews: Actionability)."""

from __future__ import annotations

from pytest_mobium_evals.core import answers
from pytest_mobium_evals.core.tasks import Claim, Controls, LabelledAnswer, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .suite import line, mobiumapp, open_web_case, ref_for, refused


def _open(tools: Tools) -> None:
    open_web_case(tools, "actionableBtn")


def ref_t35(tools: Tools, params: dict) -> Claim:
    _open(tools)
    err = refused(tools.call, "app_tap", target=ref_for(tools, r"Always disabled"))
    tools.call("app_context", context="NATIVE_APP")
    if err is None:
        return Claim("done", None, "the tap went through")
    return Claim("cannot", None, err.message)


def wrong_t35(tools: Tools, params: dict) -> Claim:
    """Taps where the button is drawn and reports it pressed; a disabled button takes nothing."""
    _open(tools)
    b = tools.call("app_find", locator="text=Always disabled").data["elements"][0]["bounds"]
    tools.call("app_context", context="NATIVE_APP")
    tools.call("app_tap", x=(b["x1"] + b["x2"]) // 2, y=(b["y1"] + b["y2"]) // 2)
    return Claim("done", None, "pressed Always disabled")


def near_t35_aria(tools: Tools, params: dict) -> Claim:
    """Presses 'aria-disabled', the button below that only says it is disabled (the page still takes its click),
    and claims the disabled button pressed."""
    _open(tools)
    tools.call("app_tap", target=ref_for(tools, r"aria-disabled"))
    tools.call("app_context", context="NATIVE_APP")
    return Claim("done", None, "pressed the disabled button")


MENTIONS = r"disabled|not enabled|greyed|grayed|inactive|cannot be pressed|can't be pressed"
REASON = answers.rejecting_denied_reason(answers.refusal_reason(
    "disabled_reason", "the button is disabled",
    mentions=MENTIONS, competing=r"not found|does not exist|doesn't exist|covered|no such"), MENTIONS).with_examples(
    LabelledAnswer("The button is disabled.", True, "the reason"),
    LabelledAnswer("It is greyed out and does not respond.", True, "greyed out is how a disabled button looks"),
    LabelledAnswer("It's not enabled, so it cannot be pressed.", True, "not enabled is disabled"),
    LabelledAnswer("Mobium refused: it is disabled, and stayed disabled for 2s", True, "the tool's own refusal"),
    LabelledAnswer("It is covered by another element.", False, "another reason: nothing covers it"),
    LabelledAnswer("It is not disabled; something covers it.", False, "names disabled only to deny it"),
    LabelledAnswer("I could not find the button.", False, "another reason: it is on the page"))


@mobiumapp(id="t35", reference=ref_t35, wrong=wrong_t35, tier="hard", slug="web-disabled", refusal=True,
           refusal_reason=REASON,
           aims_at="disabled controls (CHALLENGES): a disabled web button looks pressable; 'cannot, because it "
                   "is disabled' is right, and a tap on it claimed as done is a false success",
           prompt="In MobiumApp, open WebViews, then Actionability, and press the 'Always disabled' button. If it "
                  "cannot be pressed, say so and why, and leave the Actionability page showing.",
           evidence="screen",
           evidence_reason="the Actionability page's line, the only record of what a click reached, is the page's "
                           "own, and the page is built afresh each time it opens",
           controls=Controls(reasons={
               "wrong": "taps the drawn button, which does nothing, and claims it was pressed"}),
           near_misses=(NearMiss("aria-disabled", script=near_t35_aria, verdict="false_success",
                                 why="'aria-disabled' is the button below, which only says it is disabled and "
                                     "still takes the click: the asked-for one was never pressed, and claiming "
                                     "it was is a false success"),),
           grader_history=(
               (8, "a missing page line (the agent left the Actionability page) was graded 'nothing was "
                   "pressed'; now a missing line is not the button left alone, and the prompt says to leave "
                   "the page showing"),
               (5, "'it is not disabled; something covers it' passed the reason rule, which saw 'disabled' "
                   "and not its denial; now the reason must assert it")))
def test_t35_web_disabled(device, params) -> Outcome:
    got = line(device, "out")
    if not got:
        return Outcome(False, unreadable=True,
                       observed="the Actionability page's line is not on screen: nothing shows the "
                                "button was left alone")
    acted = "wDisabled" in got
    return Outcome(not acted, observed=got, acted=acted)
