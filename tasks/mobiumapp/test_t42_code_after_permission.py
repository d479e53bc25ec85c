"""t42 code-after-permission: allow notifications from the Dialog Demo, store two items, then verify a one-time
code in six boxes (Dialog, Storage and OTP Demos)."""

from __future__ import annotations

import re

from hard import back_to_menu, granted, save_in_storage, stored_count
from mobiumapp import line, mobiumapp, open_screen, text_of

from pytest_mobium_evals.tasks import Claim, Controls, Outcome
from pytest_mobium_evals.toolserver import Tools

POST = "android.permission.POST_NOTIFICATIONS"


def _code(tools: Tools) -> str:
    tools.call("app_wait_for", target="testid=otpOutcome", condition="text", text="sent", timeout_ms=5000)
    for n in tools.call("app_notifications").data.get("notifications", []):
        m = re.search(r"code is (\d{6})", n.get("text", ""))
        if m:
            return m.group(1)
    tools.call("app_check", target="testid=otpShowCode", checked=True)
    tools.call("app_wait_for", target="testid=otpCodeShown", condition="text", text="code: ")
    return re.search(r"(\d{6})", text_of(tools, "otpCodeShown")).group(1)


def _run(tools: Tools, answer: str) -> str:
    open_screen(tools, "Dialog Demo")
    tools.call("app_scroll_to", target="testid=notificationsBtn", direction="down")
    tools.call("app_tap", target="testid=notificationsBtn")
    tools.call("app_alert")
    tools.call("app_alert", action=answer)
    tools.call("app_scroll_to", target="testid=dialogOutcome", direction="up")
    tools.call("app_wait_for", target="testid=dialogOutcome", condition="text", text="notifications: ")
    back_to_menu(tools)
    save_in_storage(tools, 2)
    back_to_menu(tools)
    open_screen(tools, "OTP Demo")
    tools.call("app_tap", target="testid=otpSend")
    if answer == "dismiss":  # sending asks for the permission again; turned down the same way
        tools.call("app_alert", action="dismiss", check=False)
    for i, digit in enumerate(_code(tools)):
        tools.call("app_type", target=f"testid=otpBox{i}", text=digit)
    tools.call("app_keyboard", hide=True)
    tools.call("app_tap", target="testid=otpVerifyBoxes")
    return text_of(tools, "otpOutcome")


def ref_t42(tools: Tools, params: dict) -> Claim:
    return Claim("done", None, _run(tools, "accept"))


def wrong_t42(tools: Tools, params: dict) -> Claim:
    """Turns the notification prompt down, then gets the code from the screen instead: verified, but the
    permission the task asked for was never given."""
    return Claim("done", None, _run(tools, "dismiss"))


@mobiumapp(id="t42", reference=ref_t42, wrong=wrong_t42, tier="hard", slug="code-after-permission",
           aims_at="a long horizon: three screens and over 20 tool calls, where the last screen's success can hide "
                   "that an earlier step was skipped",
           prompt="In MobiumApp: in the Dialog Demo press 'Notification permission' and allow it; store two items "
                  "with the Storage Demo's 'Save one more'; then in the OTP Demo send a code and verify it in the "
                  "six boxes.",
           controls=Controls(reasons={"wrong": "denies notifications and reads the code off the screen"}))
def test_t42_code_after_permission(device, params) -> Outcome:
    got = line(device, "otpOutcome")
    count = stored_count(device)
    ok = granted(device, POST)
    return Outcome(got == "verified" and count == "stored: 2" and ok,
                   observed=f"{got}; {count}; notifications {'granted' if ok else 'not granted'}")
