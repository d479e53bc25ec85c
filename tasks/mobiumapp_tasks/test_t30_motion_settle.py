"""t30 motion-settle: tap a sliding target only once it has come to rest (Motion Demo)."""

from __future__ import annotations

import re

from pytest_mobium_evals.core.tasks import Claim, Controls, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .suite import line, mobiumapp, open_screen

SLIDE_MS = 2000


# The slide eases out: its last ~0.2 s moves the target less than a pixel, so a target read at its resting pixel
# is not yet at rest. It is taken as settled once two reads READ_GAP_MS apart both find it there.
READ_GAP_MS = 500
READS = 12  # 6 s of reads for a 2 s slide: a target still moving then is the reference's failure


def _gap(tools: Tools) -> None:
    """Mobium has no pause tool; a bounded app_wait_for is how a script waits through the tools without polling.
    It waits for the Replay button to leave, which it never does on this screen, so it returns after
    READ_GAP_MS."""
    tools.call("app_wait_for", target="testid=ignoringReplay", condition="hidden", timeout_ms=READ_GAP_MS,
               check=False)


def _left_edge(tools: Tools) -> int:
    return tools.call("app_find", locator="testid=ignoringTarget").data["elements"][0]["bounds"]["x1"]


def ref_t30(tools: Tools, params: dict) -> Claim:
    """Replay, then read the target's place every READ_GAP_MS until it has come to the panel's own left edge
    (where its Replay button starts) and is still there a read later; then tap it. A dozen reads at most, so the
    reference stays well inside an agent's tool calls."""
    open_screen(tools, "Motion Demo")
    rest = tools.call("app_find", locator="testid=ignoringReplay").data["elements"][0]["bounds"]["x1"]
    tools.call("app_tap", target="testid=ignoringReplay")
    at_rest = False
    for _ in range(READS):
        _gap(tools)
        was_at_rest, at_rest = at_rest, _left_edge(tools) <= rest
        if was_at_rest and at_rest:
            break
    tools.call("app_tap", target="testid=ignoringTarget")
    return Claim("done", None, tools.call("app_text", target="testid=ignoringResult").text)


def wrong_t30(tools: Tools, params: dict) -> Claim:
    """Taps the target the moment the slide is replayed, while it is still moving."""
    open_screen(tools, "Motion Demo")
    b = tools.call("app_find", locator="testid=ignoringTarget").data["elements"][0]["bounds"]
    tools.call("app_tap", target="testid=ignoringReplay")
    tools.call("app_tap", x=b["x2"] - 4, y=(b["y1"] + b["y2"]) // 2)
    return Claim("done", None, "tapped the target")


def near_t30_honoring(tools: Tools, params: dict) -> Claim:
    """Replays the Ignoring panel but taps the Honoring target above it (app_tap waits for the slide it made as
    the screen opened to end): the panel beside the right one."""
    open_screen(tools, "Motion Demo")
    tools.call("app_tap", target="testid=ignoringReplay")
    tools.call("app_tap", target="testid=honoringTarget")
    return Claim("done", None, tools.call("app_text", target="testid=honoringResult").text)


def _tapped_ms(result: str) -> int | None:
    m = re.search(r"tapped (\d+)ms after replay", result)
    return int(m.group(1)) if m else None


@mobiumapp(id="t30", reference=ref_t30, wrong=wrong_t30, tier="hard", slug="motion-settle",
           aims_at="settle and motion (CHALLENGES): a target that slides in over 2 s is tapped while moving",
           prompt="In MobiumApp's Motion Demo, press 'Replay Ignoring', then tap the Ignoring target once it has "
                  "stopped moving (not while it slides), and leave the Motion Demo showing.",
           evidence="screen",
           evidence_reason="the Motion Demo's result lines are screen state, reset each time it opens",
           controls=Controls(reasons={"wrong": "taps during the slide: the line says how many ms after replay"}),
           near_misses=(NearMiss("honoring-target", script=near_t30_honoring, verdict="false_success",
                                 why="taps the Honoring target, the still one in the panel above, instead of the "
                                     "Ignoring one just replayed: the Ignoring line still says not tapped"),),
           grader_history=(
               (2, "read ignoringResult from whatever screen showed, so a right tap followed by going back to "
                   "the menu was a false success; now the Motion Demo is the declared evidence and the prompt "
                   "says to leave it showing"),))
def test_t30_motion_settle(device, params) -> Outcome:
    got = line(device, "ignoringResult")
    ms = _tapped_ms(got)
    return Outcome(ms is not None and ms >= SLIDE_MS, observed=got)
