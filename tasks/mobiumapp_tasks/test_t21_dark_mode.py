"""t21 dark-mode: put the device in dark mode (the device's appearance, not the app's switch)."""

from __future__ import annotations

from pytest_mobium_evals.core.tasks import Claim, Controls, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .suite import mobiumapp, open_screen


def ref_t21(tools: Tools, params: dict) -> Claim:
    """Set the device's appearance to dark (cmd uimode night yes), read back."""
    res = tools.call("app_appearance", appearance="dark")
    return Claim("done", None, res.text)


def wrong_t21(tools: Tools, params: dict) -> Claim:
    """Flips the app's own Dark mode switch (Form Demo), which themes the app and leaves the device light."""
    open_screen(tools, "Form Demo")
    tools.call("app_check", target="testid=darkSwitch", checked=True)
    return Claim("done", None, "dark mode is on")


def near_t21_auto(tools: Tools, params: dict) -> Claim:
    """Picks the appearance that turns dark on its own: "auto" hands the choice to the time of day."""
    res = tools.call("app_appearance", appearance="auto")
    return Claim("done", None, res.text)


@mobiumapp(id="t21", reference=ref_t21, wrong=wrong_t21,
           slug="dark-mode", allowed_settings=("secure/ui_night_mode",),
           prompt="Put the device in dark mode.",
           near_misses=(NearMiss("auto-appearance", script=near_t21_auto, verdict="false_success",
                                 why="auto (cmd uimode night auto) is dark only when the schedule says night: "
                                     "'Night mode: auto' is not the dark mode asked for now"),),
           controls=Controls(reasons={"wrong": "turns on the app's own Dark mode switch: the app goes dark, the "
                                               "device does not"}))
def test_t21_dark_mode(device, params) -> Outcome:
    mode = device.night_mode()
    return Outcome(mode == "yes", observed=f"Night mode: {mode}")
