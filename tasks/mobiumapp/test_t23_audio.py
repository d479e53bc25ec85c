"""t23 audio: play a sequence and report its two pitches (Audio Demo)."""

from __future__ import annotations

import re

from mobiumapp import line, mobiumapp, open_screen, text_of

from pytest_mobium_evals import answers
from pytest_mobium_evals.tasks import Claim, Controls, JudgeSpec, LabelledAnswer, Outcome
from pytest_mobium_evals.toolserver import Tools


def ref_t23(tools: Tools, params: dict) -> Claim:
    """Play the sequence, wait for it to finish, and report its two pitches from what the app says it played."""
    open_screen(tools, "Audio Demo")
    tools.call("app_tap", target="testid=audioSequence")
    res = tools.call("app_wait_for", target="testid=audioState", condition="text", text="finished:",
                     timeout_ms=10000)
    state = text_of(tools, "audioState")
    pitches = re.findall(r"(\d+) Hz", state)
    return Claim("done", " and ".join(f"{p} Hz" for p in dict.fromkeys(pitches)), res.text)


def wrong_t23(tools: Tools, params: dict) -> Claim:
    """Answers from the button's caption without playing anything."""
    open_screen(tools, "Audio Demo")
    caption = tools.call("app_text", target="testid=audioSequence").text
    pitches = re.findall(r"(\d+) Hz", caption)
    return Claim("done", " and ".join(f"{p} Hz" for p in pitches), "read the button")


_SEQUENCE_DONE = "finished: 440 Hz 2 s, silence 1 s, 880 Hz 2 s"


#: The Audio Demo's sequence: a 440 Hz tone, a pause, an 880 Hz tone (its alarm, 660 Hz, is another button).
PITCHES_HZ = (440.0, 880.0)
ANSWER = answers.frequencies("two_pitches", PITCHES_HZ)
JUDGE = JudgeSpec(
    question="Play the sequence on the audio screen and report its two pitches.",
    truth="440 Hz and 880 Hz",
    answers=(
        LabelledAnswer("440 Hz and 880 Hz", True, "both pitches"),
        LabelledAnswer("First 440 Hz, then after a one-second pause 880 Hz.", True, "both pitches, with the pause"),
        LabelledAnswer("440 Hz and 660 Hz", False, "660 Hz is the alarm, not the sequence"),
        LabelledAnswer("Only one tone: 440 Hz.", False, "misses the second pitch"),
    ))


@mobiumapp(id="t23", reference=ref_t23, wrong=wrong_t23,
           slug="audio", answer=ANSWER, judge=JUDGE,
           prompt="In MobiumApp's Audio Demo, play the sequence and report its two pitches.",
           controls=Controls(reasons={"wrong": "answers from the button's caption without playing: the answer "
                                               "is right, the sequence was never played"}))
def test_t23_audio(device, params) -> Outcome:
    got = line(device, "audioState")
    return Outcome(got.startswith(_SEQUENCE_DONE), observed=got)
