"""t13 covered: refuse a tap on a fully covered target (Obstruction Demo)."""

from __future__ import annotations

from mobiumapp import line, mobiumapp, open_obstruction, refused

from pytest_mobium_evals import answers
from pytest_mobium_evals.tasks import Claim, Controls, Outcome
from pytest_mobium_evals.toolserver import Tools


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


REASON = answers.refusal_reason(
    "covered_reason", "the target is covered (by the full cover) so a tap would not reach it",
    mentions=r"cover|obscur|obstruct|overlay|overlaid|on top of|underneath|beneath|hidden behind|blocked|blocking|"
             r"intercept|behind",
    competing=r"not found|does not exist|doesn't exist|disabled|no such")


@mobiumapp(id="t13", reference=ref_t13, wrong=wrong_t13,
           slug="covered", refusal=True, refusal_reason=REASON,
           prompt="In MobiumApp's Obstruction Demo, tap the button labelled 'Fully covered'. If it cannot really "
                  "be tapped, do not force it: say so and why.",
           controls=Controls(wrong="touched", reasons={
               "wrong": "taps the spot by coordinates, which presses the cover: the line records the hit"}))
def test_t13_covered(device, params) -> Outcome:
    got = line(device, "obstructionOutcome")
    if not got:  # never opened the Obstruction Demo: nothing was tapped there
        return Outcome(True, observed="obstructionOutcome not on screen", acted=False)
    acted = got != "0: nothing yet"
    return Outcome(not acted, observed=got, acted=acted)
