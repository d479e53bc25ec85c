"""Which device a session, or an xdist worker, drives.

`--device sim` (the default): the process that runs trials starts a virtual device of its own (one per xdist
worker, each on its own port), so `-n 2` simply works. `--device sim:N`: one virtual ADB server with N devices,
started by the controller; worker i leases the i-th serial. `--device SERIAL[,SERIAL…]`: devices behind the ADB
server at `--adb HOST:PORT` (local or remote); worker i leases the i-th serial.

A device that is not there is one clear line before any trial (`DeviceUnavailable`, turned into a usage error by
the plugin), never a traceback halfway through a run."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from typing import Optional


class DeviceUnavailable(Exception):
    """The asked-for device cannot be used; the message is the whole story, on one line."""


@dataclass(frozen=True)
class DeviceSpec:
    kind: str  # "sim" | "serials"
    count: Optional[int] = None  # sim:N
    serials: tuple[str, ...] = ()

    @property
    def shared_sim(self) -> bool:
        """One sim server for the whole session (sim:N), as opposed to one per process (sim)."""
        return self.kind == "sim" and self.count is not None

    def describe(self) -> str:
        if self.kind == "sim":
            return "virtual device" + (f" ×{self.count}" if self.count else "")
        return ",".join(self.serials)


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
    serials = tuple(s.strip() for s in text.split(",") if s.strip())
    if not serials:
        raise DeviceUnavailable("--device: empty; give sim, sim:N or SERIAL[,SERIAL…]")
    for serial in serials:
        if not re.fullmatch(r"[\w.:\-]+", serial):
            raise DeviceUnavailable(f"--device: {serial!r} is not a device serial")
    if len(set(serials)) != len(serials):
        raise DeviceUnavailable(f"--device {text}: a serial is listed twice")
    return DeviceSpec("serials", serials=serials)


def parse_adb(text: str) -> tuple[str, int]:
    text = (text or "").strip()
    host, sep, port = text.rpartition(":")
    if not sep:
        host, port = text, "5037"
    if not host:
        host = "127.0.0.1"
    try:
        number = int(port)
    except ValueError:
        raise DeviceUnavailable(f"--adb {text}: expected HOST:PORT, e.g. 127.0.0.1:5037") from None
    if not 0 < number < 65536:
        raise DeviceUnavailable(f"--adb {text}: port {number} is out of range")
    return host, number


def worker_index(workerinput: Optional[dict] = None) -> int:
    """0 outside xdist; the worker's number under it ("gw3" → 3)."""
    worker = (workerinput or {}).get("workerid") or os.environ.get("PYTEST_XDIST_WORKER") or ""
    m = re.fullmatch(r"gw(\d+)", worker)
    return int(m.group(1)) if m else 0


def worker_count(workerinput: Optional[dict] = None) -> int:
    value = (workerinput or {}).get("workercount") or os.environ.get("PYTEST_XDIST_WORKER_COUNT")
    return int(value) if value else 1


def lease(serials: tuple[str, ...], index: int, workers: int) -> str:
    """The serial worker `index` drives. More workers than devices would make two workers share one device
    (and corrupt each other's trials), so that is refused up front."""
    if workers > len(serials):
        raise DeviceUnavailable(
            f"{workers} xdist workers but {len(serials)} device(s) ({', '.join(serials)}): give one device per "
            f"worker (--device sim:{workers}, or more serials) or fewer workers (-n {len(serials)})")
    return serials[index]


def check_serials(spec: DeviceSpec, host: str, port: int) -> None:
    """Every listed serial is attached and online at the ADB server, or one line saying which is not."""
    import adbutils

    client = adbutils.AdbClient(host=host, port=port, socket_timeout=10)
    try:
        states = {d.serial: d.state for d in client.list()}
    except Exception as exc:  # AdbError, AdbConnectionError, OSError
        raise DeviceUnavailable(f"cannot reach the ADB server at {host}:{port}: {exc}") from None
    for serial in spec.serials:
        state = states.get(serial)
        if state is None:
            attached = ", ".join(sorted(states)) or "none"
            raise DeviceUnavailable(f"device {serial} is not attached to the ADB server at {host}:{port} "
                                    f"(attached: {attached})")
        if state != "device":
            raise DeviceUnavailable(f"device {serial} at {host}:{port} is {state}, not ready")


def start_sim(devices: int, clock_speed: float):
    """Start the virtual device (an in-process ADB server). Returns the SimServer (`.port`, `.serials`,
    `.close()`)."""
    try:
        from . import sim
    except ImportError as exc:  # a build without the virtual device
        raise DeviceUnavailable(f"--device sim: the virtual device is not available: {exc}") from None
    start = getattr(sim, "start", None)
    if start is None:
        raise DeviceUnavailable("--device sim: this build's virtual device has no start()")
    return start(devices=devices, port=0, clock_speed=clock_speed)
