"""adb's forward host services on the virtual device's ADB server, over raw sockets and through adbutils."""

from __future__ import annotations

import socket

import pytest
from test_adb_protocol import connect, payload, read_all, send, status

SERIAL = "emulator-5554"


def service(server, req: str) -> bytes:
    with connect(server) as s:
        send(s, req)
        return read_all(s)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_forward_tcp0_answers_okay_okay_and_the_port_it_chose(sim_server):
    with connect(sim_server) as s:
        send(s, f"host-serial:{SERIAL}:forward:tcp:0;localabstract:webview_devtools_remote_1")
        assert status(s) == "OKAY" and status(s) == "OKAY"
        port = int(payload(s))
    assert port > 0
    listed = service(sim_server, f"host-serial:{SERIAL}:list-forward")
    assert listed.startswith(b"OKAY")
    assert listed[8:].decode() == f"{SERIAL} tcp:{port} localabstract:webview_devtools_remote_1\n"
    with socket.create_connection(("127.0.0.1", port), timeout=5):
        pass  # the forward listens


def test_forward_a_named_port_says_no_port_and_norebind_refuses_a_second(sim_server):
    port = free_port()
    spec = f"tcp:{port};localabstract:x"
    assert service(sim_server, f"host-serial:{SERIAL}:forward:{spec}") == b"OKAYOKAY"
    refused = service(sim_server, f"host-serial:{SERIAL}:forward:norebind:{spec}")
    assert refused == b"FAIL" + b"%04x" % len("cannot rebind existing socket") + b"cannot rebind existing socket"
    # Without norebind the same local port is taken over, and list-forward shows it once.
    assert service(sim_server, f"host-serial:{SERIAL}:forward:tcp:{port};localabstract:y") == b"OKAYOKAY"
    assert service(sim_server, "host:list-forward")[8:].decode() == f"{SERIAL} tcp:{port} localabstract:y\n"


def test_killforward_and_killforward_all(sim_server):
    a, b = (int(service(sim_server, f"host-serial:{SERIAL}:forward:tcp:0;localabstract:{n}")[12:]) for n in "ab")
    assert service(sim_server, f"host-serial:{SERIAL}:killforward:tcp:{a}") == b"OKAYOKAY"
    with pytest.raises(OSError):
        socket.create_connection(("127.0.0.1", a), timeout=5).close()
    gone = service(sim_server, f"host-serial:{SERIAL}:killforward:tcp:{a}")
    assert gone.startswith(b"FAIL") and f"listener 'tcp:{a}' not found".encode() in gone
    assert service(sim_server, f"host-serial:{SERIAL}:killforward-all") == b"OKAYOKAY"
    assert service(sim_server, "host:list-forward") == b"OKAY0000"
    assert b


def test_malformed_forwards_fail_with_a_reason(sim_server):
    for spec, reason in (("tcp:0", "malformed forward spec 'tcp:0'"),
                         ("tcp:0;nowhere:1", "malformed forward spec 'nowhere:1'"),
                         ("udp:1;localabstract:x", "unsupported local spec 'udp:1'")):
        answer = service(sim_server, f"host-serial:{SERIAL}:forward:{spec}")
        assert answer.startswith(b"FAIL") and reason.encode() in answer, answer
    unknown = service(sim_server, "host-serial:emulator-9999:forward:tcp:0;localabstract:x")
    assert unknown.startswith(b"FAIL") and b"device 'emulator-9999' not found" in unknown


def test_adbutils_forward_port_list_and_remove(adb):
    dev = adb.device(SERIAL)
    port = dev.forward_port("localabstract:webview_devtools_remote_7")
    assert dev.forward_port("localabstract:webview_devtools_remote_7") == port  # reused, as adbutils looks first
    assert [(f.serial, f.local, f.remote) for f in dev.forward_list()] == [
        (SERIAL, f"tcp:{port}", "localabstract:webview_devtools_remote_7")]
    dev.forward_remove(f"tcp:{port}")
    assert dev.forward_list() == []


def test_a_forward_to_a_socket_nothing_listens_on_closes_the_connection(sim_server):
    port = int(service(sim_server, f"host-serial:{SERIAL}:forward:tcp:0;localabstract:nobody")[12:])
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(b"GET /json/list HTTP/1.1\r\n\r\n")
        assert read_all(s) == b""
