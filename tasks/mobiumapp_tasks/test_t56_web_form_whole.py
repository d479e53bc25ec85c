"""t56 web-form-whole: every field of the Web form that takes text, with a name a shell would mangle, the box
checked, and the fields that refuse left as they are (WebViews: Web form)."""

from __future__ import annotations

import re
import unicodedata

from pytest_mobium_evals.core import answers
from pytest_mobium_evals.core.tasks import Claim, Controls, JudgeSpec, LabelledAnswer, NearMiss, Outcome
from pytest_mobium_evals.drivers.scripting import refusal
from pytest_mobium_evals.reach.toolserver import Tools

from .suite import line, mobiumapp, open_web_case, ref_for

NAMES = ("Zoë Brontë", "Chloé O'Connor", "Søren Kierkegaard", "Anaïs Nin", "José Martí")
REFUSING = ("fixed", "aria-readonly", "disabled")
# What the empty fields that refuse text show to uiautomator: nothing, or their placeholder (a WebView's empty field
# may report its hint as its text).
EMPTY_SHOWS = {"fAriaReadonly": "aria-readonly", "fDisabled": "disabled"}


def _fill(tools: Tools, params: dict, name: str) -> list[str]:
    open_web_case(tools, "webformBtn")
    tools.call("app_type", target=ref_for(tools, r" text input \(input"), text=name)
    tools.call("app_type", target=ref_for(tools, r" email input \(input"), text=params["email"])
    tools.call("app_type", target=ref_for(tools, r" notes \(input"), text=params["notes"])
    tools.call("app_keyboard", hide=True)  # the fields below are under it
    refused = [label for label in REFUSING
               if refusal(tools.call, "app_type", target=ref_for(tools, rf" {label} \(input"), text="x")]
    tools.call("app_keyboard", hide=True)
    tools.call("app_tap", target=ref_for(tools, r" A checkbox \(checkbox"))
    return refused


def ref_t56(tools: Tools, params: dict) -> Claim:
    refused = _fill(tools, params, params["name"])
    tools.call("app_context", context="NATIVE_APP")
    return Claim("done", ", ".join(refused), "filled Text, Email and Notes and checked the box")


def near_t56_refilled(tools: Tools, params: dict) -> Claim:
    """The whole form with the name typed without its accents, then, read back and found wrong, replaced with the
    name as given (app_fill clears the field first)."""
    plain = unicodedata.normalize("NFKD", params["name"]).encode("ascii", "ignore").decode()
    refused = _fill(tools, params, plain)
    tools.call("app_fill", target=ref_for(tools, r" text input \(input"), text=params["name"])
    tools.call("app_keyboard", hide=True)
    tools.call("app_context", context="NATIVE_APP")
    return Claim("done", ", ".join(refused), "filled Text (again, with its accents), Email and Notes and checked "
                                             "the box")


def wrong_t56(tools: Tools, params: dict) -> Claim:
    """Types the name without its accents, as text sent through a shell's `input text` arrives."""
    plain = unicodedata.normalize("NFKD", params["name"]).encode("ascii", "ignore").decode()
    _fill(tools, params, plain)
    tools.call("app_context", context="NATIVE_APP")
    return Claim("done", "fixed, aria-readonly, disabled", "filled the form")


# ---- the answer: which fields refused -------------------------------------------------------------------------------

_ARIA = re.compile(r"\baria[- ]?read[- ]?only\b")
_READ_ONLY = re.compile(r"\bread[- ]?only\b|\bfixed\b")
_DISABLED = re.compile(r"\bdisabled\b")
# The fields that take text, by names that say nothing else ("text" alone is any text, so the Text field is left out).
_TAKING = re.compile(r"\b(e-?mail|notes|password)\b")
# A sentence that names one of those as taking text, or denies it refused, does not name it among the refusing.
_AS_TAKING = re.compile(r"\b(not|never|took|take|takes|accepted|accepts?|filled|typed|worked|fine|editable|went in|"
                        r"holds?|held|other|else|hides|hidden|masked)\b")


def _refused_fields(answer: str, _: answers.AnswerContext) -> bool:
    if not _ARIA.search(answer):
        return False
    rest = _ARIA.sub(" ", answer)
    if not (_READ_ONLY.search(rest) and _DISABLED.search(rest)):
        return False
    return not any(_TAKING.search(sentence) and not _AS_TAKING.search(sentence)
                   for sentence in re.split(r"[.!?;\n]", answer))


REFUSED = "Read-only (fixed), aria-readonly and Disabled"
ANSWER = answers.AnswerRule("refused_fields", f"the three fields that refuse text: {REFUSED}", _refused_fields,
                            rivals=lambda _a, _c: ("the Email field",))
JUDGE = JudgeSpec(
    question="Fill MobiumApp's Web form, leaving the fields that do not take text as they are. Which fields "
             "refused?",
    truth=REFUSED,
    answers=(
        LabelledAnswer("Read-only, aria-readonly and Disabled refused.", True, "the three by their labels"),
        LabelledAnswer("The fields labelled fixed, aria-readonly and disabled would not take text; Text, Email and "
                       "Notes took it.", True, "the three, and the others said to have taken text"),
        LabelledAnswer("Read-only, aria-readonly and Disabled refused, not Email.", True, "Email named to deny it"),
        LabelledAnswer("Read-only and Disabled refused.", False, "aria-readonly left out"),
        LabelledAnswer("Read-only, aria-readonly, Disabled and Email refused.", False, "Email took its text"),
        LabelledAnswer("fixed, aria-readonly, disabled. Maybe Notes too.", False, "Notes took its text"),
    ))


@mobiumapp(id="t56", reference=ref_t56, wrong=wrong_t56, tier="hard", slug="web-form-whole",
           params=lambda rng: {"name": rng.choice(NAMES), "email": f"reader{rng.randint(10, 99)}@example.org",
                               "notes": rng.choice(["two words", "call me back", "see you at noon"])},
           aims_at="a long horizon in a page, and text a shell would mangle (non-ASCII, quotes): each field typed "
                   "exactly, the ones that refuse text found and left alone, the box checked",
           prompt="In MobiumApp, open WebViews, then Web form. Type \"{name}\" into the Text field, \"{email}\" into "
                  "Email and \"{notes}\" into Notes, check the checkbox, and leave every field that does not take "
                  "text as it is, and leave the Web form showing. Tell me which fields refused.",
           controls=Controls(reasons={"wrong": "types the name without its accents"}),
           answer=ANSWER, judge=JUDGE,
           evidence="screen",
           evidence_reason="what the form holds is the page's own, and the page is built anew each time Web form "
                           "opens",
           near_misses=(
               NearMiss("refilled", script=near_t56_refilled, verdict="pass",
                        why="the name first typed without its accents, then read back and replaced with the name "
                            "as given: the form ends holding exactly what was asked, and nothing was lost"),
           ),
           grader_history=(
               (2, "the form was read from whatever screen showed, so a filled form followed by going back to the "
                   "menu was graded as not filled; the evidence is the page's (evidence='screen') and the prompt "
                   "asks to leave it showing"),
               (5, "the fields that refused, which the prompt asks for, were not graded: any answer passed, a "
                   "taking field named among them too; the answer must now name the three and no field that took "
                   "text"),
               (1, "only the read-only field was checked among those that refuse: text forced into the "
                   "aria-readonly or the disabled field (on a real WebView app_eval can set a value) went unseen; "
                   "both must now be as they were, empty"),
           ))
def test_t56_web_form_whole(device, params) -> Outcome:
    got = {k: line(device, k) for k in ("fText", "fEmail", "fArea", "fReadonly", "fAriaReadonly", "fDisabled")}
    box = device.find("fCheck")
    checked = box is not None and box.checked
    ok = (got["fText"] == params["name"] and got["fEmail"] == params["email"] and got["fArea"] == params["notes"]
          and got["fReadonly"] == "fixed" and all(got[k] in ("", hint) for k, hint in EMPTY_SHOWS.items()) and checked)
    return Outcome(ok, observed=f"{got}; checkbox {'checked' if checked else 'not checked'}")
