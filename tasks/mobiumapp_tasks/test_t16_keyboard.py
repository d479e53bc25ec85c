"""t16 keyboard: type a note, then press the button the keyboard covers (Dialog Demo)."""

from __future__ import annotations

from pytest_mobium_evals.core.tasks import Claim, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .suite import line, mobiumapp, open_screen, refused, text_of


def ref_t16(tools: Tools, params: dict) -> Claim:
    """Type the note into the cover field; the pinned button is then under the keyboard, so hide it and tap."""
    open_screen(tools, "Dialog Demo")
    tools.call("app_scroll_to", target="testid=coverField", direction="down")
    tools.call("app_type", target="testid=coverField", text=params["note"])
    if refused(tools.call, "app_tap", target="testid=coveredBtn") is not None:
        tools.call("app_keyboard", hide=True)
        tools.call("app_tap", target="testid=coveredBtn")
    tools.call("app_scroll_to", target="testid=dialogOutcome", direction="up")
    return Claim("done", None, text_of(tools, "dialogOutcome"))


def wrong_t16(tools: Tools, params: dict) -> Claim:
    """Types the note, then taps where the pinned button was by coordinates — on the keyboard."""
    open_screen(tools, "Dialog Demo")
    b = tools.call("app_find", locator="testid=coveredBtn").data["elements"][0]["bounds"]
    tools.call("app_scroll_to", target="testid=coverField", direction="down")
    tools.call("app_type", target="testid=coverField", text=params["note"])
    tools.call("app_tap", x=(b["x1"] + b["x2"]) // 2, y=(b["y1"] + b["y2"]) // 2)
    return Claim("done", None, "typed the note and pressed the button")


def near_t16_back(tools: Tools, params: dict) -> Claim:
    """Hides the keyboard, then presses Back to hide it again; with no keyboard up, Back leaves the Dialog Demo.
    Opened again, the screen starts fresh: the pinned button is pressed over an empty field."""
    open_screen(tools, "Dialog Demo")
    tools.call("app_scroll_to", target="testid=coverField", direction="down")
    tools.call("app_type", target="testid=coverField", text=params["note"])
    tools.call("app_keyboard", hide=True)
    tools.call("app_press", button="back")
    open_screen(tools, "Dialog Demo")
    tools.call("app_tap", target="testid=coveredBtn")
    return Claim("done", None, text_of(tools, "dialogOutcome"))


@mobiumapp(id="t16", reference=ref_t16, wrong=wrong_t16,
           slug="keyboard",
           params=lambda rng: {"note": rng.choice(["buy milk", "call Ada at 5", "meeting moved to noon",
                                                   "water the plants", "pick up keys"])},
           prompt="In MobiumApp's Dialog Demo, type the note \"{note}\" into the field under 'Under the "
                  "keyboard', then press the 'Pinned to the bottom' button, and leave the Dialog Demo showing.",
           evidence="screen",
           evidence_reason="the note lives only in the field and the outcome in the Dialog Demo's line, component "
                           "state that starts empty whenever the screen is opened anew",
           near_misses=(NearMiss("back-leaves-the-screen", script=near_t16_back, verdict="false_success",
                                 why="a Back press meant for the keyboard leaves the Dialog Demo; the button is "
                                     "pressed on the screen opened again, whose field is empty"),),
           grader_history=(
               (2, "read dialogOutcome and coverField from whatever screen showed: the note typed and the button "
                   "pressed, then Back to the menu, was graded false_success; now the prompt asks for the Dialog "
                   "Demo to be left showing (evidence='screen')"),
           ))
def test_t16_keyboard(device, params) -> Outcome:
    outcome, note = line(device, "dialogOutcome"), line(device, "coverField")
    return Outcome(outcome == "pinned button: tapped" and note == params["note"],
                   observed=f"{outcome}; field: {note!r}")
