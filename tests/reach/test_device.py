"""device.py and devices.py: a fake adb shell with a scripted screen, and the shell itself on a virtual ADB server."""

from __future__ import annotations

import re

import pytest

from pytest_mobium_evals.reach.device import Device, DeviceError
from pytest_mobium_evals.reach.devices import DeviceUnavailable, lease, parse_adb, parse_device, worker_index


def node(rid="", text="", bounds=(0, 0, 100, 100), scrollable=False, children=""):
    b = "[{},{}][{},{}]".format(*bounds)
    return (f'<node index="0" text="{text}" resource-id="{rid}" class="android.view.View" package="p" '
            f'content-desc="" checkable="false" checked="false" clickable="false" enabled="true" focusable="false" '
            f'focused="false" scrollable="{str(scrollable).lower()}" long-clickable="false" password="false" '
            f'selected="false" bounds="{b}">{children}</node>')


class FakeAdb:
    """A screen with a scroll list of 30 lines, 6 visible at a time; `input swipe` moves it."""

    def __init__(self, keyboard=False):
        self.offset = 0
        self.keyboard = keyboard
        self.commands: list[str] = []
        self.settings = {"global": {"wifi_on": "1"}, "secure": {"ui_night_mode": "1"}, "system": {}}

    def shell(self, cmd, timeout=None, encoding="utf-8"):
        # Just enough of sh for the harness's one-trip scripts: `a; b`, `a && b`, `echo`, `>/dev/null`.
        outputs = []
        for part in re.split(r"\s*(?:;|&&)\s*", cmd):
            quiet = part.endswith(">/dev/null")
            part = part.removesuffix(">/dev/null").strip()
            out = part[5:] if part.startswith("echo ") else self._one(part)
            if out and not quiet:
                outputs.append(out)
        return "\n".join(outputs)

    def _one(self, cmd):
        self.commands.append(cmd)
        if cmd.startswith("uiautomator dump"):
            return "UI hierchary dumped to: /sdcard/window_dump.xml"
        if cmd.startswith("cat "):
            rows = "".join(node(f"line{i}", f"line {i}",
                                (0, 100 * (i - self.offset), 1080, 100 * (i - self.offset + 1)))
                           for i in range(self.offset, self.offset + (3 if self.keyboard else 6)))
            return ("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?><hierarchy rotation=\"0\">"
                    + node("list", "", (0, 0, 1080, 600), True, rows) + "</hierarchy>")
        if cmd.startswith("input swipe"):
            _, _, x1, y1, x2, y2, _ = cmd.split()
            if not self.keyboard:
                self.offset = max(0, min(24, self.offset + (3 if int(y2) < int(y1) else -3)))
            return ""
        if cmd == "dumpsys input_method":
            return f"  mInputShown={'true' if self.keyboard else 'false'}"
        if cmd == "input keyevent 4":
            self.keyboard = False
            return ""
        if cmd.startswith("settings list "):
            ns = cmd.split()[-1]
            return "\n".join(f"{k}={v}" for k, v in sorted(self.settings[ns].items()))
        if cmd.startswith("settings put "):
            _, _, ns, key, value = cmd.split(maxsplit=4)
            self.settings[ns][key] = value
            return ""
        if cmd.startswith("settings delete "):
            _, _, ns, key = cmd.split()
            self.settings[ns].pop(key, None)
            return ""
        if cmd == "cmd uimode night":
            return "Night mode: " + ("yes" if self.settings["secure"].get("ui_night_mode") == "2" else "no")
        if cmd == "explode":
            raise ConnectionResetError("socket closed")
        return ""


def test_text_scrolls_to_a_line_off_screen_and_back():
    adb = FakeAdb()
    dev = Device(adb, "fake")
    assert dev.text("line2") == "line 2"
    assert dev.text("line20") == "line 20"
    assert adb.offset > 0
    assert dev.text("line1") == "line 1"  # down finds nothing past the end, then up finds it
    assert dev.text("nowhere", max_swipes=3) is None


def test_a_keyboard_left_up_is_hidden_before_scrolling():
    adb = FakeAdb(keyboard=True)
    dev = Device(adb, "fake")
    assert dev.text("line10") == "line 10"
    assert "input keyevent 4" in adb.commands


def test_settings_snapshot_and_restore_to_the_baseline():
    adb = FakeAdb()
    dev = Device(adb, "fake")
    dev.take_baseline()
    adb.settings["secure"]["ui_night_mode"] = "2"
    adb.settings["global"]["wifi_on"] = "0"
    adb.settings["system"]["new"] = "x"
    assert dev.settings_snapshot()[("global", "wifi_on")] == "0"
    restored = dev.restore_settings()
    assert sorted(restored) == ["global/wifi_on", "secure/ui_night_mode", "system/new"]
    assert adb.settings == {"global": {"wifi_on": "1"}, "secure": {"ui_night_mode": "1"}, "system": {}}
    assert "cmd uimode night no" in adb.commands


def test_shell_failures_are_infrastructure_errors():
    with pytest.raises(DeviceError, match=r"fake: `explode` failed: ConnectionResetError: socket closed"):
        Device(FakeAdb(), "fake").shell("explode")


def test_wait_for_names_what_it_last_saw():
    dev = Device(FakeAdb(), "fake")
    with pytest.raises(DeviceError, match=r"'line0' reading 'x' not on screen after 0.3s \(it read 'line 0'\)"):
        dev.wait_for("line0", text="x", timeout=0.3, interval=0.05)


@pytest.mark.parametrize("text,kind,count,serials", [
    ("sim", "sim", None, ()), ("sim:3", "sim", 3, ()), ("emulator-5554", "serials", None, ("emulator-5554",)),
    ("a,b", "serials", None, ("a", "b")), ("10.0.0.2:5555", "serials", None, ("10.0.0.2:5555",))])
def test_parse_device(text, kind, count, serials):
    spec = parse_device(text)
    assert (spec.kind, spec.count, spec.serials) == (kind, count, serials)


@pytest.mark.parametrize("text,message", [
    ("sim:0", "at least 1"), ("simx", "expected sim or sim:N"), ("a,a", "listed twice"), ("", "empty"),
    ("a b", "not a device serial")])
def test_parse_device_errors(text, message):
    with pytest.raises(DeviceUnavailable, match=message):
        parse_device(text)


def test_parse_adb_and_leasing():
    assert parse_adb("10.1.1.1:5038") == ("10.1.1.1", 5038)
    assert parse_adb(":5037") == ("127.0.0.1", 5037)
    with pytest.raises(DeviceUnavailable, match="expected HOST:PORT"):
        parse_adb("host:port")
    assert lease(("a", "b"), 1, 2) == "b"
    with pytest.raises(DeviceUnavailable, match=re.escape("3 xdist workers but 2 device(s) (a, b)")):
        lease(("a", "b"), 0, 3)
    assert worker_index({"workerid": "gw3"}) == 3 and worker_index({}) == worker_index() == 0


class PropsAdb:
    def __init__(self, props):
        self.props = props

    def shell(self, cmd, timeout=None, encoding="utf-8"):
        return self.props.get(cmd.removeprefix("getprop "), "") + "\n"


@pytest.mark.parametrize("props, kind", [
    ({"ro.mobium_evals.virtual_device": "1", "ro.kernel.qemu": "1"}, "virtual"),
    ({"ro.kernel.qemu": "1"}, "emulator"),
    ({"ro.boot.qemu": "1"}, "emulator"),
    ({"ro.build.fingerprint": "google/husky/husky:15/AP4A/1:user/release-keys"}, "physical"),
])
def test_the_device_record_says_what_kind_of_device_it_is(props, kind):
    info = Device(PropsAdb(props), "x").properties()
    assert info["kind"] == kind
    assert info["image"] == props.get("ro.build.fingerprint", "")  # a real device keeps its own fingerprint


@pytest.fixture(scope="module")
def virtual_adb():
    from pytest_mobium_evals import sim

    with sim.start(devices=1) as server:
        yield server


def test_on_an_adb_server_a_command_answers_its_output_and_a_screenshot_comes_whole(virtual_adb):
    device = Device.connect(virtual_adb.serials[0], port=virtual_adb.port)
    assert device.shell("echo one; echo two") == "one\ntwo"
    png = device.screencap()
    assert png is not None and png.endswith(b"IEND\xaeB`\x82") and len(png) > 16384


def test_on_an_adb_server_a_serial_it_does_not_hold_is_a_device_error_naming_it(virtual_adb):
    device = Device.connect("emulator-5999", port=virtual_adb.port, shell_timeout=5)
    with pytest.raises(DeviceError, match=r"emulator-5999: `echo hi` failed: .*not found"):
        device.shell("echo hi")
