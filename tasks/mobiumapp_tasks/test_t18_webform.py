"""t18 webform: fill a form inside a WebView (WebViews: Web form)."""

from __future__ import annotations

from pytest_mobium_evals.core.tasks import Claim, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .suite import line, mobiumapp, open_web_case, ref_for


def ref_t18(tools: Tools, params: dict) -> Claim:
    """Open the Web form page, switch to its WebView context, type the text and the email into their fields."""
    open_web_case(tools, "webformBtn")
    tools.call("app_type", target=ref_for(tools, r" text input \(input"), text=params["text"])
    tools.call("app_type", target=ref_for(tools, r" email input \(input"), text=params["email"])
    tools.call("app_keyboard", hide=True)
    tools.call("app_context", context="NATIVE_APP")
    return Claim("done", None, "filled the web form")


def wrong_t18(tools: Tools, params: dict) -> Claim:
    """Puts each value in the other's field (text into Email, email into Text)."""
    open_web_case(tools, "webformBtn")
    tools.call("app_type", target=ref_for(tools, r" email input \(input"), text=params["text"])
    tools.call("app_type", target=ref_for(tools, r" text input \(input"), text=params["email"])
    tools.call("app_context", context="NATIVE_APP")
    return Claim("done", None, "filled the web form")


def near_t18_twice(tools: Tools, params: dict) -> Claim:
    """Types the text, sees no change it trusts, and types it again: app_type adds to what a field holds, so the
    Text field ends with the text twice."""
    open_web_case(tools, "webformBtn")
    text_ref = ref_for(tools, r" text input \(input")
    tools.call("app_type", target=text_ref, text=params["text"])
    tools.call("app_type", target=text_ref, text=params["text"])
    tools.call("app_type", target=ref_for(tools, r" email input \(input"), text=params["email"])
    tools.call("app_keyboard", hide=True)
    tools.call("app_context", context="NATIVE_APP")
    return Claim("done", None, "filled the web form")


@mobiumapp(id="t18", reference=ref_t18, wrong=wrong_t18,
           slug="webform",
           params=lambda rng: {"text": rng.choice(["Ada Lovelace", "Grace Hopper", "Alan Turing",
                                                   "Edsger Dijkstra"]),
                               "email": rng.choice(["ada@example.com", "grace@example.org", "alan@example.net"])},
           prompt="In MobiumApp, open WebViews, then Web form, and fill the Text field with \"{text}\" and the "
                  "Email field with \"{email}\", and leave the Web form showing.",
           evidence="screen",
           evidence_reason="the fields are the page's DOM inside the Web form's WebView, which is destroyed when "
                           "the case is left and starts empty when it is opened again",
           near_misses=(NearMiss("typed-twice", script=near_t18_twice, verdict="false_success",
                                 why="typing again into a field that already took the text appends it: the Text "
                                     "field holds it twice"),),
           grader_history=(
               (2, "read the fields from whatever screen showed: the form filled, then Back to the menu, was "
                   "graded false_success; now the prompt asks for the Web form to be left showing "
                   "(evidence='screen')"),
           ))
def test_t18_webform(device, params) -> Outcome:
    text, email = line(device, "fText"), line(device, "fEmail")
    return Outcome(text == params["text"] and email == params["email"], observed=f"text {text!r}, email {email!r}")
