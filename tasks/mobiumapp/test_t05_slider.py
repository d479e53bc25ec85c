"""t05 slider: set the volume slider (Slider Demo)."""

from __future__ import annotations

from mobiumapp import FOUND_RANGE, line, mobiumapp, open_screen, ref_for

from pytest_mobium_evals.tasks import Claim, Outcome
from pytest_mobium_evals.toolserver import Tools


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


@mobiumapp(id="t05", reference=ref_t05, wrong=wrong_t05,
           slug="slider", regression=True,
           params=lambda rng: {"volume": rng.choice([0, 10, 20, 30, 40, 60, 70, 80, 90, 100])},
           prompt="In MobiumApp's Slider Demo, set the Volume slider to {volume}.",
           found="a slider's value was reported in the seek bar's own units: filled to 0.2 (volume 20) the agent "
                 f"was told \"value\": \"2.0\", concluded the maximum was 10, and gave up ({FOUND_RANGE})")
def test_t05_slider(device, params) -> Outcome:
    got = line(device, "sliderState")
    return Outcome(got.startswith(f"volume: {params['volume']},"), observed=got)
