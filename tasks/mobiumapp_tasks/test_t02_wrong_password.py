"""t02 wrong-password: try a wrong password and report the app's message (Login Demo)."""

from __future__ import annotations

import random
import string

from pytest_mobium_evals.core import answers
from pytest_mobium_evals.core.tasks import Claim, Controls, JudgeSpec, LabelledAnswer, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .suite import DEMO_PASSWORD, line, mobiumapp, open_screen, text_of


def ref_t02(tools: Tools, params: dict) -> Claim:
    """Sign in as mobium with `params["password"]` (wrong, 6+ characters) and report the app's message."""
    open_screen(tools, "Login Demo")
    tools.call("app_fill", target="testid=username", text="mobium")
    tools.call("app_fill", target="testid=password", text=params["password"])
    tools.call("app_tap", target="testid=loginBtn")
    tools.call("app_wait_for", target="testid=loginError", timeout_ms=5000)
    return Claim("done", text_of(tools, "loginError"), "the app refused the password")


def wrong_t02(tools: Tools, params: dict) -> Claim:
    """Reports the message from the wait's first moment: the button's "Signing in…" text, not the error."""
    open_screen(tools, "Login Demo")
    tools.call("app_fill", target="testid=username", text="mobium")
    tools.call("app_fill", target="testid=password", text=params["password"])
    tools.call("app_tap", target="testid=loginBtn")
    return Claim("done", text_of(tools, "loginBtn"), "the app showed this after Log In")


def near_t02_fields_swapped(tools: Tools, params: dict) -> Claim:
    """Types the password into the username field and "mobium" into the password field: both pass the form's own
    checks, and the app answers with the same message."""
    open_screen(tools, "Login Demo")
    tools.call("app_fill", target="testid=username", text=params["password"])
    tools.call("app_fill", target="testid=password", text="mobium")
    tools.call("app_tap", target="testid=loginBtn")
    tools.call("app_wait_for", target="testid=loginError", timeout_ms=5000)
    return Claim("done", text_of(tools, "loginError"), "the app refused the password")


def gen_t02(rng: random.Random) -> dict:
    # 6–12 lowercase letters and digits: a shorter one gives a field notice instead of the login error.
    while True:
        word = "".join(rng.choice(string.ascii_lowercase + string.digits) for _ in range(rng.randint(6, 12)))
        if word != DEMO_PASSWORD:
            return {"password": word}


#: The app's message for a wrong password, and its other messages (field notices) an agent might report instead.
LOGIN_ERROR = "Incorrect username or password."
FIELD_NOTICES = ("Enter your username", "Enter your password", "Username must be at least",
                 "Password must be at least", "Username can contain only")
ANSWER = answers.app_message("login_message", LOGIN_ERROR, competing=FIELD_NOTICES)
JUDGE = JudgeSpec(
    question="Sign in with a wrong password and report the message the app shows.",
    truth=LOGIN_ERROR,
    answers=(
        LabelledAnswer("The app says: Incorrect username or password.", True, "the app's message, quoted"),
        LabelledAnswer("Incorrect username or password", True, "the message without its full stop"),
        LabelledAnswer("Sign-in failed with 'Incorrect username or password.' and no notice about the password's "
                       "length appeared.", True, "names another notice only to say it did not appear"),
        LabelledAnswer("It showed 'Password must be at least 6 characters'.", False, "another message of the app"),
        LabelledAnswer("Invalid credentials.", False, "a paraphrase is not the message the app shows"),
    ))


@mobiumapp(id="t02", reference=ref_t02, wrong=wrong_t02,
           slug="wrong-password", answer=ANSWER, judge=JUDGE, params=gen_t02,
           prompt="In MobiumApp's Login Demo, try to sign in as mobium with the password {password}. Report the "
                  "exact message the app shows, and leave the Login Demo showing.",
           controls=Controls(reasons={"wrong": "reports the button's 'Signing in…' caption read too early; the "
                                               "app's error does appear, so only the answer is wrong"}),
           evidence="screen",
           evidence_reason="the login error lives in the Login Demo's form, which the app rebuilds empty each time "
                           "the screen is opened",
           near_misses=(NearMiss("fields-swapped", script=near_t02_fields_swapped, verdict="false_success",
                                 why="the message is the one a wrong password gives, but the attempt was not the "
                                     "asked one: the password went into the username field"),),
           grader_history=((1, "the app gives one message for any wrong pair, so an attempt with the credentials "
                               "in the wrong fields passed on loginError alone; now the fields must also hold "
                               "mobium and a password of the asked length (a password field shows only bullets)"),
                           (2, "read loginError from whatever screen showed, so a right attempt followed by a "
                               "return to the menu was graded false_success; now the prompt asks for the Login Demo "
                               "to be left showing (evidence='screen')"),))
def test_t02_wrong_password(device, params) -> Outcome:
    got = line(device, "loginError")
    # Editing a field clears the error, so while it shows, the fields hold what was submitted.
    user, password = line(device, "username"), line(device, "password")
    tried = user.strip().lower() == "mobium" and password == "\u2022" * len(params["password"])
    return Outcome(got == LOGIN_ERROR and tried,
                   observed=f"{got or 'no loginError'}; username {user!r}, password {len(password)} characters")
