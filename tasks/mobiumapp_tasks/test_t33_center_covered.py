"""t33 center-covered: tap a button whose centre is covered but whose right side is clear (Obstruction Demo)."""

from __future__ import annotations

from pytest_mobium_evals.core.tasks import Claim, Controls, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .suite import line, mobiumapp, open_obstruction


def ref_t33(tools: Tools, params: dict) -> Claim:
    """app_tap aims at a point of the target nothing covers."""
    open_obstruction(tools)
    tools.call("app_tap", target="testid=halfTarget")
    return Claim("done", None, tools.call("app_text", target="testid=obstructionOutcome").text)


def wrong_t33(tools: Tools, params: dict) -> Claim:
    """Taps the centre of the target's box by coordinates, which is under the half cover."""
    open_obstruction(tools)
    b = tools.call("app_find", locator="testid=halfTarget").data["elements"][0]["bounds"]
    tools.call("app_tap", x=(b["x1"] + b["x2"]) // 2, y=(b["y1"] + b["y2"]) // 2)
    return Claim("done", None, "tapped Center covered")


def near_t33_edge(tools: Tools, params: dict) -> Claim:
    """Takes the next case down, 'Edge covered' (its centre is clear, so the tap goes straight through), for the
    one whose centre is covered."""
    open_obstruction(tools)
    tools.call("app_tap", target="testid=edgeTarget")
    return Claim("done", None, tools.call("app_text", target="testid=obstructionOutcome").text)


@mobiumapp(id="t33", reference=ref_t33, wrong=wrong_t33, tier="hard", slug="center-covered",
           aims_at="covered targets (CHALLENGES): the centre of the button is under a cover, so a tap must aim "
                   "at the part that is clear",
           prompt="In MobiumApp's Obstruction Demo, tap the 'Center covered' button itself (not what covers it), "
                  "and leave the Obstruction Demo showing.",
           evidence="screen",
           evidence_reason="the Obstruction Demo's outcome line is screen state, reset each time it opens",
           controls=Controls(reasons={"wrong": "taps the centre: the cover takes it ('cover halfCover')"}),
           near_misses=(NearMiss("edge-covered", script=near_t33_edge, verdict="false_success",
                                 why="'Edge covered' is the button below, also partly covered but with its "
                                     "centre clear: the line says 'target edgeTarget'"),),
           grader_history=(
               (2, "read obstructionOutcome from whatever screen showed, so the right tap followed by going "
                   "back to the menu was a false success; now the Obstruction Demo is the declared evidence "
                   "and the prompt says to leave it showing"),))
def test_t33_center_covered(device, params) -> Outcome:
    got = line(device, "obstructionOutcome")
    return Outcome(got.endswith(": target halfTarget"), observed=got)
