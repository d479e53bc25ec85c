"""t17 otp: request a one-time code and enter it in six boxes (OTP Demo)."""

from __future__ import annotations

import re

from mobiumapp import APP, line, mobiumapp, open_screen, text_of

from pytest_mobium_evals.tasks import Claim, Controls, Outcome
from pytest_mobium_evals.toolserver import Tools


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


@mobiumapp(id="t17", reference=ref_t17, wrong=wrong_t17,
           slug="otp",
           prompt="In MobiumApp's OTP Demo, request a one-time code and enter it in the six digit boxes, then "
                  "verify the boxes.",
           controls=Controls(reasons={"wrong": "verifies the code in the single field: the app says verified, "
                                               "the six boxes stay empty"}))
def test_t17_otp(device, params) -> Outcome:
    outcome, entered = line(device, "otpOutcome"), line(device, "otpEntered")
    return Outcome(outcome == "verified" and bool(re.fullmatch(r"entered: \d{6}", entered)),
                   observed=f"{outcome}; {entered}")
