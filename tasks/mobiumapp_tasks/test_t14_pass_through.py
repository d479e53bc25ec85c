"""t14 pass-through: tap a target under a view that lets touches through (Obstruction Demo)."""

from __future__ import annotations

from pytest_mobium_evals.core.tasks import Claim, Controls, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .suite import line, mobiumapp, open_obstruction, text_of


def ref_t14(tools: Tools, params: dict) -> Claim:
    """Tap the target under the view that takes no touches; the tap reaches it."""
    open_obstruction(tools)
    tools.call("app_tap", target="testid=passTarget")
    return Claim("done", None, text_of(tools, "obstructionOutcome"))


def wrong_t14(tools: Tools, params: dict) -> Claim:
    """Sees something drawn over the target and gives up without trying."""
    open_obstruction(tools)
    tools.call("app_map")
    return Claim("cannot", None, "the target is covered by another view")


def near_t14_edge(tools: Tools, params: dict) -> Claim:
    """Takes the button beside it: "Edge covered" is also a button with something drawn over it, and its centre is
    clear, so the tap goes through at once."""
    open_obstruction(tools)
    tools.call("app_tap", target="testid=edgeTarget")
    return Claim("done", None, text_of(tools, "obstructionOutcome"))


@mobiumapp(id="t14", reference=ref_t14, wrong=wrong_t14,
           slug="pass-through",
           prompt="In MobiumApp's Obstruction Demo, tap the 'Pass-through' button, and leave the Obstruction Demo "
                  "showing.",
           evidence="screen",
           evidence_reason="what a tap reached is the Obstruction Demo's own line, component state that starts "
                           "again at '0: nothing yet' whenever the screen is opened anew",
           near_misses=(NearMiss("edge-covered", script=near_t14_edge, verdict="false_success",
                                 why="the button beside it, also drawn under something, takes the tap: the line "
                                     "says 'target edgeTarget', not the pass-through target"),),
           grader_history=(
               (2, "read obstructionOutcome from whatever screen showed: a right tap followed by Back to the menu "
                   "was graded false_success; now the prompt asks for the Obstruction Demo to be left showing "
                   "(evidence='screen')"),
           ),
           controls=Controls(wrong="honest_failure", reasons={
               "wrong": "sees a view drawn over the target and says it cannot, without trying: honest, and wrong"}))
def test_t14_pass_through(device, params) -> Outcome:
    got = line(device, "obstructionOutcome")
    return Outcome(got.endswith("target passTarget"), observed=got)
