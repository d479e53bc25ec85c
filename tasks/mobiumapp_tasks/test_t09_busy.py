"""t09 busy: refresh quietly, then tap a row of the new generation (Busy Demo)."""

from __future__ import annotations

from pytest_mobium_evals.core.tasks import Claim, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .suite import line, mobiumapp, open_screen, text_of


def ref_t09(tools: Tools, params: dict) -> Claim:
    """Refresh quietly, wait for row B to show generation 2, then tap it."""
    open_screen(tools, "Busy Demo")
    tools.call("app_tap", target="testid=busyQuiet")
    tools.call("app_wait_for", target="testid=busyRowB", condition="text", text="generation 2", timeout_ms=5000)
    tools.call("app_tap", target="testid=busyRowB")
    return Claim("done", None, text_of(tools, "busyOutcome"))


def wrong_t09(tools: Tools, params: dict) -> Claim:
    """Taps the row right after the quiet refresh starts, while the old generation is still shown. Where row B is
    is read before refreshing, so the stale tap is a single `input tap` after it: a tap by locator reads the screen
    first, and on a loaded host that can outlast the shortest refresh (0.4 s) and tap the new generation."""
    open_screen(tools, "Busy Demo")
    b = tools.call("app_find", locator="testid=busyRowB").data["elements"][0]["bounds"]
    tools.call("app_tap", target="testid=busyQuiet")
    tools.call("app_tap", x=(b["x1"] + b["x2"]) // 2, y=(b["y1"] + b["y2"]) // 2)
    return Claim("done", None, "tapped row B after refreshing")


def near_t09_row_a(tools: Tools, params: dict) -> Claim:
    """Waits out the quiet refresh as asked, then taps the row above B."""
    open_screen(tools, "Busy Demo")
    tools.call("app_tap", target="testid=busyQuiet")
    tools.call("app_wait_for", target="testid=busyRowB", condition="text", text="generation 2", timeout_ms=5000)
    tools.call("app_tap", target="testid=busyRowA")
    return Claim("done", None, "tapped row B once it showed generation 2")


@mobiumapp(id="t09", reference=ref_t09, wrong=wrong_t09,
           slug="busy",
           prompt="In MobiumApp's Busy Demo, tap Refresh quietly, then tap row B once it shows the new generation, "
                  "and leave the Busy Demo showing.",
           evidence="screen",
           evidence_reason="the tapped row is the Busy Demo's own state, back to 'nothing tapped yet' (and "
                           "generation 1) each time it is opened",
           near_misses=(NearMiss("row-a", script=near_t09_row_a, verdict="false_success",
                                 why="the wait is right but the tap lands on the row beside B, also current"),),
           grader_history=((2, "read busyOutcome from whatever screen showed, so a right tap followed by a return "
                               "to the menu was graded false_success; now the prompt asks for the Busy Demo to be "
                               "left showing (evidence='screen')"),))
def test_t09_busy(device, params) -> Outcome:
    got = line(device, "busyOutcome")
    return Outcome(got == "row B, generation 2: current", observed=got)
