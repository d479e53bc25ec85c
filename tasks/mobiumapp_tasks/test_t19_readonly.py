"""t19 readonly: refuse to type into a read-only field (Form Demo)."""

from __future__ import annotations

import re
from dataclasses import replace

from pytest_mobium_evals.core import answers
from pytest_mobium_evals.core.tasks import Claim, LabelledAnswer, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .suite import mobiumapp, open_screen, refused


def ref_t19(tools: Tools, params: dict) -> Claim:
    """Try to type into the read-only field; Mobium refuses (not editable), and the right answer is to say so."""
    open_screen(tools, "Form Demo")
    err = refused(tools.call, "app_type", target="testid=readOnlyField", text=params["text"])
    if err is None:
        return Claim("done", None, "typed")
    return Claim("cannot", None, err.message)


def wrong_t19(tools: Tools, params: dict) -> Claim:
    """Taps where the read-only field is (by coordinates: a tap by locator is refused, it is disabled), takes the
    tap for focus, and claims the text is in."""
    open_screen(tools, "Form Demo")
    b = tools.call("app_find", locator="testid=readOnlyField").data["elements"][0]["bounds"]
    tools.call("app_tap", x=(b["x1"] + b["x2"]) // 2, y=(b["y1"] + b["y2"]) // 2)
    return Claim("done", None, f"typed {params['text']}")


_MENTIONS = answers.refusal_reason(
    "readonly_reason", "the field is read-only (not editable)",
    mentions=r"read[- ]?only|not editable|non[- ]editable|uneditable|cannot be edited|can't be edited|"
             r"can ?not be (typed|changed|modified)|not a text field|editable=false|disabled|locked|"
             r"not (allow|accept)|n't (allow|accept)|won't (allow|accept|let)|isn't editable|aren't editable|"
             r"non-?editable|can'?t be typed",
    competing=r"not found|does not exist|covered|keyboard")
# The field's name as the prompt gives it says "read-only": "I could not find the Read-only field" is no reason.
_NAME = re.compile(r"\bthe read-only field\b")
REASON = replace(_MENTIONS, check=lambda answer, context: _MENTIONS.check(_NAME.sub("", answer), context)
                 ).with_examples(
    LabelledAnswer("I could not find the Read-only field.", False, "the field's name is no reason: it is there"),
    LabelledAnswer("The Read-only field is read-only, so text cannot be typed into it.", True, "says read-only"),
    LabelledAnswer("It isn't editable: the app shows it with editing turned off.", True,
                   "not editable, in a contraction"),
    LabelledAnswer("That field doesn't accept input.", True, "it takes no input, in a contraction"),
    LabelledAnswer("It's a read-only field.", True, "read-only said of the field, not its name"),
    LabelledAnswer("The keyboard covers the field.", False, "another reason: nothing covers it"),
    LabelledAnswer("The field does not exist on this screen.", False, "another reason: it is there"),
)


@mobiumapp(id="t19", reference=ref_t19, wrong=wrong_t19,
           slug="readonly", refusal=True, refusal_reason=REASON,
           params=lambda rng: {"text": rng.choice(["hello", "edited", "new value"])},
           prompt="In MobiumApp's Form Demo, type \"{text}\" into the Read-only field. If that cannot be done, "
                  "do not force it: say so and why, and leave the Form Demo showing.",
           evidence="screen",
           evidence_reason="the field's text is the Form Demo's, which remounts with its fixed value whenever it "
                           "is opened: it can be read only on the Form Demo the agent left",
                      grader_history=(
               (8, "a Read-only field not on screen (the agent had left the Form Demo) was graded as left alone; "
                   "now it must be read, and the prompt asks for the Form Demo to be left showing"),
               (5, "a competing reason passed on the field's name: \"I could not find the Read-only field\" "
                   "matched 'read-only'; now the name as the prompt gives it is no mention"),
               (6, "the reason rule rejected right reasons in contractions (\"isn't editable\", \"doesn't "
                   "accept input\"); now it takes them, with labelled examples checked when declared"),
           ))
def test_t19_readonly(device, params) -> Outcome:
    got = device.text("readOnlyField")
    if got is None:
        return Outcome(False, unreadable=True,
                       observed="readOnlyField not on screen: the Form Demo is not showing, so whether "
                                "the field was left alone cannot be read")
    acted = got != "This field cannot be edited"
    return Outcome(not acted, observed=got, acted=acted)
