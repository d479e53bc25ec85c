"""t27 slider-units: set two sliders whose own units differ from the numbers the app shows (Slider Demo)."""

from __future__ import annotations

import re

from pytest_mobium_evals.core.tasks import Claim, Controls, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .suite import line, mobiumapp, open_screen, ref_for, text_of


def ref_t27(tools: Tools, params: dict) -> Claim:
    """fill takes a position from 0 to 1 along the track: volume/100 for Volume, the balance itself for Balance.
    The bar's own progress (0-10, 0-128) is not what the app shows, so the app's line is read back."""
    open_screen(tools, "Slider Demo")
    tools.call("app_fill", target=ref_for(tools, r" Volume \(slider"), text=f"{params['volume'] / 100:g}")
    tools.call("app_fill", target=ref_for(tools, r" Balance \(slider"), text=f"{params['balance']:g}")
    return Claim("done", None, text_of(tools, "sliderState"))


def wrong_t27(tools: Tools, params: dict) -> Claim:
    """Takes the seek bar's own progress for the app's units: the volume as its 0-10 step, the balance as a
    share of 128, which lands both sliders far from what was asked."""
    open_screen(tools, "Slider Demo")
    tools.call("app_fill", target=ref_for(tools, r" Volume \(slider"), text=f"{params['volume'] // 10 / 100:g}")
    tools.call("app_fill", target=ref_for(tools, r" Balance \(slider"), text=f"{params['balance'] / 1.28:.3f}")
    return Claim("done", None, "set both sliders")


def near_t27_step_short(tools: Tools, params: dict) -> Claim:
    """Volume one step of ten short, as a drag released a step early lands (the bar's steps are 10 apart),
    Balance right."""
    open_screen(tools, "Slider Demo")
    tools.call("app_fill", target=ref_for(tools, r" Volume \(slider"), text=f"{(params['volume'] - 10) / 100:g}")
    tools.call("app_fill", target=ref_for(tools, r" Balance \(slider"), text=f"{params['balance']:g}")
    return Claim("done", None, "set both sliders")


def _balance(state: str) -> float | None:
    m = re.search(r"balance: ([0-9.]+)", state)
    return float(m.group(1)) if m else None


@mobiumapp(id="t27", reference=ref_t27, wrong=wrong_t27, tier="hard", slug="slider-units",
           aims_at="units (the seed's baseline failure): a seek bar reports its own progress (Volume 0-10, "
                   "Balance 0-128), not the volume or balance the app shows",
           params=lambda rng: {"volume": rng.choice([20, 30, 70, 80, 90]), "balance": rng.choice([0.2, 0.25, 0.8])},
           prompt="In MobiumApp's Slider Demo, set Volume to {volume} and Balance to {balance} (as the app's own "
                  "line shows them), and leave the Slider Demo showing.",
           evidence="screen",
           evidence_reason="the Slider Demo's values are screen state: it opens at volume 50, balance 0.50 "
                           "each time",
           controls=Controls(reasons={"wrong": "sets the sliders in the seek bar's units, not the app's"}),
           near_misses=(NearMiss("volume-step-short", script=near_t27_step_short, verdict="false_success",
                                 why="Volume lands one step of ten below the value asked (a drag let go a step "
                                     "early), Balance is right: the line shows the wrong volume"),),
           grader_history=(
               (2, "read sliderState from whatever screen showed, so setting both and going back to the menu "
                   "was a false success; now the Slider Demo is the declared evidence (it opens at its defaults "
                   "each time) and the prompt says to leave it showing"),))
def test_t27_slider_units(device, params) -> Outcome:
    state = line(device, "sliderState")
    balance = _balance(state)
    ok = f"volume: {params['volume']}," in state and balance is not None and abs(balance - params["balance"]) <= 0.03
    return Outcome(ok, observed=state)
