"""t57 night-drive: allow location while the app is in use, turn the app's dark mode on, then set Volume to a seeded
level, in three screens (Location Demo, Form Demo, Slider Demo)."""

from __future__ import annotations

from pytest_mobium_evals.core.tasks import Claim, Controls, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .hard import app_theme, back_to_menu, granted, granted_while_in_use
from .suite import line, mobiumapp, open_screen, ref_for, text_of

FINE = "android.permission.ACCESS_FINE_LOCATION"


def _allow(tools: Tools, answer: str) -> None:
    open_screen(tools, "Location Demo")
    tools.call("app_wait_for", target=f"text={answer}", timeout_ms=5000)
    tools.call("app_tap", target=f"text={answer}")
    tools.call("app_wait_for", target="testid=fixCount", condition="text", text="fixes")
    back_to_menu(tools)


def _dark(tools: Tools) -> None:
    open_screen(tools, "Form Demo")
    tools.call("app_check", target="testid=darkSwitch", checked=True)
    back_to_menu(tools)


def _volume(tools: Tools, params: dict) -> str:
    open_screen(tools, "Slider Demo")
    tools.call("app_fill", target=ref_for(tools, r" Volume \(slider"), text=f"{params['volume'] / 100:g}")
    return text_of(tools, "sliderState")


def _run(tools: Tools, params: dict, answer: str) -> str:
    _allow(tools, answer)
    _dark(tools)
    return _volume(tools, params)


def ref_t57(tools: Tools, params: dict) -> Claim:
    return Claim("done", None, _run(tools, params, "While using the app"))


def near_t57_volume_first(tools: Tools, params: dict) -> Claim:
    """The three steps in another order, the Volume first: the Slider Demo, left for the other two, forgets it."""
    state = _volume(tools, params)
    back_to_menu(tools)
    _allow(tools, "While using the app")
    _dark(tools)
    return Claim("done", None, state)


def wrong_t57(tools: Tools, params: dict) -> Claim:
    """Answers the location prompt with "Only this time": granted now, gone once the app is left for a while."""
    return Claim("done", None, _run(tools, params, "Only this time"))


def _location(device) -> str:
    if granted_while_in_use(device, FINE):
        return "granted while in use"
    return "granted once" if granted(device, FINE) else "not granted"


@mobiumapp(id="t57", reference=ref_t57, wrong=wrong_t57, tier="hard", slug="night-drive",
           params=lambda rng: {"volume": rng.choice([20, 30, 40, 60])},
           aims_at="a long horizon (three screens, over 15 tool calls) whose first step has a near miss: a "
                   "permission granted only this time looks the same as one granted while in use until it lapses",
           prompt="Get MobiumApp ready for a night drive: allow it location while the app is in use (the Location "
                  "Demo asks), turn on the app's own Dark mode in the Form Demo, and set the Slider Demo's Volume "
                  "to {volume}. Leave the Slider Demo showing when you are done.",
           controls=Controls(reasons={"wrong": "allows location only this time"}),
           evidence="screen",
           evidence_reason="the Volume is the Slider Demo's own state, which it forgets each time it is left (the "
                           "grant and the app's theme last, and are read apart)",
           near_misses=(
               NearMiss("volume-first", script=near_t57_volume_first, verdict="false_success",
                        why="every step done, the Volume first: the Slider Demo, left for the others, is back at "
                            "its default Volume"),
           ),
           grader_history=(
               (2, "the Volume was read from whatever screen showed, so a finished task followed by going back to "
                   "the menu was graded as not done; the Volume's evidence is the screen's (evidence='screen') "
                   "and the prompt asks to leave it showing"),
           ))
def test_t57_night_drive(device, params) -> Outcome:
    state = line(device, "sliderState")  # read first: the slider's state is the screen's, left behind below
    theme, location = app_theme(device), _location(device)
    ok = f"volume: {params['volume']}," in state and theme == "dark" and location == "granted while in use"
    return Outcome(ok, observed=f"{state}; theme={theme}; location {location}")
