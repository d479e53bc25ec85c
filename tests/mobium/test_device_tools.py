"""app_drag, app_battery and app_logs through the MCP stdio client against the virtual device: the drag's holds read
back in the Drag case's own line, the battery in Mobium's words next to the app's, the Crash Demo's lines in the log."""

from __future__ import annotations

import base64
import re

import adbutils
import pytest

from pytest_mobium_evals.reach.toolserver import ToolError

APP = "dev.mobium.mobiumapp"


def open_case(tools, label):
    tools.call("app_tap", target="label=Gestures")
    tools.call("app_tap", target=f"label={label}")


def refused(tools, tool, /, **args) -> str:
    with pytest.raises(ToolError) as e:
        tools.call(tool, **args)
    return e.value.message


def drag_line(tools) -> str:
    return tools.call("app_text", target="testid=lastDrag").text


def test_drag_holds_at_both_ends_and_drops(fresh):
    open_case(fresh, "Drag")
    res = fresh.call("app_drag", **{"from": "label=Drag source", "to": "label=Drop zone"})
    assert res.text.startswith("dragged label=Drag source at (") and "holding 700ms at each end" in res.text
    assert res.data["hold_ms"] == 700 and res.data["duration_ms"] == 800
    m = re.search(r"drag: holdBefore (\d+) moves (\d+) travel (\d+) holdAfter (\d+) dropped yes", drag_line(fresh))
    assert m, drag_line(fresh)
    assert int(m[1]) >= 500 and int(m[2]) >= 5 and 600 <= int(m[4]) <= 900


def test_a_swipe_onto_the_zone_has_no_hold_after(fresh):
    open_case(fresh, "Drag")
    src = fresh.call("app_map").data
    source = next(e for e in src["elements"] if e["label"] == "Drag source")["bounds"]
    zone = next(e for e in src["elements"] if e["label"] == "Drop zone")["bounds"]
    sx, sy = (source["x1"] + source["x2"]) // 2, (source["y1"] + source["y2"]) // 2
    zx, zy = (zone["x1"] + zone["x2"]) // 2, (zone["y1"] + zone["y2"]) // 2
    fresh.call("app_swipe", x1=sx, y1=sy, x2=zx, y2=zy, duration_ms=800)
    m = re.search(r"holdAfter (\d+) dropped yes", drag_line(fresh))
    assert m and int(m[1]) < 200


def test_drag_refusals(fresh):
    assert "must be given together" in refused(fresh, "app_drag", **{"from": "label=Drag source"})
    assert "not both" in refused(fresh, "app_drag", **{"from": "@e1", "to": "@e2"}, x1=1, y1=2, x2=3, y2=4)
    assert "all four of x1, y1, x2, y2" in refused(fresh, "app_drag", x1=1, y1=2)
    assert "must be above zero, got 0" in refused(fresh, "app_drag", x1=1, y1=2, x2=3, y2=4, hold_ms=0)
    assert "nothing would move" in refused(fresh, "app_drag", x1=500, y1=900, x2=500, y2=900)
    assert "a drag is mostly the holds" in refused(fresh, "app_drag", x1=1, y1=2, x2=300, y2=400,
                                                   driver="uiautomator")


def test_battery_in_mobiums_words_and_the_apps(fresh, sim_server):
    device = adbutils.AdbClient(host="127.0.0.1", port=sim_server.port).device(sim_server.serials[0])
    assert fresh.call("app_battery").text == "100%, full, plugged into ac"
    for line in ("set ac 0", "set status 3", "set level 42"):
        device.shell(f"dumpsys battery {line}")
    try:
        fresh.call("app_scroll_to", target="testid=batteryBtn")
        fresh.call("app_tap", target="testid=batteryBtn")
        res = fresh.call("app_battery")
        assert res.text == "42%, discharging, not plugged in"
        assert res.data == {"device": sim_server.serials[0], "present": True, "level": 42, "state": "discharging",
                            "plugged": None}
        fresh.call("app_wait_for", target="testid=batteryLevel", condition="text", text="level: 42%", exact=True)
        assert fresh.call("app_text", target="testid=batteryState").text == "state: unplugged"
    finally:
        device.shell("dumpsys battery reset")


def test_logs_give_what_arrived_since_the_last_read_and_outlive_a_crash(fresh):
    fresh.call("app_tap", target="testid=crashBtn")
    fresh.call("app_logs", app=APP, level="error")  # the first read of this pair: whatever came before
    for _ in range(3):
        fresh.call("app_tap", target="testid=logLineBtn")
    res = fresh.call("app_logs", app=APP, level="error")
    assert [e["message"] for e in res.data["entries"]] == [f"mobium-log-control #{n}" for n in (1, 2, 3)]
    assert re.fullmatch(r"\d\d:\d\d:\d\d\.\d{3} E ReactNativeJS: mobium-log-control #3", res.text.splitlines()[-1])
    assert res.data["app"] == APP
    assert fresh.call("app_logs", app=APP, level="error").text == \
        f'nothing logged since the last read by {APP} at level "error"'
    device_wide = fresh.call("app_logs", lines=5)  # no app: the whole device's log, a mark of its own
    assert device_wide.data["first"] is True and "app" not in device_wide.data and device_wide.data["skipped"] > 0
    assert device_wide.text.startswith("the most recent 5 lines — later reads return only what is new\n")
    fresh.call("app_tap", target="testid=crashJsBtn")
    crash = fresh.call("app_logs", app=APP, lines=2000).text
    assert "mobium-crash-control: throwing now" in crash and "FATAL EXCEPTION: mqt_native_modules" in crash
    assert "unknown device log level" in refused(fresh, "app_logs", level="loud")
    assert "at least 1" in refused(fresh, "app_logs", lines=0)


def text_of(tools, testid) -> str:
    return tools.call("app_text", target=f"testid={testid}").text


def test_several_fingers_tap_together(fresh):
    open_case(fresh, "Multi-Touch")
    res = fresh.call("app_tap", target="label=Finger tap zone", fingers=3)
    assert res.text.startswith("tapped with 3 fingers label=Finger tap zone at (")
    assert text_of(fresh, "multiResult") == "multi: 3-finger tap"
    fresh.call("app_tap", target="label=Finger tap zone", fingers=2)
    assert text_of(fresh, "multiResult") == "multi: 2-finger tap"
    fresh.call("app_tap", target="label=Finger tap zone")
    assert text_of(fresh, "multiResult").startswith("multi: one finger, moved 0, held ")
    assert "1 to 5, got 7" in refused(fresh, "app_tap", target="label=Hold zone", fingers=7)


def test_zoom_and_rotate_move_the_pages_own_readings(fresh):
    open_case(fresh, "Pinch and Spread")
    res = fresh.call("app_zoom")
    assert res.text.startswith("pinched in about the screen at (") and "all this can confirm" in res.text
    assert "fingers 160 to 640px apart" in res.text
    grown = float(text_of(fresh, "scale").split()[1])
    assert grown > 1.5
    fresh.call("app_zoom", direction="out")
    assert float(text_of(fresh, "scale").split()[1]) < 0.7 * grown
    assert "two-finger tap" in refused(fresh, "app_zoom", **{"from": 80, "to": 80})
    assert "either a direction or" in refused(fresh, "app_zoom", direction="in", **{"from": 40, "to": 90})
    assert "must be given together" in refused(fresh, "app_zoom", **{"from": 40})
    assert 'must be "in" or "out"' in refused(fresh, "app_zoom", direction="x")
    fresh.call("app_press", button="back")
    fresh.call("app_tap", target="label=Rotate")
    assert text_of(fresh, "deg") == "0.0"
    res = fresh.call("app_rotate")
    assert res.text.startswith("rotated the screen 90 degrees clockwise about (")
    turned = float(text_of(fresh, "deg"))
    assert 80 < turned < 100
    fresh.call("app_rotate", degrees=-90)
    assert abs(float(text_of(fresh, "deg"))) < 0.4 * turned
    assert "two-finger press" in refused(fresh, "app_rotate", degrees=0)
    assert "more than a full turn" in refused(fresh, "app_rotate", degrees=720)


def test_press_tap_and_press_drag_land_a_second_finger_later(fresh):
    open_case(fresh, "Multi-Touch")
    res = fresh.call("app_press_tap", hold="label=Hold zone", tap="label=Act zone")
    assert "with a second finger, 300ms after the first landed" in res.text
    m = re.fullmatch(r"multi: press and tap, lead (\d+)ms, second moved (\d+), first moved (\d+), held (\d+)ms",
                     text_of(fresh, "multiResult"))
    assert m and 200 <= int(m[1]) <= 450 and "up 1" in text_of(fresh, "multiEvents")
    fresh.call("app_press_drag", hold="label=Hold zone", **{"from": "label=Act zone", "to": "label=Drag end"})
    m = re.match(r"multi: press and drag, lead \d+ms, second moved (\d+), first moved (\d+)",
                 text_of(fresh, "multiResult"))
    assert m and int(m[1]) > 50 and int(m[2]) <= 20
    assert "that is app_press_tap" in refused(fresh, "app_press_drag", hold="label=Hold zone",
                                              **{"from": "label=Act zone", "to": "label=Act zone"})


def test_upload_then_pick_it_in_the_files_demo_and_download_the_report(fresh, tmp_path):
    res = fresh.call("app_upload", **{"content": base64.b64encode(b"alpha-7731\nbeta\n").decode(),
                                       "name": "notes-7731.txt"})
    assert res.text == ("uploaded notes-7731.txt to Download/notes-7731.txt (16 bytes) — confirmed by its size read "
                        "back on the device")
    assert "notes-7731.txt" in fresh.call("app_download").text
    fresh.call("app_scroll_to", target="testid=filesBtn")
    fresh.call("app_tap", target="testid=filesBtn")
    fresh.call("app_tap", target="testid=saveReportBtn")
    fresh.call("app_tap", target="testid=pickFileBtn")
    assert fresh.call("app_current").data["app"] == "com.google.android.documentsui"
    fresh.call("app_tap", target="text=notes-7731.txt")
    assert text_of(fresh, "pickedFile") == "picked: notes-7731.txt (16 bytes) — alpha-7731"
    out = tmp_path / "report.txt"
    res = fresh.call("app_download", **{"name": "mobium-report.txt", "path": str(out)})
    assert out.read_bytes() == b"MobiumApp report 1\nSaved by the Files Demo.\n" and "(44 bytes)" in res.text
    assert "not a file name" in refused(fresh, "app_upload", **{"content": "eA==", "name": "../x"})
    assert refused(fresh, "app_download", **{"name": "not-there.txt"}) == "no not-there.txt in the Download folder"


def test_lock_and_unlock_read_back_from_the_lock_screen(fresh):
    assert fresh.call("app_lock").text == "unlocked"
    assert fresh.call("app_lock", state="lock").text == "locked (was unlocked)"
    assert fresh.call("app_lock", state="lock").text == "already locked"
    res = fresh.call("app_lock", state="unlock")
    assert res.text == "unlocked (was locked)" and res.data["locked"] is False
    assert fresh.call("app_lock").text == "unlocked"


def test_a_locked_device_refuses_launch_and_says_so_in_the_map(fresh, sim_server):
    adb = adbutils.AdbClient("127.0.0.1", sim_server.port).device(sim_server.serials[0])
    adb.shell("input keyevent 26; input keyevent 224")  # the screen off and woken: the lock screen is up
    try:
        shown = fresh.call("app_map")
        assert shown.data["locked"] is True and "`mobium lock unlock`" in shown.text
        with pytest.raises(ToolError) as launch:
            fresh.call("app_launch", app=APP)
        assert launch.value.code == "device_not_ready"
        assert "the device is locked" in launch.value.message and "`mobium lock unlock`" in launch.value.message
        tap = refused(fresh, "app_tap", target="label=Layout Demo")
        assert "the device is locked" in tap
        assert fresh.call("app_lock").text == "locked"
    finally:
        fresh.call("app_lock", state="unlock")
    assert "locked" not in fresh.call("app_map").data


def test_orientation_turns_settings_and_is_refused_for_portrait_only_mobiumapp(fresh):
    try:
        with pytest.raises(ToolError) as held:
            fresh.call("app_orientation", orientation="landscape")  # MobiumApp is in front, and portrait only
        assert held.value.code == "not_confirmed" and "still portrait" in held.value.message
        assert fresh.call("app_orientation").text.startswith("portrait")
        fresh.call("app_launch", app="com.android.settings")
        # The request outlives the refusal: Settings, which rotates, comes up landscape.
        assert fresh.call("app_orientation").text == "landscape (locked)"
        fresh.call("app_orientation", orientation="portrait")
        portrait_w = max(e["bounds"]["x2"] for e in fresh.call("app_map").data["elements"])
        turned = fresh.call("app_orientation", orientation="landscape-reverse")
        assert turned.text == "landscape-reverse (locked) (was portrait)"
        landscape_w = max(e["bounds"]["x2"] for e in fresh.call("app_map").data["elements"])
        assert landscape_w > portrait_w
        assert fresh.call("app_orientation", orientation="landscape-reverse").text == "already landscape-reverse"
        assert "following the sensor" in fresh.call("app_orientation", orientation="auto").text
    finally:
        fresh.call("app_orientation", orientation="portrait", check=False)
        fresh.call("app_launch", app=APP)
