"""The device's listening sockets: what an on-device server (a process's `tcp:PORT`, its `@NAME` abstract socket)
listens on, and what ADB's `tcp:` and `localabstract:` services (direct, or through `adb forward`) reach.

    device.listeners.listen("tcp:6790", serve)   # serve(sock) runs on a thread of its own per connection
    device.listeners.is_listening("tcp:6790")
    device.listeners.close("tcp:6790")

`serve` gets a connected `socket.socket` whose other end is the ADB client's stream (the bytes the client writes
after the service's OKAY, and it reads what `serve` writes); it should return when the client hangs up. Besides
what is registered, providers name sockets that come and go with the device's state (a debuggable WebView's DevTools
socket lives as long as its process shows the page), looked up under the device's lock.

When nothing listens, the service is refused as adbd refuses it: adbd's connect() fails, it closes the stream, and
the host's adb server answers the client `FAIL` "closed".
"""

from __future__ import annotations

import socket
import threading
from typing import Callable

Serve = Callable[[socket.socket], None]
# -> {spec: serve} for the sockets the device's state has open now (called under the device's lock)
Provider = Callable[[], "dict[str, Serve]"]

LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1", "0.0.0.0")


class ListenerError(ValueError):
    """A spec the device cannot listen on, or a socket already taken; the message is one line saying which."""


def normalize(spec: str) -> str:
    """The canonical spec: `tcp:PORT` (also from `tcp:localhost:PORT`, as adbd's tcp service takes a host) or
    `localabstract:NAME`. Anything else raises ListenerError."""
    kind, sep, rest = spec.partition(":")
    if not sep or not rest:
        raise ListenerError(f"bad socket spec '{spec}': expected tcp:PORT or localabstract:NAME")
    if kind == "tcp":
        host, _, port = rest.rpartition(":")
        if host and host not in LOOPBACK_HOSTS:
            raise ListenerError(f"bad socket spec '{spec}': the device listens on its own loopback only")
        if not port.isdigit() or not 0 < int(port) < 65536:
            raise ListenerError(f"bad socket spec '{spec}': port must be 1-65535")
        return f"tcp:{int(port)}"
    if kind == "localabstract":
        return f"localabstract:{rest}"
    raise ListenerError(f"bad socket spec '{spec}': expected tcp:PORT or localabstract:NAME")


class DeviceListeners:
    """The registry of one device's listening sockets (thread-safe; providers are asked under `lock`)."""

    def __init__(self, lock: "threading.RLock") -> None:
        self._device_lock = lock
        self._lock = threading.Lock()
        self._serving: dict[str, Serve] = {}
        self._providers: list[Provider] = []

    def listen(self, spec: str, serve: Serve) -> None:
        """Starts listening on `spec`; raises ListenerError when something already does (EADDRINUSE on a
        device)."""
        key = normalize(spec)
        with self._lock:
            if key in self._serving:
                raise ListenerError(f"cannot listen on {key}: Address already in use")
            self._serving[key] = serve

    def close(self, spec: str) -> None:
        """Stops listening on `spec` (nothing happens when nothing listened). Connections already made go on."""
        key = normalize(spec)
        with self._lock:
            self._serving.pop(key, None)

    def is_listening(self, spec: str) -> bool:
        try:
            return self.resolve(spec) is not None
        except ListenerError:
            return False

    def add_provider(self, provider: Provider) -> None:
        with self._lock:
            self._providers.append(provider)

    def resolve(self, spec: str) -> Serve | None:
        """What serves a connection to `spec` now, or None when nothing listens there."""
        key = normalize(spec)
        with self._lock:
            serve = self._serving.get(key)
            providers = list(self._providers)
        if serve is not None:
            return serve
        with self._device_lock:
            for provider in providers:
                found = provider().get(key)
                if found is not None:
                    return found
        return None

    def connect(self, spec: str) -> socket.socket:
        """A connection made on the device itself (an app to localhost:PORT): the caller's end of it, with the
        listener's `serve` running on a thread of its own at the other. ConnectionRefusedError when nothing
        listens, as connect() fails on a device."""
        serve = self.resolve(spec)
        if serve is None:
            raise ConnectionRefusedError(f"connect to {normalize(spec)}: Connection refused")
        mine, theirs = socket.socketpair()
        threading.Thread(target=_serve_and_close, args=(serve, theirs), daemon=True,
                         name=f"device-conn:{normalize(spec)}").start()
        return mine

    def listening(self) -> list[str]:
        """Every spec listened on now, registered and provided, sorted."""
        with self._lock:
            specs = set(self._serving)
            providers = list(self._providers)
        with self._device_lock:
            for provider in providers:
                specs.update(provider())
        return sorted(specs)

    def clear(self) -> None:
        """Every registered listener goes (the device restarts: its processes and their sockets die)."""
        with self._lock:
            self._serving.clear()


def _serve_and_close(serve: Serve, sock: socket.socket) -> None:
    try:
        serve(sock)
    except OSError:
        pass  # the connecting side went away
    finally:
        sock.close()
