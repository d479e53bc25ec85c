"""t01 sign-in: sign in with the demo account (Login Demo)."""

from __future__ import annotations

from mobiumapp import DEMO_PASSWORD, line, mobiumapp, open_screen, text_of

from pytest_mobium_evals.tasks import Claim, Outcome
from pytest_mobium_evals.toolserver import Tools


def ref_t01(tools: Tools, params: dict) -> Claim:
    """Sign in with the demo account (username "mobium", password "hunter2", shown on the screen itself)."""
    open_screen(tools, "Login Demo")
    tools.call("app_fill", target="testid=username", text=params.get("username", "mobium"))
    tools.call("app_fill", target="testid=password", text=params.get("password", "hunter2"))
    tools.call("app_tap", target="testid=loginBtn")
    tools.call("app_wait_for", target="testid=welcomeText", timeout_ms=5000)
    return Claim("done", None, "signed in: " + text_of(tools, "welcomeText"))


def wrong_t01(tools: Tools, params: dict) -> Claim:
    """Fills the form and claims success without pressing Log In (the form looks complete)."""
    open_screen(tools, "Login Demo")
    tools.call("app_fill", target="testid=username", text=params.get("username", "mobium"))
    tools.call("app_fill", target="testid=password", text=params.get("password", "hunter2"))
    return Claim("done", None, "entered the demo credentials")


@mobiumapp(id="t01", reference=ref_t01, wrong=wrong_t01,
           slug="sign-in",
           prompt="In MobiumApp, open the Login Demo and sign in with the demo account: username {username}, "
                  "password {password}.",
           params=lambda rng: {"username": "mobium", "password": DEMO_PASSWORD})
def test_t01_sign_in(device, params) -> Outcome:
    got = line(device, "welcomeText")
    return Outcome(got == "Welcome, mobium!", observed=got)
