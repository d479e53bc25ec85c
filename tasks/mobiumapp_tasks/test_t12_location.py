"""t12 location: allow location only while the app is in use (Location Demo)."""

from __future__ import annotations

from pytest_mobium_evals.core.tasks import Claim, Controls, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .suite import APP, mobiumapp, open_screen


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


def near_t12_approximate(tools: Tools, params: dict) -> Claim:
    """Chooses Approximate in the dialog before allowing it while the app is in use."""
    open_screen(tools, "Location Demo")
    tools.call("app_wait_for", target="text=While using the app", timeout_ms=5000)
    tools.call("app_tap", target="text=Approximate")
    tools.call("app_tap", target="text=While using the app")
    return Claim("done", None, "allowed approximate location while using the app")


#: The location permissions the app asks for together: "Approximate" in the dialog grants the coarse one alone.
_PERMISSIONS = ("android.permission.ACCESS_FINE_LOCATION", "android.permission.ACCESS_COARSE_LOCATION")


@mobiumapp(id="t12", reference=ref_t12, wrong=wrong_t12,
           slug="location",
           prompt="Open MobiumApp's Location Demo and allow location access only while the app is in use.",
           controls=Controls(reasons={"wrong": "picks 'Only this time': the app reads granted too, the device's "
                                               "ONE_TIME flag tells them apart"}),
           near_misses=(NearMiss("approximate", script=near_t12_approximate, verdict="pass",
                                 why="approximate location is location access, allowed while the app is in use: "
                                     "the prompt asks when the app may have it, not how precisely"),),
           grader_history=((4, "only the fine permission counted, so 'Approximate' then 'While using the app' "
                               "(the coarse permission alone, granted while in use) failed a prompt that asks "
                               "nothing of precision; now either location permission counts, and none may be "
                               "one-time"),))
def test_t12_location(device, params) -> Outcome:
    # Read before anything stops the app: a one-time grant is revoked when the app stops.
    out = device.shell(f"dumpsys package {APP}")
    lines = [next((ln.strip() for ln in out.splitlines() if ln.strip().startswith(f"{p}:")), "")
             for p in _PERMISSIONS]
    granted = [ln for ln in lines if "granted=true" in ln]
    observed = "; ".join(ln for ln in lines if ln) or "no location permission in dumpsys package"
    return Outcome(bool(granted) and not any("ONE_TIME" in ln for ln in granted), observed=observed)
