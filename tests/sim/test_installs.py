"""Installing APKs on the virtual device: the binary manifest read, pm's install family, uninstall and the package
reset; through the shell, Debian's stock adb (streamed over abb_exec, from a path, install-multiple) and adbutils;
with tiny APKs built here, and with the real APKs Mobium and Appium install (npm, skipped when absent)."""

from __future__ import annotations

import os
import socket
import struct
import zipfile
from pathlib import Path

import pytest
from apk_builder import El, Ref, activity, arsc, build_apk, instrumentation, launcher_activity, manifest
from test_adb_client import needs_adb, run_adb
from test_adb_protocol import connect, read_all, send, status

from pytest_mobium_evals.sim.apk import ApkError, parse_axml, read_apk, resource_string

SERIAL = "emulator-5554"
TINY = "dev.example.tiny"
CAMERA = "android.permission.CAMERA"
REPO = Path(__file__).resolve().parents[2]


def tiny(version_code: int = 3, version_name: str | None = "1.2", **kw) -> bytes:
    return build_apk(manifest(
        TINY, version_code=version_code, version_name=version_name,
        permissions=("android.permission.INTERNET", CAMERA, "android.permission.WRITE_SETTINGS"),
        activities=[launcher_activity(".MainActivity"),
                    activity("Viewer", (["android.intent.action.VIEW"], ["android.intent.category.DEFAULT"]))],
        **kw))


def tiny_tests() -> bytes:
    return build_apk(manifest(f"{TINY}.test", version_name=None,
                              instrumentations=[instrumentation("androidx.test.runner.AndroidJUnitRunner", TINY)]))


def put(device, path: str, data: bytes) -> str:
    device.files[path] = data
    return path


# ---------------------------------------------------------------------------------------------------------------
# the manifest

@pytest.mark.parametrize("utf8", [False, True])
def test_the_binary_manifest_is_read_as_the_package_manager_reads_it(utf8):
    m = read_apk(build_apk(manifest(
        TINY, version_code=7, version_name="2.0-beta", min_sdk=26, target_sdk=35, permissions=(CAMERA,),
        activities=[launcher_activity(".MainActivity"), activity("com.other.Shared", exported=False)],
        instrumentations=[instrumentation(".Runner", "dev.example.app")]), utf8=utf8)).manifest
    assert (m.package, m.version_code, m.version_name, m.min_sdk, m.target_sdk) == (TINY, 7, "2.0-beta", 26, 35)
    assert m.permissions == (CAMERA,) and m.label == "Tiny"
    assert [(a.name, a.launcher, a.exported) for a in m.activities] == [
        (f"{TINY}.MainActivity", True, True), ("com.other.Shared", False, False)]
    assert m.activities[0].filters[0].actions == ("android.intent.action.MAIN",)
    (inst,) = m.instrumentations
    assert (inst.name, inst.target_package, inst.label) == (f"{TINY}.Runner", "dev.example.app",
                                                            "Tests for dev.example.app")


def test_labels_given_as_string_resources_are_read_from_resources_arsc():
    table = arsc({0x7F0B0000: {"fr": "Minuscule", "": "Tiny App"}, 0x7F0B0002: {"": "Viewer"}})
    m = read_apk(build_apk(manifest(TINY, label=Ref(0x7F0B0000), activities=[
        El("activity", {"android:name": ".Viewer", "android:label": Ref(0x7F0B0002)}),
        El("activity", {"android:name": ".Other", "android:label": Ref(0x7F0B0001)})]),
        extra={"resources.arsc": table})).manifest
    assert m.label == "Tiny App"  # the default configuration, not the first one listed
    assert [a.label for a in m.activities] == ["Viewer", "@0x7f0b0001"]  # no such entry: left as the reference
    assert resource_string(table, 0x7E0B0000) is None and resource_string(b"junk", 0x7F0B0000) is None


def test_attribute_names_a_shrinker_blanked_are_read_from_the_resource_map():
    m = read_apk(build_apk(manifest(TINY, version_code=9, version_name="9", blank_names=True))).manifest
    assert (m.package, m.version_code, m.version_name) == (TINY, 9, "9")


def test_what_is_not_an_apk_is_refused_with_androids_code():
    cases = {b"plain text": "INSTALL_PARSE_FAILED_NOT_APK"}
    empty = _zip({"classes.dex": b""})
    cases[empty] = "INSTALL_PARSE_FAILED_BAD_MANIFEST"
    cases[_zip({"AndroidManifest.xml": b"<manifest package='x.y'/>"})] = "INSTALL_PARSE_FAILED_MANIFEST_MALFORMED"
    truncated = tiny()
    with zipfile.ZipFile(__import__("io").BytesIO(truncated)) as z:
        xml = z.read("AndroidManifest.xml")
    cases[_zip({"AndroidManifest.xml": xml[:len(xml) // 2]})] = "INSTALL_PARSE_FAILED_MANIFEST_MALFORMED"
    cases[build_apk(manifest("nodots"))] = "INSTALL_PARSE_FAILED_BAD_PACKAGE_NAME"
    for data, code in cases.items():
        with pytest.raises(ApkError) as info:
            read_apk(data)
        assert info.value.code == code, (data[:20], info.value)
    with pytest.raises(ApkError, match="not binary XML"):
        parse_axml(b"\x01\x00\x08\x00" + struct.pack("<I", 8))


def _zip(files: dict[str, bytes]) -> bytes:
    import io
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for name, data in files.items():
            z.writestr(name, data)
    return buf.getvalue()


# ---------------------------------------------------------------------------------------------------------------
# pm, in the shell

def test_pm_install_from_a_path_registers_the_package_from_its_manifest(vdevice, sh):
    put(vdevice, "/data/local/tmp/tiny.apk", tiny())
    assert sh("pm install -r -t /data/local/tmp/tiny.apk") == ("Success\n", "", 0)
    assert f"package:{TINY}\n" in sh.out("pm list packages -3")
    assert sh.out(f"pm list packages --show-versioncode {TINY}") == f"package:{TINY} versionCode:3\n"
    path = sh.out(f"pm path {TINY}")
    assert path.startswith("package:/data/app/~~") and path.endswith("==/base.apk\n") and f"/{TINY}-" in path
    assert vdevice.files.get(path[len("package:"):].strip()) is None  # served from the package, not a copy
    dump = sh.out(f"dumpsys package {TINY}")
    assert "    versionCode=3 minSdk=24 targetSdk=34\n" in dump and "    versionName=1.2\n" in dump
    requested = dump.split("requested permissions:\n")[1].split("install permissions:")[0]
    assert requested.split() == ["android.permission.INTERNET", CAMERA, "android.permission.WRITE_SETTINGS"]
    install = dump.split("install permissions:\n")[1].split("User 0:")[0]
    assert install.split() == ["android.permission.INTERNET:", "granted=true"]
    assert f"        {CAMERA}: granted=false, flags=[ USER_SENSITIVE_WHEN_GRANTED|USER_SENSITIVE_WHEN_DENIED]" \
        in dump
    # its activities are known: the launcher one starts, the VIEW one resolves
    assert "Error" not in sh.out(f"am start -W -n {TINY}/.MainActivity")
    assert f"{TINY}/{TINY}.MainActivity" in sh.out("dumpsys window | grep mCurrentFocus")
    assert sh.out(f"cmd package resolve-activity --brief -a android.intent.action.VIEW {TINY}").splitlines()[-1] == \
        f"{TINY}/.Viewer"


def test_grant_with_g_and_the_stdin_install(vdevice, sh):
    data = tiny()
    out, status_ = vdevice_shell(vdevice, f"cmd package install -g -S {len(data)}", data)
    assert (out, status_) == ("Success\n", 0)
    assert "granted=true" in sh.out(f"dumpsys package {TINY} | grep {CAMERA}")
    # stdin shorter than announced: a failure that says so
    out, status_ = vdevice_shell(vdevice, f"pm install -S {len(data) + 10}", data)
    assert status_ == 1 and out.startswith("Failure [INSTALL_FAILED_INVALID_APK: Partial write")


def vdevice_shell(device, line: str, stdin: bytes) -> tuple[str, int]:
    from pytest_mobium_evals.sim.shell import Shell
    out, st = Shell(device).run(line, stdin=stdin)
    return out.stdout().decode(), st


def test_updates_downgrades_and_refusals(vdevice, sh):
    put(vdevice, "/data/local/tmp/v3.apk", tiny(3))
    put(vdevice, "/data/local/tmp/v2.apk", tiny(2, "1.1"))
    put(vdevice, "/data/local/tmp/v4.apk", tiny(4, "1.3"))
    assert sh.out("pm install /data/local/tmp/v3.apk") == "Success\n"
    sh.out(f"pm grant {TINY} {CAMERA}")
    uid = vdevice.packages[TINY].uid
    out, _, st = sh("pm install /data/local/tmp/v2.apk")
    assert st == 1 and out == ("Failure [INSTALL_FAILED_VERSION_DOWNGRADE: Downgrade detected: Update version code 2 "
                               "is older than current 3]\n")
    out, _, st = sh("pm install -R /data/local/tmp/v4.apk")
    assert st == 1 and out.startswith("Failure [INSTALL_FAILED_ALREADY_EXISTS: ")
    assert sh.out("pm install -r /data/local/tmp/v4.apk") == "Success\n"
    # an update keeps the uid and the grants
    assert vdevice.packages[TINY].uid == uid and vdevice.permission(TINY, CAMERA) == "granted"
    assert sh.out("pm install -d /data/local/tmp/v2.apk") == "Success\n"
    assert "versionName=1.1" in sh.out(f"dumpsys package {TINY}")
    # the device's own apps are signed by someone else
    put(vdevice, "/data/local/tmp/fake.apk", build_apk(manifest("dev.mobium.mobiumapp", version_code=999)))
    out, _, st = sh("pm install /data/local/tmp/fake.apk")
    assert st == 1 and out.startswith("Failure [INSTALL_FAILED_UPDATE_INCOMPATIBLE: ")
    put(vdevice, "/data/local/tmp/new.apk", build_apk(manifest("dev.example.future", min_sdk=36)))
    out, _, _ = sh("pm install /data/local/tmp/new.apk")
    assert out == "Failure [INSTALL_FAILED_OLDER_SDK: Requires newer sdk version #36 (current version is #35)]\n"
    put(vdevice, "/data/local/tmp/junk.apk", b"not a zip")
    out, _, st = sh("pm install /data/local/tmp/junk.apk")
    assert st == 1 and out.startswith("Failure [INSTALL_PARSE_FAILED_NOT_APK: ")
    _, err, st = sh("pm install /data/local/tmp/missing.apk")
    assert st == 255 and "Error: Can't open file: /data/local/tmp/missing.apk" in err


def test_instrumentation_is_listed_and_found(vdevice, sh):
    put(vdevice, "/data/local/tmp/t.apk", tiny_tests())
    put(vdevice, "/data/local/tmp/a.apk", tiny())
    assert sh.out("pm install /data/local/tmp/t.apk") == "Success\n"
    line = f"instrumentation:{TINY}.test/androidx.test.runner.AndroidJUnitRunner (target={TINY})\n"
    assert sh.out("pm list instrumentation") == line
    assert sh.out(f"pm list instrumentation {TINY}") == line
    assert sh.out("pm list instrumentation dev.nothing") == ""
    assert sh.out("pm list instrumentation -f").startswith("instrumentation:/data/app/~~")
    inst = vdevice.instrumentation(f"{TINY}.test/androidx.test.runner.AndroidJUnitRunner")
    assert inst is not None and inst.target_package == TINY
    assert "versionName=null" in sh.out(f"dumpsys package {TINY}.test")


def test_session_install_and_abandon(vdevice, sh):
    data = tiny()
    put(vdevice, "/data/local/tmp/a.apk", data)
    created = sh.out("pm install-create -g -S %d" % len(data))
    assert created.startswith("Success: created install session [") and created.endswith("]\n")
    sid = created.split("[")[1].split("]")[0]
    assert sh.out(f"pm install-write -S {len(data)} {sid} base.apk /data/local/tmp/a.apk") == \
        f"Success: streamed {len(data)} bytes\n"
    assert sh.out(f"pm install-commit {sid}") == "Success\n"
    assert vdevice.permission(TINY, CAMERA) == "granted"
    sid2 = sh.out("pm install-create").split("[")[1].split("]")[0]
    assert sh.out(f"pm install-abandon {sid2}") == "Success\n"
    _, err, st = sh(f"pm install-commit {sid2}")
    assert st == 255 and f"Caller has no access to session {sid2}" in err


def test_uninstall_and_the_package_reset(vdevice, sh):
    put(vdevice, "/data/local/tmp/a.apk", tiny())
    sh.out("pm install /data/local/tmp/a.apk")
    sh.out(f"am start -n {TINY}/.MainActivity")
    assert sh(f"pm uninstall {TINY}") == ("Success\n", "", 0)
    assert TINY not in sh.out("pm list packages") and TINY not in sh.out("dumpsys window | grep mCurrentFocus")
    assert sh(f"pm uninstall {TINY}") == ("Failure [DELETE_FAILED_INTERNAL_ERROR]\n", "", 1)
    assert sh("pm uninstall com.android.settings")[0] == "Failure [DELETE_FAILED_INTERNAL_ERROR]\n"
    # the device's own user apps may go, and a reset brings them back while installed ones leave
    sh.out("pm install /data/local/tmp/a.apk")
    assert sh.out("pm uninstall dev.mobium.mobiumapp") == "Success\n"
    before = set(vdevice.packages)
    assert sh("virtual-packages reset") == ("", "", 0)
    assert set(vdevice.packages) == (before - {TINY}) | {"dev.mobium.mobiumapp"}
    assert sh("virtual-packages") == ("", "usage: virtual-packages reset\n", 2)
    assert "Error" not in sh.out("am start -W -n dev.mobium.mobiumapp/.MainActivity")


# ---------------------------------------------------------------------------------------------------------------
# over ADB: the stock client, a raw exec: stream, adbutils

@needs_adb
def test_stock_adb_install_streamed_from_a_path_multiple_and_uninstall(sim_server, tmp_path):
    apk = tmp_path / "tiny.apk"
    apk.write_bytes(tiny())
    r = run_adb(sim_server, "-s", SERIAL, "install", "-r", "-g", str(apk))
    assert (r.returncode, r.stdout) == (0, "Performing Streamed Install\nSuccess\n"), r.stderr
    device = sim_server.device(SERIAL)
    assert device.permission(TINY, CAMERA) == "granted"
    r = run_adb(sim_server, "-s", SERIAL, "shell", f"dumpsys package {TINY} | grep -E 'versionCode=|versionName='")
    assert r.stdout == "    versionCode=3 minSdk=24 targetSdk=34\n    versionName=1.2\n"
    assert run_adb(sim_server, "-s", SERIAL, "uninstall", TINY).stdout == "Success\n"
    r = run_adb(sim_server, "-s", SERIAL, "uninstall", TINY)
    assert r.stdout == "Failure [DELETE_FAILED_INTERNAL_ERROR]\n"
    # push, then pm install from the path
    assert run_adb(sim_server, "-s", SERIAL, "push", str(apk), "/data/local/tmp/tiny.apk").returncode == 0
    r = run_adb(sim_server, "-s", SERIAL, "shell", "pm", "install", "-r", "-g", "/data/local/tmp/tiny.apk")
    assert (r.returncode, r.stdout) == (0, "Success\n")
    # install-multiple: a session
    tests = tmp_path / "tests.apk"
    tests.write_bytes(tiny_tests())
    r = run_adb(sim_server, "-s", SERIAL, "install-multiple", "-r", str(tests))
    assert (r.returncode, r.stdout) == (0, "Success\n"), r.stderr
    r = run_adb(sim_server, "-s", SERIAL, "shell", "pm", "list", "instrumentation")
    assert r.stdout == f"instrumentation:{TINY}.test/androidx.test.runner.AndroidJUnitRunner (target={TINY})\n"
    # a broken APK: the client reports adb's failure line
    bad = tmp_path / "bad.apk"
    bad.write_bytes(b"PK not really")
    r = run_adb(sim_server, "-s", SERIAL, "install", str(bad))
    assert r.returncode == 1 and "Failure [INSTALL_PARSE_FAILED_NOT_APK: " in r.stderr


def test_exec_streamed_install_reads_exactly_the_announced_bytes(sim_server):
    """The pre-abb path (adb before Android 10's abb_exec): `exec:cmd package install -S SIZE`, then the APK, on a
    stream the client keeps open for the answer."""
    data = tiny()
    with connect(sim_server) as s:
        send(s, f"host:transport:{SERIAL}")
        assert status(s) == "OKAY"
        send(s, f"exec:cmd package 'install' '-r' -S {len(data)}")
        assert status(s) == "OKAY"
        s.sendall(data)
        answer = b""
        while not answer.endswith(b"\n"):
            answer += s.recv(100)
        assert answer == b"Success\n"
        s.shutdown(socket.SHUT_WR)
        assert read_all(s) == b""
    assert TINY in sim_server.device(SERIAL).packages


def test_abb_exec_install_with_nul_separated_arguments(sim_server):
    data = tiny()
    with connect(sim_server) as s:
        send(s, f"host:transport:{SERIAL}")
        assert status(s) == "OKAY"
        send(s, "abb_exec:" + "\0".join(["package", "install", "-g", "-S", str(len(data))]))
        assert status(s) == "OKAY"
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
        assert read_all(s) == b"Success\n"


def test_adbutils_install_app_info_and_uninstall(adb, sim_server, tmp_path):
    apk = tmp_path / "tiny.apk"
    apk.write_bytes(tiny())
    dev = adb.device(SERIAL)
    dev.install(str(apk), nolaunch=True, silent=True)
    assert TINY in dev.list_packages()
    info = dev.app_info(TINY)
    assert (info.version_name, info.version_code) == ("1.2", 3)
    assert info.path.endswith("/base.apk") and info.path == dev.shell(f"pm path {TINY}").removeprefix("package:")
    # the pushed copy (named unknown.apk without apkutils) was removed after the install (adbutils' clean=True)
    assert dev.shell("ls /data/local/tmp/") == ""
    dev.uninstall(TINY)
    assert TINY not in dev.list_packages() and dev.app_info(TINY) is None


# ---------------------------------------------------------------------------------------------------------------
# the real APKs (npm: appium-uiautomator2-server@10.6.6, io.appium.settings), as Mobium and Appium install them

def clients_dir() -> Path:
    return Path(os.environ.get("MOBIUM_EVALS_CLIENTS") or REPO / ".clients")


def npm_apk(package: str, name: str) -> Path:
    path = clients_dir() / "node_modules" / package / "apks" / name
    if not path.is_file():
        pytest.skip(f"{path} is absent: run `npm install --prefix .clients {package}` (as .ci/run does)")
    return path


@needs_adb
def test_the_uiautomator2_server_apks_install_as_mobium_installs_them(sim_server):
    server = npm_apk("appium-uiautomator2-server", "appium-uiautomator2-server-v10.6.6.apk")
    tests = npm_apk("appium-uiautomator2-server", "appium-uiautomator2-server-debug-androidTest.apk")
    for apk in (server, tests):
        r = run_adb(sim_server, "-s", SERIAL, "install", "-r", "-g", str(apk))
        assert (r.returncode, r.stdout) == (0, "Performing Streamed Install\nSuccess\n"), r.stderr
    r = run_adb(sim_server, "-s", SERIAL, "shell", "pm list instrumentation")
    assert r.stdout == ("instrumentation:io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner "
                        "(target=io.appium.uiautomator2.server)\n")
    r = run_adb(sim_server, "-s", SERIAL, "shell",
                "dumpsys package io.appium.uiautomator2.server | grep -E 'versionCode=|versionName='")
    assert r.stdout == "    versionCode=278 minSdk=26 targetSdk=34\n    versionName=10.6.6\n"
    r = run_adb(sim_server, "-s", SERIAL, "shell", "pm list packages io.appium.uiautomator2")
    assert r.stdout == "package:io.appium.uiautomator2.server\npackage:io.appium.uiautomator2.server.test\n"
    device = sim_server.device(SERIAL)
    assert device.instrumentation("io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner")
    # Mobium's other device steps around it (uia2install.go, uia2.go): the forward to the server's port reaches
    # whatever listens there (here a stand-in for the server), and StopUIA2 force-stops both packages.
    device.listeners.listen("tcp:6790", lambda sock: sock.sendall(b"HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
    r = run_adb(sim_server, "-s", SERIAL, "forward", "tcp:0", "tcp:6790")
    with socket.create_connection(("127.0.0.1", int(r.stdout)), timeout=5) as s:
        assert read_all(s).startswith(b"HTTP/1.1 200 OK")
    for package in ("io.appium.uiautomator2.server.test", "io.appium.uiautomator2.server"):
        r = run_adb(sim_server, "-s", SERIAL, "shell", "am", "force-stop", package)
        assert (r.returncode, r.stdout, r.stderr) == (0, "", "")


def test_io_appium_settings_installs_from_a_path_with_adbutils(adb, sim_server):
    apk = npm_apk("io.appium.settings", "settings_apk-debug.apk")
    dev = adb.device(SERIAL)
    dev.sync.push(str(apk), "/data/local/tmp/settings.apk")
    assert dev.shell("pm install -r -g /data/local/tmp/settings.apk") == "Success"
    info = dev.app_info("io.appium.settings")
    assert info.version_name == read_apk(apk.read_bytes()).manifest.version_name
    assert sim_server.device(SERIAL).packages["io.appium.settings"].label == "Appium Settings"  # resources.arsc
    assert "io.appium.settings/.Settings" in dev.shell(
        "cmd package resolve-activity --brief -c android.intent.category.LAUNCHER io.appium.settings")
    # pm path's base.apk reads back as the APK installed
    path = dev.shell("pm path io.appium.settings").removeprefix("package:")
    assert dev.sync.read_bytes(path) == apk.read_bytes()


def test_install_multiple_with_a_split_lists_and_serves_each_apk(vdevice, sh):
    base, split = tiny(), build_apk(manifest(TINY, split="config.xhdpi"))
    put(vdevice, "/data/local/tmp/base.apk", base)
    put(vdevice, "/data/local/tmp/split.apk", split)
    assert sh.out("pm install /data/local/tmp/base.apk /data/local/tmp/split.apk") == "Success\n"
    paths = [line.removeprefix("package:") for line in sh.out(f"pm path {TINY}").splitlines()]
    assert [p.rsplit("/", 1)[1] for p in paths] == ["base.apk", "split_config.xhdpi.apk"]
    assert "    splits=[base, config.xhdpi]\n" in sh.out(f"dumpsys package {TINY}")
    from pytest_mobium_evals.sim.filesystem import fs_read
    assert [fs_read(vdevice, p) for p in paths] == [base, split]
    # a split alone is no install
    sh.out(f"pm uninstall {TINY}")
    out, _, st = sh("pm install /data/local/tmp/split.apk")
    assert st == 1 and out.startswith("Failure [INSTALL_FAILED_INVALID_APK: Full install must include a base package")


def test_shell_v2_install_reads_the_apk_from_stdin_packets(sim_server):
    """`cat app.apk | adb shell pm install -S SIZE`: the APK arrives as shell-protocol stdin packets."""
    data = tiny()
    with connect(sim_server) as s:
        send(s, f"host:transport:{SERIAL}")
        assert status(s) == "OKAY"
        send(s, f"shell,v2,raw:pm install -S {len(data)}")
        assert status(s) == "OKAY"
        for i in range(0, len(data), 1000):
            piece = data[i:i + 1000]
            s.sendall(struct.pack("<BI", 0, len(piece)) + piece)
        s.sendall(struct.pack("<BI", 4, 0))
        answer = read_all(s)
    assert answer == struct.pack("<BI", 1, 8) + b"Success\n" + struct.pack("<BIB", 3, 1, 0)
    assert TINY in sim_server.device(SERIAL).packages
