"""The map, locators and refusal analysis on hand-written uiautomator dumps (no device)."""

from __future__ import annotations

import pytest

from pytest_mobium_evals.mobium_server.elements import (
    Locator,
    aim_at,
    build_elements,
    cover_label,
    derive_locator,
    find,
    parse_locator,
)
from pytest_mobium_evals.mobium_server.errors import MobiumError
from pytest_mobium_evals.mobium_server.shapes import mask_passwords, parse_notifications
from pytest_mobium_evals.mobium_server.snapshot import parse_dump

PKG = "dev.mobium.mobiumapp"


def node(cls="android.view.View", bounds=(0, 0, 10, 10), children=(), **a) -> str:
    attrs = {"index": "0", "text": "", "resource-id": "", "class": cls, "package": a.pop("package", PKG),
             "content-desc": "", "checkable": "false", "checked": "false", "clickable": "false", "enabled": "true",
             "focusable": "false", "focused": "false", "scrollable": "false", "long-clickable": "false",
             "password": "false", "selected": "false"}
    hint = a.pop("hint", "")
    for k, v in a.items():
        key = {"rid": "resource-id", "desc": "content-desc", "long_clickable": "long-clickable"}.get(k, k)
        attrs[key] = ("true" if v else "false") if isinstance(v, bool) else str(v)
    x1, y1, x2, y2 = bounds
    body = " ".join(f'{k}="{v}"' for k, v in attrs.items())
    body += f' bounds="[{x1},{y1}][{x2},{y2}]" drawing-order="1" hint="{hint}"'
    inner = "".join(children)
    return f"<node {body}>{inner}</node>" if inner else f"<node {body} />"


def dump(*children: str) -> str:
    root = node("android.widget.FrameLayout", (0, 0, 1080, 2400), children=children)
    return "<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">" + root + \
        "</hierarchy>"


def btn(rid, label, bounds, enabled=True):
    return node("android.widget.Button", bounds, rid=rid, desc=label, clickable=True, focusable=True,
                enabled=enabled, children=[node("android.widget.TextView", bounds, text=label)])


LOGIN = dump(node("android.widget.ScrollView", (0, 136, 1080, 2337), rid="loginScroll", scrollable=True, children=[
    btn("backBtn", "Back", (52, 200, 1028, 334)),
    node("android.widget.TextView", (52, 340, 1028, 400), text="Log in"),
    node("android.widget.EditText", (52, 500, 1028, 626), rid="username", desc="username", text="username",
         hint="username", clickable=True, focusable=True),
    node("android.widget.EditText", (52, 650, 1028, 776), rid="password", desc="password", text="•••••••",
         hint="password", clickable=True, focusable=True, password=True),
    btn("loginBtn", "Signing in…", (52, 800, 1028, 934), enabled=False),
]))


def lines(xml: str, context: str = "NATIVE_APP") -> list[str]:
    snap = parse_dump(xml)
    els = build_elements(snap, context)
    for i, e in enumerate(els, 1):
        e.ref = f"@e{i}"
    return [e.line() for e in els]


def test_login_map_lines_name_fields_and_hide_the_password():
    got = lines(LOGIN)
    assert got == ["@e1 loginScroll (list)", "@e2 Back (button)", "@e3 username (input)", "@e4 password (password)",
                   "@e5 Signing in… (button, disabled)"]
    assert "•" not in "".join(got)


def test_filled_field_is_named_by_its_text_and_locators_prefer_testid():
    xml = LOGIN.replace('text="username" resource-id="username"', 'text="mobium" resource-id="username"')
    snap = parse_dump(xml)
    els = build_elements(snap)
    assert els[2].label == "mobium"
    assert str(derive_locator(snap, els[2].node, "NATIVE_APP", "input")) == "testid=username"


FORM = dump(
    node("android.widget.CheckBox", (52, 300, 1028, 405), rid="notifyCheck", desc="Email me", checkable=True,
         clickable=True, children=[node("android.widget.TextView", (52, 300, 136, 405), text="☐"),
                                   node("android.widget.TextView", (136, 300, 900, 405), text="Email me")]),
    node("android.widget.RadioButton", (52, 420, 1028, 525), rid="planFree", desc="Free", checkable=True,
         checked=True, clickable=True),
    node("android.widget.SeekBar", (52, 600, 1028, 705), rid="volumeSlider", desc="Volume", text="5.0",
         focusable=True),
    node("android.widget.TextView", (52, 560, 1028, 590), rid="sliderState",
         text="volume: 70, balance: 0.25, changes: 2"),
)


def test_states_and_a_slider_reads_the_value_the_app_shows_not_the_bars_units():
    got = lines(FORM)
    assert got[0] == "@e1 Email me (checkbox, unchecked)"
    assert got[1] == "@e2 Free (radio, checked)"
    assert got[2] == "@e3 Volume (slider, 70)"


def test_slider_without_an_app_readout_falls_back_to_its_progress():
    xml = FORM.replace("volume: 70, ", "")
    assert lines(xml)[2] == "@e3 Volume (slider, 5.0)"


OBSTRUCTION = dump(
    node("android.view.ViewGroup", (52, 300, 1028, 460), children=[
        btn("fullTarget", "Fully covered", (52, 300, 1028, 434)),
        node("android.widget.Button", (52, 300, 1028, 434), rid="fullCover", desc="full cover", clickable=True)]),
    node("android.view.ViewGroup", (52, 500, 1028, 660), children=[
        btn("halfTarget", "Center covered", (52, 500, 1028, 634)),
        node("android.widget.Button", (52, 500, 637, 634), rid="halfCover", desc="half cover", clickable=True)]),
    node("android.view.ViewGroup", (52, 700, 1028, 860), children=[
        btn("passTarget", "Pass-through", (52, 700, 1028, 834)),
        node("android.view.View", (52, 700, 1028, 834), rid="passCover", desc="pass-through cover")]),
)


def test_a_fully_covered_target_is_marked_and_has_no_aim():
    snap = parse_dump(OBSTRUCTION)
    got = lines(OBSTRUCTION)
    assert '@e1 Fully covered (button, covered by "full cover")' in got
    full = find(snap, parse_locator("testid=fullTarget"))[0]
    assert cover_label(snap, full) == "full cover"
    assert aim_at(snap, full) is None


def test_a_center_cover_is_aimed_around_and_a_non_control_is_noted():
    snap = parse_dump(OBSTRUCTION)
    half = find(snap, parse_locator("testid=halfTarget"))[0]
    aim = aim_at(snap, half)
    assert aim is not None and aim.x >= 637 and "clear point" in aim.note
    passing = find(snap, parse_locator("testid=passTarget"))[0]
    aim = aim_at(snap, passing)
    assert aim is not None and "may take the touch" in aim.note and (aim.x, aim.y) == passing.center


def test_locator_rules():
    assert parse_locator("Log In") == Locator("text", "Log In")
    assert parse_locator("text=Don't Save,role=button") == Locator("text", "Don't Save", role="button")
    with pytest.raises(MobiumError) as e:
        parse_locator("id=foo")
    assert e.value.code == "invalid_argument" and "want text, label, testid" in e.value.message
    with pytest.raises(MobiumError) as e:
        parse_locator("role=nosuchrole")
    assert "unknown role" in e.value.message
    snap = parse_dump(OBSTRUCTION)
    assert len(find(snap, parse_locator("testid=Target"))) == 3          # substring: ambiguous
    assert len(find(snap, parse_locator("text=Fully covered"))) == 1     # caption and button are one
    assert len(find(snap, parse_locator("label=cover"))) == 5          # "covered" holds "cover"


def test_text_is_matched_as_written_as_mobiums_locator_does_not_fold_typography():
    # Android 13+ writes the permission prompt's "Don’t allow" with a curly apostrophe. Mobium's locator compares
    # lower-cased text by substring and folds nothing else, so a straight quote does not find it there: the
    # built-in server must not find it either, or an agent would learn a locator that fails on the real Mobium.
    xml = dump(btn(PKG + ":id/permission_deny_button", "Don’t allow", (0, 200, 1080, 330)))
    snap = parse_dump(xml)
    assert len(find(snap, parse_locator("text=Don’t allow"))) == 1
    assert len(find(snap, parse_locator("text=don’t ALLOW"))) == 1
    assert find(snap, parse_locator("text=Don't allow")) == []


def test_testid_prefers_the_exact_id():
    xml = dump(node("android.widget.EditText", (0, 200, 100, 300), rid="username", clickable=True),
               node("android.widget.TextView", (0, 300, 100, 400), rid="usernameError", text="bad"))
    snap = parse_dump(xml)
    assert [n.rid for n in find(snap, parse_locator("testid=username"))] == ["username"]


def test_dialog_and_webview_frames():
    dialog = dump(node("android.widget.FrameLayout", (100, 900, 980, 1400), package="android", children=[
        node("android.widget.TextView", (150, 950, 900, 1000), rid="android:id/alertTitle", text="Save this draft?",
             package="android"),
        node("android.widget.Button", (150, 1300, 400, 1380), rid="android:id/button3", text="Cancel",
             clickable=True, package="android"),
        node("android.widget.Button", (420, 1300, 700, 1380), rid="android:id/button2", text="Don't Save",
             clickable=True, package="android"),
        node("android.widget.Button", (720, 1300, 950, 1380), rid="android:id/button1", text="Save",
             clickable=True, package="android")]))
    snap = parse_dump(dialog)
    assert snap.dialog.title == "Save this draft?"
    assert snap.dialog.captions() == ["Cancel", "Don't Save", "Save"]
    web = dump(node("android.webkit.WebView", (0, 300, 1080, 2337), rid="framesWebview", children=[
        node("android.widget.Button", (40, 350, 500, 420), text="A button on the page itself", clickable=True),
        node("android.webkit.WebView", (40, 500, 1040, 800), rid="crossFrame", children=[
            node("android.widget.Button", (60, 520, 300, 600), text="Tap me", clickable=True),
            node("android.widget.EditText", (60, 620, 400, 700), text="Card number", hint="Card number",
                 clickable=True, focusable=True)])]))
    snap = parse_dump(web)
    ctx = "WEBVIEW_" + PKG
    got = lines(web, ctx)
    assert got == ["@e1 A button on the page itself (button)", "@e2 Tap me (button) in iframe#crossFrame",
                   "@e3 Card number (input) in iframe#crossFrame"]
    assert len(snap.webviews) == 1


def test_source_masks_passwords_and_notifications_parse():
    xml = '<node text="hunter2" password="true" /><node text="mobium" password="false" />'
    masked = mask_passwords(xml)
    assert "hunter2" not in masked and 'text="•••••••"' in masked and "mobium" in masked
    out = """NOTIFICATION MANAGER
  Notification List:
    NotificationRecord(0x0abc1234: pkg=dev.mobium.mobiumapp user=UserHandle{0} id=1 tag=null importance=3 key=0|dev.mobium.mobiumapp|1|null|10123: Notification(channel=default))
      extras={
        android.title=String (MobiumApp)
        android.text=String (Your MobiumApp code is 012345)
      }
"""  # noqa: E501  (dumpsys output, verbatim)
    assert parse_notifications(out) == [{"app": PKG, "title": "MobiumApp", "text": "Your MobiumApp code is 012345",
                                         "key": "0|dev.mobium.mobiumapp|1|null|10123"}]
