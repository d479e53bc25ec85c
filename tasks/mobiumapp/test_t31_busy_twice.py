"""t31 busy-twice: after two quiet refreshes, tap a row of the generation that lands last (Busy Demo)."""

from __future__ import annotations

from mobiumapp import line, mobiumapp, open_screen, text_of

from pytest_mobium_evals.tasks import Claim, Controls, Outcome
from pytest_mobium_evals.toolserver import Tools


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


@mobiumapp(id="t31", reference=ref_t31, wrong=wrong_t31, tier="hard", slug="busy-twice",
           aims_at="content that arrives late, twice: the first change of the rows is not the last, and a row "
                   "tapped before the second refresh lands is stale",
           prompt="In MobiumApp's Busy Demo, press 'Refresh twice', then tap row C once the rows are current "
                  "(the row line should say current).",
           controls=Controls(reasons={"wrong": "taps before the second refresh lands: 'stale'"}))
def test_t31_busy_twice(device, params) -> Outcome:
    got = line(device, "busyOutcome")
    return Outcome(got.startswith("row C, generation 3") and got.endswith(": current"), observed=got)
