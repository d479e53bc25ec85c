"""t41 three-screens: store three items, allow location, and turn the app's dark mode on, in three screens."""

from __future__ import annotations

from pytest_mobium_evals.core.tasks import Claim, Controls, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .hard import app_theme, back_to_menu, granted_while_in_use, save_in_storage, stored_count
from .suite import mobiumapp, open_screen, text_of

FINE = "android.permission.ACCESS_FINE_LOCATION"


def _first_two(tools: Tools, button: str = "While using the app") -> None:
    save_in_storage(tools, 3)
    back_to_menu(tools)
    open_screen(tools, "Location Demo")
    tools.call("app_wait_for", target=f"text={button}", timeout_ms=5000)
    tools.call("app_tap", target=f"text={button}")
    tools.call("app_wait_for", target="testid=fixCount", condition="text", text="fixes")
    back_to_menu(tools)
    open_screen(tools, "Form Demo")


def ref_t41(tools: Tools, params: dict) -> Claim:
    _first_two(tools)
    tools.call("app_check", target="testid=darkSwitch", checked=True)
    return Claim("done", None, text_of(tools, "formState"))


def wrong_t41(tools: Tools, params: dict) -> Claim:
    """Taps the dark-mode switch twice (a tap, then another when the first looked like it did nothing): light."""
    _first_two(tools)
    tools.call("app_tap", target="testid=darkSwitch")
    tools.call("app_tap", target="testid=darkSwitch")
    return Claim("done", None, "stored three, allowed location, dark mode on")


def near_t41_once(tools: Tools, params: dict) -> Claim:
    """Does all three, but answers the location prompt with "Only this time", the button beside the asked one."""
    _first_two(tools, "Only this time")
    tools.call("app_check", target="testid=darkSwitch", checked=True)
    return Claim("done", None, text_of(tools, "formState"))


@mobiumapp(id="t41", reference=ref_t41, wrong=wrong_t41, tier="hard", slug="three-screens",
           aims_at="a long horizon: three screens and over 15 tool calls, with each screen's result kept after "
                   "leaving it (a file, a permission, the app's theme)",
           prompt="In MobiumApp: store three items with the Storage Demo's 'Save one more'; open the Location Demo "
                  "and allow location while using the app; then turn on the app's own Dark mode in the Form Demo.",
           controls=Controls(reasons={"wrong": "switches dark mode on and off again: the app stays light"}),
           near_misses=(NearMiss("only-this-time", script=near_t41_once, verdict="false_success",
                                 why="'Only this time' reads granted too, but as a one-time grant Android takes back "
                                     "when the app goes: not 'while using the app'"),),
           grader_history=((1, "'Only this time' counted as 'While using the app' (granted=true, the ONE_TIME flag "
                               "ignored); a one-time grant now fails"),))
def test_t41_three_screens(device, params) -> Outcome:
    theme = app_theme(device)
    count = stored_count(device)
    ok = granted_while_in_use(device, FINE)
    return Outcome(theme == "dark" and count == "stored: 3" and ok,
                   observed=f"theme={theme}; {count}; location {'granted' if ok else 'not granted'}")
