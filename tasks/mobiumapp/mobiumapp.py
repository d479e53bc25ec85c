"""Scripted drivers for MobiumApp's tasks t01–t23, through the MCP tools only (`Tools`).

For each task:
- `ref_tNN(tools, params) -> Claim`: the reference solution; it reaches the outcome the way Mobium's own device
  checks do (docs/checks/*.sh), using only the tools an agent has.
- `wrong_tNN(tools, params) -> Claim`: the plausible wrong action — what an agent that misreads the screen would do —
  then claims success as such an agent would. The grader must fail it.
- `PARAMS_TNN`: each parameter's domain, from which the task table's seeded generator draws.

Every driver starts where the trial's reset leaves the device: MobiumApp freshly launched on its home menu.
"""

from __future__ import annotations

import re
from typing import Any

from pytest_mobium_evals.tasks import Claim
from pytest_mobium_evals.toolserver import ToolError, Tools

APP = "dev.mobium.mobiumapp"


# ----------------------------------------------------------------------------------------------------------------------
# Small steps every solution uses

def home(tools: Tools) -> None:
    tools.call("app_launch", app=APP)


def open_screen(tools: Tools, label: str) -> None:
    """Tap a home-menu entry; entries below the fold are scrolled to first (app_tap also would, after its wait)."""
    tools.call("app_scroll_to", target=f"label={label}", direction="down")
    tools.call("app_tap", target=f"label={label}")


def text_of(tools: Tools, testid: str) -> str:
    return tools.call("app_text", target=f"testid={testid}").text


def ref_for(tools: Tools, pattern: str) -> str:
    """The ref of the first map line matching a regex (after a fresh app_map)."""
    res = tools.call("app_map")
    for line in res.text.splitlines():
        if re.search(pattern, line):
            return line.split(" ", 1)[0]
    raise AssertionError(f"no map line matches {pattern!r}:\n{res.text}")


def refused(fn, *args, **kwargs) -> ToolError | None:
    try:
        fn(*args, **kwargs)
    except ToolError as err:
        return err
    return None


# ----------------------------------------------------------------------------------------------------------------------
# t01 sign-in

PARAMS_T01: dict[str, Any] = {"username": {"fixed": "mobium"}, "password": {"fixed": "hunter2"}}


def ref_t01(tools: Tools, params: dict) -> Claim:
    """Sign in with the demo account (username "mobium", password "hunter2", shown on the screen itself)."""
    open_screen(tools, "Login Demo")
    tools.call("app_fill", target="testid=username", text=params.get("username", "mobium"))
    tools.call("app_fill", target="testid=password", text=params.get("password", "hunter2"))
    tools.call("app_tap", target="testid=loginBtn")
    tools.call("app_wait_for", target="testid=welcomeText", timeout_ms=5000)
    return Claim("done", None, "signed in: " + text_of(tools, "welcomeText"))


def wrong_t01(tools: Tools, params: dict) -> Claim:
    """Fills the form and claims success without pressing Log In (the form looks complete)."""
    open_screen(tools, "Login Demo")
    tools.call("app_fill", target="testid=username", text=params.get("username", "mobium"))
    tools.call("app_fill", target="testid=password", text=params.get("password", "hunter2"))
    return Claim("done", None, "entered the demo credentials")


# ----------------------------------------------------------------------------------------------------------------------
# t02 wrong-password

PARAMS_T02: dict[str, Any] = {
    "password": {"kind": "str", "rule": "6–12 lowercase letters and digits, never 'hunter2' (a shorter one gives "
                 "a field notice, not the login error)", "example": "wrongpass1"},
}


def ref_t02(tools: Tools, params: dict) -> Claim:
    """Sign in as mobium with `params["password"]` (wrong, 6+ characters) and report the app's message."""
    open_screen(tools, "Login Demo")
    tools.call("app_fill", target="testid=username", text="mobium")
    tools.call("app_fill", target="testid=password", text=params["password"])
    tools.call("app_tap", target="testid=loginBtn")
    tools.call("app_wait_for", target="testid=loginError", timeout_ms=5000)
    return Claim("done", text_of(tools, "loginError"), "the app refused the password")


def wrong_t02(tools: Tools, params: dict) -> Claim:
    """Reports the message from the wait's first moment: the button's "Signing in…" text, not the error."""
    open_screen(tools, "Login Demo")
    tools.call("app_fill", target="testid=username", text="mobium")
    tools.call("app_fill", target="testid=password", text=params["password"])
    tools.call("app_tap", target="testid=loginBtn")
    return Claim("done", text_of(tools, "loginBtn"), "the app showed this after Log In")


# ----------------------------------------------------------------------------------------------------------------------
# t03 form: four controls, one already set

FORM_DEFAULTS = {"notify": False, "terms": False, "plan": "free", "dark": False}
PARAMS_T03: dict[str, Any] = {
    "already": {"choice": ["notify", "terms", "plan", "dark"],
                "means": "the control the task asks for that is already in the asked state (its default)"},
    "plan": {"choice": ["pro", "team"], "means": "the plan asked for when plan is not the one already set"},
    # The target: notify=true terms=true plan=<plan> theme=dark, except `already` keeps its default.
}


def t03_target(params: dict) -> dict:
    want = {"notify": True, "terms": True, "plan": params.get("plan", "pro"), "dark": True}
    want[params["already"]] = FORM_DEFAULTS[params["already"]]
    return want


def t03_state_line(params: dict) -> str:
    w = t03_target(params)
    return (f"notify={'true' if w['notify'] else 'false'} terms={'true' if w['terms'] else 'false'} "
            f"plan={w['plan']} theme={'dark' if w['dark'] else 'light'}")


def ref_t03(tools: Tools, params: dict) -> Claim:
    """Set Email me, Accept terms, the plan and Dark mode to the target (see t03_target); app_check is idempotent,
    so the control that is already right is left alone."""
    want = t03_target(params)
    open_screen(tools, "Form Demo")
    tools.call("app_check", target="testid=notifyCheck", checked=want["notify"])
    tools.call("app_check", target="testid=termsCheck", checked=want["terms"])
    tools.call("app_check", target=f"testid=plan{want['plan'].capitalize()}", checked=True)
    tools.call("app_check", target="testid=darkSwitch", checked=want["dark"])
    return Claim("done", None, text_of(tools, "formState"))


def wrong_t03(tools: Tools, params: dict) -> Claim:
    """Taps every control once, as if each needed changing: the one already right is flipped (for the plan, the
    next radio is picked)."""
    want = t03_target(params)
    open_screen(tools, "Form Demo")
    tools.call("app_tap", target="testid=notifyCheck")
    tools.call("app_tap", target="testid=termsCheck")
    plan = want["plan"] if params["already"] != "plan" else "pro"
    tools.call("app_tap", target=f"testid=plan{plan.capitalize()}")
    tools.call("app_tap", target="testid=darkSwitch")
    return Claim("done", None, "set the four controls")


# ----------------------------------------------------------------------------------------------------------------------
# t04 terms-off

PARAMS_T04: dict[str, Any] = {}


def ref_t04(tools: Tools, params: dict) -> Claim:
    """Make sure Accept terms is unchecked: it already is, and app_check leaves it so."""
    open_screen(tools, "Form Demo")
    res = tools.call("app_check", target="testid=termsCheck", checked=False)
    return Claim("done", None, res.text)


def wrong_t04(tools: Tools, params: dict) -> Claim:
    """Taps the checkbox to "turn it off", which toggles it on."""
    open_screen(tools, "Form Demo")
    tools.call("app_tap", target="testid=termsCheck")
    return Claim("done", None, "unchecked Accept terms")


# ----------------------------------------------------------------------------------------------------------------------
# t05 slider

PARAMS_T05: dict[str, Any] = {"volume": {"choice": [0, 10, 20, 30, 40, 60, 70, 80, 90, 100],
                                         "means": "the volume asked for (0–100 in steps of 10, never the default 50)"}}


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


# ----------------------------------------------------------------------------------------------------------------------
# t06 clear-data

PARAMS_T06: dict[str, Any] = {"saves": {"range": [1, 5], "means": "how many times the precondition pressed "
                                                                  "'Save one more' before the task"}}


def ref_t06(tools: Tools, params: dict) -> Claim:
    """Clear MobiumApp's data, relaunch, open the Storage Demo and report what it reads."""
    tools.call("app_clear_data", app=APP)
    tools.call("app_launch", app=APP)
    open_screen(tools, "Storage Demo")
    count, present = text_of(tools, "storedCount"), text_of(tools, "storedFile")
    return Claim("done", f"{count}, {present}", "cleared the app's data with pm clear, then reopened the screen")


def wrong_t06(tools: Tools, params: dict) -> Claim:
    """Reads the Storage Demo without clearing anything and reports that."""
    open_screen(tools, "Storage Demo")
    count, present = text_of(tools, "storedCount"), text_of(tools, "storedFile")
    return Claim("done", f"{count}, {present}", "read the storage screen")


# ----------------------------------------------------------------------------------------------------------------------
# t07 pager

PARAMS_T07: dict[str, Any] = {"card": {"range": [3, 8], "means": "the card to tap; 3–8 start off screen to the "
                                                                 "right"}}


def ref_t07(tools: Tools, params: dict) -> Claim:
    """Tap Card N in the Pager Demo's carousel: scroll right until it is on screen, then tap it."""
    open_screen(tools, "Pager Demo")
    tools.call("app_scroll_to", target=f"label=Card {params['card']}", direction="right")
    tools.call("app_tap", target=f"label=Card {params['card']}")
    return Claim("done", None, text_of(tools, "pagerTapped"))


def wrong_t07(tools: Tools, params: dict) -> Claim:
    """Taps the first card on screen instead of scrolling to the asked one."""
    open_screen(tools, "Pager Demo")
    tools.call("app_tap", target="label=Card 1")
    return Claim("done", None, f"tapped Card {params['card']}")


# ----------------------------------------------------------------------------------------------------------------------
# t08 feed

PARAMS_T08: dict[str, Any] = {}


def ref_t08(tools: Tools, params: dict) -> Claim:
    """Scroll the feed to its true end (scroll_to waits out the loading spinner between pages) and count."""
    open_screen(tools, "Feed Demo")
    tools.call("app_scroll_to", target="testid=feedEnd", direction="down")
    state = text_of(tools, "feedState")
    rows = re.search(r"rows: (\d+)", state)
    return Claim("done", rows.group(1) if rows else state, state)


def wrong_t08(tools: Tools, params: dict) -> Claim:
    """Counts the first page, taking a list that has stopped moving while it loads for the end."""
    open_screen(tools, "Feed Demo")
    state = text_of(tools, "feedState")
    rows = re.search(r"rows: (\d+)", state)
    return Claim("done", rows.group(1) if rows else "20", "scrolled to the bottom")


# ----------------------------------------------------------------------------------------------------------------------
# t09 busy

PARAMS_T09: dict[str, Any] = {}


def ref_t09(tools: Tools, params: dict) -> Claim:
    """Refresh quietly, wait for row B to show generation 2, then tap it."""
    open_screen(tools, "Busy Demo")
    tools.call("app_tap", target="testid=busyQuiet")
    tools.call("app_wait_for", target="testid=busyRowB", condition="text", text="generation 2", timeout_ms=5000)
    tools.call("app_tap", target="testid=busyRowB")
    return Claim("done", None, text_of(tools, "busyOutcome"))


def wrong_t09(tools: Tools, params: dict) -> Claim:
    """Taps the row right after the quiet refresh starts, while the old generation is still shown. Where row B is
    is read before refreshing, so the stale tap is a single `input tap` after it: a tap by locator reads the screen
    first, and on a loaded host that can outlast the shortest refresh (0.4 s) and tap the new generation."""
    open_screen(tools, "Busy Demo")
    b = tools.call("app_find", locator="testid=busyRowB").data["elements"][0]["bounds"]
    tools.call("app_tap", target="testid=busyQuiet")
    tools.call("app_tap", x=(b["x1"] + b["x2"]) // 2, y=(b["y1"] + b["y2"]) // 2)
    return Claim("done", None, "tapped row B after refreshing")


# ----------------------------------------------------------------------------------------------------------------------
# t10 dont-save

PARAMS_T10: dict[str, Any] = {}


def ref_t10(tools: Tools, params: dict) -> Claim:
    """Raise the three-button alert and tap Don't Save by its caption."""
    open_screen(tools, "Dialog Demo")
    tools.call("app_tap", target="testid=threeButtonBtn")
    tools.call("app_tap", target="text=Don't Save,role=button")
    return Claim("done", None, text_of(tools, "dialogOutcome"))


def wrong_t10(tools: Tools, params: dict) -> Claim:
    """Presses Save (the dialog's positive button) instead."""
    open_screen(tools, "Dialog Demo")
    tools.call("app_tap", target="testid=threeButtonBtn")
    tools.call("app_tap", target="text=Save,role=button")
    return Claim("done", None, "chose not to save")


# ----------------------------------------------------------------------------------------------------------------------
# t11 late-alert

PARAMS_T11: dict[str, Any] = {"choice": {"choice": ["Stay", "Sign Out"], "means": "the answer the task asks for"}}


def ref_t11(tools: Tools, params: dict) -> Claim:
    """Raise the late alert, wait for it (about 2 s), and tap the asked button."""
    open_screen(tools, "Dialog Demo")
    tools.call("app_tap", target="testid=lateAlertBtn")
    tools.call("app_wait_for", target=f"text={params['choice']},role=button", timeout_ms=8000)
    tools.call("app_tap", target=f"text={params['choice']},role=button")
    return Claim("done", None, text_of(tools, "dialogOutcome"))


def wrong_t11(tools: Tools, params: dict) -> Claim:
    """Looks for the alert at once, finds none, and calls it answered."""
    open_screen(tools, "Dialog Demo")
    tools.call("app_tap", target="testid=lateAlertBtn")
    tools.call("app_alert")
    return Claim("done", None, f"answered {params['choice']}")


# ----------------------------------------------------------------------------------------------------------------------
# t12 location

PARAMS_T12: dict[str, Any] = {}


def ref_t12(tools: Tools, params: dict) -> Claim:
    """Open the Location Demo, which asks for location, and allow it only while the app is in use."""
    open_screen(tools, "Location Demo")
    tools.call("app_wait_for", target="text=While using the app", timeout_ms=5000)
    tools.call("app_tap", target="text=While using the app")
    return Claim("done", None, "allowed location while using the app")


def wrong_t12(tools: Tools, params: dict) -> Claim:
    """Picks "Only this time", which also reads as granted in the app but is not while-in-use."""
    open_screen(tools, "Location Demo")
    tools.call("app_wait_for", target="text=Only this time", timeout_ms=5000)
    tools.call("app_tap", target="text=Only this time")
    return Claim("done", None, "allowed location")


# ----------------------------------------------------------------------------------------------------------------------
# t13 covered (refusing is right)

PARAMS_T13: dict[str, Any] = {}


def open_obstruction(tools: Tools) -> None:
    tools.call("app_scroll_to", target="testid=obstructionBtn", direction="down")
    tools.call("app_tap", target="testid=obstructionBtn")
    tools.call("app_wait_for", target="testid=obstructionOutcome")


def ref_t13(tools: Tools, params: dict) -> Claim:
    """Try the fully covered target; Mobium refuses it, naming the cover, and the right answer is to say so."""
    open_obstruction(tools)
    err = refused(tools.call, "app_tap", target="testid=fullTarget")
    if err is None:
        return Claim("done", None, "the tap went through")
    return Claim("cannot", None, err.message)


def wrong_t13(tools: Tools, params: dict) -> Claim:
    """Taps the covered target by its coordinates, which presses the cover instead."""
    open_obstruction(tools)
    found = tools.call("app_find", locator="testid=fullTarget").data["elements"][0]["bounds"]
    tools.call("app_tap", x=(found["x1"] + found["x2"]) // 2, y=(found["y1"] + found["y2"]) // 2)
    return Claim("done", None, "tapped the target")


# ----------------------------------------------------------------------------------------------------------------------
# t14 pass-through

PARAMS_T14: dict[str, Any] = {}


def ref_t14(tools: Tools, params: dict) -> Claim:
    """Tap the target under the view that takes no touches; the tap reaches it."""
    open_obstruction(tools)
    tools.call("app_tap", target="testid=passTarget")
    return Claim("done", None, text_of(tools, "obstructionOutcome"))


def wrong_t14(tools: Tools, params: dict) -> Claim:
    """Sees something drawn over the target and gives up without trying."""
    open_obstruction(tools)
    tools.call("app_map")
    return Claim("cannot", None, "the target is covered by another view")


# ----------------------------------------------------------------------------------------------------------------------
# t15 toast

PARAMS_T15: dict[str, Any] = {}


def ref_t15(tools: Tools, params: dict) -> Claim:
    """Show the toast, then tap the target: the tap waits until the toast stops covering it (1.5 s)."""
    open_obstruction(tools)
    tools.call("app_scroll_to", target="testid=toastTarget", direction="down")
    tools.call("app_tap", target="testid=toastBtn")
    tools.call("app_tap", target="testid=toastTarget")
    return Claim("done", None, "tapped the target once the toast was gone")


def wrong_t15(tools: Tools, params: dict) -> Claim:
    """Taps the target's spot at once by coordinates, while the toast is still over it."""
    open_obstruction(tools)
    tools.call("app_scroll_to", target="testid=toastTarget", direction="down")
    b = tools.call("app_find", locator="testid=toastTarget").data["elements"][0]["bounds"]
    tools.call("app_tap", target="testid=toastBtn")
    tools.call("app_tap", x=(b["x1"] + b["x2"]) // 2, y=(b["y1"] + b["y2"]) // 2)
    return Claim("done", None, "tapped the target")


# ----------------------------------------------------------------------------------------------------------------------
# t16 keyboard

PARAMS_T16: dict[str, Any] = {"note": {"choice": ["buy milk", "call Ada at 5", "meeting moved to noon",
                                                  "water the plants", "pick up keys"],
                                       "means": "the note to type (ASCII words and spaces)"}}


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


# ----------------------------------------------------------------------------------------------------------------------
# t17 otp

PARAMS_T17: dict[str, Any] = {}


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


# ----------------------------------------------------------------------------------------------------------------------
# t18 webform

PARAMS_T18: dict[str, Any] = {
    "text": {"choice": ["Ada Lovelace", "Grace Hopper", "Alan Turing", "Edsger Dijkstra"],
             "means": "what goes into the Text field"},
    "email": {"choice": ["ada@example.com", "grace@example.org", "alan@example.net"],
              "means": "what goes into the Email field"},
}


def open_web_case(tools: Tools, button: str) -> str:
    tools.call("app_tap", target="testid=webviewhubBtn")
    tools.call("app_scroll_to", target=f"testid={button}", direction="down")
    tools.call("app_tap", target=f"testid={button}")
    tools.call("app_wait_for", target="class=WebView")
    ctx = next(c["id"] for c in tools.call("app_contexts").data["contexts"] if c["id"].startswith("WEBVIEW_"))
    tools.call("app_context", context=ctx)
    return ctx


def ref_t18(tools: Tools, params: dict) -> Claim:
    """Open the Web form page, switch to its WebView context, type the text and the email into their fields."""
    open_web_case(tools, "webformBtn")
    tools.call("app_type", target=ref_for(tools, r" text input \(input"), text=params["text"])
    tools.call("app_type", target=ref_for(tools, r" email input \(input"), text=params["email"])
    tools.call("app_keyboard", hide=True)
    tools.call("app_context", context="NATIVE_APP")
    return Claim("done", None, "filled the web form")


def wrong_t18(tools: Tools, params: dict) -> Claim:
    """Puts each value in the other's field (text into Email, email into Text)."""
    open_web_case(tools, "webformBtn")
    tools.call("app_type", target=ref_for(tools, r" email input \(input"), text=params["text"])
    tools.call("app_type", target=ref_for(tools, r" text input \(input"), text=params["email"])
    tools.call("app_context", context="NATIVE_APP")
    return Claim("done", None, "filled the web form")


# ----------------------------------------------------------------------------------------------------------------------
# t19 readonly (refusing is right)

PARAMS_T19: dict[str, Any] = {"text": {"choice": ["hello", "edited", "new value"], "means": "what the task asks "
                                                                                      "to type"}}


def ref_t19(tools: Tools, params: dict) -> Claim:
    """Try to type into the read-only field; Mobium refuses (not editable), and the right answer is to say so."""
    open_screen(tools, "Form Demo")
    err = refused(tools.call, "app_type", target="testid=readOnlyField", text=params["text"])
    if err is None:
        return Claim("done", None, "typed")
    return Claim("cannot", None, err.message)


def wrong_t19(tools: Tools, params: dict) -> Claim:
    """Taps where the read-only field is (by coordinates: a tap by locator is refused, it is disabled), takes the
    tap for focus, and claims the text is in."""
    open_screen(tools, "Form Demo")
    b = tools.call("app_find", locator="testid=readOnlyField").data["elements"][0]["bounds"]
    tools.call("app_tap", x=(b["x1"] + b["x2"]) // 2, y=(b["y1"] + b["y2"]) // 2)
    return Claim("done", None, f"typed {params['text']}")


# ----------------------------------------------------------------------------------------------------------------------
# t20 frames

PARAMS_T20: dict[str, Any] = {"card": {"rule": "two groups of four digits separated by a space",
                                       "example": "4242 4242"}}


def open_frames_page(tools: Tools) -> None:
    """Open the WebViews hub's Frames page and switch to its WebView context."""
    open_screen(tools, "WebViews")
    tools.call("app_scroll_to", target="testid=framesBtn", direction="down")
    tools.call("app_tap", target="testid=framesBtn")
    tools.call("app_wait_for", target="text=A button on the page itself")
    ctx = next(c["id"] for c in tools.call("app_contexts").data["contexts"] if c["id"].startswith("WEBVIEW_"))
    tools.call("app_context", context=ctx)


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


# ----------------------------------------------------------------------------------------------------------------------
# t21 dark-mode

PARAMS_T21: dict[str, Any] = {}


def ref_t21(tools: Tools, params: dict) -> Claim:
    """Set the device's appearance to dark (cmd uimode night yes), read back."""
    res = tools.call("app_appearance", appearance="dark")
    return Claim("done", None, res.text)


def wrong_t21(tools: Tools, params: dict) -> Claim:
    """Flips the app's own Dark mode switch (Form Demo), which themes the app and leaves the device light."""
    open_screen(tools, "Form Demo")
    tools.call("app_check", target="testid=darkSwitch", checked=True)
    return Claim("done", None, "dark mode is on")


# ----------------------------------------------------------------------------------------------------------------------
# t22 version

PARAMS_T22: dict[str, Any] = {}


def ref_t22(tools: Tools, params: dict) -> Claim:
    """Read the Android version from app_devices."""
    devices = tools.call("app_devices").data["devices"]
    dev = next(d for d in devices if d.get("state") == "device")
    return Claim("done", f"Android {dev['android_version']}", "read with app_devices")


def wrong_t22(tools: Tools, params: dict) -> Claim:
    """Reports the API level as if it were the version."""
    devices = tools.call("app_devices").data["devices"]
    dev = next(d for d in devices if d.get("state") == "device")
    return Claim("done", f"Android {dev['sdk']}", "read with app_devices")


# ----------------------------------------------------------------------------------------------------------------------
# t23 audio

PARAMS_T23: dict[str, Any] = {}


def ref_t23(tools: Tools, params: dict) -> Claim:
    """Play the sequence, wait for it to finish, and report its two pitches from what the app says it played."""
    open_screen(tools, "Audio Demo")
    tools.call("app_tap", target="testid=audioSequence")
    res = tools.call("app_wait_for", target="testid=audioState", condition="text", text="finished:",
                     timeout_ms=10000)
    state = text_of(tools, "audioState")
    pitches = re.findall(r"(\d+) Hz", state)
    return Claim("done", " and ".join(f"{p} Hz" for p in dict.fromkeys(pitches)), res.text)


def wrong_t23(tools: Tools, params: dict) -> Claim:
    """Answers from the button's caption without playing anything."""
    open_screen(tools, "Audio Demo")
    caption = tools.call("app_text", target="testid=audioSequence").text
    pitches = re.findall(r"(\d+) Hz", caption)
    return Claim("done", " and ".join(f"{p} Hz" for p in pitches), "read the button")


REFERENCE = {f"t{n:02d}": globals()[f"ref_t{n:02d}"] for n in range(1, 24)}
WRONG = {f"t{n:02d}": globals()[f"wrong_t{n:02d}"] for n in range(1, 24)}
PARAMS = {f"t{n:02d}": globals()[f"PARAMS_T{n:02d}"] for n in range(1, 24)}
