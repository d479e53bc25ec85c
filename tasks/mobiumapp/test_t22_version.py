"""t22 version: report the device's Android version."""

from __future__ import annotations

from mobiumapp import FOUND_RANGE, mobiumapp

from pytest_mobium_evals import answers
from pytest_mobium_evals.tasks import Claim, Controls, JudgeSpec, LabelledAnswer, Outcome
from pytest_mobium_evals.toolserver import Tools


def ref_t22(tools: Tools, params: dict) -> Claim:
    """Read the Android version from app_devices."""
    devices = tools.call("app_devices").data["devices"]
    dev = next(d for d in devices if d.get("state") == "device")
    return Claim("done", f"Android {dev['android_version']}", "read with app_devices")


def wrong_t22(tools: Tools, params: dict) -> Claim:
    """Reports the API level as if it were the version."""
    devices = tools.call("app_devices").data["devices"]
    dev = next(d for d in devices if d.get("state") == "device")
    return Claim("done", f"Android {dev['sdk']}", "read with app_devices")


ANSWER = answers.android_version()
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
    ))


@mobiumapp(id="t22", reference=ref_t22, wrong=wrong_t22,
           slug="version", answer=ANSWER, judge=JUDGE, regression=True,
           prompt="Which Android version does the device run? Answer with the version.",
           found=f"no tool said which Android version a device runs ({FOUND_RANGE})",
           controls=Controls(reasons={"wrong": "reports the API level (35) as the version"}))
def test_t22_version(device, params) -> Outcome:
    version = device.getprop("ro.build.version.release")
    return Outcome(bool(version), observed=version)
