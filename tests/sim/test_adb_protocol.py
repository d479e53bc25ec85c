"""The ADB smart-socket protocol spoken over raw sockets: replies, failures, framing, sync, robustness."""

from __future__ import annotations

import socket
import struct
import threading

import pytest


def connect(server) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", server.port), timeout=5)
    return s


def send(s: socket.socket, req: str) -> None:
    data = req.encode()
    s.sendall(b"%04x" % len(data) + data)


def recv_exact(s: socket.socket, n: int) -> bytes:
    buf = b""
    while len(buf) < n:
        chunk = s.recv(n - len(buf))
        if not chunk:
            raise ConnectionError(f"closed after {len(buf)} of {n} bytes")
        buf += chunk
    return buf


def read_all(s: socket.socket) -> bytes:
    buf = b""
    while True:
        chunk = s.recv(65536)
        if not chunk:
            return buf
        buf += chunk


def status(s: socket.socket) -> str:
    return recv_exact(s, 4).decode()


def payload(s: socket.socket) -> str:
    n = int(recv_exact(s, 4), 16)
    return recv_exact(s, n).decode()


def host(server, req: str) -> tuple[str, str]:
    with connect(server) as s:
        send(s, req)
        st = status(s)
        return st, payload(s)


def test_version_devices_features(sim_server):
    assert host(sim_server, "host:version") == ("OKAY", "0029")
    st, body = host(sim_server, "host:devices")
    assert st == "OKAY" and body == "emulator-5554\tdevice\nemulator-5556\tdevice\n"
    st, body = host(sim_server, "host:devices-l")
    assert "emulator-5556" in body and "model:sdk_gphone64_x86_64" in body and "transport_id:2" in body
    st, body = host(sim_server, "host-serial:emulator-5554:features")
    assert st == "OKAY" and "shell_v2" in body.split(",")
    assert host(sim_server, "host-serial:emulator-5556:get-serialno") == ("OKAY", "emulator-5556")
    assert host(sim_server, "host-serial:emulator-5554:get-state") == ("OKAY", "device")


def test_failures_have_reasons(sim_server):
    assert host(sim_server, "host:tport:serial:nope") == ("FAIL", "device 'nope' not found")
    assert host(sim_server, "host:transport:nope") == ("FAIL", "device 'nope' not found")
    st, reason = host(sim_server, "host:frobnicate")
    assert st == "FAIL" and "frobnicate" in reason
    st, reason = host(sim_server, "host:kill")
    assert st == "FAIL" and "cannot be killed" in reason
    # two devices: "any" is ambiguous, as with adb
    st, reason = host(sim_server, "host:tport:any")
    assert (st, reason) == ("FAIL", "more than one device/emulator")
    st, reason = host(sim_server, "shell:ls")
    assert st == "FAIL" and "transport" in reason


def test_malformed_length_gets_fail_and_close(sim_server):
    with connect(sim_server) as s:
        s.sendall(b"zzzzhost:version")
        assert status(s) == "FAIL"
        assert "bad request length" in payload(s)
        assert read_all(s) == b""


def test_tport_then_shell_v1(sim_server):
    with connect(sim_server) as s:
        send(s, "host:tport:serial:emulator-5556")
        assert status(s) == "OKAY"
        assert struct.unpack("<Q", recv_exact(s, 8))[0] == 2
        send(s, "shell:getprop ro.serialno; foo")
        assert status(s) == "OKAY"
        out = read_all(s)
    assert out == b"emulator-5556\n/system/bin/sh: foo: inaccessible or not found\n"


def shell_v2(server, cmd: str, serial: str = "emulator-5554") -> tuple[bytes, bytes, int]:
    with connect(server) as s:
        send(s, f"host:transport:{serial}")
        assert status(s) == "OKAY"
        send(s, f"shell,v2,raw:{cmd}")
        assert status(s) == "OKAY"
        data = read_all(s)
    out, err, code = b"", b"", None
    i = 0
    while i < len(data):
        kind, n = struct.unpack("<BI", data[i:i + 5])
        body = data[i + 5:i + 5 + n]
        i += 5 + n
        if kind == 1:
            out += body
        elif kind == 2:
            err += body
        elif kind == 3:
            code = body[0]
    assert code is not None, "no exit packet"
    return out, err, code


def test_shell_v2_separates_streams_and_exit_status(sim_server):
    out, err, code = shell_v2(sim_server, "echo out; echo err >&2; settings get badns x; exit 7")
    assert out == b"out\n"
    assert err == b"err\nInvalid namespace 'badns'\n"
    assert code == 7
    assert shell_v2(sim_server, "settings get badns x")[2] == 255


def test_exec_gives_binary_stdout(sim_server):
    with connect(sim_server) as s:
        send(s, "host:transport:emulator-5554")
        assert status(s) == "OKAY"
        send(s, "exec:screencap -p")
        assert status(s) == "OKAY"
        data = read_all(s)
    assert data.startswith(b"\x89PNG\r\n\x1a\n")


def sync_conn(server, serial="emulator-5554") -> socket.socket:
    s = connect(server)
    send(s, f"host:transport:{serial}")
    assert status(s) == "OKAY"
    send(s, "sync:")
    assert status(s) == "OKAY"
    return s


def sync_req(s: socket.socket, ident: bytes, path: str) -> None:
    p = path.encode()
    s.sendall(ident + struct.pack("<I", len(p)) + p)


def test_sync_send_stat_list_recv(sim_server):
    content = b"x" * 70000 + b"end"  # more than one DATA chunk
    with sync_conn(sim_server) as s:
        sync_req(s, b"SEND", "/sdcard/Download/report.txt,33188")
        for i in range(0, len(content), 65536):
            piece = content[i:i + 65536]
            s.sendall(b"DATA" + struct.pack("<I", len(piece)) + piece)
        s.sendall(b"DONE" + struct.pack("<I", 1700000000))
        assert recv_exact(s, 8) == b"OKAY\0\0\0\0"
        sync_req(s, b"STAT", "/sdcard/Download/report.txt")
        ident, mode, size, _ = struct.unpack("<4sIII", recv_exact(s, 16))
        assert ident == b"STAT" and mode & 0o170000 == 0o100000 and size == len(content)
        sync_req(s, b"STAT", "/sdcard/nothing")
        assert struct.unpack("<4sIII", recv_exact(s, 16))[1:] == (0, 0, 0)
        sync_req(s, b"LIST", "/sdcard/Download")
        names = []
        while True:
            ident = recv_exact(s, 4)
            mode, size, mtime, n = struct.unpack("<IIII", recv_exact(s, 16))
            if ident == b"DONE":
                break
            names.append(recv_exact(s, n).decode())
        assert "report.txt" in names
        sync_req(s, b"RECV", "/sdcard/Download/report.txt")
        got = b""
        while True:
            ident, n = struct.unpack("<4sI", recv_exact(s, 8))
            if ident == b"DONE":
                break
            assert ident == b"DATA"
            got += recv_exact(s, n)
        assert got == content
        sync_req(s, b"RECV", "/sdcard/missing.txt")
        ident, n = struct.unpack("<4sI", recv_exact(s, 8))
        assert ident == b"FAIL" and recv_exact(s, n) == b"No such file or directory"
        sync_req(s, b"SEND", "/system/evil,33188")
        s.sendall(b"DATA\x01\0\0\0x" + b"DONE\0\0\0\0")
        ident, n = struct.unpack("<4sI", recv_exact(s, 8))
        assert ident == b"FAIL" and b"Read-only" in recv_exact(s, n)
        s.sendall(b"QUIT\0\0\0\0")
        assert read_all(s) == b""


def test_sync_bad_request_closes_without_hurting_the_server(sim_server):
    with sync_conn(sim_server) as s:
        s.sendall(b"WHAT\x03\0\0\0abc")
        assert read_all(s).startswith(b"FAIL")
    assert host(sim_server, "host:version") == ("OKAY", "0029")


def test_track_devices_sends_the_list_then_waits(sim_server):
    with connect(sim_server) as s:
        send(s, "host:track-devices")
        assert status(s) == "OKAY"
        assert payload(s) == "emulator-5554\tdevice\nemulator-5556\tdevice\n"


def test_client_vanishing_mid_request_leaves_server_serving(sim_server):
    for partial in (b"00", b"0010host:ver", b"000chost:transp"):
        s = connect(sim_server)
        s.sendall(partial)
        s.close()
    s = connect(sim_server)
    send(s, "host:transport:emulator-5554")
    assert status(s) == "OKAY"
    s.sendall(b"0100shell:echo")  # promises 256 bytes, sends a few, hangs up
    s.close()
    assert host(sim_server, "host:version") == ("OKAY", "0029")


def test_many_concurrent_connections(sim_server):
    results: list[bytes] = []
    errors: list[BaseException] = []

    def worker(i: int) -> None:
        try:
            serial = sim_server.serials[i % 2]
            out, _, code = shell_v2(sim_server, f"echo {i}; getprop ro.serialno", serial)
            assert code == 0
            results.append(out)
            assert out == f"{i}\n{serial}\n".encode()
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    threads = [threading.Thread(target=worker, args=(i,)) for i in range(40)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(20)
    assert not errors, errors[:3]
    assert len(results) == 40


def test_closed_server_refuses_connections():
    from pytest_mobium_evals import sim
    server = sim.start()
    port = server.port
    server.close()
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", port), timeout=2).recv(1)


def test_logcat_without_d_streams_new_lines_and_drives_timers(sim_server):
    dev = sim_server.device("emulator-5554")
    with connect(sim_server) as s:
        send(s, "host:transport:emulator-5554")
        assert status(s) == "OKAY"
        send(s, "shell:logcat -v brief -s Probe:I")
        assert status(s) == "OKAY"
        with dev.lock:
            dev.log("Probe", "now", pid=77)
            # nobody else touches the device: the stream itself must let this timer fire
            dev.after(0.2, lambda: dev.log("Probe", "later", pid=77))
            dev.log("Other", "filtered out", pid=77)
        got = b""
        while b"later" not in got:
            chunk = s.recv(4096)
            assert chunk, "stream closed early"
            got += chunk
    text = got.decode()
    assert text.startswith("--------- beginning of main\n")
    assert "I/Probe   (   77): now\n" in text and "I/Probe   (   77): later\n" in text
    assert "filtered out" not in text
    assert host(sim_server, "host:version") == ("OKAY", "0029")


def test_logcat_into_a_pipe_ends(sim_server):
    out, _, code = shell_v2(sim_server, "logcat | head -n 1")
    assert code == 0 and out.startswith(b"--------- beginning of main")


def test_framebuffer_service_sends_a_version_2_raw_image(sim_server):
    with connect(sim_server) as s:
        send(s, "host:transport:emulator-5554")
        assert status(s) == "OKAY"
        send(s, "framebuffer:")
        assert status(s) == "OKAY"
        header = struct.unpack("<14I", recv_exact(s, 56))
        assert header == (2, 32, 1, 1080 * 2400 * 4, 1080, 2400, 0, 8, 16, 8, 8, 8, 24, 8)
        assert len(recv_exact(s, header[3])) == header[3]


def test_a_connections_thread_serves_the_next_connection_and_ends_with_the_server():
    """A trial opens some thirty connections, one per command: each is served on a thread that served one before,
    not a new thread each, and a connection still open holds its own thread while the next is served."""
    from polling import wait_for

    from pytest_mobium_evals import sim

    with sim.start(devices=1) as server:
        threads = server._server.connection_threads
        serial = server.serials[0]
        for i in range(20):
            with connect(server) as s:
                send(s, f"host:transport:{serial}")
                assert recv_exact(s, 4) == b"OKAY"
                send(s, f"shell:echo {i}")
                assert recv_exact(s, 4) == b"OKAY"
                assert read_all(s) == f"{i}\n".encode()
            wait_for(lambda: threads._waiting == 1, timeout=10, what="the connection's thread free for the next")
        assert threads.started == 1
        held = connect(server)  # says nothing: its thread waits on it
        with connect(server) as s:
            send(s, "host:version")
            assert recv_exact(s, 4) == b"OKAY"
        held.close()

        def alive() -> int:
            return sum(t.name == threads.name for t in threading.enumerate())
        assert alive() >= 1
    # the waiting threads end with the server
    wait_for(lambda: alive() == 0, timeout=10, what="the server's waiting threads to end")
