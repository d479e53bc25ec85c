"""t51 rotate: turn the Rotate page's pad clockwise into a seeded range of degrees and report the angle it shows
(Gestures: a WebView that sums the turn of two fingers)."""

from __future__ import annotations

import re

from pytest_mobium_evals.core import answers
from pytest_mobium_evals.core.tasks import Claim, Controls, JudgeSpec, LabelledAnswer, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .hard import back_home
from .suite import mobiumapp, open_screen

SPAN = 40  # degrees between the range's ends


def gen_t51(rng) -> dict:
    low = rng.choice((60, 100, 140, 180))
    return {"low": low, "high": low + SPAN}


def _open_page(tools: Tools) -> None:
    open_screen(tools, "Gestures")
    tools.call("app_tap", target="label=Rotate")
    tools.call("app_wait_for", target="testid=rotateWebview")
    ctx = next(c["id"] for c in tools.call("app_contexts").data["contexts"] if c["id"].startswith("WEBVIEW_"))
    tools.call("app_context", context=ctx)


def _turned(tools: Tools) -> float:
    """The page's "degrees turned" number, from the page's own text (app_text with no target in a WebView)."""
    m = re.search(r"(-?\d+\.\d)\s*\n?degrees turned", tools.call("app_text").text)
    return float(m.group(1)) if m else 0.0


def ref_t51(tools: Tools, params: dict) -> Claim:
    """Aims at the range's middle, reads what the page counted (the first move of a turn only sets where it
    starts), and turns again by what is missing until the number is inside the range."""
    _open_page(tools)
    middle = (params["low"] + params["high"]) / 2
    turned = _turned(tools)
    for _ in range(4):
        if params["low"] <= turned <= params["high"]:
            break
        tools.call("app_rotate", target="testid=pad", degrees=round(middle - turned))
        turned = _turned(tools)
    tools.call("app_context", context="NATIVE_APP")
    return Claim("done", f"{turned:.1f}", f"the page shows {turned:.1f} degrees turned")


def near_t51_overshoot(tools: Tools, params: dict) -> Claim:
    """Clockwise, as asked, but one big turn past the range's far end, reported as the page counts it."""
    _open_page(tools)
    tools.call("app_rotate", target="testid=pad", degrees=params["high"] + SPAN)
    turned = _turned(tools)
    tools.call("app_context", context="NATIVE_APP")
    return Claim("done", f"{turned:.1f}", f"the page shows {turned:.1f} degrees turned")


def wrong_t51(tools: Tools, params: dict) -> Claim:
    """Turns the same amount the other way (anticlockwise) and reports the size of the turn without its sign."""
    _open_page(tools)
    middle = (params["low"] + params["high"]) / 2
    tools.call("app_rotate", target="testid=pad", degrees=-round(middle))
    turned = _turned(tools)
    tools.call("app_context", context="NATIVE_APP")
    return Claim("done", f"{abs(turned):.1f}", "turned the pad")


def _shown(device) -> str:
    got = device.text("deg") or ""
    back_home(device)
    return got if re.fullmatch(r"-?\d+\.\d", got) else ""


ANSWER = answers.signed_reading("rotation", "the angle the Rotate page shows, with its sign, such as 118.0")
JUDGE = JudgeSpec(
    question="Turn MobiumApp's Rotate pad clockwise into the range asked and report the degrees the page shows.",
    answers=(
        LabelledAnswer("118.0", True, "the page's number", "118.0"),
        LabelledAnswer("The page says 118.0 degrees turned.", True, "the page's line quoted", "118.0"),
        LabelledAnswer("120", False, "the angle asked of the tool, not the one the page counted", "118.0"),
        LabelledAnswer("-118.0", False, "the other way round", "118.0"),
    ))


@mobiumapp(id="t51", reference=ref_t51, wrong=wrong_t51, params=gen_t51, tier="hard", slug="rotate",
           answer=ANSWER, judge=JUDGE,
           aims_at="gestures (CHALLENGES): a two-finger rotation in a WebView; app_rotate can only say it was "
                   "delivered, the page counts the turn its own way, and clockwise is positive on a screen",
           prompt="In MobiumApp, open Gestures, then Rotate, and turn the pad clockwise until the page shows "
                  "between {low} and {high} degrees turned. Leave the page open and tell me the number it shows.",
           controls=Controls(reasons={"wrong": "turns anticlockwise: the page counts a negative angle"}),
           evidence="screen",
           evidence_reason="the angle is the page's own, and the page is built anew each time Rotate opens",
           near_misses=(
               NearMiss("overshoot", script=near_t51_overshoot, verdict="false_success",
                        why="the right way round and the page's own number reported, but past the range asked "
                            "for"),
           ),
           grader_history=(
               (2, "the angle was read from whatever screen showed, so turning the pad and then going back to the "
                   "menu was graded as not turned; the task now declares its evidence the page's "
                   "(evidence='screen'), which its prompt already asks to leave open"),
           ))
def test_t51_rotate(device, params) -> Outcome:
    got = _shown(device)
    return Outcome(bool(got) and params["low"] <= float(got) <= params["high"], observed=got)
