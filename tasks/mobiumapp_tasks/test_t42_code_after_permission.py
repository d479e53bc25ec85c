"""t42 code-after-permission: allow notifications from the Dialog Demo, store two items, then verify a one-time
code in six boxes (Dialog, Storage and OTP Demos)."""

from __future__ import annotations

import re

from pytest_mobium_evals.core.tasks import Claim, Controls, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .hard import back_to_menu, granted_by_user, save_in_storage, stored_count
from .suite import APP, line, mobiumapp, open_screen, text_of

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


def _run(tools: Tools, answer: str, *, boxes: bool = True) -> str:
    if answer == "grant":  # from outside the app, never pressing the Dialog Demo's button
        tools.call("app_grant", app=APP, permissions=["notifications"])
    else:
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
    code = _code(tools)
    if boxes:
        for i, digit in enumerate(code):
            tools.call("app_type", target=f"testid=otpBox{i}", text=digit)
    else:
        tools.call("app_type", target="testid=otpField", text=code)
    tools.call("app_keyboard", hide=True)
    tools.call("app_tap", target="testid=otpVerifyBoxes" if boxes else "testid=otpVerifyField")
    return text_of(tools, "otpOutcome")


def ref_t42(tools: Tools, params: dict) -> Claim:
    return Claim("done", None, _run(tools, "accept"))


def wrong_t42(tools: Tools, params: dict) -> Claim:
    """Turns the notification prompt down, then gets the code from the screen instead: verified, but the
    permission the task asked for was never given."""
    return Claim("done", None, _run(tools, "dismiss"))


def near_t42_field(tools: Tools, params: dict) -> Claim:
    """Does the first two steps, then verifies the code in the single field beside the six boxes."""
    return Claim("done", None, _run(tools, "accept", boxes=False))


def near_t42_outside(tools: Tools, params: dict) -> Claim:
    """Grants notifications with app_grant instead of pressing the Dialog Demo's button and allowing its prompt,
    then does the rest right: the permission is held, but not given the way the task asks."""
    return Claim("done", None, _run(tools, "grant"))


@mobiumapp(id="t42", reference=ref_t42, wrong=wrong_t42, tier="hard", slug="code-after-permission",
           aims_at="a long horizon: three screens and over 20 tool calls, where the last screen's success can hide "
                   "that an earlier step was skipped",
           prompt="In MobiumApp: in the Dialog Demo press 'Notification permission' and allow it; store two items "
                  "with the Storage Demo's 'Save one more'; then in the OTP Demo send a code and verify it in the "
                  "six boxes, and leave the OTP Demo showing.",
           evidence="screen",
           evidence_reason="the OTP Demo's code and its verdict are the screen's own state, gone when it is left "
                           "(the real app keeps no record of a verification)",
           controls=Controls(reasons={"wrong": "denies notifications and reads the code off the screen"}),
           near_misses=(NearMiss("one-field", script=near_t42_field, verdict="false_success",
                                 why="the single field beside the six boxes verifies the same code, but the task "
                                     "asks for the boxes, which stay empty"),
                        NearMiss("granted-outside", script=near_t42_outside, verdict="false_success",
                                 why="the permission is held, but granted with app_grant: the Dialog Demo's prompt "
                                     "was never pressed and allowed, which is the step the task asks for")),
           grader_history=(
               (2, "read the verification line from whatever screen showed, so verifying and then going back to "
                   "the menu read as not verified; the evidence is the OTP Demo's screen, and the prompt now says "
                   "to leave it showing"),
               (1, "the single field's verification counted as the six boxes'; the boxes must now hold the code"),
               (1, "a grant from outside the app (app_grant) counted as allowing the Dialog Demo's prompt; the grant "
                   "must now be a person's answer (USER_SET), which pm grant does not set")))
def test_t42_code_after_permission(device, params) -> Outcome:
    got = line(device, "otpOutcome")
    entered = line(device, "otpEntered")
    in_boxes = re.fullmatch(r"entered: \d{6}", entered) is not None
    count = stored_count(device)
    ok = granted_by_user(device, POST)
    return Outcome(got == "verified" and in_boxes and count == "stored: 2" and ok,
                   observed=f"{got}; {entered or 'no boxes'}; {count}; "
                            f"notifications {'allowed by the user' if ok else 'not allowed by the user (USER_SET)'}")
