"""t10 dont-save: choose not to save, on the three-button alert (Dialog Demo)."""

from __future__ import annotations

from mobiumapp import line, mobiumapp, open_screen, text_of

from pytest_mobium_evals.tasks import Claim, Outcome
from pytest_mobium_evals.toolserver import Tools


def ref_t10(tools: Tools, params: dict) -> Claim:
    """Raise the three-button alert and tap Don't Save by its caption."""
    open_screen(tools, "Dialog Demo")
    tools.call("app_tap", target="testid=threeButtonBtn")
    tools.call("app_tap", target="text=Don't Save,role=button")
    return Claim("done", None, text_of(tools, "dialogOutcome"))


def wrong_t10(tools: Tools, params: dict) -> Claim:
    """Presses Save (the dialog's positive button) instead."""
    open_screen(tools, "Dialog Demo")
    tools.call("app_tap", target="testid=threeButtonBtn")
    tools.call("app_tap", target="text=Save,role=button")
    return Claim("done", None, "chose not to save")


@mobiumapp(id="t10", reference=ref_t10, wrong=wrong_t10,
           slug="dont-save",
           prompt="In MobiumApp's Dialog Demo, open the three-button alert and choose not to save.")
def test_t10_dont_save(device, params) -> Outcome:
    got = line(device, "dialogOutcome")
    return Outcome(got == "three-button: Don't Save", observed=got)
