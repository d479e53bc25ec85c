"""t04 terms-off: make sure the terms are not accepted: they already are not (Form Demo)."""

from __future__ import annotations

from mobiumapp import FORM_DEFAULTS, line, mobiumapp, open_screen

from pytest_mobium_evals.tasks import Claim, Controls, NearMiss, Outcome
from pytest_mobium_evals.toolserver import Tools


def ref_t04(tools: Tools, params: dict) -> Claim:
    """Make sure Accept terms is unchecked: it already is, and app_check leaves it so."""
    open_screen(tools, "Form Demo")
    res = tools.call("app_check", target="testid=termsCheck", checked=False)
    return Claim("done", None, res.text)


def wrong_t04(tools: Tools, params: dict) -> Claim:
    """Taps the checkbox to "turn it off", which toggles it on."""
    open_screen(tools, "Form Demo")
    tools.call("app_tap", target="testid=termsCheck")
    return Claim("done", None, "unchecked Accept terms")


def near_t04_tap_twice(tools: Tools, params: dict) -> Claim:
    """Taps Accept terms to "turn it off", sees it is now checked, and taps it again."""
    open_screen(tools, "Form Demo")
    tools.call("app_tap", target="testid=termsCheck")
    tools.call("app_tap", target="testid=termsCheck")
    return Claim("done", None, "unchecked Accept terms")


def near_t04_tap_then_shade(tools: Tools, params: dict) -> Claim:
    """Taps the checkbox (which accepts the terms), then pulls the notification shade down over the Form Demo."""
    open_screen(tools, "Form Demo")
    tools.call("app_tap", target="testid=termsCheck")
    tools.call("app_notifications", shade="open")
    return Claim("done", None, "unchecked Accept terms")


@mobiumapp(id="t04", reference=ref_t04, wrong=wrong_t04,
           slug="terms-off",
           prompt="In MobiumApp's Form Demo, make sure the terms are not accepted.",
           controls=Controls(null="pass", reasons={
               "null": "the terms start unaccepted, so the target is already in the asked-for state: doing "
                       "nothing and saying done is right"}),
           near_misses=(
               NearMiss("tap-twice", script=near_t04_tap_twice, verdict="pass",
                        why="the first tap accepts the terms and the second takes it back: they end unaccepted, "
                            "and accepting them for a moment leaves nothing behind in the app"),
               NearMiss("tap-then-shade", script=near_t04_tap_then_shade, verdict="false_success",
                        why="the terms are accepted under the shade: the Form Demo is still there once the app is "
                            "in front again, so they must be read as accepted, not as gone"),
           ))
def test_t04_terms_off(device, params) -> Outcome:
    got = line(device, "formState")
    if not got:  # the driver left the Form Demo (or never opened it): the terms are back to their default
        return Outcome(True, observed=f"formState not on screen; terms default to {FORM_DEFAULTS['terms']}")
    return Outcome("terms=false" in got, observed=got)
