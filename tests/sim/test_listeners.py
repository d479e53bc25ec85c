"""The device's listening sockets (`device.listeners`): ADB's tcp:/localabstract: services and forwards reach what
listens there; nothing listening is refused with adb's "closed"."""

from __future__ import annotations

import socket
import threading

import pytest
from polling import wait_for
from test_adb_protocol import connect, read_all, recv_exact, send, status

from pytest_mobium_evals.sim.listeners import ListenerError, normalize

SERIAL = "emulator-5554"


def echo_upper(sock: socket.socket) -> None:
    """A line server: answers each line upper-cased, until the client hangs up."""
    with sock.makefile("rwb", buffering=0) as f:
        for line in f:
            f.write(line.upper())


def test_specs_are_normalized_and_bad_ones_refused():
    assert normalize("tcp:6790") == normalize("tcp:localhost:6790") == "tcp:6790"
    assert normalize("localabstract:minitouch") == "localabstract:minitouch"
    for bad in ("tcp:0", "tcp:70000", "tcp:x", "udp:1", "tcp:", "tcp:10.0.0.2:80", "nothing"):
        with pytest.raises(ListenerError):
            normalize(bad)


def test_listen_close_is_listening(vdevice):
    listeners = vdevice.listeners
    assert not listeners.is_listening("tcp:6790")
    listeners.listen("tcp:6790", echo_upper)
    assert listeners.is_listening("tcp:6790") and listeners.is_listening("tcp:127.0.0.1:6790")
    with pytest.raises(ListenerError, match="Address already in use"):
        listeners.listen("tcp:6790", echo_upper)
    listeners.close("tcp:6790")
    assert not listeners.is_listening("tcp:6790")
    listeners.close("tcp:6790")  # closing twice is harmless
    assert not listeners.is_listening("not a spec")


def test_tcp_service_reaches_the_listener_and_closed_when_none(sim_server):
    device = sim_server.device(SERIAL)
    with connect(sim_server) as s:
        send(s, f"host:transport:{SERIAL}")
        assert status(s) == "OKAY"
        send(s, "tcp:6790")
        assert recv_exact(s, 8) == b"FAIL0006" and recv_exact(s, 6) == b"closed"
    device.listeners.listen("tcp:6790", echo_upper)
    with connect(sim_server) as s:
        send(s, f"host:transport:{SERIAL}")
        assert status(s) == "OKAY"
        send(s, "tcp:6790")
        assert status(s) == "OKAY"
        s.sendall(b"hello\n")
        assert recv_exact(s, 6) == b"HELLO\n"
        s.shutdown(socket.SHUT_WR)
        assert read_all(s) == b""
    # The other device has its own sockets.
    with connect(sim_server) as s:
        send(s, "host:transport:emulator-5556")
        assert status(s) == "OKAY"
        send(s, "tcp:6790")
        assert status(s) == "FAIL"


def test_each_connection_is_served_on_its_own_thread(sim_server):
    started, release = [], threading.Event()

    def hold(sock: socket.socket) -> None:
        started.append(threading.get_ident())
        release.wait(10)
        sock.sendall(b"done")

    sim_server.device(SERIAL).listeners.listen("localabstract:holder", hold)
    socks = []
    try:
        for _ in range(2):
            s = connect(sim_server)
            socks.append(s)
            send(s, f"host:transport:{SERIAL}")
            assert status(s) == "OKAY"
            send(s, "localabstract:holder")
            assert status(s) == "OKAY"
        wait_for(lambda: len(started) == 2, what="both connections served at once")
        assert started[0] != started[1]
        release.set()
        assert [recv_exact(s, 4) for s in socks] == [b"done", b"done"]
    finally:
        release.set()
        for s in socks:
            s.close()


def test_adbutils_create_connection_and_forward_reach_the_listener(adb, sim_server):
    device = sim_server.device(SERIAL)
    device.listeners.listen("tcp:9008", echo_upper)
    dev = adb.device(SERIAL)
    with dev.create_connection("tcp", 9008) as s:
        s.sendall(b"direct\n")
        assert recv_exact(s, 7) == b"DIRECT\n"
    port = dev.forward_port("tcp:9008")
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(b"forwarded\n")
        assert recv_exact(s, 10) == b"FORWARDED\n"
    # A forward to a port nothing listens on accepts, then closes at once (as adb does).
    idle = dev.forward_port("tcp:9009")
    with socket.create_connection(("127.0.0.1", idle), timeout=5) as s:
        assert read_all(s) == b""
    device.listeners.close("tcp:9008")
    with pytest.raises(Exception, match="closed"):
        dev.create_connection("tcp", 9008)


def test_abstract_listeners_show_in_proc_net_unix(vdevice, sh):
    vdevice.listeners.listen("localabstract:scrcpy", echo_upper)
    assert sh.out("cat /proc/net/unix").splitlines()[-1].endswith(" @scrcpy")
