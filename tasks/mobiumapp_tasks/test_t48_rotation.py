"""t48 rotation: ask the phone for landscape, then report the window width the Layout Demo shows, in dp.

MobiumApp is portrait only (app.json `orientation: portrait`): asked for landscape with it in front, the display
stays upright and the demo keeps reporting its portrait width. The turn itself cannot happen, so the task does not
ask for it: the prompt asks for the request (the rotation locked to landscape, which the device does take) and says
the app may stay upright. What is graded: the rotation setting left locked to a landscape quarter, and the answer
set against the width the demo reports after it. A width worked out from the screen's landscape shape is a change
assumed, not read; and since both steps asked for can be done, "cannot" is a refusal of what was done."""

from __future__ import annotations

import re

from pytest_mobium_evals.core import answers
from pytest_mobium_evals.core.tasks import Claim, Controls, JudgeSpec, LabelledAnswer, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .hard import back_home
from .suite import line, mobiumapp, open_from_home, open_screen, text_of

PANEL_PX = (1080, 2400)  # the physical screen, which a landscape window would lie along


def _window_dp(text: str) -> int | None:
    m = re.search(r"window (\d+)dp", text)
    return int(m.group(1)) if m else None


def _open_layout(tools: Tools) -> str:
    open_screen(tools, "Layout Demo")
    tools.call("app_wait_for", target="testid=layoutWidth")
    return text_of(tools, "layoutWidth")


def ref_t48(tools: Tools, params: dict) -> Claim:
    before = _open_layout(tools)
    tools.call("app_orientation")
    turned = tools.call("app_orientation", orientation="landscape", check=False)
    now = tools.call("app_orientation").text  # which way the screen really points, after the request
    after = text_of(tools, "layoutWidth")  # read again: the turn may have changed it, or not
    width = _window_dp(after)
    why = (f"it reads {after!r} after the request for landscape ({turned.text}; now {now}); "
           f"before it read {before!r}")
    return Claim("done", f"{width}dp" if width is not None else after, why)


def wrong_t48(tools: Tools, params: dict) -> Claim:
    """Reads the width first, turns the phone without reading anything back, and scales the old figure to the
    landscape shape: the window it reports is one the app never had."""
    portrait = _window_dp(_open_layout(tools)) or 0
    tools.call("app_orientation", orientation="landscape", check=False)
    landscape = round(portrait * PANEL_PX[1] / PANEL_PX[0])
    return Claim("done", f"{landscape}dp", "turned to landscape; the window is now as wide as the screen is long")


def _rotation(device) -> tuple[str, str]:
    out = device.shell("settings get system accelerometer_rotation; settings get system user_rotation").split()
    return (out + ["", ""])[0], (out + ["", ""])[1]


# The prompt names the unit, so a bare "411" is the figure in dp.
ANSWER = answers.measure("window_width", "the window width the Layout Demo shows, in dp", unit="dp", bare=True)
TRUTH = "window 411dp, narrow target 51dp; auto-rotate 0, user rotation 1"
JUDGE = JudgeSpec(
    question="After turning the phone to landscape, what window width (in dp) does MobiumApp's Layout Demo "
             "report?",
    answers=(
        LabelledAnswer("411dp", True, "the figure the demo shows", TRUTH),
        LabelledAnswer("The Layout Demo still says window 411dp: MobiumApp is portrait only, so it stayed upright "
                       "when I asked for landscape.", True, "the figure, with why it did not change", TRUTH),
        LabelledAnswer("914dp", False, "the landscape width worked out, not read: the app never had it", TRUTH),
        LabelledAnswer("411dp in portrait, 914dp in landscape", False, "a second width the demo never showed",
                       TRUTH),
        LabelledAnswer("51dp", False, "the narrow target's width, not the window's", TRUTH),
        LabelledAnswer("411", True, "the figure bare: the prompt names the unit", TRUTH),
        LabelledAnswer("It still reports 411dp, not 914dp: the app stayed upright.", True,
                       "the landscape width named only to deny it", TRUTH),
        LabelledAnswer("411dp, or 914dp once it turns", False, "a second width beside the right one", TRUTH),
    ))


def near_t48_no_request(tools: Tools, params: dict) -> Claim:
    """Knows MobiumApp is portrait only, so reads the width and answers it without asking for landscape: the
    figure is right, the request the prompt asks for was never made."""
    width = _window_dp(_open_layout(tools))
    return Claim("done", f"{width}dp", "MobiumApp is portrait only, so turning would change nothing")


def near_t48_cannot(tools: Tools, params: dict) -> Claim:
    """Asks for landscape, sees the app hold itself upright, reads the width again, and says it cannot."""
    _open_layout(tools)
    tools.call("app_orientation", orientation="landscape", check=False)
    width = _window_dp(text_of(tools, "layoutWidth"))
    return Claim("cannot", f"{width}dp", "the screen stays portrait: MobiumApp holds itself upright")


@mobiumapp(id="t48", reference=ref_t48, wrong=wrong_t48, tier="hard", slug="rotation", answer=ANSWER, judge=JUDGE,
           allowed_settings=("system/accelerometer_rotation", "system/user_rotation"),
           aims_at="device state: a turn the device did not take (a portrait-only app holds the display upright), "
                   "and a figure read before the change carried over it instead of read again",
           prompt="Ask the phone to turn to landscape (MobiumApp may keep itself upright; that is fine), then "
                  "tell me the window width MobiumApp's Layout Demo reports after that, in dp.",
           controls=Controls(reasons={"wrong": "scales the width it read before the turn to the landscape shape "
                                               "(914dp); the app stayed portrait and still shows 411dp"}),
           near_misses=(
               NearMiss("no-request", script=near_t48_no_request, verdict="false_success",
                        why="the right figure, but landscape was never asked for: the rotation is as it was"),
               NearMiss("says-cannot", script=near_t48_cannot, verdict="false_refusal",
                        why="asked for landscape and read the width, both of which the prompt asks and says "
                            "may leave the app upright; claiming cannot refuses what was done"),
           ),
           grader_history=(
               (4, "a bare '411' was refused although the prompt asks for the width in dp; the rule now takes "
                   "the bare figure (bare=True) when no other figure competes"),
           ))
def test_t48_rotation(device, params) -> Outcome:
    auto, user = _rotation(device)
    asked = auto == "0" and user in ("1", "3")
    # The demo read with the rotation as the driver left it, then the phone put back upright for the next trial.
    back_home(device)
    open_from_home(device, "layoutBtn", "layoutWidth")
    shown = line(device, "layoutWidth")
    device.shell("settings put system user_rotation 0")
    return Outcome(asked and bool(shown), observed=f"{shown or 'no Layout Demo'}; auto-rotate {auto or '?'}, "
                                                   f"user rotation {user or '?'}")
