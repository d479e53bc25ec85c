"""Where the built-in server answers as Mobium does, tool by tool, with the Mobium behaviour each test holds it to
and where that behaviour was read (Mobium's tool descriptions, its answer strings, the checks in its repository)."""

from __future__ import annotations

import re

APP = "dev.mobium.mobiumapp"


def open_login(tools) -> None:
    tools.call("app_tap", target="testid=loginBtn")
    tools.call("app_wait_for", target="testid=username")


def test_type_keeps_non_ascii_intact(fresh):
    """Mobium's app_type: "quotes, spaces and non-ASCII survive intact" (its tool description); `input text`
    alone drops ü, é, — and ï, so the rest goes through the clipboard and a paste key."""
    open_login(fresh)
    text = 'Jürgen "é" — naïve'
    answer = fresh.call("app_type", target="testid=username", text=text)
    assert answer.text.startswith("typed ")
    assert fresh.call("app_text", target="testid=username").text == text


# Mobium's Android tools/list by name (its docs/FLAGS.md, the tools with arguments, plus app_devices and app_doctor,
# which take none, and app_audio from internal/agent/audio.go).
MOBIUM_TOOLS = """
app_accessibility app_alert app_appearance app_audio app_audit app_background app_batch app_battery app_biometric
app_boot app_call app_check app_clear_data app_clipboard app_context app_contexts app_cookies app_crashes app_current
app_devices app_dialogs app_doctor app_download app_drag app_eval app_fill app_find app_grant app_hit_test app_hook
app_install app_keyboard app_launch app_list_apps app_locale app_location app_lock app_logs app_long_press app_map
app_network app_notifications app_open_url app_orientation app_press app_press_drag app_press_tap app_record
app_reset_permissions app_revoke app_rotate app_screen app_screenshot app_scroll_to app_session app_shake
app_shutdown app_sms app_source app_state app_storage app_swipe app_tap app_terminate app_text app_time app_timezone
app_trace app_type app_uninstall app_upload app_wait_for app_zoom
""".split()
# internal/agent/readonly.go: the tools whose answer never changes the device carry readOnlyHint true.
MOBIUM_READ_ONLY = {"app_devices", "app_doctor", "app_current", "app_state", "app_map", "app_find", "app_text",
                    "app_source", "app_screenshot", "app_wait_for", "app_contexts", "app_list_apps", "app_battery",
                    "app_time", "app_logs", "app_crashes", "app_download"}


def test_the_tool_list_is_mobiums_android_list_by_name_with_its_read_only_hints():
    from pytest_mobium_evals.mobium_server.schemas import TOOLS
    assert len(MOBIUM_TOOLS) == 73
    assert sorted(TOOLS) == sorted(MOBIUM_TOOLS)
    assert {n for n, spec in TOOLS.items() if spec.read_only} == MOBIUM_READ_ONLY
    for spec in TOOLS.values():
        assert spec.schema["additionalProperties"] is False
        assert ("device" in spec.schema["properties"]) == (spec.name not in
                                                           {"app_devices", "app_doctor", "app_boot", "app_shutdown"})


def test_list_apps_names_the_installed_apps(fresh):
    """Every Mobium check starts `mobium apps | grep -q dev.mobium.mobiumapp`."""
    answer = fresh.call("app_list_apps")
    assert APP in answer.text.split()
    assert {"id": APP, "system": False} in answer.data["apps"]


def test_reset_permissions_brings_the_prompt_back(fresh):
    """Mobium's app_reset_permissions with no app: `reset permissions for every app on the device`; the dialogs
    check then starts the app afresh and expects the system prompt on the next request. The reset took the app's
    grant, and Android kills an app whose runtime permissions a reset revoked (PermissionManagerServiceImpl:
    "permissions revoked"), so the app is no longer in front."""
    fresh.call("app_grant", app=APP, permissions=["notifications"])
    answer = fresh.call("app_reset_permissions")
    assert answer.text == "reset permissions for every app on the device"
    assert fresh.call("app_current").text != APP
    fresh.call("app_launch", app=APP)
    fresh.call("app_scroll_to", target="testid=otpBtn")
    fresh.call("app_tap", target="testid=otpBtn")
    fresh.call("app_tap", target="testid=otpSend")
    assert fresh.call("app_current").text == "com.google.android.permissioncontroller"


def test_clipboard_write_is_pasted_and_a_read_is_refused(fresh, sim_server):
    """mobium-app.sh: on Android a clipboard read is refused (`cannot read the clipboard`) and a write reaches a
    field by KEYCODE_PASTE."""
    refused = fresh.call("app_clipboard", check=False)
    assert refused.is_error and refused.data["code"] == "unsupported"
    assert "cannot read the clipboard" in refused.text
    fresh.call("app_clipboard", text="seeded by mobium")
    open_login(fresh)
    fresh.call("app_tap", target="testid=username")
    sim_server.device(sim_server.serials[0]).key(279)  # the check's `adb shell input keyevent 279`
    assert fresh.call("app_text", target="testid=username").text == "seeded by mobium"


def test_background_sends_the_app_away_and_brings_it_back(fresh):
    """Mobium's app_background: `X was in the background for 1s and is in front again`, SC app, seconds, away_ms;
    seconds out of range is `seconds must be more than 0 and at most 180`."""
    answer = fresh.call("app_background", seconds=1)
    assert answer.text == f"{APP} was in the background for 1s and is in front again"
    assert answer.data["away_ms"] >= 1000 and fresh.call("app_current").text == APP
    bad = fresh.call("app_background", seconds=200, check=False)
    assert bad.data["code"] == "invalid_argument" and bad.text == "seconds must be more than 0 and at most 180"


def test_what_android_cannot_serve_is_refused_unsupported_with_a_remedy(fresh):
    """Mobium on Android: hit-test `needs no hit test`; eval needs a WebView context; every refusal of what a
    device cannot do is `unsupported` with a remedy, never a missing tool."""
    hit = fresh.call("app_hit_test", target="testid=loginBtn", check=False)
    assert hit.data["code"] == "unsupported" and "needs no hit test" in hit.text and hit.data["remedy"]
    ev = fresh.call("app_eval", expression="1+1", check=False)
    assert ev.data["code"] == "unsupported" and "app_context" in ev.data["remedy"]
    shake = fresh.call("app_shake", check=False)
    assert shake.data["code"] == "unsupported" and shake.data["remedy"]


def test_map_diff_says_what_changed_since_the_last_map(fresh):
    """Mobium's app_map diff (map-diff.sh): unchanged is `nothing changed since the last map: the same N elements,
    in the same places`; a change is a `~` line ending `— was <old state>`; new elements are `+` lines."""
    open_login(fresh)
    first = fresh.call("app_map")
    same = fresh.call("app_map", diff=True)
    assert same.text == (f"nothing changed since the last map: the same {len(first.data['elements'])} elements, "
                         "in the same places")
    fresh.call("app_press", button="back")
    changed = fresh.call("app_map", diff=True)
    assert any(line.startswith("+ @e") for line in changed.text.splitlines())
    assert any(line.startswith("- ") for line in changed.text.splitlines())
    assert "first" not in changed.data["diff"] and changed.data["diff"]["since"].endswith("Z")


def test_wait_for_focused_and_the_value_timeout_wording(fresh):
    """wait-states.sh: a field without focus times out saying `does not have keyboard focus`, then succeeds once
    tapped; a value timeout says `its value is "…"`."""
    open_login(fresh)
    miss = fresh.call("app_wait_for", target="testid=username", condition="focused", timeout_ms=300, check=False)
    assert miss.data["code"] == "timeout" and "does not have keyboard focus" in miss.text
    fresh.call("app_tap", target="testid=username")
    hit = fresh.call("app_wait_for", target="testid=username", condition="focused", timeout_ms=2000)
    assert "has keyboard focus" in hit.text
    fresh.call("app_type", target="testid=username", text="mob")
    value = fresh.call("app_wait_for", target="testid=username", condition="value", text="mobium", timeout_ms=300,
                       check=False)
    assert 'its value is "mob"' in value.text


def open_web_form(tools) -> str:
    tools.call("app_scroll_to", target="testid=webviewhubBtn")
    tools.call("app_tap", target="testid=webviewhubBtn")
    tools.call("app_scroll_to", target="testid=webformBtn")
    tools.call("app_tap", target="testid=webformBtn")
    contexts = tools.call("app_contexts").data["contexts"]
    page = next(c["id"] for c in contexts if c["id"].startswith("WEBVIEW_"))
    tools.call("app_context", context=page)
    return page


def test_a_pages_map_names_fields_as_mobiums_page_map_does(fresh):
    """web-type.sh: the page's map contains "A checkbox (checkbox)" (no state: Mobium maps a page over DevTools),
    and the password input is named by its placeholder, "password" (mobiumapp-screens: "mobium's map labels the
    fields by placeholder or label")."""
    open_web_form(fresh)
    lines = fresh.call("app_map").text.splitlines()
    assert any("A checkbox (checkbox)" in line for line in lines)
    assert any(line.split(" ", 1)[1].startswith("password (password") for line in lines)
    assert not any("fPassword" in line for line in lines)


def test_an_empty_field_reads_as_the_device_shows_it(fresh):
    """Mobium's app_text on one element: the node's text, masked only for a password field, whose empty answer is
    `(empty, showing its placeholder)`; an ordinary empty field is not given that answer."""
    open_login(fresh)
    assert fresh.call("app_text", target="testid=username").text != "(empty, showing its placeholder)"
    assert fresh.call("app_text", target="testid=password").text == "(empty, showing its placeholder)"


def test_refusals_name_the_tool_that_works(fresh):
    """keyboard.sh: `type` into a non-empty password is refused naming app_fill; `keyboard --text` with nothing
    focused is refused matching `no field has keyboard focus.*app_type` (the CLI prints the message only)."""
    open_login(fresh)
    fresh.call("app_type", target="testid=password", text="hunter2")
    more = fresh.call("app_type", target="testid=password", text="more", check=False)
    assert more.is_error and "app_fill" in more.text
    fresh.call("app_keyboard", hide=True)
    fresh.call("app_press", button="back")
    fresh.call("app_keyboard", hide=True)
    nowhere = fresh.call("app_keyboard", text="x", check=False)
    assert nowhere.is_error
    assert re.search(r"no field has keyboard focus.*app_type", nowhere.text)


def test_a_rule_answer_names_the_caption_as_the_rule_gives_it(fresh):
    """dialogs.sh asserts `"Discard changes?" — pressed "Keep Editing"` in the answer, though Android draws the
    button in capitals."""
    fresh.call("app_dialogs", when="Discard changes", press="Keep Editing")
    fresh.call("app_scroll_to", target="testid=dialogsBtn")
    fresh.call("app_tap", target="testid=dialogsBtn")
    fresh.call("app_tap", target="testid=twoButtonBtn")
    answer = fresh.call("app_tap", target="testid=oneButtonBtn")
    assert '"Discard changes?" — pressed "Keep Editing"' in answer.text
    fresh.call("app_dialogs", clear=True)


def test_two_webviews_of_one_app_are_two_contexts_each_with_its_own_page(fresh):
    """mobium-app.sh: "expected 2 WebView contexts in one app" — ids WEBVIEW_<package> and WEBVIEW_<package>_<n>;
    each context maps its own page."""
    fresh.call("app_scroll_to", target="testid=webviewhubBtn")
    fresh.call("app_tap", target="testid=webviewhubBtn")
    fresh.call("app_scroll_to", target="testid=dualBtn")
    fresh.call("app_tap", target="testid=dualBtn")
    ids = [c["id"] for c in fresh.call("app_contexts").data["contexts"]]
    webs = [i for i in ids if i == f"WEBVIEW_{APP}" or re.fullmatch(rf"WEBVIEW_{re.escape(APP)}_\d+", i)]
    assert len(webs) == 2
    texts = []
    for ctx in webs:
        fresh.call("app_context", context=ctx)
        texts.append(fresh.call("app_text").text)
    fresh.call("app_context", context="NATIVE_APP")
    assert "Second page" in texts[1] and "Second page" not in texts[0]


def test_a_pages_read_only_and_disabled_inputs_are_refused_with_mobiums_checks(fresh):
    """web-type.sh: typing into the read-only input fails `failed check editable` mentioning readonly and leaves it
    "fixed"; the disabled input fails `failed check enabled` mentioning disabled (the enabled check, not editable)."""
    open_web_form(fresh)
    lines = fresh.call("app_map").text.splitlines()

    def ref(label: str) -> str:
        return next(line.split()[0] for line in lines if f"{label} (" in line)

    fixed = fresh.call("app_type", target=ref("fixed"), text="nope", check=False)
    assert fixed.is_error and "failed check editable" in fixed.text and "readonly" in fixed.text
    assert fixed.data["details"]["check"] == "editable"
    disabled = fresh.call("app_type", target=ref("disabled"), text="nope", check=False)
    assert disabled.is_error and "failed check enabled" in disabled.text and "disabled" in disabled.text
