"""Fixtures for the agent drivers' tests: the scripted API endpoints, a tool server to drive, fast retries."""

from __future__ import annotations

import json
import os
import signal
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # standins.py, tiny_server.py

from standins import AnthropicStandin, OllamaStandin, OpenAIStandin  # noqa: E402

from pytest_mobium_evals.agents import base  # noqa: E402

TINY_SERVER = Path(__file__).parent / "tiny_server.py"


def pytest_configure(config):
    config.addinivalue_line("markers", "slow: runs the bundled Claude CLI (about 2 s each); CI runs them, "
                                       "deselect locally with -m 'not slow'")


@dataclass
class Spec:
    """How to start a tool server: the shape of toolserver.ToolServerSpec that the drivers use."""

    command: list
    env: dict = field(default_factory=dict)


@dataclass
class ToolServer:
    """The test's tool server: its spec, and the state and pid it leaves in files."""

    spec: Spec
    state_file: Path
    pid_file: Path

    def state(self) -> dict:
        return json.loads(self.state_file.read_text())

    def kill(self) -> None:
        """Kill the running server as a crash would (used from a trajectory's Do step)."""
        os.kill(int(self.pid_file.read_text()), signal.SIGKILL)


@pytest.fixture
def tool_server(tmp_path) -> ToolServer:
    state, pid = tmp_path / "server-state.json", tmp_path / "server.pid"
    spec = Spec(command=[sys.executable, str(TINY_SERVER)],
                env={"TINY_STATE": str(state), "TINY_PIDFILE": str(pid)})
    return ToolServer(spec=spec, state_file=state, pid_file=pid)


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
