"""The device commands mobile-mcp (through mobilecli) sends, through Debian's stock `adb` client, unchanged: the
emulator console (`adb emu`), the settings provider through `content`, `cmd package query-activities`, logcat's
modifiers, programs started by `nohup app_process` and stopped by `pkill`, `md5sum`, and `screenrecord` ended by
SIGINT from another shell."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import urllib.request

import pytest
from polling import wait_for

from pytest_mobium_evals import sim

pytestmark = pytest.mark.skipif(shutil.which("adb") is None, reason="needs the stock adb client (apt install adb)")


@pytest.fixture
def console_sim(tmp_path, monkeypatch):
    """A virtual device with its emulator console; the console's token file in a HOME of the test's own."""
    monkeypatch.setenv("HOME", str(tmp_path))
    with sim.start(devices=1, console=True) as server:
        yield server


def adb(server, *args: str, check: bool = True) -> subprocess.CompletedProcess:
    env = {**os.environ, "ANDROID_ADB_SERVER_PORT": str(server.port)}
    result = subprocess.run(["adb", "-s", server.serials[0], *args], env=env, capture_output=True, text=True,
                            timeout=60)
    if check:
        assert result.returncode == 0, f"adb {' '.join(args)}: {result.returncode} {result.stdout} {result.stderr}"
    return result


def test_the_serial_names_the_console_port_and_adb_emu_geo_fix_places_the_device(console_sim, tmp_path):
    serial = console_sim.serials[0]
    port = int(serial.split("-")[1])
    assert port % 2 == 0 and 5554 <= port <= 5682
    token = (tmp_path / ".emulator_console_auth_token").read_text().strip()
    assert token and (tmp_path / ".emulator_console_auth_token").stat().st_mode & 0o077 == 0
    result = adb(console_sim, "emu", "geo", "fix", "2.35", "48.85")  # longitude first, as the emulator reads it
    assert "KO" not in result.stdout + result.stderr
    device = console_sim.device()
    assert device.location == (48.85, 2.35) and device.location_mock is False
    assert "gps 48.850000,2.350000" in adb(console_sim, "shell", "dumpsys", "location").stdout
    assert adb(console_sim, "emu", "avd", "name").stdout.splitlines()[0] == "Medium_Phone_API_35"


def test_the_console_refuses_a_wrong_token(console_sim, tmp_path):
    (tmp_path / ".emulator_console_auth_token").write_text("not-the-token")  # the client sends this one
    device = console_sim.device()
    before = device.location
    result = adb(console_sim, "emu", "geo", "fix", "2.35", "48.85", check=False)
    assert "KO" in result.stdout + result.stderr and device.location == before


def test_settings_provider_through_content_turns_the_screen(sim_server):
    device = sim_server.device("emulator-5554")
    shell = ["shell"]
    adb(sim_server, *shell, "settings", "put", "system", "accelerometer_rotation", "0")
    adb(sim_server, *shell, "am", "start", "-n", "com.android.settings/.Settings")
    adb(sim_server, *shell, "content", "insert", "--uri", "content://settings/system", "--bind",
        "name:s:user_rotation", "--bind", "value:i:1")
    assert device.settings("system")["user_rotation"] == "1"
    assert adb(sim_server, *shell, "settings", "get", "system", "user_rotation").stdout.strip() == "1"
    assert "mRotation=1" in adb(sim_server, *shell, "dumpsys", "window", "displays").stdout
    out = adb(sim_server, *shell, "content", "query", "--uri", "content://settings/system", "--projection",
              "name:value", "--where", "\"name='user_rotation'\"").stdout
    assert out == "Row: 0 name=user_rotation, value=1\n"
    adb(sim_server, *shell, "content", "delete", "--uri", "content://settings/system", "--where",
        "\"name='user_rotation'\"")
    assert "user_rotation" not in device.settings("system")
    bad = adb(sim_server, *shell, "content", "query", "--uri", "content://settings/nowhere", check=False)
    assert "Invalid URI" in bad.stdout + bad.stderr


def test_query_activities_lists_each_launcher_activity(sim_server):
    args = ["shell", "cmd", "package", "query-activities", "-a", "android.intent.action.MAIN", "-c",
            "android.intent.category.LAUNCHER"]
    out = adb(sim_server, *args).stdout
    device = sim_server.device("emulator-5554")
    launchable = sorted(p.name for p in device.packages.values() if p.launcher_activity)
    assert out.startswith(f"{len(launchable)} activities found:\n  Activity #0:\n")
    assert sorted(re.findall(r"^      packageName=(\S+)$", out, re.M)) == launchable
    brief = adb(sim_server, *args[:4], "--brief", *args[4:]).stdout
    assert "    com.android.settings/.Settings" in brief.splitlines()


def test_logcat_year_usec_and_zone(sim_server):
    line = adb(sim_server, "logcat", "-d", "-v", "threadtime,year").stdout.splitlines()[-1]
    assert re.match(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} +\d+ +\d+ [VDIWEF] ", line), line
    line = adb(sim_server, "logcat", "-d", "-v", "time,usec,zone").stdout.splitlines()[-1]
    assert re.match(r"^\d\d-\d\d \d\d:\d\d:\d\d\.\d{6} \+0000 [VDIWEF]/", line), line


def test_app_process_starts_mobileclis_device_server_and_pkill_stops_it(sim_server, tmp_path):
    dex = tmp_path / "mobilecli.dex"
    dex.write_bytes(b"dex\n035\0" + bytes(range(256)))
    adb(sim_server, "push", str(dex), "/data/local/tmp/mobilecli.dex")
    adb(sim_server, "shell", "CLASSPATH=/data/local/tmp/mobilecli.dex nohup app_process / "
        "com.mobilenext.mobilecli.DeviceServer >/dev/null 2>&1 &")
    assert adb(sim_server, "shell", "pgrep", "-f", "'[c]om.mobilenext.mobilecli.DeviceServer'").stdout.strip()
    port = int(adb(sim_server, "forward", "tcp:0", "localabstract:mobilecli-server").stdout.strip())

    def rpc(method: str, **params):
        body = json.dumps({"jsonrpc": "2.0", "id": "1", "method": method, **({"params": params} if params else {})})
        request = urllib.request.Request(f"http://127.0.0.1:{port}/", body.encode(),
                                         {"Content-Type": "application/json"})
        with urllib.request.urlopen(request, timeout=10) as answer:
            return json.loads(answer.read())

    assert rpc("device.version")["result"] == {"dexSha256": hashlib.sha256(dex.read_bytes()).hexdigest()}
    rpc("device.clipboard.set", text="copié ✓")
    device = sim_server.device("emulator-5554")
    assert device.clipboard == "copié ✓" and rpc("device.clipboard.get")["result"] == {"text": "copié ✓"}
    listed = {a["packageName"]: a for a in rpc("device.apps.list")["result"]}
    assert listed["com.android.settings"]["appName"] == "Settings" and set(listed) == set(device.packages)
    assert rpc("device.dump.ui")["error"]["code"] == -32601  # mobilecli falls back to uiautomator dump
    adb(sim_server, "shell", "pkill -f '[D]eviceServer'")
    assert adb(sim_server, "shell", "pgrep", "-f", "DeviceServer", check=False).returncode == 1
    assert not device.listeners.is_listening("localabstract:mobilecli-server")
    missing = adb(sim_server, "shell", "CLASSPATH=/data/local/tmp/none.dex app_process / "
                  "com.mobilenext.mobilecli.DeviceServer", check=False)
    assert "ClassNotFoundException" in missing.stdout + missing.stderr


def test_md5sum_of_a_pushed_file(sim_server, tmp_path):
    f = tmp_path / "f.bin"
    f.write_bytes(os.urandom(4096))
    adb(sim_server, "push", str(f), "/data/local/tmp/f.bin")
    out = adb(sim_server, "shell", "md5sum", "/data/local/tmp/f.bin").stdout
    assert out == f"{hashlib.md5(f.read_bytes()).hexdigest()}  /data/local/tmp/f.bin\n"
    assert adb(sim_server, "shell", "md5sum", "/nope", check=False).returncode == 1


def test_screenrecord_runs_until_sigint_then_writes_its_file(sim_server, tmp_path):
    env = {**os.environ, "ANDROID_ADB_SERVER_PORT": str(sim_server.port)}
    recording = subprocess.Popen(["adb", "-s", "emulator-5554", "shell", "screenrecord", "/sdcard/rec.mp4"],
                                 env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        pid = wait_for(lambda: adb(sim_server, "shell", "pgrep", "-f", "/sdcard/rec.mp4", check=False)
                       .stdout.strip(), timeout=10.0, what="screenrecord running")
        assert recording.poll() is None  # the session stays open while it records
        adb(sim_server, "shell", "kill", "-INT", pid)
        assert recording.wait(timeout=30) == 0
    finally:
        if recording.poll() is None:
            recording.kill()
    adb(sim_server, "pull", "/sdcard/rec.mp4", str(tmp_path / "rec.mp4"))
    data = (tmp_path / "rec.mp4").read_bytes()
    assert data[4:12] == b"ftypisom" and data[28:32] == b"mdat" and b"\x89PNG" in data
