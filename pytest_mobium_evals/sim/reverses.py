"""`adb reverse`: a socket the device listens on whose every connection is carried back to a socket on the host.

adbd keeps the list per transport: `reverse:forward:[norebind:]LOCAL;REMOTE` makes the device listen on LOCAL
(`tcp:PORT`, `tcp:0` for any free one, or `localabstract:NAME`), and each connection an app makes to it is opened on
the host as REMOTE (`tcp:PORT` on the ADB server's host, or a host abstract/filesystem unix socket). The answers are
adbd's handle_forward_request's, device side: one OKAY for the status (the host's OKAY for opening the stream
comes first), then the port tcp:0 chose as a length-prefixed string; `list-forward` answers one length-prefixed
block of `TRANSPORT LOCAL REMOTE` lines, TRANSPORT being the name adbd knows the host by.
"""

from __future__ import annotations

import select
import socket
import threading
from typing import TYPE_CHECKING

from .forwards import ForwardError, close_gracefully
from .listeners import ListenerError, normalize

if TYPE_CHECKING:  # pragma: no cover
    from .device import VirtualDevice

REMOTE_KINDS = ("tcp:", "localabstract:", "localfilesystem:", "localreserved:")
# Where the device picks a port for tcp:0: Linux's ephemeral range (net.ipv4.ip_local_port_range).
EPHEMERAL = range(32768, 61000)


class Reverses:
    """One device's reverse forwards, on behalf of the ADB server on `host`."""

    def __init__(self, device: "VirtualDevice", host: str):
        self.device = device
        self.host = host
        # The name adbd gives the host's transport (an emulator's adbd sees a TCP peer: host-N).
        self.transport_name = f"host-{device.transport_id + 18}"
        self._by_local: dict[str, str] = {}
        self._lock = threading.Lock()

    def add(self, local: str, remote: str, *, norebind: bool) -> int | None:
        """Makes the device listen on LOCAL for REMOTE; the port tcp:0 chose, else None."""
        if not remote.startswith(REMOTE_KINDS) or remote.endswith(":"):
            raise ForwardError(f"malformed forward spec '{remote}'")
        if remote.startswith("tcp:") and not remote[4:].isdigit():
            raise ForwardError(f"malformed forward spec '{remote}'")
        with self._lock:
            chosen = None
            if local == "tcp:0":
                chosen = self._free_port()
                key = f"tcp:{chosen}"
            else:
                try:
                    key = normalize(local)
                except ListenerError:
                    raise ForwardError(f"cannot bind listener: unsupported local spec '{local}'") from None
            if key in self._by_local:
                if norebind:
                    raise ForwardError("cannot rebind existing socket")
                self.device.listeners.close(key)
                del self._by_local[key]
            try:
                self.device.listeners.listen(key, self._carrier(remote))
            except ListenerError:
                raise ForwardError("cannot bind listener: Address already in use") from None
            self._by_local[key] = remote
        return chosen

    def remove(self, local: str) -> None:
        with self._lock:
            key = local
            try:
                key = normalize(local)
            except ListenerError:
                pass
            if key not in self._by_local:
                raise ForwardError(f"listener '{local}' not found")
            del self._by_local[key]
            self.device.listeners.close(key)

    def remove_all(self) -> None:
        with self._lock:
            for key in self._by_local:
                self.device.listeners.close(key)
            self._by_local.clear()

    def listing(self) -> str:
        with self._lock:
            return "".join(f"{self.transport_name} {local} {remote}\n" for local, remote in self._by_local.items())

    def _free_port(self) -> int:
        for port in EPHEMERAL:
            if f"tcp:{port}" not in self._by_local and not self.device.listeners.is_listening(f"tcp:{port}"):
                return port
        raise ForwardError("cannot bind listener: no free port")

    def _carrier(self, remote: str):
        def carry(sock: socket.socket) -> None:
            target = self._open_host(remote)
            if target is None:
                close_gracefully(sock)  # adb closes the app's connection when the host side refuses
                return
            pump(sock, target)
        return carry

    def _open_host(self, remote: str) -> socket.socket | None:
        try:
            if remote.startswith("tcp:"):
                return socket.create_connection((self.host, int(remote[4:])), timeout=10)
            kind, _, name = remote.partition(":")
            s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            s.settimeout(10)
            s.connect("\0" + name if kind in ("localabstract", "localreserved") else name)
            return s
        except OSError:
            return None


def pump(a: socket.socket, b: socket.socket) -> None:
    """Copies bytes both ways until both sides have finished sending; a half-close is passed on as one."""
    open_ends = {a: b, b: a}
    for s in (a, b):
        s.settimeout(None)
    try:
        while open_ends:
            readable, _, _ = select.select(list(open_ends), [], [], 60)
            for src in readable:
                dst = open_ends[src]
                try:
                    data = src.recv(65536)
                except OSError:
                    data = b""
                if data:
                    try:
                        dst.sendall(data)
                        continue
                    except OSError:
                        pass
                del open_ends[src]
                try:
                    dst.shutdown(socket.SHUT_WR)
                except OSError:
                    pass
    finally:
        for s in (a, b):
            try:
                s.close()
            except OSError:
                pass
