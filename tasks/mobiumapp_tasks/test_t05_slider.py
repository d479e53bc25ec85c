"""t05 slider: set the volume slider (Slider Demo)."""

from __future__ import annotations

from pytest_mobium_evals.core.tasks import Claim, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .suite import FOUND_RANGE, line, mobiumapp, open_screen, ref_for


def ref_t05(tools: Tools, params: dict) -> Claim:
    """Set the Volume slider to `params["volume"]`: fill takes a position from 0 to 1 along the track."""
    open_screen(tools, "Slider Demo")
    ref = ref_for(tools, r" Volume \(slider")
    res = tools.call("app_fill", target=ref, text=f"{params['volume'] / 100:g}")
    return Claim("done", None, res.text)


def wrong_t05(tools: Tools, params: dict) -> Claim:
    """Taps the slider instead of setting it: the tap lands mid-track (50), never the asked volume."""
    open_screen(tools, "Slider Demo")
    tools.call("app_tap", target="label=Volume")
    return Claim("done", None, f"set the volume to {params['volume']}")


def near_t05_balance(tools: Tools, params: dict) -> Claim:
    """Sets the slider beside Volume, Balance, to the asked position."""
    open_screen(tools, "Slider Demo")
    ref = ref_for(tools, r" Balance \(slider")
    res = tools.call("app_fill", target=ref, text=f"{params['volume'] / 100:g}")
    return Claim("done", None, res.text)


@mobiumapp(id="t05", reference=ref_t05, wrong=wrong_t05,
           slug="slider", regression=True,
           params=lambda rng: {"volume": rng.choice([0, 10, 20, 30, 40, 60, 70, 80, 90, 100])},
           prompt="In MobiumApp's Slider Demo, set the Volume slider to {volume}, and leave the Slider Demo "
                  "showing.",
           evidence="screen",
           evidence_reason="the sliders' values are the Slider Demo's own state, back to volume 50 each time it is "
                           "opened",
           near_misses=(NearMiss("balance", script=near_t05_balance, verdict="false_success",
                                 why="the slider below Volume set to the asked position: Volume is left at 50"),),
           grader_history=((2, "read sliderState from whatever screen showed, so a right volume followed by a "
                               "return to the menu was graded false_success; now the prompt asks for the Slider "
                               "Demo to be left showing (evidence='screen')"),),
           found="a slider's value was reported in the seek bar's own units: filled to 0.2 (volume 20) the agent "
                 f"was told \"value\": \"2.0\", concluded the maximum was 10, and gave up ({FOUND_RANGE})")
def test_t05_slider(device, params) -> Outcome:
    got = line(device, "sliderState")
    return Outcome(got.startswith(f"volume: {params['volume']},"), observed=got)
