"""t52 multi-finger: tap the Multi-Touch demo's zone with a seeded number of fingers at once and report what the
app says it saw (Gestures: Multi-Touch)."""

from __future__ import annotations

from hard import back_home
from mobiumapp import line, mobiumapp, open_screen, text_of

from pytest_mobium_evals import answers
from pytest_mobium_evals.tasks import Claim, Controls, JudgeSpec, LabelledAnswer, Outcome
from pytest_mobium_evals.toolserver import Tools


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


ANSWER = answers.reading("multi_result", "the app's verdict, such as '3-finger tap'")
JUDGE = JudgeSpec(
    question="Tap MobiumApp's Multi-Touch zone with several fingers at once and report what the app says it saw.",
    answers=(
        LabelledAnswer("3-finger tap", True, "the app's verdict", "3-finger tap"),
        LabelledAnswer("The app shows 'multi: 3-finger tap'.", True, "the line quoted whole", "3-finger tap"),
        LabelledAnswer("2-finger tap", False, "another number of fingers", "3-finger tap"),
        LabelledAnswer("one finger, moved 0, held 80ms", False, "the verdict on one finger", "3-finger tap"),
    ))


@mobiumapp(id="t52", reference=ref_t52, wrong=wrong_t52, params=gen_t52, tier="hard", slug="multi-finger",
           answer=ANSWER, judge=JUDGE,
           aims_at="gestures (CHALLENGES): several fingers at once, which one-finger input (adb input tap) cannot "
                   "do; taps one after another are not fingers together, and the app's own verdict says so",
           prompt="In MobiumApp, open Gestures, then Multi-Touch, and tap the green 'Tap with several fingers' "
                  "zone with {fingers} fingers at once. Tell me what the app says it saw.",
           controls=Controls(reasons={"wrong": "taps with one finger, one tap after another: 'one finger, …'"}))
def test_t52_multi_finger(device, params) -> Outcome:
    got = _seen(device)
    return Outcome(got == f"multi: {params['fingers']}-finger tap", observed=got.removeprefix("multi: "))
