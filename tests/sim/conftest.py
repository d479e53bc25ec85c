"""Fixtures for the virtual device's own tests: an in-process device, a running ADB server, an adbutils client."""

from __future__ import annotations

import os

import pytest

# adbutils must never start a real adb server when a port refuses: fail fast instead.
os.environ["ADBUTILS_ADB_PATH"] = "/bin/false"

from pytest_mobium_evals import sim  # noqa: E402
from pytest_mobium_evals.sim.device import VirtualDevice  # noqa: E402
from pytest_mobium_evals.sim.shell import Shell  # noqa: E402

SOCKET_TIMEOUT = 10


@pytest.fixture
def vdevice() -> VirtualDevice:
    """A device without a server, driven in-process (fast unit tests)."""
    return VirtualDevice("emulator-5554", clock=sim.Clock(1.0), seed=1)


class Sh:
    """Runs shell command lines on a device as `adb shell` would, keeping stdout and stderr apart."""

    def __init__(self, device: VirtualDevice):
        self.device = device
        self.shell = Shell(device)

    def __call__(self, line: str) -> tuple[str, str, int]:
        out, status = self.shell.run(line)
        return out.stdout().decode(), out.stderr().decode(), status

    def out(self, line: str) -> str:
        stdout, stderr, status = self(line)
        assert status == 0, f"{line!r} exited {status}: {stderr}"
        return stdout


@pytest.fixture
def sh(vdevice: VirtualDevice) -> Sh:
    return Sh(vdevice)


@pytest.fixture
def make_sh():
    """Sh for a device a test made itself."""
    return Sh


@pytest.fixture
def sim_server():
    with sim.start(devices=2) as server:
        yield server


@pytest.fixture
def adb(sim_server):
    import adbutils
    return adbutils.AdbClient("127.0.0.1", sim_server.port, socket_timeout=SOCKET_TIMEOUT)
