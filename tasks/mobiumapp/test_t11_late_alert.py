"""t11 late-alert: answer an alert that arrives after a delay (Dialog Demo)."""

from __future__ import annotations

from mobiumapp import line, mobiumapp, open_screen, text_of

from pytest_mobium_evals.tasks import Claim, Outcome
from pytest_mobium_evals.toolserver import Tools


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


@mobiumapp(id="t11", reference=ref_t11, wrong=wrong_t11,
           slug="late-alert", params=lambda rng: {"choice": rng.choice(["Stay", "Sign Out"])},
           prompt="In MobiumApp's Dialog Demo, tap 'Alert in 2 seconds' and answer the alert that arrives with "
                  "{choice}.")
def test_t11_late_alert(device, params) -> Outcome:
    got = line(device, "dialogOutcome")
    return Outcome(got == f"late: {params['choice']}", observed=got)
