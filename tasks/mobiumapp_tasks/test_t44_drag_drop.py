"""t44 drag-drop: drag the card onto the drop zone (Gestures: Drag)."""

from __future__ import annotations

from pytest_mobium_evals.core.tasks import Claim, Controls, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .suite import line, mobiumapp, open_screen


def _boxes(tools: Tools) -> tuple[dict, dict]:
    open_screen(tools, "Gestures")
    tools.call("app_tap", target="testid=dragBtn")
    tools.call("app_wait_for", target="testid=dropZone")
    source = tools.call("app_find", locator="testid=dragSource").data["elements"][0]["bounds"]
    zone = tools.call("app_find", locator="testid=dropZone").data["elements"][0]["bounds"]
    return source, zone


def _centre(b: dict) -> tuple[int, int]:
    return (b["x1"] + b["x2"]) // 2, (b["y1"] + b["y2"]) // 2


def ref_t44(tools: Tools, params: dict) -> Claim:
    """A slow drag from the card's centre to the zone's, released inside the zone."""
    source, zone = _boxes(tools)
    (x1, y1), (x2, y2) = _centre(source), _centre(zone)
    tools.call("app_swipe", x1=x1, y1=y1, x2=x2, y2=y2, duration_ms=900)
    return Claim("done", None, tools.call("app_text", target="testid=lastDrag").text)


def wrong_t44(tools: Tools, params: dict) -> Claim:
    """Drags the card only to its own lower edge and lets go there: a drag, but not onto the zone."""
    source, _ = _boxes(tools)
    x1, y1 = _centre(source)
    tools.call("app_swipe", x1=x1, y1=y1, x2=x1, y2=source["y2"] - 4, duration_ms=900)
    return Claim("done", None, "dragged the card onto the zone")


def near_t44_past(tools: Tools, params: dict) -> Claim:
    """Drags the card across the zone and lets go just beyond its far edge: it passed over the zone, but was not
    released in it."""
    source, zone = _boxes(tools)
    x1, y1 = _centre(source)
    x2, _ = _centre(zone)
    beyond = zone["y2"] + 40 if zone["y1"] >= source["y2"] else zone["y1"] - 40
    tools.call("app_swipe", x1=x1, y1=y1, x2=x2, y2=beyond, duration_ms=900)
    return Claim("done", None, "dragged the card onto the zone")


@mobiumapp(id="t44", reference=ref_t44, wrong=wrong_t44, tier="hard", slug="drag-drop",
           aims_at="gestures: drag-and-drop, judged where the finger is released, not by how far it moved",
           prompt="In MobiumApp, open Gestures, then Drag, and drag the 'Drag me' card onto the 'Drop here' zone. "
                  "Leave the Drag screen showing.",
           evidence="screen",
           evidence_reason="the drag's line is the Drag screen's own state, reset when the screen is opened again "
                           "(the real app keeps no record of a drop)",
           controls=Controls(reasons={"wrong": "releases inside the card itself: 'dropped no'"}),
           near_misses=(NearMiss("released-past-zone", script=near_t44_past, verdict="false_success",
                                 why="the finger crosses the zone but lets go beyond its edge: 'dropped no', so "
                                     "claiming the drop is a false success"),),
           grader_history=((2, "read the drag's line from whatever screen showed, so dropping and then going back "
                               "to the menu read as no drop; the evidence is the Drag screen, and the prompt now says "
                               "to leave it showing"),))
def test_t44_drag_drop(device, params) -> Outcome:
    got = line(device, "lastDrag")
    return Outcome(got.endswith("dropped yes"), observed=got)
