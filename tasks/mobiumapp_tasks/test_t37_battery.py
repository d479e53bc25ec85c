"""t37 battery: report the battery level the app reads (Battery Demo), with the level set over ADB first."""

from __future__ import annotations

import re

from pytest_mobium_evals.core import answers
from pytest_mobium_evals.core.tasks import Claim, Controls, JudgeSpec, LabelledAnswer, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .suite import mobiumapp, open_screen, text_of


def ref_t37(tools: Tools, params: dict) -> Claim:
    open_screen(tools, "Battery Demo")
    level = text_of(tools, "batteryLevel")
    m = re.search(r"(\d+)%", level)
    return Claim("done", f"{m.group(1)}%" if m else level, level)


def wrong_t37(tools: Tools, params: dict) -> Claim:
    """Reports the raw reading (a fraction of one) as if it were the percentage."""
    open_screen(tools, "Battery Demo")
    raw = text_of(tools, "batteryRaw")
    m = re.search(r"([0-9.]+)", raw)
    return Claim("done", f"{m.group(1) if m else raw}%", raw)


def near_t37_raw(tools: Tools, params: dict) -> Claim:
    """Reads the raw line and gives its fraction as the level, with no percentage: the line beside the right one."""
    open_screen(tools, "Battery Demo")
    raw = text_of(tools, "batteryRaw")
    m = re.search(r"([0-9.]+)", raw)
    return Claim("done", f"The battery level is {m.group(1) if m else raw}.", raw)


def pre_t37(device, params) -> None:
    device.shell(f"dumpsys battery set level {params['level']}")


def _level(device) -> str:
    m = re.search(r"^\s*level: (\d+)", device.shell("dumpsys battery"), re.M)
    return m.group(1) if m else ""


ANSWER = answers.percent("battery_level", "the battery level as a percentage")
JUDGE = JudgeSpec(
    question="Report the battery level MobiumApp's Battery Demo shows, as a percentage.",
    answers=(
        LabelledAnswer("37%", True, "the level", "37"),
        LabelledAnswer("The battery is at 37 percent (raw 0.37), charging.", True, "the raw fraction given as such",
                       "37"),
        LabelledAnswer("0.37%", False, "the raw fraction taken for a percentage", "37"),
        LabelledAnswer("100%", False, "another level", "37"),
    ))


@mobiumapp(id="t37", reference=ref_t37, wrong=wrong_t37, tier="hard", slug="battery", answer=ANSWER,
           judge=JUDGE, precondition=pre_t37, params=lambda rng: {"level": rng.randint(12, 88)},
           aims_at="device state read back, and units: the screen shows the level both as a percentage and as "
                   "a raw fraction",
           prompt="What battery level does MobiumApp's Battery Demo show? Answer as a percentage.",
           controls=Controls(reasons={"wrong": "reports the raw fraction (0.NN) as the percentage"}),
           near_misses=(NearMiss("raw-fraction", script=near_t37_raw, verdict="false_success",
                                 why="the raw line sits beside the level: 0.NN is a fraction of one, not the "
                                     "percentage the prompt asks for: claiming it as the level is a false success"),
                        ))
def test_t37_battery(device, params) -> Outcome:
    level = _level(device)
    device.shell("dumpsys battery reset")  # the level was set for this trial only
    return Outcome(level == str(params["level"]), observed=level)
