"""Fixtures for the agent drivers' tests: the scripted API endpoints, the virtual device with the built-in Mobium
server as the tool server, fast retries."""

from __future__ import annotations

import os
import select
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # standins.py

from standins import AnthropicStandin, OllamaStandin, OpenAIStandin  # noqa: E402

from pytest_mobium_evals.drivers.agents import base  # noqa: E402


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: runs the bundled Claude CLI (about 2 s each); CI runs them, "
                                       "deselect locally with -m 'not slow'")


APP = "dev.mobium.mobiumapp"
# The app's own delays (the sign-in's 1 s) run this much faster; tool servers and drivers keep real time.
CLOCK_SPEED = 4.0
# Records the server's pid, then becomes the server (exec keeps the pid), so a test can kill it mid-trial.
PID_WRAPPER = 'echo $$ > "$0"; exec "$@"'


@dataclass
class Spec:
    """How to start a tool server: the shape of toolserver.ToolServerSpec."""

    command: list
    env: dict = field(default_factory=dict)


@dataclass
class DeviceServer:
    """The built-in Mobium server on a virtual device, as a trial gets it: MobiumApp fresh on its menu."""

    spec: Spec
    device: object  # pytest_mobium_evals.reach.device.Device: the harness's own reach into the device, over ADB
    pid_file: Path

    def kill(self) -> None:
        """Kill the running server as a crash would (used from a trajectory's Do step), and return once it is dead:
        a killed process goes when it is next scheduled, and the trajectory's next step must find it gone, as a
        crash before the agent's next call is."""
        process = os.pidfd_open(int(self.pid_file.read_text()))
        try:
            signal.pidfd_send_signal(process, signal.SIGKILL)
            dead, _, _ = select.select([process], [], [], 30)  # a pidfd reads as ready once its process has exited
            assert dead, "the killed tool server was still running 30 s later"
        finally:
            os.close(process)

    def alive(self) -> bool:
        """Whether the last server started is still running (a zombie, exited but not reaped, counts as gone)."""
        try:
            stat = Path(f"/proc/{int(self.pid_file.read_text())}/stat").read_text()
        except (FileNotFoundError, ValueError):
            return False
        return stat.rsplit(")", 1)[1].split()[0] != "Z"

    def shows(self, testid: str) -> bool:
        return self.device.find(testid) is not None


@pytest.fixture(scope="module")
def virtual_device():
    from pytest_mobium_evals import sim
    from pytest_mobium_evals.reach.device import Device

    with sim.start(devices=1, clock_speed=CLOCK_SPEED) as server:
        yield server, Device.connect(server.serials[0], port=server.port)


@pytest.fixture
def tool_server(virtual_device, tmp_path) -> DeviceServer:
    from pytest_mobium_evals.reach.toolserver import ToolServerSpec

    server, device = virtual_device
    device.reset_app(APP, ready_testid="homeList")
    builtin = ToolServerSpec.builtin(server.serials[0], "127.0.0.1", server.port)
    pid_file = tmp_path / "server.pid"
    spec = Spec(command=["/bin/sh", "-c", PID_WRAPPER, str(pid_file)] + list(builtin.command), env=builtin.env)
    return DeviceServer(spec=spec, device=device, pid_file=pid_file)


@pytest.fixture
def fast_retries(monkeypatch):
    """Two attempts, 10 ms apart: the same retry path, without waiting seconds for it."""
    monkeypatch.setattr(base, "API_ATTEMPTS", 2)
    monkeypatch.setattr(base, "API_BACKOFF_S", 0.01)


@pytest.fixture
def anthropic_api(monkeypatch):
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-standin")
    with AnthropicStandin() as endpoint:
        monkeypatch.setenv("ANTHROPIC_BASE_URL", endpoint.url)
        yield endpoint


@pytest.fixture
def ollama_api(monkeypatch):
    with OllamaStandin() as endpoint:
        monkeypatch.setenv("OLLAMA_HOST", endpoint.url)
        yield endpoint


@pytest.fixture
def openai_api(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with OpenAIStandin() as endpoint:
        monkeypatch.setenv("OPENAI_BASE_URL", endpoint.base_url)
        yield endpoint
