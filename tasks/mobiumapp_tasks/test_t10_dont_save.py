"""t10 dont-save: choose not to save, on the three-button alert (Dialog Demo)."""

from __future__ import annotations

from pytest_mobium_evals.core.tasks import Claim, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .suite import line, mobiumapp, open_screen, text_of


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


def near_t10_cancel(tools: Tools, params: dict) -> Claim:
    """Takes Cancel, which also leaves the draft unsaved, for "not saving"."""
    open_screen(tools, "Dialog Demo")
    tools.call("app_tap", target="testid=threeButtonBtn")
    tools.call("app_tap", target="text=Cancel,role=button")
    return Claim("done", None, "chose not to save")


@mobiumapp(id="t10", reference=ref_t10, wrong=wrong_t10,
           slug="dont-save",
           prompt="In MobiumApp's Dialog Demo, open the three-button alert, choose not to save, and leave the "
                  "Dialog Demo showing.",
           evidence="screen",
           evidence_reason="the answered button is the Dialog Demo's own state, back to 'nothing yet' each time it "
                           "is opened",
           near_misses=(NearMiss("cancel", script=near_t10_cancel, verdict="false_success",
                                 why="Cancel saves nothing either, but it backs out of the question; the alert "
                                     "offers Don't Save as the answer 'not to save'"),),
           grader_history=((2, "read dialogOutcome from whatever screen showed, so a right answer followed by a "
                               "return to the menu was graded false_success; now the prompt asks for the Dialog "
                               "Demo to be left showing (evidence='screen')"),))
def test_t10_dont_save(device, params) -> Outcome:
    got = line(device, "dialogOutcome")
    return Outcome(got == "three-button: Don't Save", observed=got)
