"""t50 pinch: zoom the Pinch and Spread page to at least 2x and report the scale it shows (Gestures: a WebView)."""

from __future__ import annotations

import re

from pytest_mobium_evals.core import answers
from pytest_mobium_evals.core.tasks import Claim, Controls, JudgeSpec, LabelledAnswer, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .hard import back_home
from .suite import mobiumapp, open_screen

TARGET = 2.0


def _open_page(tools: Tools) -> str:
    """Gestures, then Pinch and Spread, then into the page's WebView context; returns the scale it shows first."""
    open_screen(tools, "Gestures")
    tools.call("app_tap", target="label=Pinch and Spread")
    tools.call("app_wait_for", target="testid=pinchWebview")
    ctx = next(c["id"] for c in tools.call("app_contexts").data["contexts"] if c["id"].startswith("WEBVIEW_"))
    tools.call("app_context", context=ctx)
    return _box(tools)


def _box(tools: Tools) -> str:
    """The box's line as the page's own text has it ("scale 1.00"): in a WebView context app_text reads the page."""
    m = re.search(r"scale \d+\.\d+", tools.call("app_text").text)
    return m.group(0) if m else ""


def _scale(text: str) -> float:
    m = re.search(r"(\d+\.\d+)", text)
    return float(m.group(1)) if m else 0.0


def ref_t50(tools: Tools, params: dict) -> Claim:
    """A spread about the box, read back from the page; spread again while the box says less than 2."""
    before = _open_page(tools)
    shown = before
    for _ in range(3):
        tools.call("app_zoom", direction="in", target="testid=target")
        shown = _box(tools)
        if _scale(shown) >= TARGET:
            break
    # The box shows the browser's own zoom level; the browser is asked too, as Mobium's zoom check asks it.
    zoom = tools.call("app_eval", expression="visualViewport.scale").data.get("value")
    tools.call("app_context", context="NATIVE_APP")
    return Claim("done", f"{_scale(shown):.2f}", f"the box read '{before}', then '{shown}' "
                                                 f"(visualViewport.scale {zoom})")


def near_t50_target(tools: Tools, params: dict) -> Claim:
    """Zooms as the reference does, then answers the scale it was asked for, not the one the page shows."""
    ref_t50(tools, params)
    return Claim("done", f"{TARGET:.2f}", "zoomed the page in to 2x")


def wrong_t50(tools: Tools, params: dict) -> Claim:
    """One short spread (fingers 80 to 280 px apart), taken on faith as a 2x zoom."""
    _open_page(tools)
    tools.call("app_zoom", target="testid=target", **{"from": 40, "to": 140})
    tools.call("app_context", context="NATIVE_APP")
    return Claim("done", "2.00", "spread the page to 2x")


def _shown(device) -> str:
    """The box's number as the page shows it (uiautomator sees a WebView's text), with MobiumApp back on its menu."""
    got = device.text("scale") or ""
    back_home(device)
    m = re.search(r"scale (\d+\.\d\d)", got)
    return m.group(1) if m else ""


ANSWER = answers.reading("pinch_scale", "the zoom level the page's box shows, such as 2.85")
JUDGE = JudgeSpec(
    question="Zoom MobiumApp's Pinch and Spread page to at least 2x and report the scale the page shows.",
    answers=(
        LabelledAnswer("2.85", True, "the box's number", "2.85"),
        LabelledAnswer("The page now shows scale 2.85.", True, "the box's text quoted", "2.85"),
        LabelledAnswer("2.00", False, "the scale asked for, not the one shown", "2.85"),
        LabelledAnswer("It went from 1.00 to 1.44.", False, "another zoom level", "2.85"),
    ))


@mobiumapp(id="t50", reference=ref_t50, wrong=wrong_t50, tier="hard", slug="pinch", answer=ANSWER, judge=JUDGE,
           aims_at="gestures (CHALLENGES): a pinch in a WebView, where app_zoom can only say the gesture was "
                   "delivered; the zoom level is the page's own (visualViewport.scale), so it has to be read back",
           prompt="In MobiumApp, open Gestures, then Pinch and Spread, and zoom the page in to at least 2x. Leave "
                  "the page open and tell me the scale it then shows, as its number.",
           controls=Controls(reasons={"wrong": "one short spread (about 1.4x) claimed as 2x without reading the "
                                               "page"}),
           evidence="screen",
           evidence_reason="the zoom is the page's own, and the page is built anew each time Pinch and Spread opens",
           near_misses=(
               NearMiss("target-as-answer", script=near_t50_target, verdict="false_success",
                        why="the page is zoomed past 2x, but the answer is the 2x asked for, not the scale it "
                            "shows"),
           ),
           grader_history=(
               (2, "the scale was read from whatever screen showed, so zooming and then going back to the menu "
                   "was graded as not zoomed; the task now declares its evidence the page's (evidence='screen'), "
                   "which its prompt already asks to leave open"),
           ))
def test_t50_pinch(device, params) -> Outcome:
    got = _shown(device)
    return Outcome(bool(got) and float(got) >= TARGET, observed=got)
