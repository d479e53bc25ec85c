"""t55 battery-volume: read the battery level on the Battery Demo, then set the Slider Demo's Volume to it rounded to
the nearest ten (Battery Demo, Slider Demo)."""

from __future__ import annotations

import re

from pytest_mobium_evals.core.tasks import Claim, Controls, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .hard import back_to_menu
from .suite import line, mobiumapp, open_screen, ref_for, text_of


def _level(tools: Tools) -> int:
    open_screen(tools, "Battery Demo")
    shown = tools.call("app_wait_for", target="testid=batteryLevel", condition="text", text="level: ").text
    m = re.search(r"level: (\d+)%", shown) or re.search(r"level: (\d+)%", text_of(tools, "batteryLevel"))
    return int(m.group(1))


def _set_volume(tools: Tools, volume: int) -> str:
    back_to_menu(tools)
    open_screen(tools, "Slider Demo")
    tools.call("app_fill", target=ref_for(tools, r" Volume \(slider"), text=f"{volume / 100:g}")
    return text_of(tools, "sliderState")


def ref_t55(tools: Tools, params: dict) -> Claim:
    """The level as the app shows it (a percentage), rounded to the Volume's steps of ten, set as a position on the
    track (volume/100), and the app's own line read back."""
    level = _level(tools)
    return Claim("done", None, _set_volume(tools, int(round(level, -1))))


def near_t55_checked_again(tools: Tools, params: dict) -> Claim:
    """Everything the reference does, then back to the Battery Demo to check the level once more: the Slider Demo,
    left, forgets the Volume it was set to."""
    level = _level(tools)
    state = _set_volume(tools, int(round(level, -1)))
    back_to_menu(tools)
    _level(tools)
    return Claim("done", None, state)


def wrong_t55(tools: Tools, params: dict) -> Claim:
    """Drops the level's last digit instead of rounding it: 37% becomes 30."""
    level = _level(tools)
    return Claim("done", None, _set_volume(tools, level // 10 * 10))


def pre_t55(device, params) -> None:
    device.shell(f"dumpsys battery set level {params['level']}")


@mobiumapp(id="t55", reference=ref_t55, wrong=wrong_t55, tier="hard", slug="battery-volume", precondition=pre_t55,
           # a last digit of 6-9: rounding and dropping the digit disagree, and nothing lies halfway; never 46-49,
           # which round to 50, the Slider Demo's default Volume, where doing nothing would pass
           params=lambda rng: {"level": rng.choice((1, 2, 3, 5, 6, 7, 8)) * 10 + rng.randint(6, 9)},
           aims_at="a fact carried from one screen to another, and units: a percentage read on one demo becomes a "
                   "slider position on another, rounded to the slider's steps",
           prompt="In MobiumApp, read the battery level the Battery Demo shows, then set the Slider Demo's Volume to "
                  "that level rounded to the nearest ten, and leave the Slider Demo showing.",
           controls=Controls(reasons={"wrong": "truncates the level to its tens instead of rounding it"}),
           evidence="screen",
           evidence_reason="the Volume is the Slider Demo's own state, which it forgets each time it is left",
           near_misses=(
               NearMiss("checked-again", script=near_t55_checked_again, verdict="false_success",
                        why="the right Volume set, then the Battery Demo opened again to check the level: the "
                            "Slider Demo, left, is back at its default Volume"),
           ),
           grader_history=(
               (1, "levels 46-49 round to 50, the Slider Demo's default Volume, so doing nothing passed; the level's "
                   "tens digit is never 4"),
               (2, "the Volume was read from whatever screen showed, so setting it and then going back to the menu "
                   "was graded as not set; the evidence is the screen's (evidence='screen') and the prompt asks "
                   "to leave it showing"),
           ))
def test_t55_battery_volume(device, params) -> Outcome:
    state = line(device, "sliderState")
    device.shell("dumpsys battery reset")  # the level was set for this trial only
    want = int(round(params["level"], -1))
    return Outcome(f"volume: {want}," in state, observed=state)
