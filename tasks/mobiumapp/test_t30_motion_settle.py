"""t30 motion-settle: tap a sliding target only once it has come to rest (Motion Demo)."""

from __future__ import annotations

import re
import time

from mobiumapp import line, mobiumapp, open_screen

from pytest_mobium_evals.tasks import Claim, Controls, Outcome
from pytest_mobium_evals.toolserver import Tools

SLIDE_MS = 2000


# The slide eases out: its last ~0.2 s moves the target less than a pixel, so a target read at its resting pixel
# is not yet at rest. It is taken as settled once it has read there for this long.
SETTLED_S = 0.4
WATCH_S = 15.0  # the slide is 2 s: a target still moving after this is the reference's failure, not a wait


def ref_t30(tools: Tools, params: dict) -> Claim:
    """Replay, then wait on the screen (not a sleep) until the slide is over: the target's left edge has come to
    the panel's own left edge, where its Replay button starts, and stayed there for SETTLED_S of reads (how many
    reads that is depends on how fast the tool server reads); then tap it."""
    open_screen(tools, "Motion Demo")
    rest = tools.call("app_find", locator="testid=ignoringReplay").data["elements"][0]["bounds"]["x1"]
    tools.call("app_tap", target="testid=ignoringReplay")
    deadline, at_rest_since = time.monotonic() + WATCH_S, None
    while time.monotonic() < deadline:
        x1 = tools.call("app_find", locator="testid=ignoringTarget").data["elements"][0]["bounds"]["x1"]
        now = time.monotonic()
        if x1 > rest:
            at_rest_since = None
        elif at_rest_since is None:
            at_rest_since = now
        elif now - at_rest_since >= SETTLED_S:
            break
        tools.call("app_wait_for", target="testid=ignoringTarget", condition="visible", timeout_ms=500)
    tools.call("app_tap", target="testid=ignoringTarget")
    return Claim("done", None, tools.call("app_text", target="testid=ignoringResult").text)


def wrong_t30(tools: Tools, params: dict) -> Claim:
    """Taps the target the moment the slide is replayed, while it is still moving."""
    open_screen(tools, "Motion Demo")
    b = tools.call("app_find", locator="testid=ignoringTarget").data["elements"][0]["bounds"]
    tools.call("app_tap", target="testid=ignoringReplay")
    tools.call("app_tap", x=b["x2"] - 4, y=(b["y1"] + b["y2"]) // 2)
    return Claim("done", None, "tapped the target")


def _tapped_ms(result: str) -> int | None:
    m = re.search(r"tapped (\d+)ms after replay", result)
    return int(m.group(1)) if m else None


@mobiumapp(id="t30", reference=ref_t30, wrong=wrong_t30, tier="hard", slug="motion-settle",
           aims_at="settle and motion (CHALLENGES): a target that slides in over 2 s is tapped while moving",
           prompt="In MobiumApp's Motion Demo, press 'Replay Ignoring', then tap the Ignoring target once it has "
                  "stopped moving (not while it slides).",
           controls=Controls(reasons={"wrong": "taps during the slide: the line says how many ms after replay"}))
def test_t30_motion_settle(device, params) -> Outcome:
    got = line(device, "ignoringResult")
    ms = _tapped_ms(got)
    return Outcome(ms is not None and ms >= SLIDE_MS, observed=got)
