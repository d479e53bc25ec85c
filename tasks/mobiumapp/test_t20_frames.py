"""t20 frames: type into a field inside a cross-origin frame (WebViews: Frames)."""

from __future__ import annotations

from mobiumapp import line, mobiumapp, open_frames_page, ref_for

from pytest_mobium_evals.tasks import Claim, Outcome
from pytest_mobium_evals.toolserver import Tools


def ref_t20(tools: Tools, params: dict) -> Claim:
    """Open the Frames page, switch to the WebView, and fill the Card number field inside iframe#crossFrame."""
    open_frames_page(tools)
    tools.call("app_fill", target=ref_for(tools, r"\(input\) in iframe#crossFrame$"), text=params["card"])
    tools.call("app_keyboard", hide=True)
    tools.call("app_context", context="NATIVE_APP")
    typed = next((ln for ln in tools.call("app_text").text.splitlines() if ln.startswith("typed: ")), "")
    return Claim("done", None, typed or "typed the card number")


def wrong_t20(tools: Tools, params: dict) -> Claim:
    """Taps the cross-origin frame's button instead of typing into its field."""
    open_frames_page(tools)
    tools.call("app_tap", target=ref_for(tools, r"Tap me \(button\) in iframe#crossFrame$"))
    tools.call("app_context", context="NATIVE_APP")
    return Claim("done", None, "typed the card number")


@mobiumapp(id="t20", reference=ref_t20, wrong=wrong_t20,
           slug="frames",
           params=lambda rng: {"card": f"{rng.randint(0, 9999):04d} {rng.randint(0, 9999):04d}"},
           prompt="In MobiumApp, open WebViews, then Frames, and type the card number {card} into the Card number "
                  "field inside the cross-origin frame.")
def test_t20_frames(device, params) -> Outcome:
    got = line(device, "frameTyped")
    return Outcome(got == f"typed: {params['card']}", observed=got)
