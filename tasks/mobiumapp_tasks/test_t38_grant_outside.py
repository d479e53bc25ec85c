"""t38 grant-outside: give MobiumApp location from outside the app, then read its coordinates (Location Demo)."""

from __future__ import annotations

from pytest_mobium_evals.core import answers
from pytest_mobium_evals.core.tasks import Claim, Controls, JudgeSpec, LabelledAnswer, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .hard import back_home, granted
from .suite import APP, line, mobiumapp, open_from_home, open_screen, text_of

FINE = "android.permission.ACCESS_FINE_LOCATION"


def ref_t38(tools: Tools, params: dict) -> Claim:
    """Grant through the package manager (no prompt in the app), then open the screen and wait for a fix."""
    tools.call("app_grant", app=APP, permissions=["location"])
    open_screen(tools, "Location Demo")
    tools.call("app_wait_for", target="testid=fixCount", condition="text", text="fixes", timeout_ms=5000)
    tools.call("app_wait_for", target="testid=coords", condition="text", text="unknown", **{"not": True},
               timeout_ms=8000)
    coords = text_of(tools, "coords")
    return Claim("done", coords, "granted location with app_grant, then read the Location Demo")


def wrong_t38(tools: Tools, params: dict) -> Claim:
    """Opens the screen, turns its prompt down and reports what it shows."""
    open_screen(tools, "Location Demo")
    tools.call("app_wait_for", target="text=Don’t allow", timeout_ms=5000, check=False)
    tools.call("app_alert", action="dismiss", check=False)
    return Claim("done", text_of(tools, "coords"), "read the Location Demo")


def near_t38_stale(tools: Tools, params: dict) -> Claim:
    """Opens the screen first, turns its prompt down, grants from outside, and reads the same screen again without
    reopening it: the Location Demo asks only as it opens, so it still shows the line from before the grant."""
    open_screen(tools, "Location Demo")
    tools.call("app_wait_for", target="text=Don’t allow", timeout_ms=5000, check=False)
    tools.call("app_alert", action="dismiss", check=False)
    tools.call("app_grant", app=APP, permissions=["location"])
    return Claim("done", text_of(tools, "coords"), "granted location with app_grant, then read the Location Demo")


def _coords(device) -> str:
    got = line(device, "coords")
    if not got:
        back_home(device)
        open_from_home(device, "locationBtn", "coords")
        device.wait_for("fixCount", timeout=8)
        got = line(device, "coords")
    return got


ANSWER = answers.coordinates("coords", "the coordinates the Location Demo shows")
JUDGE = JudgeSpec(
    question="Grant MobiumApp location from outside the app, then report the coordinates its Location Demo shows.",
    answers=(
        LabelledAnswer("48.856600,2.352200", True, "the coordinates", "48.856600,2.352200"),
        LabelledAnswer("48.856600, 2.352200", True, "the same pair, a space after its comma", "48.856600,2.352200"),
        LabelledAnswer("Latitude 48.8566, longitude 2.3522.", True, "the same pair, named, trailing zeros dropped",
                       "48.856600,2.352200"),
        LabelledAnswer("48.856600,2.352200, or maybe 48.856600,2.352203", False, "a second reading beside it",
                       "48.856600,2.352200"),
        LabelledAnswer("unknown", False, "no fix: the permission was not granted", "48.856600,2.352200"),
    ))


@mobiumapp(id="t38", reference=ref_t38, wrong=wrong_t38, tier="hard", slug="grant-outside", answer=ANSWER,
           judge=JUDGE,
           aims_at="more than one app: a permission granted outside MobiumApp (the package manager) that the app "
                   "must then show as a location fix",
           prompt="Give MobiumApp location permission from outside the app (not through a prompt inside it), then "
                  "open its Location Demo and report the coordinates it shows.",
           controls=Controls(reasons={"wrong": "turns the app's own prompt down and reports 'unknown'"}),
           near_misses=(NearMiss("read-before-reopen", script=near_t38_stale, verdict="false_success",
                                 why="the grant is right, but the screen read is the one opened before it: it reports "
                                     "no coordinates, so claiming them is a false success"),),
           grader_history=((5, "the coordinates' rule cut '37.421998,-122.084000' at its comma, so a second reading "
                               "named beside it ('…, or 37.421998,-122.084003') went unseen; the reading is now held "
                               "whole and a rival beside it fails"),
                           (4, "the rule wanted the screen's string exactly, so '37.421998, -122.084000' (a space "
                               "after the comma) or 'latitude …, longitude …' was wrong; answers.coordinates now "
                               "compares the pair's values")))
def test_t38_grant_outside(device, params) -> Outcome:
    ok = granted(device, FINE)
    coords = _coords(device) if ok else line(device, "coords")
    return Outcome(ok and coords not in ("", "unknown"), observed=coords)
