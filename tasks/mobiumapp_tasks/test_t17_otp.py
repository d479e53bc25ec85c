"""t17 otp: request a one-time code and enter it in six boxes (OTP Demo)."""

from __future__ import annotations

import re

from pytest_mobium_evals.core.tasks import Claim, Controls, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .suite import APP, line, mobiumapp, open_screen, text_of


def read_code(tools: Tools) -> str:
    """The code from its notification; if notifications are off, from the screen's own "Show the code here"."""
    tools.call("app_wait_for", target="testid=otpOutcome", condition="text", text="sent", timeout_ms=5000)
    for n in tools.call("app_notifications").data.get("notifications", []):
        m = re.search(r"code is (\d{6})", n.get("text", ""))
        if m:
            return m.group(1)
    tools.call("app_check", target="testid=otpShowCode", checked=True)
    shown = tools.call("app_wait_for", target="testid=otpCodeShown", condition="text", text="code: ")
    return re.search(r"(\d{6})", text_of(tools, "otpCodeShown")).group(1) if shown else ""


def ref_t17(tools: Tools, params: dict) -> Claim:
    """Grant notifications, send a code, read it from the notification, type one digit per box, verify."""
    tools.call("app_grant", app=APP, permissions=["notifications"])
    open_screen(tools, "OTP Demo")
    tools.call("app_tap", target="testid=otpSend")
    code = read_code(tools)
    for i, digit in enumerate(code):
        tools.call("app_type", target=f"testid=otpBox{i}", text=digit)
    tools.call("app_keyboard", hide=True)
    tools.call("app_tap", target="testid=otpVerifyBoxes")
    return Claim("done", None, text_of(tools, "otpOutcome"))


def wrong_t17(tools: Tools, params: dict) -> Claim:
    """Enters the code in the single field and verifies that, not the six boxes the task asks for."""
    tools.call("app_grant", app=APP, permissions=["notifications"])
    open_screen(tools, "OTP Demo")
    tools.call("app_tap", target="testid=otpSend")
    code = read_code(tools)
    tools.call("app_scroll_to", target="testid=otpField", direction="down")
    tools.call("app_fill", target="testid=otpField", text=code)
    tools.call("app_keyboard", hide=True)
    tools.call("app_scroll_to", target="testid=otpVerifyField", direction="down")
    tools.call("app_tap", target="testid=otpVerifyField")
    return Claim("done", None, "entered the code")


def near_t17_unverified(tools: Tools, params: dict) -> Claim:
    """Types the six digits into the boxes and takes the full boxes for the code accepted, without pressing
    Verify the boxes."""
    tools.call("app_grant", app=APP, permissions=["notifications"])
    open_screen(tools, "OTP Demo")
    tools.call("app_tap", target="testid=otpSend")
    code = read_code(tools)
    for i, digit in enumerate(code):
        tools.call("app_type", target=f"testid=otpBox{i}", text=digit)
    tools.call("app_keyboard", hide=True)
    return Claim("done", None, f"entered {code} in the six boxes")


def near_t17_spread(tools: Tools, params: dict) -> Claim:
    """Types the whole code into the first box, as a paste would arrive; the app spreads it over the six boxes, so
    the boxes hold the code as if typed one digit each."""
    tools.call("app_grant", app=APP, permissions=["notifications"])
    open_screen(tools, "OTP Demo")
    tools.call("app_tap", target="testid=otpSend")
    code = read_code(tools)
    tools.call("app_type", target="testid=otpBox0", text=code)
    tools.call("app_keyboard", hide=True)
    tools.call("app_tap", target="testid=otpVerifyBoxes")
    return Claim("done", None, text_of(tools, "otpOutcome"))


def near_t17_field_verified(tools: Tools, params: dict) -> Claim:
    """Fills the six boxes, then also the single field below them, and presses the verify button next to the
    field it typed last: the app's verdict comes from the field, with the boxes full beside it."""
    tools.call("app_grant", app=APP, permissions=["notifications"])
    open_screen(tools, "OTP Demo")
    tools.call("app_tap", target="testid=otpSend")
    code = read_code(tools)
    for i, digit in enumerate(code):
        tools.call("app_type", target=f"testid=otpBox{i}", text=digit)
    tools.call("app_scroll_to", target="testid=otpField", direction="down")
    tools.call("app_fill", target="testid=otpField", text=code)
    tools.call("app_keyboard", hide=True)
    tools.call("app_scroll_to", target="testid=otpVerifyField", direction="down")
    tools.call("app_tap", target="testid=otpVerifyField")
    return Claim("done", None, text_of(tools, "otpOutcome"))


@mobiumapp(id="t17", reference=ref_t17, wrong=wrong_t17,
           slug="otp",
           prompt="In MobiumApp's OTP Demo, request a one-time code and enter it in the six digit boxes, then "
                  "verify the boxes, and leave the OTP Demo showing.",
           evidence="screen",
           evidence_reason="the code, the boxes and the verdict are the OTP Demo's component state, all lost when "
                           "the screen is left (its code with them)",
           near_misses=(
               NearMiss("boxes-not-verified", script=near_t17_unverified, verdict="false_success",
                        why="the six boxes hold the code but Verify the boxes was never pressed: the app says "
                            "'sent as a notification', not 'verified'"),
               NearMiss("field-verified", script=near_t17_field_verified, verdict="false_success",
                        why="'verified' came from the single field's button: the boxes hold the code, but they "
                            "were not what was verified"),
               NearMiss("whole-code-in-first-box", script=near_t17_spread, verdict="pass",
                        why="the app spreads a code typed into the first box over all six, and the boxes are "
                            "what is verified: the task's outcome, reached another way"),
           ),
           grader_history=(
               (2, "read otpOutcome and otpEntered from whatever screen showed: the code verified, then Back to "
                   "the menu, was graded false_success; now the prompt asks for the OTP Demo to be left showing "
                   "(evidence='screen')"),
               (1, "the code in the boxes and in the single field, verified with the field's button, passed: the "
                   "app's 'verified' does not say which button; now a code in the single field means the verdict "
                   "may be the field's, and it does not count"),
           ),
           controls=Controls(reasons={"wrong": "verifies the code in the single field: the app says verified, "
                                               "the six boxes stay empty"}))
def test_t17_otp(device, params) -> Outcome:
    outcome, entered, single = line(device, "otpOutcome"), line(device, "otpEntered"), line(device, "otpField")
    # The prompt asks for the boxes alone: a code in the single field could be what 'verified' answered.
    field_used = bool(re.fullmatch(r"\d{6}", single))
    return Outcome(outcome == "verified" and bool(re.fullmatch(r"entered: \d{6}", entered)) and not field_used,
                   observed=f"{outcome}; {entered}" + (f"; single field: {single}" if field_used else ""))
