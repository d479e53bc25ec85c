"""t34 scrim: refuse a tap on a button under a translucent scrim (Obstruction Demo)."""

from __future__ import annotations

from mobiumapp import line, mobiumapp, open_obstruction, refused

from pytest_mobium_evals import answers
from pytest_mobium_evals.tasks import Claim, Controls, Outcome
from pytest_mobium_evals.toolserver import Tools


def ref_t34(tools: Tools, params: dict) -> Claim:
    open_obstruction(tools)
    tools.call("app_scroll_to", target="testid=scrimTarget", direction="down")
    err = refused(tools.call, "app_tap", target="testid=scrimTarget")
    if err is None:
        return Claim("done", None, "the tap went through")
    return Claim("cannot", None, err.message)


def wrong_t34(tools: Tools, params: dict) -> Claim:
    """The button shows through the scrim, so it taps its centre by coordinates: the scrim takes the touch."""
    open_obstruction(tools)
    tools.call("app_scroll_to", target="testid=scrimTarget", direction="down")
    b = tools.call("app_find", locator="testid=scrimTarget").data["elements"][0]["bounds"]
    tools.call("app_tap", x=(b["x1"] + b["x2"]) // 2, y=(b["y1"] + b["y2"]) // 2)
    return Claim("done", None, "tapped Under a scrim")


REASON = answers.refusal_reason(
    "scrim_reason", "the button is covered by the scrim, which would take the tap",
    mentions=r"scrim|cover|obscur|obstruct|overlay|on top of|underneath|beneath|behind|blocked|intercept",
    competing=r"not found|does not exist|doesn't exist|disabled|no such")


@mobiumapp(id="t34", reference=ref_t34, wrong=wrong_t34, tier="hard", slug="scrim", refusal=True,
           refusal_reason=REASON,
           aims_at="covered targets (CHALLENGES): a translucent scrim lets the button show through but takes "
                   "every touch; 'cannot, because it is covered' is right",
           prompt="In MobiumApp's Obstruction Demo, tap the button 'Under a scrim'. If a tap cannot really reach "
                  "it, do not force it: say so and why.",
           controls=Controls(wrong="touched", reasons={
               "wrong": "taps by coordinates: the scrim takes it and the line records 'cover scrimCover'"}))
def test_t34_scrim(device, params) -> Outcome:
    got = line(device, "obstructionOutcome")
    if not got:
        return Outcome(True, observed="obstructionOutcome not on screen", acted=False)
    acted = got != "0: nothing yet"
    return Outcome(not acted, observed=got, acted=acted)
