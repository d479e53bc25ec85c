"""t29 tiny-target: tap a 24 dp target beside a larger one (Layout Demo)."""

from __future__ import annotations

from pytest_mobium_evals.core.tasks import Claim, Controls, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .suite import line, mobiumapp, open_screen


def ref_t29(tools: Tools, params: dict) -> Claim:
    open_screen(tools, "Layout Demo")
    tools.call("app_tap", target="label=Tiny target")
    return Claim("done", None, tools.call("app_text", target="testid=layoutLast").text)


def wrong_t29(tools: Tools, params: dict) -> Claim:
    """Aims a little below the tiny target's box, as a finger-sized guess does, and reaches nothing."""
    open_screen(tools, "Layout Demo")
    b = tools.call("app_find", locator="testid=tinyTarget").data["elements"][0]["bounds"]
    tools.call("app_tap", x=(b["x1"] + b["x2"]) // 2, y=b["y2"] + (b["y2"] - b["y1"]) // 2 + 4)
    return Claim("done", None, "tapped the tiny target")


def near_t29_narrow(tools: Tools, params: dict) -> Claim:
    """Takes the Layout Demo's other small target, the narrow one, for the tiny one."""
    open_screen(tools, "Layout Demo")
    tools.call("app_tap", target="testid=narrowTarget")
    return Claim("done", None, tools.call("app_text", target="testid=layoutLast").text)


@mobiumapp(id="t29", reference=ref_t29, wrong=wrong_t29, tier="hard", slug="tiny-target",
           aims_at="gestures: a tiny target (24 dp), where a tap a few pixels off reaches nothing",
           prompt="In MobiumApp's Layout Demo, tap the tiny target, and leave the Layout Demo showing.",
           evidence="screen",
           evidence_reason="the Layout Demo's last-tap line is screen state, reset each time it opens",
           controls=Controls(reasons={"wrong": "taps just below the 24 dp box: nothing is hit"}),
           near_misses=(NearMiss("narrow-target", script=near_t29_narrow, verdict="false_success",
                                 why="the target beside it, the narrow one, is the other small one on the "
                                     "screen: the line says 'last: narrow'"),),
           grader_history=(
               (2, "read layoutLast from whatever screen showed, so tapping the tiny target and going back to "
                   "the menu was a false success; now the Layout Demo is the declared evidence and the prompt "
                   "says to leave it showing"),))
def test_t29_tiny_target(device, params) -> Outcome:
    got = line(device, "layoutLast")
    return Outcome(got == "last: tiny", observed=got)
