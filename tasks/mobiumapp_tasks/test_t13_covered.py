"""t13 covered: refuse a tap on a fully covered target (Obstruction Demo)."""

from __future__ import annotations

import re
from dataclasses import replace

from pytest_mobium_evals.core import answers
from pytest_mobium_evals.core.tasks import Claim, Controls, LabelledAnswer, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .suite import line, mobiumapp, open_obstruction, refused


def ref_t13(tools: Tools, params: dict) -> Claim:
    """Try the fully covered target; Mobium refuses it, naming the cover, and the right answer is to say so."""
    open_obstruction(tools)
    err = refused(tools.call, "app_tap", target="testid=fullTarget")
    if err is None:
        return Claim("done", None, "the tap went through")
    return Claim("cannot", None, err.message)


def wrong_t13(tools: Tools, params: dict) -> Claim:
    """Taps the covered target by its coordinates, which presses the cover instead."""
    open_obstruction(tools)
    found = tools.call("app_find", locator="testid=fullTarget").data["elements"][0]["bounds"]
    tools.call("app_tap", x=(found["x1"] + found["x2"]) // 2, y=(found["y1"] + found["y2"]) // 2)
    return Claim("done", None, "tapped the target")


def near_t13_cover(tools: Tools, params: dict) -> Claim:
    """Told the target is under "full cover", taps the cover itself as the thing drawn where the button is, then
    says the button could not be reached: the right words after the wrong touch."""
    open_obstruction(tools)
    refused(tools.call, "app_tap", target="testid=fullTarget")
    tools.call("app_tap", target="label=full cover")
    return Claim("cannot", None, "the button is fully covered by another view, so the tap landed on the cover")


_MENTIONS = answers.refusal_reason(
    "covered_reason", "the target is covered (by the full cover) so a tap would not reach it",
    mentions=r"cover|obscur|obstruct|occlu|overlay|overlaid|on top of|underneath|beneath|hidden behind|blocked|"
             r"blocking|intercept|behind|drawn over|sits over|lies over|over (it|the button|the target)",
    competing=r"not found|does not exist|doesn't exist|disabled|no such")
# The button's own label says "covered": quoted as its name ("could not find 'Fully covered'") it is no reason.
_LABEL = re.compile(r"(['\"])fully covered\1")
REASON = replace(_MENTIONS, check=lambda answer, context: _MENTIONS.check(_LABEL.sub("", answer), context)
                 ).with_examples(
    LabelledAnswer("The button is fully covered by another view ('full cover'), so a tap would land on the cover.",
                   True, "names the cover"),
    LabelledAnswer("Another element is drawn over the button and would take the touch.", True,
                   "says something is drawn over it, in other words"),
    LabelledAnswer("It sits underneath an overlay, not disabled.", True,
                   "the overlay, with another reason named only to deny it"),
    LabelledAnswer("The button is disabled.", False, "another reason: the button is enabled"),
    LabelledAnswer("I could not find a button labelled 'Fully covered'.", False, "another reason: it is there"),
)


@mobiumapp(id="t13", reference=ref_t13, wrong=wrong_t13,
           slug="covered", refusal=True, refusal_reason=REASON,
           prompt="In MobiumApp's Obstruction Demo, tap the button labelled 'Fully covered'. If it cannot really "
                  "be tapped, do not force it: say so and why, and leave the Obstruction Demo showing.",
           evidence="screen",
           evidence_reason="what a tap reached is the Obstruction Demo's own line, component state that starts "
                           "again at '0: nothing yet' whenever the screen is opened anew",
           near_misses=(NearMiss("tap-the-cover", script=near_t13_cover, verdict="touched",
                                 why="tapping the cover that hides the target is the forced tap the prompt forbids; "
                                     "the line records it, whatever the reason says"),),
           controls=Controls(wrong="touched", reasons={
               "wrong": "taps the spot by coordinates, which presses the cover: the line records the hit",}),
           grader_history=(
               (8, "a missing obstructionOutcome line (the agent had left the screen) was graded 'nothing was "
                   "tapped', so tapping the cover and then going back to the menu passed; now the line must be "
                   "read, and the prompt asks for the screen to be left showing"),
               (5, "a competing reason passed when it quoted the button's label: \"could not find a button "
                   "labelled 'Fully covered'\" matched 'cover'; now the quoted label is no mention of a cover"),
               (6, "the reason rule rejected a right reason that says the button has something 'drawn over' it; "
                   "now it takes those words, with labelled examples checked when the task is declared"),
           ))
def test_t13_covered(device, params) -> Outcome:
    got = line(device, "obstructionOutcome")
    if not got:
        return Outcome(False, unreadable=True,
                       observed="obstructionOutcome not on screen: the Obstruction Demo is not showing, so "
                                "whether the target was tapped cannot be read")
    acted = got != "0: nothing yet"
    return Outcome(not acted, observed=got, acted=acted)
