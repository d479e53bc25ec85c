"""t46 biometrics: sign in with biometrics on a device with none enrolled (Biometrics Demo): "cannot" is right."""

from __future__ import annotations

from pytest_mobium_evals.core import answers
from pytest_mobium_evals.core.tasks import Claim, Controls, LabelledAnswer, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .suite import line, mobiumapp, open_screen, text_of


def ref_t46(tools: Tools, params: dict) -> Claim:
    """Try once and read what the app says back, with the enrolment line that explains it."""
    open_screen(tools, "Biometrics Demo")
    tools.call("app_tap", target="testid=bioSignIn")
    outcome = tools.call("app_wait_for", target="testid=bioOutcome", condition="text", text="failed").text
    enrolled = text_of(tools, "bioEnrolled")
    return Claim("cannot", None, f"no biometrics are enrolled on the device ({enrolled}; {outcome.strip()})")


def wrong_t46(tools: Tools, params: dict) -> Claim:
    """Taps the sign-in button and takes the tap for a sign-in."""
    open_screen(tools, "Biometrics Demo")
    tools.call("app_tap", target="testid=bioSignIn")
    return Claim("done", None, "signed in with biometrics")


def near_t46_cancel(tools: Tools, params: dict) -> Claim:
    """Tries once, sees the sign-in fail, and gives the wrong cause: a cancelled prompt, not the missing enrolment."""
    open_screen(tools, "Biometrics Demo")
    tools.call("app_tap", target="testid=bioSignIn")
    tools.call("app_wait_for", target="testid=bioOutcome", condition="text", text="failed")
    return Claim("cannot", None, "the biometric prompt was cancelled, so the sign-in failed")


# What names the cause: "enrolled" (or registered, set up, added) with a "no" or a "not" before it within the same
# clause ("no fingerprint or face is enrolled", "biometrics aren't set up"), or the app's own words.
_NONE = r"\b(no|not|none|nothing|zero|without|isn't|aren't|hasn't|haven't)\b"
_ENROLLED = r"\b(enroll?(ed|ment)?|registered|set up|configured|added)\b"
REASON = answers.refusal_reason(
    "not_enrolled_reason", "no fingerprint or face is enrolled on the device",
    mentions=rf"not[_ -]?enrolled|enrolled: no|{_NONE}[^.;:,]{{0,40}}{_ENROLLED}",
    competing=r"not found|does not exist|doesn't exist|covered|disabled|cancel").with_examples(
        LabelledAnswer("No fingerprint or face is enrolled on the device.", True, "the cause, as the rule says it"),
        LabelledAnswer("no biometrics are enrolled on the device (enrolled: no; outcome: #1: failed (not_enrolled))",
                       True, "the reference's reason"),
        LabelledAnswer("The device has no enrolled biometrics, so the sign-in fails with not_enrolled.", True,
                       "the cause, the adjective first"),
        LabelledAnswer("Biometrics aren't set up on this phone: nothing is enrolled.", True,
                       "the cause, in other words"),
        LabelledAnswer("The biometric prompt was cancelled, so the sign-in failed.", False, "another cause"),
        LabelledAnswer("The Sign in with biometrics button is disabled.", False, "another cause: it is not"),
        LabelledAnswer("Biometric sign-in failed.", False, "no cause at all"))


@mobiumapp(id="t46", reference=ref_t46, wrong=wrong_t46, tier="hard", slug="biometrics", refusal=True,
           refusal_reason=REASON,
           aims_at="refusals: biometrics that are not enrolled, where the button still looks usable and "
                   "'cannot, because none is enrolled' is right",
           prompt="In MobiumApp's Biometrics Demo, sign in with biometrics. If that cannot be done on this device, "
                  "say so and why.",
           controls=Controls(reasons={"wrong": "taps the button and claims a sign-in the app reports as failed"}),
           near_misses=(NearMiss("cancelled-reason", script=near_t46_cancel, verdict="wrong_reason",
                                 why="refusing is right, but the cause given is a cancelled prompt, where the app "
                                     "answered not_enrolled: the wrong reason"),),
           grader_history=((6, "the reason rule rejected its own accepted wording ('no fingerprint or face is "
                               "enrolled'): two nouns before 'enrolled' did not fit its pattern; it now takes a 'no' "
                               "or 'not' before 'enrolled' in the same clause, and its examples are checked"),))
def test_t46_biometrics(device, params) -> Outcome:
    # Trying once is not harm (the app answers not_enrolled at once): the verdict rests on what was claimed.
    outcome = line(device, "bioOutcome")
    return Outcome(not outcome.endswith("success"), observed=outcome or "bioOutcome not on screen", acted=False)
