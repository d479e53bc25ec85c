"""`am instrument -w` of the UiAutomator2 server's runner, through Debian's stock `adb` as Mobium's default driver and
Appium's UiAutomator2 driver run it: the server comes up on the device's tcp:6790 (reached by `adb forward`), its
process shows in `pidof`, and the run ends (and the shell with it) on a session delete, a force-stop or a hang-up."""

from __future__ import annotations

import json
import subprocess
import urllib.request

from apk_builder import build_apk, instrumentation, manifest
from polling import wait_for
from test_adb_client import ADB, needs_adb, run_adb

from pytest_mobium_evals.sim.uia2.instrumentation import COMPONENT, SERVER_PACKAGE, TEST_PACKAGE

SERIAL = "emulator-5554"
INSTRUMENT = ["shell", "am", "instrument", "-w", "-e", "disableAnalytics", "true", COMPONENT]



def register_server_packages(device) -> None:
    """The server's two packages, as APKs whose manifests declare what the real ones do (the test package's
    instrumentation of the server package); the real APKs from npm are installed in tests/clients."""
    device.install_apk(build_apk(manifest(SERVER_PACKAGE, version_name="10.6.6")))
    device.install_apk(build_apk(manifest(TEST_PACKAGE, instrumentations=[instrumentation(
        "androidx.test.runner.AndroidJUnitRunner", SERVER_PACKAGE)])))


def start_instrumentation(server) -> subprocess.Popen:
    return subprocess.Popen([ADB, "-P", str(server.port), "-s", SERIAL, *INSTRUMENT], stdin=subprocess.DEVNULL,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def http(port: int, method: str, path: str, body: dict | None = None) -> dict:
    data = None if body is None else json.dumps(body).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method,
                                     headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=10) as answer:
        return json.loads(answer.read())


def ready(port: int) -> bool:
    try:
        return http(port, "GET", "/status")["value"]["ready"]
    except OSError:
        return False


@needs_adb
def test_without_the_packages_instrument_fails_as_android_reports_it(sim_server):
    r = run_adb(sim_server, "-s", SERIAL, *INSTRUMENT)
    assert r.returncode == 1
    assert r.stdout == ("INSTRUMENTATION_STATUS: id=ActivityManagerService\n"
                        f"INSTRUMENTATION_STATUS: Error=Unable to find instrumentation info for: ComponentInfo"
                        f"{{{COMPONENT}}}\nINSTRUMENTATION_STATUS_CODE: -1\n")
    assert r.stderr.startswith(f"android.util.AndroidException: INSTRUMENTATION_FAILED: {COMPONENT}\n")
    assert not sim_server.device(SERIAL).listeners.is_listening("tcp:6790")
    device = sim_server.device(SERIAL)
    device.install_apk(build_apk(manifest(TEST_PACKAGE, instrumentations=[instrumentation(
        "androidx.test.runner.AndroidJUnitRunner", SERVER_PACKAGE)])))
    r = run_adb(sim_server, "-s", SERIAL, *INSTRUMENT)
    assert r.returncode == 1 and "Error=Unable to find instrumentation target package: io.appium.uiautomator2.server" \
        in r.stdout


@needs_adb
def test_the_server_runs_while_the_shell_waits_and_a_session_delete_ends_it(sim_server):
    device = sim_server.device(SERIAL)
    register_server_packages(device)
    proc = start_instrumentation(sim_server)
    try:
        r = run_adb(sim_server, "-s", SERIAL, "forward", "tcp:0", "tcp:6790")
        assert r.returncode == 0, r.stderr
        port = int(r.stdout)
        wait_for(lambda: ready(port), timeout=20, what="the UiAutomator2 server's /status")
        pid = run_adb(sim_server, "-s", SERIAL, "shell", "pidof", SERVER_PACKAGE).stdout.strip()
        assert pid.isdigit()
        session = http(port, "POST", "/session", {"capabilities": {"firstMatch": [{}], "alwaysMatch": {}}})
        source = http(port, "GET", f"/session/{session['sessionId']}/source")["value"]
        assert '<hierarchy index="0" class="hierarchy"' in source
        assert proc.poll() is None  # still running: the shell stays open
        http(port, "DELETE", f"/session/{session['sessionId']}")
        out, err = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert proc.returncode == 0, err
    assert out.startswith("INSTRUMENTATION_STATUS: class=io.appium.uiautomator2.server.test.AppiumUiAutomator2Server"
                          "\n") and "INSTRUMENTATION_STATUS_CODE: 1\n" in out
    assert "OK (1 test)" in out and out.endswith("INSTRUMENTATION_CODE: -1\n")
    assert not device.listeners.is_listening("tcp:6790") and SERVER_PACKAGE not in device.processes


@needs_adb
def test_a_force_stop_or_a_hang_up_ends_the_run(sim_server):
    device = sim_server.device(SERIAL)
    register_server_packages(device)
    proc = start_instrumentation(sim_server)
    try:
        wait_for(lambda: device.listeners.is_listening("tcp:6790"), timeout=20, what="the server listening")
        assert run_adb(sim_server, "-s", SERIAL, "shell", "am", "force-stop", TEST_PACKAGE).returncode == 0
        out, _ = proc.communicate(timeout=20)
    finally:
        if proc.poll() is None:
            proc.kill()
    assert out.endswith("INSTRUMENTATION_RESULT: shortMsg=Process crashed.\nINSTRUMENTATION_CODE: 0\n")
    assert not device.listeners.is_listening("tcp:6790") and SERVER_PACKAGE not in device.processes
    proc = start_instrumentation(sim_server)
    wait_for(lambda: device.listeners.is_listening("tcp:6790"), timeout=20, what="the server listening again")
    proc.kill()
    proc.wait(timeout=10)
    wait_for(lambda: not device.listeners.is_listening("tcp:6790"), timeout=20, what="the hang-up to end the run")
    assert SERVER_PACKAGE not in device.processes


def test_the_built_in_server_reads_the_screen_through_it_when_installed(sim_server):
    """mobium_server's AdbLink: `uiautomator dump` without the server; with it, am instrument over ADB, a forward, a
    session with the idle wait capped, and `GET /source`, giving the same elements."""
    from pytest_mobium_evals.mobium_server.device import AdbLink
    from pytest_mobium_evals.mobium_server.uia2_link import Uia2Link

    device = sim_server.device(SERIAL)
    run_adb(sim_server, "-s", SERIAL, "shell", "am start -n dev.mobium.mobiumapp/.MainActivity")
    dumped = AdbLink(SERIAL, "127.0.0.1", sim_server.port)
    by_dump = dumped.snapshot()
    assert dumped.uia2 is False
    register_server_packages(device)
    link = AdbLink(SERIAL, "127.0.0.1", sim_server.port)
    by_server = link.snapshot()
    assert isinstance(link.uia2, Uia2Link) and device.listeners.is_listening("tcp:6790")
    assert by_server.xml.startswith("<?xml") and "<node" not in by_server.xml and "<node" in by_dump.xml
    assert [(n.rid, n.cls, n.text, n.desc, n.bounds) for n in by_server.nodes] == \
        [(n.rid, n.cls, n.text, n.desc, n.bounds) for n in by_dump.nodes]
    assert device.processes.get(SERVER_PACKAGE) is not None
    # a server that went away (its package force-stopped) is started again on the next read
    run_adb(sim_server, "-s", SERIAL, "shell", f"am force-stop {SERVER_PACKAGE}")
    assert [n.rid for n in link.snapshot().nodes] == [n.rid for n in by_dump.nodes]
    link.uia2.close()
    wait_for(lambda: not device.listeners.is_listening("tcp:6790"), timeout=20, what="the session delete to end it")
