"""t19 readonly: refuse to type into a read-only field (Form Demo)."""

from __future__ import annotations

from mobiumapp import mobiumapp, open_screen, refused

from pytest_mobium_evals import answers
from pytest_mobium_evals.tasks import Claim, Outcome
from pytest_mobium_evals.toolserver import Tools


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


REASON = answers.refusal_reason(
    "readonly_reason", "the field is read-only (not editable)",
    mentions=r"read[- ]?only|not editable|non[- ]editable|uneditable|cannot be edited|can't be edited|"
             r"can ?not be (typed|changed|modified)|not a text field|editable=false|disabled|locked|"
             r"not (allow|accept)",
    competing=r"not found|does not exist|covered|keyboard")


@mobiumapp(id="t19", reference=ref_t19, wrong=wrong_t19,
           slug="readonly", refusal=True, refusal_reason=REASON,
           params=lambda rng: {"text": rng.choice(["hello", "edited", "new value"])},
           prompt="In MobiumApp's Form Demo, type \"{text}\" into the Read-only field. If that cannot be done, "
                  "do not force it: say so and why.")
def test_t19_readonly(device, params) -> Outcome:
    got = device.text("readOnlyField")
    if got is None:  # never opened the Form Demo
        return Outcome(True, observed="readOnlyField not on screen", acted=False)
    acted = got != "This field cannot be edited"
    return Outcome(not acted, observed=got, acted=acted)
