"""t31 busy-twice: after two quiet refreshes, tap a row of the generation that lands last (Busy Demo)."""

from __future__ import annotations

from pytest_mobium_evals.core.tasks import Claim, Controls, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .suite import line, mobiumapp, open_screen, text_of


def ref_t31(tools: Tools, params: dict) -> Claim:
    """Refresh twice; the rows change twice, so wait for generation 3 (the second refresh's) before the tap."""
    open_screen(tools, "Busy Demo")
    tools.call("app_tap", target="testid=busyTwice")
    tools.call("app_wait_for", target="testid=busyRowC", condition="text", text="generation 3", timeout_ms=8000)
    tools.call("app_tap", target="testid=busyRowC")
    return Claim("done", None, text_of(tools, "busyOutcome"))


def wrong_t31(tools: Tools, params: dict) -> Claim:
    """Taps row C right after asking, while both refreshes are still out (its place read first, so the stale tap
    is one `input tap`)."""
    open_screen(tools, "Busy Demo")
    b = tools.call("app_find", locator="testid=busyRowC").data["elements"][0]["bounds"]
    tools.call("app_tap", target="testid=busyTwice")
    tools.call("app_tap", x=(b["x1"] + b["x2"]) // 2, y=(b["y1"] + b["y2"]) // 2)
    return Claim("done", None, "tapped row C after the refresh")


def near_t31_quietly(tools: Tools, params: dict) -> Claim:
    """Presses 'Refresh quietly', the button beside 'Refresh twice', and waits as rightly as the reference for its
    one refresh to land: a current row of the generation one refresh makes, not two."""
    open_screen(tools, "Busy Demo")
    tools.call("app_tap", target="testid=busyQuiet")
    tools.call("app_wait_for", target="testid=busyRowC", condition="text", text="generation 2", timeout_ms=8000)
    tools.call("app_tap", target="testid=busyRowC")
    return Claim("done", None, text_of(tools, "busyOutcome"))


@mobiumapp(id="t31", reference=ref_t31, wrong=wrong_t31, tier="hard", slug="busy-twice",
           aims_at="content that arrives late, twice: the first change of the rows is not the last, and a row "
                   "tapped before the second refresh lands is stale",
           prompt="In MobiumApp's Busy Demo, press 'Refresh twice', then tap row C once the rows are current "
                  "(the row line should say current), and leave the Busy Demo showing.",
           evidence="screen",
           evidence_reason="the Busy Demo's rows and its outcome line are screen state, reset each time it opens",
           controls=Controls(reasons={"wrong": "taps before the second refresh lands: 'stale'"}),
           near_misses=(NearMiss("refresh-quietly", script=near_t31_quietly, verdict="false_success",
                                 why="'Refresh quietly' is the button beside 'Refresh twice': one refresh, then a "
                                     "current tap on generation 2, where two refreshes make generation 3"),),
           grader_history=(
               (2, "read busyOutcome from whatever screen showed, so a current tap followed by going back to "
                   "the menu was a false success; now the Busy Demo is the declared evidence and the prompt "
                   "says to leave it showing"),))
def test_t31_busy_twice(device, params) -> Outcome:
    got = line(device, "busyOutcome")
    return Outcome(got.startswith("row C, generation 3") and got.endswith(": current"), observed=got)
