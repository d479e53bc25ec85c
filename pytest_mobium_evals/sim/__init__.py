"""The virtual Android device: an ADB server on 127.0.0.1 serving one or more emulated Android 15 devices.

    with sim.start(devices=2) as server:
        adbutils.AdbClient("127.0.0.1", server.port).device(server.serials[0]).shell("getprop ro.product.model")

`server.device(serial)` gives the in-process `VirtualDevice` (for the sim's own tests and the fixture that starts it);
everything else reaches the device over ADB.
"""

from __future__ import annotations

import os

from .adb_server import AdbServer
from .clock import Clock
from .console import EmulatorConsole, free_console_port
from .device import VirtualDevice
from .faults import ENV as FAULT_ENV
from .faults import FaultPlan
from .pace import ENV as PACE_ENV
from .pace import PACES, PaceError, pace_named

__all__ = ["SimServer", "start", "Clock", "PACES", "PaceError"]


class SimServer:
    """Running virtual devices and their ADB server. Use as a context manager, or call `close()`."""

    def __init__(self, devices: int = 1, port: int = 0, clock_speed: float = 1.0, seed: int | None = None,
                 host: str = "127.0.0.1", fault: str | None = None, pace: str = "fast", console: bool = False):
        if not isinstance(devices, int) or devices < 1 or devices > 64:
            raise ValueError(f"devices must be a number from 1 to 64, got {devices!r}")
        if not clock_speed > 0:
            raise ValueError(f"clock_speed must be > 0, got {clock_speed!r}")
        self.pace = pace_named(pace)
        self._devices: dict[str, VirtualDevice] = {}
        self._consoles: list = []
        bound = _console_sockets(devices) if console else []
        for i in range(devices):
            # With a console, the serial is its port's, as an emulator's is (the first free pair from 5554 up).
            serial = f"emulator-{bound[i][0] if bound else 5554 + 2 * i}"
            self._devices[serial] = VirtualDevice(serial, clock=Clock(clock_speed), transport_id=i + 1,
                                                  seed=None if seed is None else seed + i, pace=self.pace)
        if bound:
            self._consoles = [EmulatorConsole(device, sock)
                              for device, (_port, sock) in zip(self._devices.values(), bound)]
        # The plan is read before any device starts: a bad spec is one line, and nothing is left running.
        self.faults = FaultPlan.from_spec(fault)
        self._server = AdbServer(self._devices, port=port, host=host, faults=self.faults)
        self.host = host
        self.port = self._server.port

    @property
    def serials(self) -> list[str]:
        return list(self._devices)

    def device(self, serial: str | None = None):
        """The in-process device (the first one when no serial is given). KeyError names the known serials."""
        if serial is None:
            return next(iter(self._devices.values()))
        try:
            return self._devices[serial]
        except KeyError:
            raise KeyError(f"no virtual device {serial!r}; serials: {', '.join(self._devices)}") from None

    @property
    def devices(self) -> list:
        return list(self._devices.values())

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    def close(self) -> None:
        for console in self._consoles:
            console.close()
        self._server.close()

    def __enter__(self) -> "SimServer":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SimServer(port={self.port}, serials={self.serials})"


def _console_sockets(count: int) -> list:
    """`count` emulator console ports, each bound: [(port, socket)]. Raises OSError when the host has no free pair
    left in the emulator's range."""
    found, start = [], 5554
    for _ in range(count):
        pair = free_console_port(start)
        if pair is None:
            for _port, sock in found:
                sock.close()
            raise OSError("no free emulator console port from 5554 to 5682")
        found.append(pair)
        start = pair[0] + 2
    return found


def start(devices: int = 1, port: int = 0, clock_speed: float = 1.0, seed: int | None = None,
          fault: str | None = None, pace: str | None = None, console: bool = False,
          host: str = "127.0.0.1") -> SimServer:
    """Starts `devices` virtual devices behind an ADB server on `host`:`port` (0 = any free port; the host
    127.0.0.1 unless the devices are served to other machines, as `adb -a` does). `fault` is a
    fault spec (sim/faults.py): the devices then misbehave on purpose, for testing the harness; without one, the
    spec in MOBIUM_EVALS_SIM_FAULT, if set (how a test reaches the device a pytest run starts itself). `pace` is
    how long commands take (sim/pace.py): `fast` (default) or `emulator`; without one, MOBIUM_EVALS_SIM_PACE's.
    `console`: each device serves an emulator console (sim/console.py) on 127.0.0.1, and its serial names that
    port as an emulator's does (emulator-5554, or the next free pair): what `adb emu` reaches."""
    if fault is None:
        fault = os.environ.get(FAULT_ENV) or None
    if pace is None:
        pace = os.environ.get(PACE_ENV) or "fast"
    return SimServer(devices=devices, port=port, clock_speed=clock_speed, seed=seed, fault=fault, pace=pace,
                     console=console, host=host)
