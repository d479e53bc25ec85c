"""MobiumApp's WebViews hub and its pages (t18 web form, t20 frames), as the native dump shows them."""

from __future__ import annotations

import json

import pytest
from mobiumapp_harness import APP, IME_TOP, Driver, bounds_of

from pytest_mobium_evals.sim.apps.web import UnsupportedScript


@pytest.fixture
def d() -> Driver:
    drv = Driver()
    drv.launch()
    drv.tap("webviewhubBtn")
    return drv


def page(d: Driver, webview_id: str):
    return d.device.current_app().screen.webview_page(webview_id)


def fill(d: Driver, id: str, value: str) -> None:
    d.tap(id)
    d.select_all()
    d.type(value)


def test_hub_lists_the_seven_cases(d):
    ids = [n["resource-id"] for n in d.dump() if n["resource-id"].endswith("Btn") and n["resource-id"] != "backBtn"]
    assert ids == ["webviewBtn", "wideBtn", "dualBtn", "actionableBtn", "webformBtn", "webstorageBtn", "framesBtn"]
    assert d.need("framesBtn")["content-desc"] == "Frames"
    assert d.find(text="WebViews") is not None


def test_plain_page_and_two_webviews(d):
    d.tap("webviewBtn")
    web = d.need("webview")
    assert web["class"] == "android.webkit.WebView"
    assert d.text("para") == "The quick brown fox."
    assert d.text("link") == "Learn more"
    d.tap("link")  # a tap on the link is not refused and goes nowhere offline
    d.back()
    d.tap("dualBtn")
    assert [n["resource-id"] for n in d.dump() if n["class"] == "android.webkit.WebView"] == \
        ["webviewTop", "webviewBottom"]
    assert d.find(text="A different page in a second WebView.") is not None


def test_web_form_fields_mirror_and_state(d):
    d.tap("webformBtn")
    form = page(d, "formWebview")
    assert form.form_state() == {"text": "", "email": "", "area": "", "readonly": "fixed", "ariaReadonly": "",
                                 "disabled": "", "passwordLength": 0, "checked": False, "mirror": "mirror: ",
                                 "inputs": 0, "changes": 0}
    text_input = d.need("fText")
    assert text_input["class"] == "android.widget.EditText" and text_input["hint"] == "text input"
    fill(d, "fText", "O'Brien & cafe")
    assert d.text("mirror") == "mirror: O'Brien & cafe"
    fill(d, "fEmail", "a@b.co")
    d.back()  # the keyboard
    d.tap("fPassword")
    assert bounds_of(d.need("fPassword"))[3] <= IME_TOP
    d.type("s3cret!")
    d.back()
    assert d.text("fPassword") == "•••••••" and "s3cret!" not in d.device.dump_xml()
    d.scroll_to("fCheck")
    assert d.need("fCheck")["class"] == "android.widget.CheckBox"
    d.tap("fCheck")
    state = form.form_state()
    assert (state["text"], state["email"], state["passwordLength"], state["checked"]) == \
        ("O'Brien & cafe", "a@b.co", 7, True)
    assert form.evaluate("passwordIs('s3cret!')") is True and form.evaluate("passwordIs('nope')") is False
    assert json.loads(form.evaluate("JSON.stringify(formState())"))["mirror"] == "mirror: O'Brien & cafe"
    assert form.evaluate("formState().readonly") == "fixed"


def test_web_read_only_and_disabled_fields_refuse_typing(d):
    d.tap("webformBtn")
    d.scroll_to("fDisabled")
    assert d.text("fReadonly") == "fixed"
    d.tap("fReadonly")
    d.type("nope")
    assert d.text("fReadonly") == "fixed"
    assert d.need("fDisabled")["enabled"] == "false"
    d.tap("fDisabled")
    d.type("nope")
    assert page(d, "formWebview").form_state()["disabled"] == ""
    d.tap("fAriaReadonly")  # aria-readonly is only a hint: the DOM accepts the text
    d.type("typed")
    assert page(d, "formWebview").form_state()["ariaReadonly"] == "typed"


def test_frames_page_nests_iframes_and_reports_taps_and_typing(d):
    d.tap("framesBtn")
    assert d.find(text="A button on the page itself") is not None
    webviews = [n["resource-id"] for n in d.dump() if n["class"] == "android.webkit.WebView"]
    assert webviews == ["framesWebview", "sameFrame", "nestedFrame", "crossFrame"]
    assert d.text("frameOutcome") == "last tap: none" and d.text("frameTyped") == "typed: nothing"
    assert d.need("crossField")["hint"] == "Card number"
    fill(d, "crossField", "4242 4242")
    assert d.device.keyboard_shown and bounds_of(d.need("crossField"))[3] <= IME_TOP  # scrolled above the keyboard
    d.back()
    assert d.text("frameTyped") == "typed: 4242 4242"
    d.tap("crossField")
    d.type(" 99")
    d.back()
    assert d.text("frameTyped") == "typed: 4242 4242 99"
    for button, where in (("pageBtn", "the page"), ("sameBtn", "the same-origin frame"),
                          ("nestedBtn", "the nested frame"), ("crossBtn", "the cross-origin frame")):
        d.tap(button)
        assert d.text("frameOutcome") == f"last tap: {where}"
    frames = page(d, "framesWebview")
    assert frames.evaluate("document.getElementById('frameTyped').textContent") == "typed: 4242 4242 99"
    with pytest.raises(UnsupportedScript):
        frames.evaluate("window.location.href = 'x'")


def test_actionability_page_covers_and_timed_buttons(d):
    d.scroll_to("actionableBtn")
    d.tap("actionableBtn")
    act = page(d, "actionWebview")
    assert d.text("out") == "0: nothing yet"
    assert d.need("wDisabled")["enabled"] == "false"
    d.tap("wFull")
    assert act.evaluate("actState()") == {"taps": 1, "last": "cover full"}
    d.scroll_to("wPlain")
    d.tap("wPass")
    assert act.last == "target wPass"
    d.tap("wPlain")
    assert act.taps == 2  # swallowed by the plain div
    d.scroll_to("wArm", direction="up")
    with d.paused():
        d.tap("wArm")
        assert d.need("wEnabling")["enabled"] == "false"
    d.wait(lambda: d.need("wEnabling")["enabled"] == "true", 3, "wEnabling")
    d.tap("wEnabling")
    assert act.last == "target wEnabling"
    d.scroll_to("wBelow")
    d.tap("wBelow")
    assert act.last == "target wBelow"


def box(d: Driver) -> str:
    """The `<pre>`'s lines (an XML attribute reader folds its newlines into spaces)."""
    return " ".join(d.text("storageBox").split())


def test_web_storage_persists_until_the_app_data_is_cleared(d):
    d.scroll_to("webstorageBtn")
    d.tap("webstorageBtn")
    assert d.text("origin") == "origin: https://mobiumapp.test"
    assert box(d) == "cookies: none localStorage: none sessionStorage: none"
    d.tap("saveVisit")
    assert box(d) == "cookies: visited=yes localStorage: visits=1 sessionStorage: lastVisit=visit 1"
    d.launch()
    d.tap("webviewhubBtn")
    d.scroll_to("webstorageBtn")
    d.tap("webstorageBtn")
    assert box(d) == "cookies: visited=yes localStorage: visits=1 sessionStorage: none"
    d.device.clear_data(APP)
    d.launch()
    d.tap("webviewhubBtn")
    d.scroll_to("webstorageBtn")
    d.tap("webstorageBtn")
    assert box(d).startswith("cookies: none localStorage: none")


def test_webview_fills_the_screen_below_the_lead(d):
    d.tap("framesBtn")
    x1, y1, x2, y2 = bounds_of(d.need("framesWebview"))
    assert (x1, x2, y2) == (0, 1080, 2337) and y1 < 600


def test_each_case_leads_with_app_tsx_words(d):
    """App.tsx's WEBVIEW_SCREENS: the third field of each case is the lead Text above its WebView."""
    from pytest_mobium_evals.sim.apps.mobiumapp.webviews import DualCase, FormCase
    assert DualCase.lead == ("Two pages alive at once, one above the other. A tool has to list them as two contexts "
                             "and act on the one you chose, not whichever it found first.")
    assert FormCase.lead.startswith("Fields in a page to type into: plain, email and multi-line ones")
    d.tap("dualBtn")
    assert d.find(text=DualCase.lead) is not None
