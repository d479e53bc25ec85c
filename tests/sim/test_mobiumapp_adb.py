"""MobiumApp reached the way the harness reaches it: adbutils over the virtual device's ADB server."""

from __future__ import annotations

import re
import time
import xml.etree.ElementTree as ET

import pytest

adbutils = pytest.importorskip("adbutils")

from pytest_mobium_evals.sim.adb_server import AdbServer  # noqa: E402
from pytest_mobium_evals.sim.clock import Clock  # noqa: E402
from pytest_mobium_evals.sim.device import VirtualDevice  # noqa: E402

APP = "dev.mobium.mobiumapp"


@pytest.fixture
def adb(monkeypatch):
    monkeypatch.setenv("ADBUTILS_ADB_PATH", "/bin/false")  # never start a real adb server
    # Real time: "Signing in…" must still be on screen when the next ADB round trip reads it, however busy the host.
    device = VirtualDevice("emulator-5554", clock=Clock(1.0), seed=3)
    server = AdbServer({"emulator-5554": device}, port=0)
    try:
        client = adbutils.AdbClient(host="127.0.0.1", port=server.port, socket_timeout=10)
        yield client.device("emulator-5554")
    finally:
        server.close()


def nodes(dev) -> list[dict]:
    raw = dev.shell("uiautomator dump /dev/tty")
    xml = raw[raw.index("<?xml"):raw.rindex("</hierarchy>") + len("</hierarchy>")]
    return [dict(n.attrib) for n in ET.fromstring(xml).iter("node")]


def find(dev, **attrs) -> dict | None:
    for n in nodes(dev):
        if all(n.get(k) == v for k, v in attrs.items()):
            return n
    return None


def tap(dev, **attrs) -> None:
    node = find(dev, **attrs)
    assert node is not None, f"no node {attrs}"
    x1, y1, x2, y2 = map(int, re.findall(r"\d+", node["bounds"]))
    dev.shell(["input", "tap", str((x1 + x2) // 2), str((y1 + y2) // 2)])


def wait_text(dev, rid: str, expected: str, real_seconds: float = 5.0) -> None:
    deadline = time.monotonic() + real_seconds
    while True:
        node = find(dev, **{"resource-id": rid})
        if node is not None and node["text"] == expected:
            return
        assert time.monotonic() < deadline, f"{rid} never read {expected!r} (last: {node and node['text']!r})"


def test_sign_in_over_adb(adb):
    adb.shell(f"am force-stop {APP}")
    assert "cmp=dev.mobium.mobiumapp/.MainActivity" in adb.shell(f"am start -n {APP}/.MainActivity")
    tap(adb, **{"resource-id": "loginBtn"})
    tap(adb, **{"resource-id": "username"})
    adb.shell(["input", "text", "mobium"])
    tap(adb, **{"resource-id": "password"})
    adb.shell(["input", "text", "hunter2"])
    tap(adb, **{"resource-id": "loginBtn"})
    assert find(adb, **{"resource-id": "loginBtn", "content-desc": "Signing in…", "enabled": "false"})
    wait_text(adb, "welcomeText", "Welcome, mobium!")
    assert "hunter2" not in adb.shell("uiautomator dump /dev/tty")


def test_three_button_alert_and_gray_box_logcat_over_adb(adb):
    adb.shell(f"am force-stop {APP}; am start -n {APP}/.MainActivity --ez MobiumGrayBox true")
    for _ in range(10):
        if find(adb, **{"resource-id": "dialogsBtn"}) and find(adb, **{"resource-id": "busyBtn"}) is None:
            break
        adb.shell("input swipe 540 1800 540 1100 300")
    tap(adb, **{"resource-id": "dialogsBtn"})
    tap(adb, **{"resource-id": "threeButtonBtn"})
    assert find(adb, **{"resource-id": "android:id/alertTitle", "text": "Save this draft?"})
    tap(adb, **{"resource-id": "android:id/button2"})
    wait_text(adb, "dialogOutcome", "three-button: Don't Save")
    assert "MOBIUM-GRAYBOX on" in adb.shell("logcat -d -s MobiumGrayBox:I")
