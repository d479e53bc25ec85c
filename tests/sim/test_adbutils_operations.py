"""Every operation of adbutils' device API (the installed adbutils, unchanged) against the virtual device, each
checked against the device's own state. A meta-test keeps the list whole: a public AdbDevice member that is neither
here nor in NOT_HERE (with its reason) fails it."""

from __future__ import annotations

import socket
import threading

import adbutils
import pytest
from apk_builder import build_apk, launcher_activity, manifest
from PIL import ImageChops
from polling import wait_for

SERIAL = "emulator-5554"
MOBIUM = "dev.mobium.mobiumapp"
TINY = "dev.example.tiny"

# Public members not called here, and why.
NOT_HERE = {
    "adb_output": "runs the adb binary (tests point ADBUTILS_ADB_PATH at /bin/false so no real server starts)",
    "download_apk": "an HTTP download on the host, no device involved",
    "reboot": "the virtual device refuses reboot: (it has no boot to go through); answered with FAIL",
    "tcpip": "switching adbd to TCP would drop the transport the tests run on; answered with FAIL",
    "is_recording": "screen recording: adbutils needs scrcpy or the screenrecord command (issue 31, i31-clients)",
    "start_recording": "screen recording, as is_recording",
    "stop_recording": "screen recording, as is_recording",
    "serial": "an attribute of the client object",
}


def upper_echo(sock: socket.socket) -> None:
    with sock.makefile("rwb", buffering=0) as f:
        for line in f:
            f.write(line.upper())


class HostLines:
    """A host TCP server collecting the lines the device's reverse connections send."""

    def __init__(self):
        self.server = socket.create_server(("127.0.0.1", 0))
        self.port = self.server.getsockname()[1]
        self.lines: list[bytes] = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        while True:
            try:
                sock, _ = self.server.accept()
            except OSError:
                return
            with sock, sock.makefile("rb") as f:
                self.lines += list(f)


def op_app_lifecycle(d, dev, tmp_path):
    d.app_start(MOBIUM)
    assert d.app_current().package == MOBIUM
    info = d.app_info(MOBIUM)
    assert (info.package_name, info.version_code) == (MOBIUM, dev.packages[MOBIUM].version_code)
    assert d.package_info(MOBIUM)["version_name"] == dev.packages[MOBIUM].version_name
    d.app_stop(MOBIUM)
    assert MOBIUM not in dev.processes
    dev.storage(MOBIUM)["k"] = "v"
    d.app_clear(MOBIUM)
    assert dev.storage(MOBIUM) == {}


def op_device_queries(d, dev, tmp_path):
    assert (d.get_serialno(), d.get_state(), d.get_devpath()) == (SERIAL, "device", "unknown")
    assert "shell_v2" in d.get_features().split(",")
    assert d.info == {"serialno": SERIAL, "devpath": "unknown", "state": "device"}
    assert d.getprop("ro.build.version.sdk") == "35" and d.prop.model == dev.props["ro.product.model"]
    assert d.battery().level == dev.battery_level
    assert d.window_size() == (1080, 2400) and d.rotation() == 0
    assert d.is_screen_on() is True
    assert d.brightness_value == int(dev.settings("system")["screen_brightness"])
    assert d.brightness_mode.value == int(dev.settings("system")["screen_brightness_mode"])


def op_input(d, dev, tmp_path):
    d.keyevent("HOME")
    d.click(540, 1200)
    d.swipe(540, 1800, 540, 600, 0.1)
    d.drag(540, 1800, 540, 600, 0.1)
    d.volume_up(), d.volume_down(), d.volume_mute()
    d.app_start(MOBIUM)
    d.send_keys("hi")  # no field is focused: typed into nothing, and no error
    assert d.app_current().package == MOBIUM


def op_screen(d, dev, tmp_path):
    shot = d.screenshot().convert("RGB")
    assert shot.size == (1080, 2400)
    frame = d.framebuffer()
    assert frame.mode == "RGBA" and frame.size == (1080, 2400)
    assert ImageChops.difference(frame.convert("RGB"), shot).getbbox() is None  # the same pixels screencap gives
    assert d.dump_hierarchy().startswith("<?xml")


def op_switches(d, dev, tmp_path):
    d.switch_wifi(False)
    assert not dev.wifi_enabled
    with pytest.raises(adbutils.AdbError, match="fail to parse wlan ip"):
        d.wlan_ip()  # no Wi-Fi, no address: as on a device
    d.switch_wifi(True)
    assert dev.wifi_enabled and d.wlan_ip() == "10.0.2.16"
    d.switch_airplane(True)
    assert dev.airplane_mode
    d.switch_airplane(False)
    d.switch_screen(False)
    assert not dev.screen_on
    d.switch_screen(True)
    assert dev.screen_on
    d.open_browser("https://example.com/")
    assert d.app_current().package != MOBIUM


def op_shells(d, dev, tmp_path):
    assert d.shell("echo hi") == "hi"
    r = d.shell2("echo out; echo err >&2; false")
    assert (r.returncode, r.output) == (1, "out\nerr\n")
    assert d.open_shell("echo stream").read_until_close() == "stream\n"
    with d.open_transport() as c:
        c.send_command("shell:echo raw")
        c.check_okay()
        assert c.read_until_close() == "raw\n"
    evt = d.logcat(tmp_path / "log.txt", clear=True, command="logcat -v time")
    dev.log("Probe", "a line for adbutils.logcat")
    wait_for(lambda: "a line for adbutils.logcat" in (tmp_path / "log.txt").read_text(), what="the logcat line")
    # adbutils' reader sees the stop at its next line; a device's log never stays quiet for long, so log one
    evt.stop_nowait()
    dev.log("Probe", "the line after the stop")
    evt.stop(timeout=10)
    assert d.root() in ("restarting adbd as root\n", "adbd is already running as root\n")


def op_files(d, dev, tmp_path):
    src = tmp_path / "f.txt"
    src.write_text("x")
    d.sync.push(str(src), "/sdcard/Download/f.txt")
    assert dev.files["/sdcard/Download/f.txt"] == b"x"
    d.push(str(src), "/sdcard/Download/g.txt")
    assert "f.txt" in [f.path for f in d.sync.list("/sdcard/Download")]
    d.remove("/sdcard/Download/f.txt")
    assert "/sdcard/Download/f.txt" not in dev.files
    d.rmtree("/sdcard/Download")
    assert "/sdcard/Download/g.txt" not in dev.files


def op_packages(d, dev, tmp_path):
    apk = tmp_path / "tiny.apk"
    apk.write_bytes(build_apk(manifest(TINY, version_code=5, version_name="5.0",
                                       activities=[launcher_activity(".Main")])))
    d.install(str(apk), nolaunch=True, silent=True)
    assert TINY in d.list_packages() and dev.packages[TINY].version_code == 5
    d.uninstall(TINY)
    assert TINY not in dev.packages
    d.sync.push(str(apk), "/data/local/tmp/t.apk")
    d.install_remote("/data/local/tmp/t.apk", clean=True)
    assert TINY in d.list_packages() and "/data/local/tmp/t.apk" not in dev.files


def op_sockets(d, dev, tmp_path):
    dev.listeners.listen("tcp:9008", upper_echo)
    with d.create_connection("tcp", 9008) as s:
        s.sendall(b"direct\n")
        assert s.makefile("rb").readline() == b"DIRECT\n"
    port = d.forward_port(9008)
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(b"forwarded\n")
        assert s.makefile("rb").readline() == b"FORWARDED\n"
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        free = probe.getsockname()[1]
    d.forward(f"tcp:{free}", "localabstract:x")
    assert len(d.forward_list()) == 2
    d.forward_remove(f"tcp:{port}")
    assert [f.remote for f in d.forward_list()] == ["localabstract:x"]
    d.forward_remove_all()
    assert d.forward_list() == []
    host = HostLines()
    d.reverse("tcp:7000", f"tcp:{host.port}")
    assert [(r.remote, r.local) for r in d.reverse_list()] == [("tcp:7000", f"tcp:{host.port}")]
    with dev.listeners.connect("tcp:7000") as app:
        app.sendall(b"from the device\n")
    wait_for(lambda: host.lines == [b"from the device\n"], what="the reverse connection's line on the host")
    d.reverse_remove("tcp:7000")
    d.reverse("tcp:7001", f"tcp:{host.port}")
    d.reverse_remove_all()
    assert d.reverse_list() == []
    host.server.close()


OPERATIONS = {
    op_app_lifecycle: ("app_start", "app_current", "app_info", "package_info", "app_stop", "app_clear"),
    op_device_queries: ("get_serialno", "get_state", "get_devpath", "get_features", "info", "getprop", "prop",
                        "battery", "window_size", "rotation", "is_screen_on", "brightness_value",
                        "brightness_mode"),
    op_input: ("keyevent", "click", "swipe", "drag", "volume_up", "volume_down", "volume_mute", "send_keys"),
    op_screen: ("screenshot", "framebuffer", "dump_hierarchy"),
    op_switches: ("switch_wifi", "wlan_ip", "switch_airplane", "switch_screen", "open_browser"),
    op_shells: ("shell", "shell2", "open_shell", "open_transport", "logcat", "root"),
    op_files: ("sync", "push", "remove", "rmtree"),
    op_packages: ("install", "uninstall", "list_packages", "install_remote"),
    op_sockets: ("create_connection", "forward", "forward_port", "forward_list", "forward_remove",
                 "forward_remove_all", "reverse", "reverse_list", "reverse_remove", "reverse_remove_all"),
}


@pytest.mark.parametrize("operation", list(OPERATIONS), ids=lambda f: f.__name__[3:])
def test_adbutils_operation(operation, adb, sim_server, tmp_path):
    operation(adb.device(SERIAL), sim_server.device(SERIAL), tmp_path)


def test_every_public_operation_is_called_or_said_why_not():
    public = {n for n in dir(adbutils.AdbDevice) if not n.startswith("_")}
    called = {name for names in OPERATIONS.values() for name in names}
    assert called.isdisjoint(NOT_HERE)
    assert public - called - set(NOT_HERE) == set()
    assert called | set(NOT_HERE) <= public | {"serial"}
    print(f"adbutils {adbutils.__version__}: {len(called)} of {len(public)} operations called here")
