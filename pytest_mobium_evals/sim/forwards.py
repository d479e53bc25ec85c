"""`adb forward`: a TCP port on the host whose every connection is carried to a socket on a device.

The ADB server keeps the list (`list-forward` prints `SERIAL LOCAL REMOTE` lines, every device's); each forward is
a listener on the server's host. A connection to it opens the remote socket on the device (`open_remote`); when
nothing listens there it is closed at once, as adb closes a forward whose device side refuses.
"""

from __future__ import annotations

import socket
import threading
from dataclasses import dataclass, field
from typing import Callable

# (serial, remote spec, the accepted socket) -> whether the device side took it
Opener = Callable[[str, str, socket.socket], bool]
REMOTE_KINDS = ("tcp:", "localabstract:", "localreserved:", "localfilesystem:", "dev:", "jdwp:", "vsock:")


class ForwardError(Exception):
    """adb's reason for refusing the forward, as its FAIL carries it."""


@dataclass
class Forward:
    serial: str
    local: str
    remote: str
    listener: socket.socket
    thread: threading.Thread | None = field(default=None, repr=False)


class Forwards:
    def __init__(self, host: str, open_remote: Opener):
        self.host = host
        self.open_remote = open_remote
        self._by_local: dict[str, Forward] = {}
        self._lock = threading.Lock()

    def add(self, serial: str, local: str, remote: str, *, norebind: bool) -> int | None:
        """Installs LOCAL -> REMOTE; the port chosen when LOCAL is tcp:0, else None."""
        if not local.startswith("tcp:") or not local[4:].isdigit():
            raise ForwardError(f"cannot bind listener: unsupported local spec '{local}' (the virtual device's adb "
                               f"server forwards tcp:PORT)")
        if not remote.startswith(REMOTE_KINDS) or remote.endswith(":"):
            raise ForwardError(f"malformed forward spec '{remote}'")
        with self._lock:
            existing = self._by_local.get(local)
            if existing is not None:
                if norebind:
                    raise ForwardError("cannot rebind existing socket")
                self._stop(existing)
                del self._by_local[local]
            listener = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            try:
                listener.bind((self.host, int(local[4:])))
            except OSError as exc:
                listener.close()
                raise ForwardError(f"cannot bind listener: {exc.strerror or exc}") from None
            listener.listen(16)
            port = listener.getsockname()[1]
            resolved = f"tcp:{port}"
            fwd = Forward(serial, resolved, remote, listener)
            fwd.thread = threading.Thread(target=self._accept, args=(fwd,), daemon=True, name=f"forward:{port}")
            self._by_local[resolved] = fwd
            fwd.thread.start()
        return port if local == "tcp:0" else None

    def remove(self, local: str) -> None:
        with self._lock:
            fwd = self._by_local.pop(local, None)
        if fwd is None:
            raise ForwardError(f"listener '{local}' not found")
        self._stop(fwd)

    def remove_all(self, serial: str | None = None) -> None:
        with self._lock:
            gone = [f for f in self._by_local.values() if serial is None or f.serial == serial]
            for f in gone:
                del self._by_local[f.local]
        for f in gone:
            self._stop(f)

    def listing(self) -> str:
        with self._lock:
            return "".join(f"{f.serial} {f.local} {f.remote}\n" for f in self._by_local.values())

    def close(self) -> None:
        self.remove_all()

    @staticmethod
    def _stop(fwd: Forward) -> None:
        try:
            fwd.listener.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass
        fwd.listener.close()

    def _accept(self, fwd: Forward) -> None:
        while True:
            try:
                sock, _ = fwd.listener.accept()
            except OSError:
                return  # the forward was removed
            threading.Thread(target=self._carry, args=(fwd, sock), daemon=True, name="forwarded").start()

    def _carry(self, fwd: Forward, sock: socket.socket) -> None:
        try:
            sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
            self.open_remote(fwd.serial, fwd.remote, sock)
        except OSError:
            pass
        finally:
            close_gracefully(sock)


def close_gracefully(sock: socket.socket) -> None:
    """Half-close, then read briefly what the client still sends (stdin packets) before closing, so it reads all
    our output and sees an end, not a reset."""
    try:
        sock.shutdown(socket.SHUT_WR)
        sock.settimeout(0.5)
        for _ in range(64):
            if not sock.recv(65536):
                break
    except OSError:
        pass
    finally:
        try:
            sock.close()
        except OSError:
            pass
