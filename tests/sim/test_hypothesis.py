"""Properties: random input never crashes a device or breaks the protocol; garbage on the socket never hangs."""

from __future__ import annotations

import socket
import struct
import xml.etree.ElementTree as ET

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

from pytest_mobium_evals import sim
from pytest_mobium_evals.sim.device import VirtualDevice
from pytest_mobium_evals.sim.shell import Shell

KEYS = ["HOME", "BACK", "ENTER", "DEL", "TAB", "APP_SWITCH", "NOTIFICATION", "3", "4", "66", "67", "KEYCODE_A",
        "MOVE_HOME", "MOVE_END", "FORWARD_DEL", "POWER", "WAKEUP", "ESCAPE", "187"]
PACKAGES = ["dev.mobium.mobiumapp", "com.android.settings", "com.google.android.calculator", "com.android.chrome",
            "com.google.android.contacts", "com.google.android.deskclock", "com.android.camera2"]

coord_x = st.integers(min_value=-50, max_value=1130)
coord_y = st.integers(min_value=-50, max_value=2450)
actions = st.one_of(
    st.tuples(st.just("tap"), coord_x, coord_y).map(lambda a: f"input tap {a[1]} {a[2]}"),
    st.tuples(st.just("swipe"), coord_x, coord_y, coord_x, coord_y, st.integers(0, 1500)).map(
        lambda a: f"input swipe {a[1]} {a[2]} {a[3]} {a[4]} {a[5]}"),
    st.sampled_from(KEYS).map(lambda k: f"input keyevent {k}"),
    st.text(alphabet=st.characters(min_codepoint=32, max_codepoint=126, blacklist_characters="'"),
            min_size=1, max_size=12).map(lambda t: f"input text '{t}'"),
    st.sampled_from(PACKAGES).map(lambda p: f"monkey -p {p} 1"),
    st.sampled_from(PACKAGES).map(lambda p: f"am force-stop {p}"),
    st.sampled_from(["cmd statusbar expand-notifications", "cmd statusbar collapse", "cmd uimode night yes",
                     "svc wifi disable", "cmd connectivity airplane-mode enable", "pm clear dev.mobium.mobiumapp"]),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(actions, min_size=1, max_size=25), st.floats(min_value=0, max_value=5))
def test_random_input_never_breaks_the_device(script, advance):
    d = VirtualDevice(seed=5)
    sh = Shell(d)
    for line in script:
        out, status = sh.run(line)
        # every command answers like a shell: no Python traceback ever reaches the output
        assert b"Traceback" not in out.merged(), (line, out.merged())
        if status == 255:
            assert b"Exception occurred while executing" in out.stderr() or out.merged(), line
        d.clock.advance(advance / max(1, len(script)))
    xml = d.dump_xml()
    ET.fromstring(xml)  # still a well-formed hierarchy
    assert sh.run("dumpsys activity top")[1] == 0
    assert d.current_activity() is not None


@settings(max_examples=80, deadline=None)
@given(st.text(max_size=200))
def test_random_command_lines_never_raise(line):
    d = _shared_device()
    out, status = Shell(d).run(line)
    assert 0 <= status <= 255
    assert b"Traceback" not in out.merged()


_device: VirtualDevice | None = None


def _shared_device() -> VirtualDevice:
    global _device
    if _device is None:
        _device = VirtualDevice(seed=9)
    return _device


@pytest.fixture(scope="module")
def server():
    with sim.start(devices=1) as s:
        yield s


def _recv_exact(s: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            break
        buf += chunk
    return buf


def _host_version(port: int) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(b"000chost:version")
        return _recv_exact(s, 12)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(min_size=1, max_size=300), st.booleans())
def test_random_bytes_get_fail_or_close_never_a_hang(server, garbage, after_transport):
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as s:
        if after_transport:
            s.sendall(b"001chost:transport:emulator-5554")
            assert _recv_exact(s, 4) == b"OKAY"
        s.sendall(garbage)
        s.shutdown(socket.SHUT_WR)
        # the server must answer (FAIL/OKAY+data) or close; a 5 s timeout here would be a hang
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    if data and not after_transport:
        assert data[:4] in (b"OKAY", b"FAIL"), data[:40]
    assert _host_version(server.port) == b"OKAY00040029"


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.binary(max_size=120))
def test_random_sync_traffic_never_hangs(server, garbage):
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as s:
        s.sendall(b"001chost:transport:emulator-5554" + b"0005sync:")
        assert _recv_exact(s, 8) == b"OKAYOKAY"
        s.sendall(garbage)
        s.shutdown(socket.SHUT_WR)
        while s.recv(65536):
            pass
    assert _host_version(server.port) == b"OKAY00040029"


@settings(max_examples=30, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(st.text(max_size=60))
def test_v2_shell_always_ends_with_an_exit_packet(server, line):
    assume(line != "")  # an empty command is an interactive shell, which waits for input by design
    with socket.create_connection(("127.0.0.1", server.port), timeout=5) as s:
        s.sendall(b"001chost:transport:emulator-5554")
        assert _recv_exact(s, 4) == b"OKAY"
        req = f"shell,v2,raw:{line}".encode()
        s.sendall(b"%04x" % len(req) + req)
        head = _recv_exact(s, 4)
        data = b""
        while True:
            chunk = s.recv(65536)
            if not chunk:
                break
            data += chunk
    assert head == b"OKAY"
    i, exit_code = 0, None
    while i < len(data):
        kind, n = struct.unpack("<BI", data[i:i + 5])
        if kind == 3:
            exit_code = data[i + 5]
        i += 5 + n
    assert exit_code is not None
