"""t32 nested-frame: of three buttons all labelled "Tap me", tap the one in the frame inside a frame (Frames)."""

from __future__ import annotations

from pytest_mobium_evals.core.tasks import Claim, Controls, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .suite import line, mobiumapp, open_frames_page, ref_for


def ref_t32(tools: Tools, params: dict) -> Claim:
    """The map names each "Tap me" by the frame it is in: pick the nested one's line."""
    open_frames_page(tools)
    tools.call("app_tap", target=ref_for(tools, r"Tap me \(button\) in iframe#sameFrame >> iframe#nestedFrame$"))
    tools.call("app_context", context="NATIVE_APP")
    return Claim("done", None, "tapped the nested frame's button")


def wrong_t32(tools: Tools, params: dict) -> Claim:
    """Taps the first "Tap me" by its label: the same-origin frame's."""
    open_frames_page(tools)
    tools.call("app_tap", target=ref_for(tools, r"Tap me \(button\)"))
    tools.call("app_context", context="NATIVE_APP")
    return Claim("done", None, "tapped Tap me")


def near_t32_cross_origin(tools: Tools, params: dict) -> Claim:
    """Takes the frame the page's map leaves out, the cross-origin one, for the frame inside a frame: reached from
    NATIVE_APP, where the frames' buttons are all in the accessibility tree and the last "Tap me" is its."""
    open_frames_page(tools)
    tools.call("app_context", context="NATIVE_APP")
    taps = [ln.split()[0] for ln in tools.call("app_map").text.splitlines() if ln.endswith(" Tap me (button)")]
    tools.call("app_tap", target=taps[-1])
    return Claim("done", None, "tapped the nested frame's button")


@mobiumapp(id="t32", reference=ref_t32, wrong=wrong_t32, tier="hard", slug="nested-frame",
           aims_at="repeated labels (CHALLENGES): three buttons say 'Tap me'; only the frame each is in tells "
                   "them apart",
           prompt="In MobiumApp, open WebViews, then Frames, and tap the 'Tap me' button in the frame that sits "
                  "inside another frame (the nested one), and leave the Frames page showing.",
           evidence="screen",
           evidence_reason="the Frames page's line is the page's own, and the page is built afresh each time "
                           "it opens",
           controls=Controls(reasons={"wrong": "taps the first 'Tap me', in the same-origin frame"}),
           near_misses=(NearMiss("cross-origin-frame", script=near_t32_cross_origin, verdict="false_success",
                                 why="the cross-origin frame's 'Tap me' is the other one in a frame of its own; "
                                     "the page says 'last tap: the cross-origin frame'"),),
           grader_history=(
               (2, "read frameOutcome from whatever screen showed, so the right tap followed by going back to "
                   "the WebViews hub was a false success; now the Frames page is the declared evidence and the "
                   "prompt says to leave it showing"),))
def test_t32_nested_frame(device, params) -> Outcome:
    got = line(device, "frameOutcome")
    return Outcome(got == "last tap: the nested frame", observed=got)
