"""The server's surface and its refusals, through the MCP SDK's stdio client against the virtual device."""

from __future__ import annotations

import pytest

from pytest_mobium_evals.reach.toolserver import ToolError

APP = "dev.mobium.mobiumapp"

ISSUE_TOOLS = {"app_devices", "app_map", "app_find", "app_text", "app_tap", "app_type", "app_fill", "app_check",
               "app_swipe", "app_scroll_to", "app_long_press", "app_wait_for", "app_launch", "app_terminate",
               "app_current", "app_state", "app_clear_data", "app_alert", "app_dialogs", "app_keyboard", "app_press",
               "app_appearance", "app_grant", "app_revoke", "app_notifications", "app_contexts", "app_context",
               "app_screenshot", "app_source", "app_session", "app_batch"}
# the gesture and device-state tools that need time or several fingers
ISSUE_TOOLS |= {"app_drag", "app_zoom", "app_rotate", "app_press_tap", "app_press_drag", "app_battery", "app_logs",
                "app_upload", "app_download"}


def refusal(tools, name, **args) -> ToolError:
    with pytest.raises(ToolError) as e:
        tools.call(name, **args)
    err = e.value
    assert err.result.is_error and err.result.text == err.message
    assert set(err.result.data) >= {"code", "message", "retryable"}
    return err


def open_menu(tools, label):
    tools.call("app_scroll_to", target=f"label={label}")
    tools.call("app_tap", target=f"label={label}")


def test_tool_list_is_mobiums(tools):
    assert ISSUE_TOOLS < set(tools.tool_names) and len(tools.tool_names) == 73
    for t in tools.tool_defs:
        assert t["inputSchema"]["additionalProperties"] is False, t["name"]
        assert isinstance(t["annotations"]["readOnlyHint"], bool), t["name"]
        assert len(t["description"]) > 60, t["name"]
    ro = {t["name"] for t in tools.tool_defs if t["annotations"]["readOnlyHint"]}
    assert {"app_map", "app_text", "app_devices", "app_wait_for"} <= ro and "app_tap" not in ro


def test_unknown_tool_and_argument_name_what_is_allowed(tools):
    err = refusal(tools, "app_click")
    assert err.code == "invalid_argument" and "app_tap" in err.message
    err = refusal(tools, "app_tap", locator="text=Log In")
    assert err.code == "invalid_argument" and "target" in err.message and "locator" in err.message


def test_devices_say_what_mobiums_say_and_no_more(tools, sim_server):
    """Mobium's app_devices (handlers.go, devices; the model from `adb devices -l`): an Android device's id, state,
    model and whether it is an emulator, and nothing read from the device itself, so no version."""
    res = tools.call("app_devices")
    assert res.data["devices"] == [{"id": sim_server.serials[0], "platform": "android", "state": "device",
                                    "model": "sdk_gphone64_x86_64", "emulator": True}]
    assert res.text == f"{sim_server.serials[0]:<38} {'device':<10} (android emulator, model: sdk_gphone64_x86_64)"


def test_refs_are_stored_locators_and_die_on_navigation(fresh):
    res = fresh.call("app_map")
    ref = next(e["ref"] for e in res.data["elements"] if e["label"] == "Login Demo")
    fresh.call("app_map")                       # a new map keeps the same locator behind a ref
    fresh.call("app_tap", target=ref)
    fresh.call("app_wait_for", target="testid=username")
    for action in (lambda: fresh.call("app_press", button="back"),
                   lambda: fresh.call("app_launch", app=APP),
                   lambda: fresh.call("app_terminate", app=APP)):
        fresh.call("app_launch", app=APP)
        fresh.call("app_map")
        action()
        err = refusal(fresh, "app_tap", target="@e2")
        assert err.code == "invalid_argument" and "run app_map first" in err.message
    fresh.call("app_launch", app=APP)
    fresh.call("app_map")
    err = refusal(fresh, "app_tap", target="@e999")
    assert "unknown ref @e999" in err.message


def test_ambiguous_locator_is_refused_with_a_remedy(fresh):
    err = refusal(fresh, "app_tap", target="label=Demo")
    assert err.code == "ambiguous_locator" and err.remedy and err.details["matches"] > 1


def test_fully_covered_target_is_refused_naming_the_cover(fresh):
    open_menu(fresh, "Obstruction Demo")
    err = refusal(fresh, "app_tap", target="testid=fullTarget")
    assert err.code == "element_not_reachable" and err.details["check"] == "receivesEvents"
    assert err.details["cover"] == "full cover"
    assert fresh.call("app_text", target="testid=obstructionOutcome").text == "0: nothing yet"
    assert 'covered by "full cover"' in fresh.call("app_map").text
    res = fresh.call("app_tap", target="testid=halfTarget")
    assert "clear point" in res.text


def test_target_under_a_dialog_is_refused(fresh):
    open_menu(fresh, "Dialog Demo")
    fresh.call("app_tap", target="testid=twoButtonBtn")
    err = refusal(fresh, "app_tap", target="testid=backBtn")
    assert err.code == "device_not_ready" and "a dialog is over the app" in err.message
    alert = fresh.call("app_alert")
    assert alert.data["present"] and "Discard changes?" in alert.text
    fresh.call("app_alert", action="dismiss")
    assert fresh.call("app_text", target="testid=dialogOutcome").text == "two-button: Keep Editing"
    err = refusal(fresh, "app_alert", action="accept")
    assert err.code == "no_such_alert"


def test_target_under_the_keyboard_is_refused_and_hiding_it_helps(fresh):
    open_menu(fresh, "Dialog Demo")
    fresh.call("app_find", locator="testid=coveredBtn")
    fresh.call("app_scroll_to", target="testid=coverField")
    fresh.call("app_type", target="testid=coverField", text="a note")
    assert "the keyboard is up" in fresh.call("app_map").text
    err = refusal(fresh, "app_tap", target="testid=coveredBtn")
    assert err.code in ("device_not_ready", "no_such_element") and "keyboard" in err.message
    assert fresh.call("app_keyboard").data["shown"] is True
    fresh.call("app_keyboard", hide=True)
    fresh.call("app_tap", target="testid=coveredBtn")


def test_type_refuses_what_is_not_editable(fresh):
    open_menu(fresh, "Form Demo")
    for target in ("testid=notifyCheck", "testid=backBtn", "testid=readOnlyField"):
        err = refusal(fresh, "app_type", target=target, text="hello")
        assert err.code == "invalid_argument" and err.details["check"] == "editable", target
    assert fresh.call("app_text", target="testid=readOnlyField").text == "This field cannot be edited"
    assert "notify=false" in fresh.call("app_text", target="testid=formState").text
    err = refusal(fresh, "app_check", target="testid=planFree", checked=False)
    assert "cannot be unchecked" in err.message
    err = refusal(fresh, "app_check", target="testid=backBtn")
    assert "no checked state" in err.message
    assert "already unchecked" in fresh.call("app_check", target="testid=termsCheck", checked=False).text


def test_slider_fill_takes_a_position_and_map_shows_the_apps_value(fresh):
    open_menu(fresh, "Slider Demo")
    line = next(ln for ln in fresh.call("app_map").text.splitlines() if " Volume (slider" in ln)
    assert line.endswith("Volume (slider, 50)")
    ref = line.split()[0]
    err = refusal(fresh, "app_fill", target=ref, text="abc")
    assert err.code == "invalid_argument" and "from 0" in err.message
    err = refusal(fresh, "app_type", target=ref, text="5")
    assert "app_fill" in err.message
    res = fresh.call("app_fill", target=ref, text="0.3")
    assert res.data["value"] == "30"
    assert fresh.call("app_text", target="testid=sliderState").text.startswith("volume: 30,")


def test_a_password_never_appears_in_any_answer(fresh):
    # Not the demo password: the Login screen prints that one in its own hint, which is not a leak.
    open_menu(fresh, "Login Demo")
    answers = [fresh.call("app_fill", target="testid=password", text="s3cretpw"),
               fresh.call("app_map"), fresh.call("app_text"), fresh.call("app_text", target="testid=password"),
               fresh.call("app_source"), fresh.call("app_keyboard"), fresh.call("app_find", locator="role=password")]
    for res in answers:
        assert "s3cretpw" not in res.text and "s3cretpw" not in repr(res.data)
    assert "8 characters" in answers[3].text


def test_loading_spinner_is_announced_and_scroll_to_waits_it_out(fresh):
    open_menu(fresh, "Feed Demo")
    fresh.call("app_scroll_to", target="label=Row 20")
    fresh.call("app_swipe", direction="up")
    seen = fresh.call("app_wait_for", target="role=progressbar", timeout_ms=3000, check=False)
    if not seen.is_error:
        assert "loading…" in fresh.call("app_map").text
    res = fresh.call("app_scroll_to", target="label=Row 55")
    assert "Row 55" in res.text
    err = refusal(fresh, "app_scroll_to", target="label=Row 70")
    assert "end of the list" in err.message
    assert fresh.call("app_text", target="testid=feedState").text.startswith("rows: 60, end")


def test_batch_checks_every_step_before_running_any(fresh):
    err = refusal(fresh, "app_batch", steps=[{"name": "app_tap", "arguments": {"target": "label=Login Demo"}},
                                             {"name": "app_fill", "arguments": {"target": "testid=username"}}])
    assert err.code == "invalid_argument" and "step 2" in err.message
    assert "homeList" in fresh.call("app_map").text            # nothing ran
    res = fresh.call("app_batch", steps=[{"name": "app_tap", "arguments": {"target": "label=Login Demo"}},
                                         {"name": "app_fill", "arguments": {"target": "testid=username",
                                                                            "text": "mobium"}}])
    assert res.text.startswith("1. app_tap: tapped") and len(res.data["steps"]) == 2
    err = refusal(fresh, "app_batch", steps=[{"name": "app_tap", "arguments": {"target": "testid=nothere"}}])
    assert err.code == "no_such_element" and err.message.startswith("step 1 of 1 (app_tap) failed")


def test_webview_context_maps_the_page_and_its_frames(fresh):
    open_menu(fresh, "WebViews")
    fresh.call("app_scroll_to", target="testid=framesBtn")
    fresh.call("app_tap", target="testid=framesBtn")
    fresh.call("app_wait_for", target="text=A button on the page itself")
    ids = [c["id"] for c in fresh.call("app_contexts").data["contexts"]]
    assert ids == ["NATIVE_APP", f"WEBVIEW_{APP}"]
    err = refusal(fresh, "app_context", context="WEBVIEW_nope")
    assert err.code == "no_such_context"
    fresh.call("app_context", context=f"WEBVIEW_{APP}")
    page = fresh.call("app_map")
    # frames.sh:47: the page cannot see into the cross-origin frame, so its controls are not listed, and it says so
    assert "(button) in iframe#sameFrame" in page.text and "iframe#crossFrame" in page.text.splitlines()[-1]
    assert "1 frame on this page is cross-origin" in page.text and "Card number" not in page.text
    assert page.data["cross_origin_frames"] == ["crossFrame"]
    fresh.call("app_context", context="NATIVE_APP")
    native = fresh.call("app_map").text  # frames.sh:57: NATIVE_APP reads the accessibility tree, frames and all
    assert "Card number (input)" in native and "iframe#" not in native


def test_permissions_appearance_and_clear_data(fresh, sim_server):
    res = fresh.call("app_grant", app=APP, permissions=["location"])
    assert "ACCESS_FINE_LOCATION" in res.text and "ACCESS_COARSE_LOCATION" in res.text
    res = fresh.call("app_clear_data", app=APP)
    assert res.data["still_granted"] == [] and "still granted: none" in res.text
    assert fresh.call("app_appearance", appearance="dark").text == "dark (was light)"
    assert fresh.call("app_appearance").text == "dark"
    fresh.call("app_appearance", appearance="light")


def test_tap_scrolls_to_a_target_below_the_fold(fresh):
    assert "Audio Demo" not in fresh.call("app_map").text
    fresh.call("app_tap", target="label=Audio Demo")
    fresh.call("app_wait_for", target="testid=audioState")


def test_a_control_that_stays_disabled_is_refused_after_the_implicit_wait(fresh):
    fresh.call("app_grant", app=APP, permissions=["notifications"])
    open_menu(fresh, "OTP Demo")
    fresh.call("app_tap", target="testid=otpSend")
    fresh.call("app_wait_for", target="testid=otpSend", condition="disabled")
    err = refusal(fresh, "app_tap", target="testid=otpSend")
    assert err.code == "timeout" and err.details["check"] == "enabled" and err.retryable
    assert "(button, disabled)" in fresh.call("app_map").text


def test_find_lists_refs_and_unmapped_matches_without_refs(fresh):
    open_menu(fresh, "Form Demo")
    res = fresh.call("app_find", locator="role=radio")
    assert [e["label"] for e in res.data["elements"]] == ["Free", "Pro", "Team"]
    assert all(e["ref"].startswith("@e") for e in res.data["elements"])
    res = fresh.call("app_find", locator="testid=formState")
    assert res.data["elements"][0]["ref"] == "" and res.text.startswith("(no ref) notify=false")
    res = fresh.call("app_find", locator="text=nothing like this")
    assert res.data["elements"] == [] and res.text == "No element matches text=nothing like this"
