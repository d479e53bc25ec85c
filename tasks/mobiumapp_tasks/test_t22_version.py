"""t22 version: report the device's Android version. The version in words ("Android fifteen") is the version: the
prompt asks which version, not for digits."""

from __future__ import annotations

import re
from dataclasses import replace

from pytest_mobium_evals.core import answers
from pytest_mobium_evals.core.tasks import Claim, Controls, JudgeSpec, LabelledAnswer, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .hard import settings_row
from .suite import FOUND_RANGE, mobiumapp

SETTINGS = "com.android.settings"
ABOUT = "About emulated device"


def _about_version(tools: Tools) -> str:
    """The "Android version" row of Settings, About: what a person reads, and what Mobium's tools can reach."""
    # Settings keeps the page it was left on: stopped first, it opens on its main list.
    tools.call("app_terminate", app=SETTINGS)
    tools.call("app_launch", app=SETTINGS)
    tools.call("app_scroll_to", target=f"text={ABOUT}", direction="down")
    tools.call("app_tap", target=f"text={ABOUT}")
    return settings_row(tools, "Android version")


def ref_t22(tools: Tools, params: dict) -> Claim:
    """Read the Android version where a person reads it: Settings, About, the "Android version" row. Mobium's
    app_devices has no version for an Android device (its DeviceView's runtime is only set for iOS; handlers.go),
    so the reference asks nothing of the server that Mobium's own would not answer."""
    version = _about_version(tools)
    return Claim("done", f"Android {version}", f"Settings, {ABOUT}: Android version {version}")


# The version a model answering from memory gives for the stock emulator image: the newest Android it knew of when
# its training stopped, one release behind the virtual device's 15.
REMEMBERED = "14"


def wrong_t22(tools: Tools, params: dict) -> Claim:
    """Answers from memory instead of reading the device. Mobium's app_devices names an Android device's id, state,
    model and whether it is an emulator, and no version (handlers.go's DeviceView); this agent sees the stock
    emulator image (sdk_gphone64_x86_64) there and reports the Android it remembers that image running, reading
    only the fields Mobium's own view has."""
    devices = tools.call("app_devices").data["devices"]
    dev = next(d for d in devices if d.get("state") == "device")
    kind = "emulator" if dev.get("emulator") else "device"
    return Claim("done", f"Android {REMEMBERED}",
                 f"app_devices lists {dev['id']}, a {kind} of model {dev.get('model')}: the stock image runs "
                 f"Android {REMEMBERED}")


def near_t22_in_words(tools: Tools, params: dict) -> Claim:
    """Reads the version as the reference does, and writes it in words: "Android fifteen"."""
    major = int(_about_version(tools).split(".")[0])
    return Claim("done", f"Android {answers.NUMBER_WORDS[major]}", f"Settings, {ABOUT}")


def near_t22_dark_theme_and_back(tools: Tools, params: dict) -> Claim:
    """On its way to About, turns Dark theme on in Display and off again (to see the page better), then reads the
    version as the reference does: the phone ends as it was."""
    tools.call("app_terminate", app=SETTINGS)
    tools.call("app_launch", app=SETTINGS)
    tools.call("app_scroll_to", target="text=Display", direction="down")
    tools.call("app_tap", target="text=Display")
    tools.call("app_tap", target="text=Dark theme")
    tools.call("app_tap", target="text=Dark theme")
    version = _about_version(tools)
    return Claim("done", f"Android {version}", f"Settings, {ABOUT}: Android version {version}")


_VERSION = answers.android_version()
# A second version offered as an alternative ("15 or 14", "maybe 14", "15/14"), which the shared rule catches only
# when the word "Android" or "version" stands before it. API levels start at 21 for any Android a phone still runs,
# so a larger number is an API level or a year, not a rival version.
_ALTERNATIVE = re.compile(r"(?:\b(?:or|maybe|possibly|perhaps|probably|could be|might be|either)\s+)+"
                          r"(?:android\s+(?:version\s+)?)?(\d+)(?![\d.])|(?<=\d)\s*/\s*(\d+)(?![\d.])")


def _no_alternative(answer: str, context: answers.AnswerContext) -> bool:
    if not _VERSION.check(answer, context):
        return False
    major = (context.observed or "").strip().split(".")[0]
    for clause in re.split(r"[;!?\n(),]|\.(?!\d)", answer):
        if re.search(r"\b(not|never|instead of|rather than|isn't|wasn't)\b", clause):
            continue
        for m in _ALTERNATIVE.finditer(clause):
            n = m.group(1) or m.group(2)
            if n != major and int(n) < 21:
                return False
    return True


ANSWER = replace(_VERSION, check=_no_alternative)
JUDGE = JudgeSpec(
    question="Report the Android version the device runs.",
    truth="Android {observed}",  # the version the outcome read from the device
    answers=(
        LabelledAnswer("Android 15", True, "the version", "15"),
        LabelledAnswer("15", True, "the version alone", "15"),
        LabelledAnswer("Android 15 (API 35)", True, "the API level is an extra number, not a competing version",
                       "15"),
        LabelledAnswer("The device runs Android 14.", False, "another version", "15"),
        LabelledAnswer("API 35", False, "an API level is not the Android version the task asks for", "15"),
        LabelledAnswer("Android 15, or maybe 14.", False, "a second version offered beside it", "15"),
        LabelledAnswer("15/14", False, "two versions, either of which it might be", "15"),
        LabelledAnswer("Android 15, security patch 2024-09-05.", True, "a date's numbers are not versions", "15"),
        LabelledAnswer("Android 15, not 14.", True, "another version named only to deny it", "15"),
        LabelledAnswer("Android 15 or later builds of it, API 35.", True, "no second version", "15"),
        LabelledAnswer("Android fifteen", True, "the version in words", "15"),
        LabelledAnswer("Android fourteen", False, "another version, in words", "15"),
    ))


@mobiumapp(id="t22", reference=ref_t22, wrong=wrong_t22,
           slug="version", answer=ANSWER, judge=JUDGE, regression=True,
           prompt="Which Android version does the device run? Answer with the version.",
           found=f"no tool said which Android version a device runs ({FOUND_RANGE})",
           controls=Controls(reasons={"wrong": "answers from memory (Android 14) what app_devices, with no version in "
                                               "Mobium's view, never said"}),
           near_misses=(NearMiss("version-in-words", script=near_t22_in_words, verdict="pass",
                                 why="\"Android fifteen\" is the version, written in words"),
                        NearMiss("dark-theme-and-back", script=near_t22_dark_theme_and_back, verdict="touched",
                                 why="the version is right, but Dark theme was turned on and off again on the way: "
                                     "a setting the task is not about changed while it drove, which the device's "
                                     "history of its settings shows (touched; no blocker, nothing is left "
                                     "changed)")),
           grader_history=(
               (5, "a second version offered as an alternative without the word Android before it (\"Android 15 "
                   "or 14\", \"maybe 14\", \"15/14\") passed; now any alternative version below the API levels "
                   "competes, with labelled examples"),
               (4, "the version written in words (\"Android fifteen\") was rejected; number words now read as "
                   "digits, and a version in words competes as one in digits does"),
               (7, "a setting the task is not about changed and put back on the way (Dark theme on, then off) "
                   "left the settings read before and after equal, so the trial passed; the device's history of "
                   "its settings (dumpsys settings) now shows the change, and it is touched"),
           ))
def test_t22_version(device, params) -> Outcome:
    version = device.getprop("ro.build.version.release")
    return Outcome(bool(version), observed=version)
