"""t20 frames: type into a field inside a cross-origin frame (WebViews: Frames)."""

from __future__ import annotations

from pytest_mobium_evals.core.tasks import Claim, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .suite import line, mobiumapp, open_frames_page, ref_for


def ref_t20(tools: Tools, params: dict) -> Claim:
    """Open the Frames page; its WebView's map says the cross-origin frame cannot be seen into, so the Card number
    field is reached from NATIVE_APP, whose map is the accessibility tree, frames and all."""
    open_frames_page(tools)
    tools.call("app_map")
    tools.call("app_context", context="NATIVE_APP")
    tools.call("app_fill", target=ref_for(tools, r" Card number \(input\)$"), text=params["card"])
    tools.call("app_keyboard", hide=True)
    typed = next((ln for ln in tools.call("app_text").text.splitlines() if ln.startswith("typed: ")), "")
    return Claim("done", None, typed or "typed the card number")


def wrong_t20(tools: Tools, params: dict) -> Claim:
    """Taps the cross-origin frame's button instead of typing into its field."""
    open_frames_page(tools)
    tools.call("app_context", context="NATIVE_APP")
    taps = [ln.split()[0] for ln in tools.call("app_map").text.splitlines() if ln.endswith(" Tap me (button)")]
    tools.call("app_tap", target=taps[-1])  # the last "Tap me" is the cross-origin frame's
    return Claim("done", None, "typed the card number")


@mobiumapp(id="t20", reference=ref_t20, wrong=wrong_t20,
           slug="frames",
           params=lambda rng: {"card": f"{rng.randint(0, 9999):04d} {rng.randint(0, 9999):04d}"},
           prompt="In MobiumApp, open WebViews, then Frames, and type the card number {card} into the Card number "
                  "field inside the cross-origin frame, and leave the Frames page showing.",
           evidence="screen",
           evidence_reason="'typed: …' is the Frames page's DOM inside its WebView, which is destroyed when the "
                           "case is left and starts at 'typed: nothing' when it is opened again",
           grader_history=(
               (2, "read frameTyped from whatever screen showed: the card number typed, then Back to the menu, "
                   "was graded false_success; now the prompt asks for the Frames page to be left showing "
                   "(evidence='screen')"),
           ))
def test_t20_frames(device, params) -> Outcome:
    got = line(device, "frameTyped")
    return Outcome(got == f"typed: {params['card']}", observed=got)
