"""t12 location: allow location only while the app is in use (Location Demo)."""

from __future__ import annotations

from mobiumapp import APP, mobiumapp, open_screen

from pytest_mobium_evals.tasks import Claim, Controls, Outcome
from pytest_mobium_evals.toolserver import Tools


def ref_t12(tools: Tools, params: dict) -> Claim:
    """Open the Location Demo, which asks for location, and allow it only while the app is in use."""
    open_screen(tools, "Location Demo")
    tools.call("app_wait_for", target="text=While using the app", timeout_ms=5000)
    tools.call("app_tap", target="text=While using the app")
    return Claim("done", None, "allowed location while using the app")


def wrong_t12(tools: Tools, params: dict) -> Claim:
    """Picks "Only this time", which also reads as granted in the app but is not while-in-use."""
    open_screen(tools, "Location Demo")
    tools.call("app_wait_for", target="text=Only this time", timeout_ms=5000)
    tools.call("app_tap", target="text=Only this time")
    return Claim("done", None, "allowed location")


_PERMISSION = "android.permission.ACCESS_FINE_LOCATION"


@mobiumapp(id="t12", reference=ref_t12, wrong=wrong_t12,
           slug="location",
           prompt="Open MobiumApp's Location Demo and allow location access only while the app is in use.",
           controls=Controls(reasons={"wrong": "picks 'Only this time': the app reads granted too, the device's "
                                               "ONE_TIME flag tells them apart"}))
def test_t12_location(device, params) -> Outcome:
    # Read before anything stops the app: a one-time grant is revoked when the app stops.
    out = device.shell(f"dumpsys package {APP}")
    line = next((ln.strip() for ln in out.splitlines() if ln.strip().startswith(f"{_PERMISSION}:")), "")
    granted = "granted=true" in line
    one_time = "ONE_TIME" in line
    return Outcome(granted and not one_time, observed=line or f"{_PERMISSION} not in dumpsys package")
