"""adbutils 2.12 and Debian's stock `adb` client, unchanged, against the virtual device."""

from __future__ import annotations

import io
import re
import shutil
import subprocess
import threading

import pytest
from PIL import Image

MOBIUM = "dev.mobium.mobiumapp"


def test_adbutils_basics(adb, sim_server):
    assert adb.server_version() == 41
    assert [d.serial for d in adb.device_list()] == ["emulator-5554", "emulator-5556"]
    d = adb.device("emulator-5554")
    assert d.shell("settings get global wifi_on") == "1"
    assert d.getprop("ro.build.version.release") == "15"
    assert d.prop.model == "sdk_gphone64_x86_64"
    assert d.get_state() == "device"
    assert d.get_serialno() == "emulator-5554"


def test_adbutils_shell2_v1_and_v2(adb):
    d = adb.device("emulator-5556")
    r = d.shell2("settings put global wifi_on 0 && settings get global wifi_on")
    assert (r.returncode, r.output) == (0, "0\n")
    r = d.shell2("nosuchcmd")
    assert r.returncode == 127 and "inaccessible or not found" in r.output
    r = d.shell2("echo a; echo b >&2; false", v2=True)
    assert (r.returncode, r.stdout, r.stderr) == (1, "a\n", "b\n")


def test_adbutils_dump_hierarchy_uses_sync(adb):
    d = adb.device("emulator-5554")
    xml = d.dump_hierarchy()
    assert xml.startswith("<?xml") and xml.endswith("</hierarchy>")
    assert 'package="com.google.android.apps.nexuslauncher"' in xml


def test_adbutils_screenshot_window_rotation(adb):
    d = adb.device("emulator-5554")
    img = d.screenshot()
    assert img.size == (1080, 2400)
    assert d.window_size() == (1080, 2400)
    assert d.rotation() == 0


def test_adbutils_apps(adb):
    d = adb.device("emulator-5554")
    assert MOBIUM in d.list_packages()
    d.app_start(MOBIUM, ".MainActivity")
    cur = d.app_current()
    assert (cur.package, cur.activity) == (MOBIUM, ".MainActivity")
    info = d.app_info(MOBIUM)
    assert info is not None and info.package_name == MOBIUM and info.version_name
    d.app_stop(MOBIUM)
    assert d.app_current().package == "com.google.android.apps.nexuslauncher"
    d.app_clear(MOBIUM)


def test_adbutils_battery_and_screen(adb):
    d = adb.device("emulator-5554")
    b = d.battery()
    assert b.level == 100 and b.ac_powered is True
    assert d.is_screen_on() is True
    d.keyevent("SLEEP")
    assert d.is_screen_on() is False
    d.keyevent("WAKEUP")
    assert d.is_screen_on() is True


def test_adbutils_sync_push_pull_list(adb, tmp_path):
    d = adb.device("emulator-5554")
    d.sync.push(b"payload\n", "/sdcard/Download/p.txt")
    assert d.sync.read_text("/sdcard/Download/p.txt") == "payload\n"
    assert "p.txt" in [f.path for f in d.sync.list("/sdcard/Download")]
    local = tmp_path / "p.txt"
    d.sync.pull("/sdcard/Download/p.txt", local)
    assert local.read_bytes() == b"payload\n"


def test_adbutils_send_keys_types_escaped_text(adb, sim_server):
    d = adb.device("emulator-5554")
    dev = sim_server.device("emulator-5554")
    d.app_start("com.android.chrome")
    with dev.lock:
        frame = dev.frame()
        bar = frame.app_window.root.find("com.android.chrome:id/url_bar")
        l, t, r, b = bar.bounds
    d.click((l + r) // 2, (t + b) // 2)
    d.send_keys("hi there")
    assert 'text="hi there"' in d.dump_hierarchy()
    d.shell(["input", "text", "%s1\\!"])  # sh removes the quotes, input keeps the backslash
    assert 'text="hi there 1\\!"' in d.dump_hierarchy()


def test_several_clients_and_devices_at_once(adb, sim_server):
    import adbutils
    errors = []

    def worker(n: int) -> None:
        try:
            client = adbutils.AdbClient("127.0.0.1", sim_server.port, socket_timeout=10)
            serial = sim_server.serials[n % 2]
            d = client.device(serial)
            for i in range(5):
                assert d.shell(f"echo {n}-{i}") == f"{n}-{i}"
                assert d.getprop("ro.serialno") == serial
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(n,)) for n in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors, errors[:3]


def test_devices_are_independent(adb):
    a, b = adb.device("emulator-5554"), adb.device("emulator-5556")
    a.shell("svc wifi disable")
    assert a.shell("settings get global wifi_on") == "0"
    assert b.shell("settings get global wifi_on") == "1"


# ---------------------------------------------------------------------------------------------------------------
# Debian's stock adb client

ADB = shutil.which("adb")
needs_adb = pytest.mark.skipif(ADB is None, reason="Debian's `adb` is not installed (apt-get install adb)")


def run_adb(server, *args: str, binary: bool = False) -> subprocess.CompletedProcess:
    return subprocess.run([ADB, "-P", str(server.port), *args], capture_output=True, timeout=30,
                          text=not binary)


@needs_adb
def test_stock_adb_devices(sim_server):
    r = run_adb(sim_server, "devices")
    assert r.returncode == 0
    assert "emulator-5554\tdevice" in r.stdout and "emulator-5556\tdevice" in r.stdout
    r = run_adb(sim_server, "devices", "-l")
    assert "model:sdk_gphone64_x86_64" in r.stdout


@needs_adb
def test_stock_adb_shell_exit_status_and_streams(sim_server):
    r = run_adb(sim_server, "-s", "emulator-5554", "shell", "getprop ro.build.version.sdk")
    assert (r.returncode, r.stdout) == (0, "35\n")
    r = run_adb(sim_server, "-s", "emulator-5554", "shell", "echo out; echo err >&2; exit 3")
    assert (r.returncode, r.stdout, r.stderr) == (3, "out\n", "err\n")
    r = run_adb(sim_server, "-s", "emulator-5556", "shell", "foo")
    assert r.returncode == 127 and "foo: inaccessible or not found" in r.stderr
    r = run_adb(sim_server, "-s", "nope", "shell", "ls")
    assert r.returncode != 0 and "device 'nope' not found" in r.stderr


@needs_adb
def test_stock_adb_commands(sim_server):
    s = ["-s", "emulator-5554"]
    assert run_adb(sim_server, *s, "shell", "am", "start", "-n", f"{MOBIUM}/.MainActivity").returncode == 0
    r = run_adb(sim_server, *s, "shell", "dumpsys window | grep mCurrentFocus")
    assert f"{MOBIUM}/{MOBIUM}.MainActivity" in r.stdout
    r = run_adb(sim_server, *s, "shell", "uiautomator", "dump")
    assert r.stdout == "UI hierchary dumped to: /sdcard/window_dump.xml\n"
    r = run_adb(sim_server, *s, "get-serialno")
    assert r.stdout.strip() == "emulator-5554"


@needs_adb
def test_stock_adb_exec_out_screencap_and_pull_push(sim_server, tmp_path):
    r = run_adb(sim_server, "-s", "emulator-5556", "exec-out", "screencap", "-p", binary=True)
    assert r.returncode == 0
    assert Image.open(io.BytesIO(r.stdout)).size == (1080, 2400)
    src = tmp_path / "in.txt"
    src.write_text("pushed\n")
    r = run_adb(sim_server, "-s", "emulator-5556", "push", str(src), "/sdcard/Download/in.txt")
    assert r.returncode == 0, r.stderr
    dst = tmp_path / "out.txt"
    r = run_adb(sim_server, "-s", "emulator-5556", "pull", "/sdcard/Download/in.txt", str(dst))
    assert r.returncode == 0, r.stderr
    assert dst.read_text() == "pushed\n"
    r = run_adb(sim_server, "-s", "emulator-5556", "pull", "/sdcard/none.txt", str(dst))
    assert r.returncode != 0 and "does not exist" in r.stderr + r.stdout


@needs_adb
def test_stock_adb_shell_reads_a_script_from_stdin(sim_server):
    r = subprocess.run([ADB, "-P", str(sim_server.port), "-s", "emulator-5554", "shell"],
                       input="getprop ro.serialno\nfalse\necho $?\n", capture_output=True, text=True, timeout=30)
    assert (r.returncode, r.stdout) == (0, "emulator-5554\n1\n")


@needs_adb
def test_stock_adb_logcat_dump(sim_server):
    sim_server.device("emulator-5554").log("StockTest", "hello from the device", pid=99)
    r = run_adb(sim_server, "-s", "emulator-5554", "logcat", "-d", "-s", "StockTest")
    assert r.returncode == 0 and "I StockTest: hello from the device" in r.stdout


# Each command of the brief through both clients: the same exit status and (numbers aside) the same output.
MOB = "dev.mobium.mobiumapp"
COMMANDS = [
    ("settings get global wifi_on", 0), ("settings list secure", 0), ("settings put global zen_mode 0", 0),
    ("settings delete global no_such_key", 0), ("settings get badns k", 255), ("getprop ro.build.version.sdk", 0),
    ("getprop", 0), ("svc wifi enable", 0), ("svc bluetooth enable", 0), ("svc data enable", 0),
    ("cmd connectivity airplane-mode", 0), ("cmd connectivity airplane-mode disable", 0),
    ("cmd uimode night", 0), ("cmd uimode night no", 0), ("cmd wifi status", 0),
    ("cmd statusbar collapse", 0), (f"am start -W -n {MOB}/.MainActivity", 0),
    ("am start -n com.nope/.X", 1), (f"am start -n {MOB}/.MainActivity --ez MobiumGrayBox true", 0),
    ("am stack list", 0), ("am broadcast -a some.ACTION", 0), (f"monkey -p {MOB} 1", 0),
    (f"cmd package resolve-activity --brief {MOB}", 0), ("pm list packages", 0), ("pm list packages -f -3", 0),
    (f"pm path {MOB}", 0), (f"pm grant {MOB} android.permission.CAMERA", 0),
    (f"pm revoke {MOB} android.permission.CAMERA", 0), ("dumpsys activity activities", 0),
    ("dumpsys activity top", 0), ("dumpsys activity recents", 0), (f"dumpsys package {MOB}", 0),
    ("dumpsys window", 0), ("dumpsys window displays", 0), ("dumpsys input_method", 0), ("dumpsys power", 0),
    ("dumpsys display", 0), ("dumpsys battery", 0), ("dumpsys notification --noredact", 0), ("dumpsys input", 0),
    ("wm size", 0), ("wm density", 0), ("input tap 540 1200", 0), ("input swipe 540 1800 540 900 300", 0),
    ("input text abc", 0), ("input keyevent KEYCODE_BACK", 0), ("input keyevent --longpress 4", 0),
    ("uiautomator dump", 0), ("uiautomator dump /dev/tty", 0), ("ls /sdcard", 0),
    ("uiautomator dump >/dev/null && cat /sdcard/window_dump.xml | grep -c hierarchy", 0), ("logcat -d -s NothingHere", 0), ("logcat -c", 0),  # noqa: E501
    ("ps -A | grep -c system_server", 0), ("echo a && false || echo b; echo $?", 0), ("nosuch", 127),
    (f"am force-stop {MOB}", 0), (f"pm clear {MOB}", 0), ("input keyevent HOME", 0),
]


def _norm(text: str) -> str:
    # hashes, ids and the android_id differ per device and run; the shape must not
    return re.sub(r"\d+", "N", re.sub(r"\b(?:[0-9a-f]{7}|[0-9a-f]{16})\b", "H", text))


@needs_adb
@pytest.mark.parametrize("line,status", COMMANDS, ids=[c for c, _ in COMMANDS])
def test_each_command_through_adbutils_and_stock_adb(adb, sim_server, line, status):
    via_utils = adb.device("emulator-5554").shell2(line, v2=True)
    via_adb = run_adb(sim_server, "-s", "emulator-5556", "shell", line)
    assert via_utils.returncode == status, via_utils.stderr
    assert via_adb.returncode == status, via_adb.stderr
    assert _norm(via_utils.stdout) == _norm(via_adb.stdout)
    assert "Traceback" not in via_utils.stdout + via_utils.stderr
