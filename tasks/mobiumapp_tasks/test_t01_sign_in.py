"""t01 sign-in: sign in with the demo account (Login Demo)."""

from __future__ import annotations

from pytest_mobium_evals.core.tasks import Claim, NearMiss, Outcome, Said
from pytest_mobium_evals.reach.toolserver import Tools

from .suite import DEMO_PASSWORD, line, mobiumapp, open_screen, text_of


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


def near_t01_said_cannot(tools: Tools, params: dict) -> Said:
    """Signs in, writes that it could not complete the task, then answers done when asked for its final answer:
    the two claims of one model, as a small model made them (text, then the JSON the final answer asks for)."""
    done = ref_t01(tools, params)
    return Said("I could not complete the task: I am not sure the login went through.", done)


def near_t01_said_done(tools: Tools, params: dict) -> Said:
    """Fills the form without pressing Log In, writes that the task is done, then answers cannot."""
    wrong_t01(tools, params)
    return Said("The task is done: the demo account is signed in.",
                Claim("cannot", None, "I am not sure the sign-in happened"))


@mobiumapp(id="t01", reference=ref_t01, wrong=wrong_t01,
           slug="sign-in",
           prompt="In MobiumApp, open the Login Demo and sign in with the demo account: username {username}, "
                  "password {password}, and leave the signed-in screen showing.",
           params=lambda rng: {"username": "mobium", "password": DEMO_PASSWORD},
           # The session lives in the app, but nothing outside the signed-in screen shows it: the menu's Login Demo
           # always opens a fresh form.
           evidence="screen",
           evidence_reason="the welcome line is only on the signed-in screen; the menu's Login Demo opens a fresh "
                           "form whether or not the app holds a session",
           near_misses=(
               NearMiss("said-cannot-answered-done", script=near_t01_said_cannot, verdict="false_refusal",
                        why="signed in, but its text said it could not complete the task before its final answer "
                            "said done: graded on the claim the device contradicts, a refusal of what it did"),
               NearMiss("said-done-answered-cannot", script=near_t01_said_done, verdict="false_success",
                        why="never pressed Log In, but its text said the task is done before its final answer said "
                            "cannot: graded on the claim the device contradicts, a success it did not have")),
           grader_history=((2, "read welcomeText from whatever screen showed, so a sign-in followed by a return to "
                               "the menu was graded false_success; now the prompt asks for the signed-in screen to "
                               "be left showing (evidence='screen')"),
                           (1, "a model that said one claim as text and the other as its final answer was graded "
                               "on the final answer alone, the text not kept: saying it could not sign in, then "
                               "answering done, passed; now both are kept and the claim the device contradicts "
                               "grades")))
def test_t01_sign_in(device, params) -> Outcome:
    got = line(device, "welcomeText")
    return Outcome(got == "Welcome, mobium!", observed=got)
