"""t15 toast: tap a target a toast covers for a moment (Obstruction Demo)."""

from __future__ import annotations

from pytest_mobium_evals.core.tasks import Claim, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .suite import line, mobiumapp, open_obstruction


def ref_t15(tools: Tools, params: dict) -> Claim:
    """Show the toast, then tap the target: the tap waits until the toast stops covering it (1.5 s)."""
    open_obstruction(tools)
    tools.call("app_scroll_to", target="testid=toastTarget", direction="down")
    tools.call("app_tap", target="testid=toastBtn")
    tools.call("app_tap", target="testid=toastTarget")
    return Claim("done", None, "tapped the target once the toast was gone")


def wrong_t15(tools: Tools, params: dict) -> Claim:
    """Taps the target's spot at once by coordinates, while the toast is still over it."""
    open_obstruction(tools)
    tools.call("app_scroll_to", target="testid=toastTarget", direction="down")
    b = tools.call("app_find", locator="testid=toastTarget").data["elements"][0]["bounds"]
    tools.call("app_tap", target="testid=toastBtn")
    tools.call("app_tap", x=(b["x1"] + b["x2"]) // 2, y=(b["y1"] + b["y2"]) // 2)
    return Claim("done", None, "tapped the target")


@mobiumapp(id="t15", reference=ref_t15, wrong=wrong_t15,
           slug="toast",
           prompt="In MobiumApp's Obstruction Demo, tap 'Show a toast', then tap the 'Under a toast' button, and "
                  "leave the Obstruction Demo showing.",
           evidence="screen",
           evidence_reason="what a tap reached is the Obstruction Demo's own line, component state that starts "
                           "again at '0: nothing yet' whenever the screen is opened anew",
           grader_history=(
               (2, "read obstructionOutcome from whatever screen showed: a right tap followed by Back to the menu "
                   "was graded false_success; now the prompt asks for the Obstruction Demo to be left showing "
                   "(evidence='screen')"),
           ))
def test_t15_toast(device, params) -> Outcome:
    got = line(device, "obstructionOutcome")
    return Outcome(got.endswith("target toastTarget"), observed=got)
