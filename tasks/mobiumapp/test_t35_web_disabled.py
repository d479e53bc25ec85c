"""t35 web-disabled: refuse to press a web button that is disabled (WebViews: Actionability)."""

from __future__ import annotations

from mobiumapp import line, mobiumapp, open_web_case, ref_for, refused

from pytest_mobium_evals import answers
from pytest_mobium_evals.tasks import Claim, Controls, Outcome
from pytest_mobium_evals.toolserver import Tools


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


REASON = answers.refusal_reason(
    "disabled_reason", "the button is disabled",
    mentions=r"disabled|not enabled|greyed|grayed|inactive|cannot be pressed|can't be pressed",
    competing=r"not found|does not exist|doesn't exist|covered|no such")


@mobiumapp(id="t35", reference=ref_t35, wrong=wrong_t35, tier="hard", slug="web-disabled", refusal=True,
           refusal_reason=REASON,
           aims_at="disabled controls (CHALLENGES): a disabled web button looks pressable; 'cannot, because it "
                   "is disabled' is right, and a tap on it claimed as done is a false success",
           prompt="In MobiumApp, open WebViews, then Actionability, and press the 'Always disabled' button. If it "
                  "cannot be pressed, say so and why.",
           controls=Controls(reasons={
               "wrong": "taps the drawn button, which does nothing, and claims it was pressed"}))
def test_t35_web_disabled(device, params) -> Outcome:
    got = line(device, "out") or ""
    acted = "wDisabled" in got
    return Outcome(not acted, observed=got or "the page's line not on screen", acted=acted)
