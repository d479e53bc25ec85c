"""Which device a session, or an xdist worker, drives.

`--device sim` (the default): the process that runs trials starts a virtual device of its own (one per xdist
worker, each on its own port), so `-n 2` simply works. `--device sim:N`: one virtual ADB server with N devices,
started by the controller; worker i leases the i-th serial. `--device DEVICE[,DEVICE…]`: real devices, each a
plain `SERIAL` behind the ADB server at `--adb HOST:PORT`, or `HOST:PORT/SERIAL` behind an ADB server of its own
(devices on several hosts, or several emulators' servers, in one run); worker i leases the i-th.

A device that is not there is one clear line before any trial (`DeviceUnavailable`, turned into a usage error by
the plugin), never a traceback halfway through a run. HOST:PORT is read in one place, `parse_host_port`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Optional

DEFAULT_ADB_PORT = 5037


class DeviceUnavailable(Exception):
    """The asked-for device cannot be used; the message is the whole story (one line a device)."""


@dataclass(frozen=True)
class Target:
    """One device and the ADB server that holds it. `host` None: the server named by `--adb`."""

    serial: str
    host: Optional[str] = None
    port: Optional[int] = None

    def on(self, adb: tuple[str, int]) -> "Target":
        """This device with its ADB server filled in from `--adb` when it names none of its own."""
        return self if self.host is not None else Target(self.serial, *adb)

    def __str__(self) -> str:
        return self.serial if self.host is None else f"{self.host}:{self.port}/{self.serial}"


@dataclass(frozen=True)
class DeviceSpec:
    kind: str  # "sim" | "serials"
    count: Optional[int] = None  # sim:N
    targets: tuple[Target, ...] = ()

    @property
    def serials(self) -> tuple[str, ...]:
        return tuple(t.serial for t in self.targets)

    @property
    def shared_sim(self) -> bool:
        """One sim server for the whole session (sim:N), as opposed to one per process (sim)."""
        return self.kind == "sim" and self.count is not None

    def describe(self) -> str:
        if self.kind == "sim":
            return "virtual device" + (f" ×{self.count}" if self.count else "")
        return ",".join(str(t) for t in self.targets)


def parse_device(text: str) -> DeviceSpec:
    text = (text or "").strip()
    if text == "sim":
        return DeviceSpec("sim")
    m = re.fullmatch(r"sim:(\d+)", text)
    if m:
        count = int(m.group(1))
        if count < 1:
            raise DeviceUnavailable(f"--device {text}: a virtual device count must be at least 1")
        return DeviceSpec("sim", count=count)
    if text.startswith("sim"):
        raise DeviceUnavailable(f"--device {text}: expected sim or sim:N (N virtual devices)")
    entries = [s.strip() for s in text.split(",") if s.strip()]
    if not entries:
        raise DeviceUnavailable("--device: empty; give sim, sim:N or SERIAL[,SERIAL…] (or HOST:PORT/SERIAL)")
    targets = tuple(_target(entry) for entry in entries)
    if len(set(targets)) != len(targets):
        raise DeviceUnavailable(f"--device {text}: a device is listed twice")
    return DeviceSpec("serials", targets=targets)


def _target(entry: str) -> Target:
    server, sep, serial = entry.rpartition("/")
    if not re.fullmatch(r"[\w.:\-]+", serial):
        raise DeviceUnavailable(f"--device: {entry!r} is not a device serial (or HOST:PORT/SERIAL)")
    if not sep:
        return Target(serial)
    host, port = parse_host_port(server, f"--device {entry}", default_port=None)
    return Target(serial, host, port)


def parse_host_port(text: str, where: str, default_port: Optional[int] = DEFAULT_ADB_PORT) -> tuple[str, int]:
    """HOST:PORT (an ADB server's address) → (host, port); an empty host is this machine, a missing port the
    default when there is one. Anything else is a DeviceUnavailable naming `where`."""
    text = (text or "").strip()
    host, sep, port = text.rpartition(":")
    if not sep:
        if default_port is None:
            raise DeviceUnavailable(f"{where}: expected HOST:PORT, e.g. 127.0.0.1:5037")
        host, port = text, str(default_port)
    if not host:
        host = "127.0.0.1"
    if not re.fullmatch(r"[\w.\-]+|\[[0-9a-fA-F:]+\]", host):
        raise DeviceUnavailable(f"{where}: {host!r} is not a host name")
    try:
        number = int(port)
    except ValueError:
        raise DeviceUnavailable(f"{where}: expected HOST:PORT, e.g. 127.0.0.1:5037") from None
    if not 0 < number < 65536:
        raise DeviceUnavailable(f"{where}: port {number} is out of range")
    return host.strip("[]"), number


def parse_adb(text: str) -> tuple[str, int]:
    return parse_host_port(text, f"--adb {(text or '').strip()}")


def worker_index(workerinput: Optional[dict] = None) -> int:
    """0 outside xdist; the worker's number under it ("gw3" → 3)."""
    # Not PYTEST_XDIST_WORKER: a pytest started from inside a worker (pytester) inherits it without being one.
    worker = (workerinput or {}).get("workerid") or ""
    m = re.fullmatch(r"gw(\d+)", worker)
    return int(m.group(1)) if m else 0


def worker_count(workerinput: Optional[dict] = None) -> int:
    value = (workerinput or {}).get("workercount")
    return int(value) if value else 1


def lease(targets: tuple, index: int, workers: int):
    """The device worker `index` drives. More workers than devices would make two workers share one device
    (and corrupt each other's trials), so that is refused up front."""
    if workers > len(targets):
        raise DeviceUnavailable(
            f"{workers} xdist workers but {len(targets)} device(s) ({', '.join(map(str, targets))}): give one device "
            f"per worker (--device sim:{workers}, or more devices) or fewer workers (-n {len(targets)})")
    return targets[index]


def check_devices(spec: DeviceSpec, adb: tuple[str, int]) -> None:
    """Every listed device is attached and online at its ADB server. Otherwise one line for each device that is
    not, all of them at once (a fleet over several servers is fixed in one go, not one error a run)."""
    import adbutils

    problems, states = [], {}
    for target in (t.on(adb) for t in spec.targets):
        server = (target.host, target.port)
        if server not in states:
            client = adbutils.AdbClient(host=target.host, port=target.port, socket_timeout=10)
            try:
                states[server] = {d.serial: d.state for d in client.list()}
            except Exception as exc:  # AdbError, AdbConnectionError, OSError
                states[server] = f"cannot reach the ADB server at {target.host}:{target.port}: {exc}"
        attached = states[server]
        if isinstance(attached, str):
            problems.append(f"device {target.serial}: {attached}" if len(spec.targets) > 1 else attached)
            continue
        state = attached.get(target.serial)
        if state is None:
            problems.append(f"device {target.serial} is not attached to the ADB server at {target.host}:"
                            f"{target.port} (attached: {', '.join(sorted(attached)) or 'none'})")
        elif state != "device":
            problems.append(f"device {target.serial} at {target.host}:{target.port} is {state}, not ready")
    if problems:
        raise DeviceUnavailable("\n".join(problems))


def start_sim(devices: int, clock_speed: float, pace: str = "fast"):
    """Start the virtual device (an in-process ADB server) at `pace` (`fast` or `emulator`). Returns the SimServer
    (`.port`, `.serials`, `.close()`)."""
    try:
        from . import sim
    except ImportError as exc:  # a build without the virtual device
        raise DeviceUnavailable(f"--device sim: the virtual device is not available: {exc}") from None
    start = getattr(sim, "start", None)
    if start is None:
        raise DeviceUnavailable("--device sim: this build's virtual device has no start()")
    return start(devices=devices, port=0, clock_speed=clock_speed, pace=pace)
