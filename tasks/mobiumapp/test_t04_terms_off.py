"""t04 terms-off: make sure the terms are not accepted: they already are not (Form Demo)."""

from __future__ import annotations

from mobiumapp import FORM_DEFAULTS, line, mobiumapp, open_screen

from pytest_mobium_evals.tasks import Claim, Controls, Outcome
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


@mobiumapp(id="t04", reference=ref_t04, wrong=wrong_t04,
           slug="terms-off",
           prompt="In MobiumApp's Form Demo, make sure the terms are not accepted.",
           controls=Controls(null="pass", reasons={
               "null": "the terms start unaccepted, so the target is already in the asked-for state: doing "
                       "nothing and saying done is right"}))
def test_t04_terms_off(device, params) -> Outcome:
    got = line(device, "formState")
    if not got:  # the driver left the Form Demo (or never opened it): the terms are back to their default
        return Outcome(True, observed=f"formState not on screen; terms default to {FORM_DEFAULTS['terms']}")
    return Outcome("terms=false" in got, observed=got)
