"""t11 late-alert: answer an alert that arrives after a delay (Dialog Demo)."""

from __future__ import annotations

from pytest_mobium_evals.core.tasks import Claim, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .suite import line, mobiumapp, open_screen, text_of


def ref_t11(tools: Tools, params: dict) -> Claim:
    """Raise the late alert, wait for it (about 2 s), and tap the asked button."""
    open_screen(tools, "Dialog Demo")
    tools.call("app_tap", target="testid=lateAlertBtn")
    tools.call("app_wait_for", target=f"text={params['choice']},role=button", timeout_ms=8000)
    tools.call("app_tap", target=f"text={params['choice']},role=button")
    return Claim("done", None, text_of(tools, "dialogOutcome"))


def wrong_t11(tools: Tools, params: dict) -> Claim:
    """Looks for the alert at once, finds none, and calls it answered."""
    open_screen(tools, "Dialog Demo")
    tools.call("app_tap", target="testid=lateAlertBtn")
    tools.call("app_alert")
    return Claim("done", None, f"answered {params['choice']}")


#: The late alert's buttons: each the other's near miss.
OTHER_CHOICE = {"Stay": "Sign Out", "Sign Out": "Stay"}


def near_t11_other_button(tools: Tools, params: dict) -> Claim:
    """Waits for the late alert as asked, then answers it with its other button."""
    other = OTHER_CHOICE[params["choice"]]
    open_screen(tools, "Dialog Demo")
    tools.call("app_tap", target="testid=lateAlertBtn")
    tools.call("app_wait_for", target=f"text={other},role=button", timeout_ms=8000)
    tools.call("app_tap", target=f"text={other},role=button")
    return Claim("done", None, f"answered {params['choice']}")


@mobiumapp(id="t11", reference=ref_t11, wrong=wrong_t11,
           slug="late-alert", params=lambda rng: {"choice": rng.choice(["Stay", "Sign Out"])},
           prompt="In MobiumApp's Dialog Demo, tap 'Alert in 2 seconds', answer the alert that arrives with "
                  "{choice}, and leave the Dialog Demo showing.",
           evidence="screen",
           evidence_reason="the answered button is the Dialog Demo's own state, back to 'nothing yet' each time it "
                           "is opened",
           near_misses=(NearMiss("other-button", script=near_t11_other_button, verdict="false_success",
                                 why="the alert waited for and answered, with the button beside the asked one"),),
           grader_history=((2, "read dialogOutcome from whatever screen showed, so a right answer followed by a "
                               "return to the menu was graded false_success; now the prompt asks for the Dialog "
                               "Demo to be left showing (evidence='screen')"),))
def test_t11_late_alert(device, params) -> Outcome:
    got = line(device, "dialogOutcome")
    return Outcome(got == f"late: {params['choice']}", observed=got)
