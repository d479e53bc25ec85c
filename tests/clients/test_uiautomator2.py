"""openatx uiautomator2 3.7.1 from PyPI, unchanged, on the virtual device: `connect()` pushes its u2.jar, starts its
agent with `app_process` in the foreground of an adb session, reaches it on the device's tcp:9008 through ADB's
tcp: service, and drives Settings by selectors, as its users do."""

from __future__ import annotations

import os
import re

import pytest

from pytest_mobium_evals import sim

u2 = pytest.importorskip("uiautomator2", reason="uiautomator2 is in the [test] extra: pip install -e '.[test]'")


@pytest.fixture
def device(monkeypatch):
    monkeypatch.setenv("ADBUTILS_ADB_PATH", "/bin/false")  # never start a real adb server
    import adbutils

    with sim.start(devices=1) as server:
        # An adbutils device on the virtual ADB server, as a user with a remote server hands it to connect().
        d = u2.connect(adbutils.AdbClient("127.0.0.1", server.port).device(server.serials[0]))
        try:
            yield server.device(), d
        finally:
            d.stop_uiautomator()


def test_uiautomator2_connects_and_drives_settings_by_selectors(device, tmp_path):
    vdevice, d = device
    info = d.info
    assert (info["displayWidth"], info["displayHeight"], info["sdkInt"]) == (1080, 2400, 35)
    assert d.window_size() == (1080, 2400)
    d.app_start("com.android.settings", stop=True)
    assert d(text="Display").exists(timeout=5)
    d(text="Display").click()
    assert d(text="Dark theme").exists(timeout=5)
    d(text="Dark theme").click()
    assert vdevice.night_mode  # the device's own state, not the agent's word
    assert d(textContains="Dark").count >= 1 and not d(text="No such row").exists
    with pytest.raises(u2.UiObjectNotFoundError):
        d(text="No such row").click(timeout=0.5)
    d.press("back")
    assert d(text="Network & internet").exists(timeout=5)
    d.swipe(540, 1800, 540, 600)
    d.long_click(540, 1200)
    d.set_clipboard("copié ✓")
    assert d.clipboard == "copié ✓" and vdevice.clipboard == "copié ✓"
    d.screenshot(str(tmp_path / "shot.jpg"))
    assert (tmp_path / "shot.jpg").read_bytes()[:2] == b"\xff\xd8"
    assert d.dump_hierarchy() == vdevice.dump_xml()  # the screen as uiautomator dumps it
    d.press("home")
    assert vdevice.current_activity() is None or vdevice.current_activity().package.name != "com.android.settings"


def test_the_agent_ends_when_its_session_closes(device):
    vdevice, d = device
    assert vdevice.listeners.is_listening("tcp:9008")
    d.stop_uiautomator()  # the client closes the agent's adb session
    assert not vdevice.listeners.is_listening("tcp:9008")
    assert os.environ["ADBUTILS_ADB_PATH"] == "/bin/false"


APP = "dev.mobium.mobiumapp"
ADB_KEYBOARD = "com.github.uiautomator/.AdbKeyboard"


def field(vdevice, testid: str) -> str:
    """A field's value as the app holds it (the screen shows a password as dots)."""
    with vdevice.lock:
        p = next(p for p in vdevice.frame().app_window.root.walk() if p.node.id == testid)
        return p.node.text


def test_the_python_api_on_mobiumapp(device):
    """uiautomator2's own calls beyond selectors: a watcher (client-side, over the agent's hierarchy and clicks),
    send_keys by the clipboard's paste and then by its AdbKeyboard input method (installed, listed, enabled and set
    as Android does for an APK declaring one), set_text and clear_text, a toast the agent heard, orientation, and the
    agent's gestures (touch events, drag, a swipe through points, a pinch)."""
    vdevice, d = device
    assert {APP, "com.android.settings"} <= set(d.app_list())  # pm list packages
    d.open_url("https://example.com")  # am start -a VIEW -d
    assert vdevice.current_activity().package.name == "com.android.chrome"
    d.app_stop("com.android.chrome")
    assert "com.android.chrome" not in vdevice.processes
    d.app_start(APP, stop=True)
    # child and sibling selectors, and childByText's named object
    assert d(resourceId="homeList").child(description="Login Demo").exists
    assert d(description="Login Demo").sibling(description="OTP Demo").exists
    assert not d(resourceId="title").child(description="Login Demo").exists
    named = d(resourceId="homeList").child_by_text("Login Demo", className="android.widget.Button")
    assert named.info["contentDescription"] == "Login Demo"
    with pytest.raises(u2.exceptions.RPCUnknownError, match="-32601"):  # not u2.jar's, as on a device
        d.jsonrpc.makeToast("hello", 1000)
    d.watcher("login").when('//*[@content-desc="Login Demo"]').click()
    d.watcher.run()  # one pass: it sees the home list's Login Demo and clicks it
    assert d(resourceId="username").wait(timeout=5)
    d.watcher.remove()

    d(resourceId="username").click()
    d.send_keys("mobium ✓")  # no input method of its own yet: the clipboard and the agent's Ctrl+V
    assert field(vdevice, "username") == "mobium ✓" and vdevice.clipboard == "mobium ✓"
    d.clear_text()  # the agent's Ctrl+A, Delete
    assert field(vdevice, "username") == ""
    d(resourceId="username").set_text("mobium")
    assert d(resourceId="username").get_text() == "mobium"

    d.set_input_ime(True)  # installs app-uiautomator.apk: its AdbKeyboard is listed, enabled and set
    assert ADB_KEYBOARD in d.shell(["ime", "list", "-s"]).output.split()
    assert d.current_ime() == ADB_KEYBOARD and vdevice.current_input_method() == ADB_KEYBOARD
    d(resourceId="password").click()
    d.send_keys("hunter2 ✓")  # through the input method: the ADB_KEYBOARD_INPUT_TEXT broadcast
    assert field(vdevice, "password") == "hunter2 ✓"
    d.send_keys("hunter2", clear=True)  # ADB_KEYBOARD_CLEAR_TEXT first
    assert field(vdevice, "password") == "hunter2"
    d(resourceId="loginBtn").click()
    assert d(text="You are logged in.").wait(timeout=5)
    d.set_input_ime(False)  # `ime disable`: the system keyboard takes over
    assert vdevice.current_input_method() != ADB_KEYBOARD

    d.app_start(APP, stop=True)  # the share sheet's Copy: Android says "Copied" in a toast
    assert d(scrollable=True).scroll.to(resourceId="dialogsBtn")  # UiScrollable.scrollIntoView
    d(resourceId="dialogsBtn").click()
    assert d(scrollable=True).scroll.to(resourceId="shareBtn")
    d(resourceId="shareBtn").click()
    d.clear_toast()
    d(text="Copy").click()
    assert d.last_toast == "Copied" and vdevice.clipboard == "Shared from MobiumApp"
    d.clear_toast()
    assert d.last_toast is None

    d.app_start("com.android.settings", stop=True)
    d.orientation = "left"  # setOrientation: frozen at a quarter turn
    assert d.orientation == "left" and vdevice.settings("system")["user_rotation"] == "1"
    d.orientation = "natural"
    d.freeze_rotation(False)
    assert vdevice.settings("system")["accelerometer_rotation"] == "1"
    d.freeze_rotation(True)
    assert vdevice.settings("system")["accelerometer_rotation"] == "0"

    d.app_start("com.android.settings", stop=True)
    top = d(text="Network & internet").info["bounds"]["top"]
    d.swipe_points([(540, 1800), (540, 1400), (540, 1000)], 0.2)  # one finger through three points
    row = d(text="Network & internet")
    assert not row.exists or row.info["bounds"]["top"] < top  # the list moved up, the row with it (or off screen)
    d.touch.down(540, 700).move(540, 1400).move(540, 2100).up(540, 2100)  # back down, by the agent's touch events
    assert d(text="Network & internet").wait(timeout=5)
    d.double_click(*d(text="Display").center())  # a touch down and up, then a click
    assert d(text="Dark theme").wait(timeout=5)

    d.app_start(APP, stop=True)
    d(description="Gestures").click()
    d(description="Drag").click()
    card, zone = d(resourceId="dragSource").center(), d(resourceId="dropZone").center()
    d.drag(*card, *zone, duration=0.5)  # UiDevice.drag: held the long-press timeout, moved 100 steps, held, up
    assert re.fullmatch(r"drag: holdBefore (\d+) moves \d+ travel \d+ holdAfter (\d+) dropped yes",
                        d(resourceId="lastDrag").get_text())
    d.press("back")
    d(description="Pinch and Spread").click()
    assert d(resourceId="target").wait(timeout=5) and d(text="scale 1.00").exists
    d(resourceId="target").pinch_out(percent=100, steps=40)  # two fingers from its middle to its edges
    spread = float(d(textStartsWith="scale ").get_text().split()[1])
    d(resourceId="target").pinch_in(percent=100, steps=40)  # and back together
    assert spread > 1 and float(d(textStartsWith="scale ").get_text().split()[1]) < spread
