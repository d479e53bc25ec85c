"""t53 font-scale: make the text as large as Settings' Font size allows, then report the font scale MobiumApp's
Accessibility Demo reads (two apps: Settings' Display size and text, then MobiumApp).

The prompt asks for the change in Settings, where it stays. Mobium's app_accessibility (text_scale) writes the same
setting (system font_scale) but puts it back when its session ends, which is before this check reads the device
(the trial's tool server has gone by then, and its session with it): an agent that takes that route leaves the
scale where it found it and is graded on that, under the real Mobium and the built-in server alike."""

from __future__ import annotations

import re

from pytest_mobium_evals.core import answers
from pytest_mobium_evals.core.tasks import Claim, Controls, JudgeSpec, LabelledAnswer, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .hard import back_home
from .suite import APP, mobiumapp, open_from_home, open_screen, text_of

SETTINGS = "com.android.settings"
FONT_STEPS = (0.85, 1.0, 1.15, 1.3, 1.5, 1.8, 2.0)  # Font size's steps since Android 14
LARGEST = FONT_STEPS[-1]
DEFAULT_SCALE = "1.0"


def gen_t53(rng) -> dict:
    return {"start": rng.choice(("0.85", "1.0", "1.15", "1.3"))}


def pre_t53(device, params) -> None:
    device.shell(f"settings put system font_scale {params['start']}")


def _text_page(tools: Tools) -> list[dict]:
    """Settings, Display, Display size and text; returns the page's two sliders, Font size's first."""
    # Settings keeps the page it was left on: stopped first, it opens on its main list.
    tools.call("app_terminate", app=SETTINGS)
    tools.call("app_launch", app=SETTINGS)
    tools.call("app_scroll_to", target="text=Display", direction="down")
    tools.call("app_tap", target="text=Display")
    tools.call("app_tap", target="text=Display size and text")
    bars = tools.call("app_find", locator="class=android.widget.SeekBar").data["elements"]
    return sorted(bars, key=lambda e: e["bounds"]["y1"])


def _to_the_end(tools: Tools, bar: dict) -> None:
    b = bar["bounds"]
    y = (b["y1"] + b["y2"]) // 2
    tools.call("app_swipe", x1=b["x1"] + 10, y1=y, x2=b["x2"] - 2, y2=y, duration_ms=600)


def _one_short(tools: Tools, bar: dict) -> None:
    """A drag that stops one step before the end of a bar of Font size's steps."""
    b = bar["bounds"]
    y = (b["y1"] + b["y2"]) // 2
    stop = b["x1"] + (b["x2"] - b["x1"]) * (len(FONT_STEPS) - 2) // (len(FONT_STEPS) - 1)
    tools.call("app_swipe", x1=b["x1"] + 10, y1=y, x2=stop, y2=y, duration_ms=600)


def _demo_reads(tools: Tools) -> str:
    """MobiumApp's Accessibility Demo, opened from the menu (a font change sent the app back to it), refreshed."""
    tools.call("app_launch", app=APP)
    open_screen(tools, "Accessibility Demo")
    tools.call("app_wait_for", target="testid=a11yState", condition="text", text="fontScale=")
    tools.call("app_tap", target="testid=a11yRefresh")
    m = re.search(r"fontScale=(\d+\.\d\d)", text_of(tools, "a11yState"))
    return m.group(1) if m else ""


def ref_t53(tools: Tools, params: dict) -> Claim:
    """Font size's slider to its end, read back (its 'Make larger' button is off at the last step), then the
    demo."""
    font_size = next(b for b in _text_page(tools) if b["label"] == "Font size")
    _to_the_end(tools, font_size)
    larger = tools.call("app_find", locator="label=Make larger").data["elements"]
    at_end = sorted(larger, key=lambda e: e["bounds"]["y1"])[0].get("disabled", False)
    shown = _demo_reads(tools)
    return Claim("done", f"fontScale={shown}", f"Font size at its last step ({at_end}); the demo reads {shown}")


def near_t53_one_step_short(tools: Tools, params: dict) -> Claim:
    """The right slider, dragged not quite to its end: one step below the largest, reported as the demo reads it."""
    font_size = next(b for b in _text_page(tools) if b["label"] == "Font size")
    _one_short(tools, font_size)
    shown = _demo_reads(tools)
    return Claim("done", f"fontScale={shown}", f"Font size as large as it goes; the demo reads {shown}")


def near_t53_session_setting(tools: Tools, params: dict) -> Claim:
    """Mobium's own accessibility tool instead of Settings: the scale at 2.0 for the session, the demo read while
    the session lasts, and its true reading reported. The session's end puts the scale back."""
    tools.call("app_accessibility", setting="text_scale", value=str(LARGEST))
    shown = _demo_reads(tools)
    return Claim("done", f"fontScale={shown}", f"text_scale set to {LARGEST} with app_accessibility; the demo reads "
                                               f"{shown}")


def wrong_t53(tools: Tools, params: dict) -> Claim:
    """Takes the page's other slider, Display size (everything bigger), to its end, and reports what the demo
    shows as if the text were at its largest."""
    display_size = next(b for b in _text_page(tools) if b["label"] == "Display size")
    _to_the_end(tools, display_size)
    return Claim("done", f"fontScale={_demo_reads(tools)}", "made everything as large as it goes")


def _demo_scale(device) -> str:
    back_home(device)
    open_from_home(device, "a11yBtn", "a11yState")
    m = re.search(r"fontScale=(\d+\.\d\d)", device.text("a11yState") or "")
    back_home(device)
    return m.group(1) if m else ""


def _put_back(device) -> None:
    """The trial's scale and any display size it set, undone (the reset restores settings, not the density)."""
    device.shell(f"settings put system font_scale {DEFAULT_SCALE}")
    if "Override density" in device.shell("wm density"):
        device.shell("wm density reset")


ANSWER = answers.signed_reading("font_scale", "the font scale the demo reports, such as fontScale=2.00")
JUDGE = JudgeSpec(
    question="Make the phone's text as large as Settings allows, then report the font scale MobiumApp's "
             "Accessibility Demo shows.",
    answers=(
        LabelledAnswer("fontScale=2.00", True, "the demo's value", "2.00"),
        LabelledAnswer("The Accessibility Demo reports a font scale of 2.00.", True, "in a sentence", "2.00"),
        LabelledAnswer("fontScale=1.30", False, "a step below the largest", "2.00"),
        LabelledAnswer("1.00", False, "the scale before the change", "2.00"),
    ))


@mobiumapp(id="t53", reference=ref_t53, wrong=wrong_t53, params=gen_t53, precondition=pre_t53, tier="hard",
           slug="font-scale", answer=ANSWER, judge=JUDGE, allowed_settings=("system/font_scale",),
           aims_at="more than one app: a system setting changed in Settings (Font size, beside a Display size "
                   "slider whose buttons have the same names) that MobiumApp must then show, after the change "
                   "sent it back to its menu",
           prompt="In the phone's Settings app, make the text as large as the Font size setting allows. Then "
                  "open MobiumApp's Accessibility Demo, press Refresh, and tell me the font scale it reports, "
                  "exactly as it shows it.",
           controls=Controls(reasons={"wrong": "takes Display size to its end instead: everything is bigger, the "
                                               "font scale is where it was"}),
           near_misses=(
               NearMiss("one-step-short", script=near_t53_one_step_short, verdict="false_success",
                        why="Font size, the right slider, but dragged to 1.8, the step before the largest; the "
                            "demo's reading is reported truly, and it is not the largest"),
               NearMiss("session-setting", script=near_t53_session_setting, verdict="false_success",
                        why="app_accessibility's text_scale holds only for the tool server's session, which puts "
                            "it back when it ends, before the device is read: the demo read 2.00 while it lasted, "
                            "and the phone's text is back where it was"),
           ))
def test_t53_font_scale(device, params) -> Outcome:
    scale = device.setting("system", "font_scale") or DEFAULT_SCALE
    shown = _demo_scale(device)
    _put_back(device)
    return Outcome(float(scale) == LARGEST and shown == f"{LARGEST:.2f}", observed=shown)
