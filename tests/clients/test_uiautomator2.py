"""openatx uiautomator2 3.7.1 from PyPI, unchanged, on the virtual device: `connect()` pushes its u2.jar, starts its
agent with `app_process` in the foreground of an adb session, reaches it on the device's tcp:9008 through ADB's
tcp: service, and drives Settings by selectors, as its users do."""

from __future__ import annotations

import os

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
