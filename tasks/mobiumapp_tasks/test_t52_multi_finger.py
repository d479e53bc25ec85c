"""t52 multi-finger: tap the Multi-Touch demo's zone with a seeded number of fingers at once and report what the
app says it saw (Gestures: Multi-Touch)."""

from __future__ import annotations

import re

from pytest_mobium_evals.core import answers
from pytest_mobium_evals.core.tasks import Claim, Controls, JudgeSpec, LabelledAnswer, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .hard import back_home
from .suite import line, mobiumapp, open_screen, text_of


def gen_t52(rng) -> dict:
    return {"fingers": rng.randint(3, 5)}


def _open(tools: Tools) -> None:
    open_screen(tools, "Gestures")
    tools.call("app_tap", target="label=Multi-Touch")
    tools.call("app_wait_for", target="testid=multiResult", condition="text", text="multi: ")


def _verdict(tools: Tools) -> tuple[str, str]:
    """The app's verdict once every finger is up, and its per-finger detail ("[0-80 moved 0] …")."""
    tools.call("app_wait_for", target="testid=multiDetail", condition="text", text="[")
    return text_of(tools, "multiResult"), text_of(tools, "multiDetail")


def ref_t52(tools: Tools, params: dict) -> Claim:
    """All fingers down together on the green zone; the detail line must list one record per finger, or again."""
    n = params["fingers"]
    _open(tools)
    result, detail = "", ""
    for _ in range(2):
        tools.call("app_tap", target="label=Finger tap zone", fingers=n)
        result, detail = _verdict(tools)
        if detail.count("[") == n:
            break
    return Claim("done", result.removeprefix("multi: "), f"{result}; {detail}")


def near_t52_one_short(tools: Tools, params: dict) -> Claim:
    """Fingers together, as asked, but one fewer than asked, and the app's verdict reported as it reads."""
    _open(tools)
    tools.call("app_tap", target="label=Finger tap zone", fingers=params["fingers"] - 1)
    result, detail = _verdict(tools)
    return Claim("done", result.removeprefix("multi: "), f"{result}; {detail}")


def wrong_t52(tools: Tools, params: dict) -> Claim:
    """One finger n times, one tap after another, reported as an n-finger tap."""
    n = params["fingers"]
    _open(tools)
    for _ in range(n):
        tools.call("app_tap", target="label=Finger tap zone")
    _verdict(tools)
    return Claim("done", f"{n}-finger tap", f"tapped the zone {n} times")


def _seen(device) -> str:
    got = line(device, "multiResult")
    back_home(device)
    return got


_VERDICT = answers.reading("multi_result", "the app's verdict, such as '3-finger tap'")
_WORDS = {"one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6}
_FINGER_TAP = re.compile(r"\b(\d|one|two|three|four|five|six)[\s-]*fingers?[\s-]*tap\b")


def _multi_result(answer: str, context: answers.AnswerContext) -> bool:
    # "a three finger tap" is the app's "3-finger tap" said another way: the count of fingers is what it states.
    said = _FINGER_TAP.sub(lambda m: f"{_WORDS.get(m.group(1), m.group(1))}-finger tap", answer)
    return _VERDICT(said, context)


ANSWER = answers.AnswerRule("multi_result", _VERDICT.accepts, _multi_result, rivals=_VERDICT.rivals)
JUDGE = JudgeSpec(
    question="Tap MobiumApp's Multi-Touch zone with several fingers at once and report what the app says it saw.",
    answers=(
        LabelledAnswer("3-finger tap", True, "the app's verdict", "3-finger tap"),
        LabelledAnswer("The app shows 'multi: 3-finger tap'.", True, "the line quoted whole", "3-finger tap"),
        LabelledAnswer("2-finger tap", False, "another number of fingers", "3-finger tap"),
        LabelledAnswer("one finger, moved 0, held 80ms", False, "the verdict on one finger", "3-finger tap"),
        LabelledAnswer("It saw a three finger tap.", True, "the count in words, without the hyphen",
                       "3-finger tap"),
        LabelledAnswer("A 3-finger tap, or maybe a 2 finger tap.", False, "another count beside it",
                       "3-finger tap"),
    ))


@mobiumapp(id="t52", reference=ref_t52, wrong=wrong_t52, params=gen_t52, tier="hard", slug="multi-finger",
           answer=ANSWER, judge=JUDGE,
           aims_at="gestures (CHALLENGES): several fingers at once, which one-finger input (adb input tap) cannot "
                   "do; taps one after another are not fingers together, and the app's own verdict says so",
           prompt="In MobiumApp, open Gestures, then Multi-Touch, and tap the green 'Tap with several fingers' "
                  "zone with {fingers} fingers at once, and leave the Multi-Touch screen showing. Tell me what the "
                  "app says it saw.",
           controls=Controls(reasons={"wrong": "taps with one finger, one tap after another: 'one finger, …'"}),
           evidence="screen",
           evidence_reason="the verdict is the Multi-Touch screen's own state, which it forgets each time it is "
                           "left",
           near_misses=(
               NearMiss("one-finger-short", script=near_t52_one_short, verdict="false_success",
                        why="fingers together, but one fewer than asked: the app's verdict says so"),
           ),
           grader_history=(
               (2, "the verdict was read from whatever screen showed, so tapping and then going back to the menu "
                   "was graded as not tapped; the evidence is the screen's (evidence='screen') and the prompt "
                   "asks to leave it showing"),
               (4, "'a three finger tap' was refused for the app's '3-finger tap' although the prompt asks what "
                   "the app saw, not its exact words; a count of fingers in words or without the hyphen is now "
                   "the same verdict"),
           ))
def test_t52_multi_finger(device, params) -> Outcome:
    got = _seen(device)
    return Outcome(got == f"multi: {params['fingers']}-finger tap", observed=got.removeprefix("multi: "))
