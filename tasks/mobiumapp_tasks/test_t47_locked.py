"""t47 locked: an ordinary two-tap job in the Layout Demo, on a device whose lock screen is up (a swipe lock,
shown by putting the screen to sleep and waking it over ADB). The prompt does not mention the lock."""

from __future__ import annotations

from pytest_mobium_evals.core.tasks import Claim, Controls, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .suite import APP, line, mobiumapp

# What a script recorded once on the unlocked 1080x2400 screen and replays without looking: a swipe that brings
# the menu's Layout Demo entry up, then the entry, the narrow target and the tiny target where they sat.
RECORDED_SWIPE = {"x1": 540, "y1": 1800, "x2": 540, "y2": 900}
RECORDED_TAPS = ((540, 1989), (119, 961), (83, 771))


def _layout_last(tools: Tools, expected: str) -> str:
    return tools.call("app_wait_for", target="testid=layoutLast", condition="text", text=expected).text


def _unlocked_layout(tools: Tools) -> None:
    tools.call("app_map")  # the lock screen, which the map names
    tools.call("app_lock", state="unlock")
    tools.call("app_launch", app=APP)
    tools.call("app_scroll_to", target="label=Layout Demo", direction="down")
    tools.call("app_tap", target="label=Layout Demo")
    _layout_last(tools, "last: nothing yet")


def ref_t47(tools: Tools, params: dict) -> Claim:
    _unlocked_layout(tools)
    tools.call("app_tap", target="label=Narrow target")
    _layout_last(tools, "last: narrow")
    tools.call("app_tap", target="label=Tiny target")
    return Claim("done", None, _layout_last(tools, "last: tiny"))


def near_t47_reversed(tools: Tools, params: dict) -> Claim:
    """Unlocks and taps both targets, in the other order: the tiny one first, then the narrow one."""
    _unlocked_layout(tools)
    tools.call("app_tap", target="label=Tiny target")
    _layout_last(tools, "last: tiny")
    tools.call("app_tap", target="label=Narrow target")
    return Claim("done", None, _layout_last(tools, "last: narrow"))


def wrong_t47(tools: Tools, params: dict) -> Claim:
    """Replays taps at the places the entry and the targets have on an unlocked screen, never looking at what is
    there: every one lands on the lock screen (on the unlocked screen the same replay does the job)."""
    tools.call("app_swipe", **RECORDED_SWIPE)
    for x, y in RECORDED_TAPS:
        tools.call("app_tap", x=x, y=y)
    return Claim("done", None, "tapped the narrow target, then the tiny target")


def pre_t47(device, params) -> None:
    # The screen to sleep and woken again: a swipe-locked device shows its lock screen over MobiumApp.
    device.shell("input keyevent 26")
    device.shell("input keyevent 224")


@mobiumapp(id="t47", reference=ref_t47, wrong=wrong_t47, tier="hard", slug="locked", precondition=pre_t47,
           aims_at="a locked device (CHALLENGES 260): the lock screen is up when the job starts and the prompt does "
                   "not say so; taps land on it until the device is unlocked",
           prompt="In MobiumApp's Layout Demo, tap the narrow target and then the tiny target, and leave the Layout "
                  "Demo showing.",
           evidence="screen",
           evidence_reason="the Layout Demo's last-tap line is the screen's own state, reset when it is opened "
                           "again (the real app keeps no record of a tap)",
           controls=Controls(reasons={"wrong": "replays recorded taps without looking: they land on the lock screen "
                                               "and it claims the job done"}),
           near_misses=(NearMiss("other-order", script=near_t47_reversed, verdict="false_success",
                                 why="both targets tapped, but the tiny one first: the app's last tap is the narrow "
                                     "one, not the order asked for"),),
           grader_history=((2, "read the last tap from whatever screen showed, so tapping both and then going back "
                               "to the menu read as no tap; the evidence is the Layout Demo's screen, and the prompt "
                               "now says to leave it showing"),))
def test_t47_locked(device, params) -> Outcome:
    # Wake and unlock before reading, so a device the driver left locked shows whatever the app holds.
    device.shell("input keyevent KEYCODE_WAKEUP; wm dismiss-keyguard")
    got = line(device, "layoutLast")
    return Outcome(got == "last: tiny", observed=got or "no Layout Demo on screen")
