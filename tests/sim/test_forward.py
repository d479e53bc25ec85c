"""adb's forward host services on the virtual device's ADB server, over raw sockets and through adbutils."""

from __future__ import annotations

import socket
import threading

import pytest
from test_adb_client import needs_adb, run_adb
from test_adb_protocol import connect, payload, read_all, recv_exact, send, status

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


# ---------------------------------------------------------------------------------------------------------------
# After a transport switch: the stock client's `host:tport:serial:S` then `host:forward…` on the same socket

def echo_upper(sock: socket.socket) -> None:
    with sock.makefile("rwb", buffering=0) as f:
        for line in f:
            f.write(line.upper())


def test_host_services_after_tport_on_the_same_socket(sim_server):
    with connect(sim_server) as s:
        send(s, f"host:tport:serial:{SERIAL}")
        assert status(s) == "OKAY" and len(s.recv(8)) == 8  # the transport id
        send(s, "host:forward:tcp:0;tcp:6790")
        assert status(s) == "OKAY" and status(s) == "OKAY"
        port = int(payload(s))
    assert service(sim_server, "host:list-forward")[8:].decode() == f"{SERIAL} tcp:{port} tcp:6790\n"
    with connect(sim_server) as s:
        send(s, f"host:tport:serial:{SERIAL}")
        assert status(s) == "OKAY" and len(s.recv(8)) == 8
        send(s, f"host:killforward:tcp:{port}")
        assert read_all(s) == b"OKAYOKAY"
    with connect(sim_server) as s:
        send(s, f"host:transport:{SERIAL}")
        assert status(s) == "OKAY"
        send(s, "host:get-serialno")
        assert status(s) == "OKAY" and payload(s) == SERIAL


def test_killforward_all_removes_every_devices_forwards_as_adb_does(sim_server):
    # adb's remove_all_listeners: `adb -s A forward --remove-all` takes B's forwards too.
    service(sim_server, f"host-serial:{SERIAL}:forward:tcp:0;tcp:1")
    service(sim_server, "host-serial:emulator-5556:forward:tcp:0;tcp:2")
    assert service(sim_server, f"host-serial:{SERIAL}:killforward-all") == b"OKAYOKAY"
    assert service(sim_server, "host:list-forward") == b"OKAY0000"


@needs_adb
def test_stock_adb_forward_reaches_a_device_listener_and_removes(sim_server):
    sim_server.device(SERIAL).listeners.listen("tcp:6790", echo_upper)
    r = run_adb(sim_server, "-s", SERIAL, "forward", "tcp:0", "tcp:6790")
    assert r.returncode == 0, r.stderr
    port = int(r.stdout)
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(b"status\n")
        assert recv_exact(s, 7) == b"STATUS\n"
    named = free_port()
    assert run_adb(sim_server, "-s", SERIAL, "forward", f"tcp:{named}", "localabstract:x").returncode == 0
    r = run_adb(sim_server, "-s", SERIAL, "forward", "--list")
    assert r.stdout == f"{SERIAL} tcp:{port} tcp:6790\n{SERIAL} tcp:{named} localabstract:x\n\n"
    r = run_adb(sim_server, "-s", SERIAL, "forward", "--no-rebind", f"tcp:{named}", "tcp:1")
    assert r.returncode == 1 and r.stderr == "adb: error: cannot rebind existing socket\n"
    assert run_adb(sim_server, "-s", SERIAL, "forward", "--remove", f"tcp:{port}").returncode == 0
    r = run_adb(sim_server, "-s", SERIAL, "forward", "--remove", f"tcp:{port}")
    assert r.returncode == 1 and r.stderr == f"adb: error: listener 'tcp:{port}' not found\n"
    assert run_adb(sim_server, "-s", SERIAL, "forward", "--remove-all").returncode == 0
    assert run_adb(sim_server, "-s", SERIAL, "forward", "--list").stdout == "\n"


# ---------------------------------------------------------------------------------------------------------------
# reverse: the device listens, the host answers

class HostEcho:
    """A TCP server on the host answering each line upper-cased (what `adb reverse` carries the device to)."""

    def __init__(self):
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                sock, _ = self.listener.accept()
            except OSError:
                return
            threading.Thread(target=echo_upper, args=(sock,), daemon=True).start()

    def close(self):
        self.listener.close()


@pytest.fixture
def host_echo():
    echo = HostEcho()
    yield echo
    echo.close()


def test_adbutils_reverse_carries_a_device_connection_to_the_host(adb, sim_server, host_echo):
    dev = adb.device(SERIAL)
    device = sim_server.device(SERIAL)
    dev.reverse("tcp:7000", f"tcp:{host_echo.port}")
    assert [(r.remote, r.local) for r in dev.reverse_list()] == [("tcp:7000", f"tcp:{host_echo.port}")]
    with device.listeners.connect("tcp:7000") as app:  # an app on the device connects to localhost:7000
        app.sendall(b"from the device\n")
        assert recv_exact(app, 16) == b"FROM THE DEVICE\n"
    with pytest.raises(Exception, match="cannot rebind existing socket"):
        dev.reverse("tcp:7000", "tcp:1", norebind=True)
    dev.reverse_remove("tcp:7000")
    assert dev.reverse_list() == [] and not device.listeners.is_listening("tcp:7000")
    with pytest.raises(ConnectionRefusedError):
        device.listeners.connect("tcp:7000")
    dev.reverse("localabstract:chrome_devtools_remote", f"tcp:{host_echo.port}")
    dev.reverse_remove_all()
    assert dev.reverse_list() == []


def test_reverse_to_a_host_port_nothing_listens_on_closes_the_device_connection(sim_server):
    device = sim_server.device(SERIAL)
    with connect(sim_server) as s:
        send(s, f"host:transport:{SERIAL}")
        assert status(s) == "OKAY"
        send(s, f"reverse:forward:tcp:0;tcp:{free_port()}")
        assert status(s) == "OKAY" and status(s) == "OKAY"
        port = int(payload(s))
    with device.listeners.connect(f"tcp:{port}") as app:
        assert read_all(app) == b""


@needs_adb
def test_stock_adb_reverse(sim_server, host_echo):
    device = sim_server.device(SERIAL)
    r = run_adb(sim_server, "-s", SERIAL, "reverse", "tcp:8081", f"tcp:{host_echo.port}")
    assert (r.returncode, r.stdout, r.stderr) == (0, "", "")
    r = run_adb(sim_server, "-s", SERIAL, "reverse", "tcp:0", f"tcp:{host_echo.port}")
    chosen = int(r.stdout)
    r = run_adb(sim_server, "-s", SERIAL, "reverse", "--list")
    lines = r.stdout.splitlines()
    assert [line.split()[1:] for line in lines if line] == [
        ["tcp:8081", f"tcp:{host_echo.port}"], [f"tcp:{chosen}", f"tcp:{host_echo.port}"]]
    with device.listeners.connect(f"tcp:{chosen}") as app:
        app.sendall(b"metro\n")
        assert recv_exact(app, 6) == b"METRO\n"
    r = run_adb(sim_server, "-s", SERIAL, "reverse", "--remove", "tcp:9")
    assert r.returncode == 1 and "listener 'tcp:9' not found" in r.stderr
    assert run_adb(sim_server, "-s", SERIAL, "reverse", "--remove-all").returncode == 0
    assert run_adb(sim_server, "-s", SERIAL, "reverse", "--list").stdout.strip() == ""
    # The other device had none of them.
    assert run_adb(sim_server, "-s", "emulator-5556", "reverse", "--list").stdout.strip() == ""
