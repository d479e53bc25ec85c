"""A model request the harness gives up on is dropped with its connection (issue 42): llama.cpp's server cancels a
task only when it sees its client's connection close (it polls `is_connection_closed` while it waits for the
task's result), so a request the loop stopped waiting for but left open would go on reading and writing, and hold
the server's one slot from the next request. Here a server that never answers stands in for a model still at work,
and notes when its client's connection closes: after the request's timeout (before the retry), when the trial's
time limit is reached, and through the probe's recording proxy, which must pass the close on to the server."""

from __future__ import annotations

import asyncio
import importlib.util
import json
import socket
import sys
import threading
import time
from pathlib import Path

import pytest
from polling import wait_for

from pytest_mobium_evals.drivers.agents import Limits, parse_models, run_agent
from pytest_mobium_evals.drivers.agents import base as agents_base
from pytest_mobium_evals.drivers.agents.loop import make_provider

ROOT = Path(__file__).resolve().parents[2]
SETTINGS = {"openai": parse_models("openai/local-model")[0], "ollama": parse_models("ollama/qwen2.5:7b")[0]}


class SilentModel:
    """A server that reads each request and never answers it, as a model still reading a long prompt. Per request,
    `.arrived` has when it came (time.monotonic()) and `.dropped` when its client closed the connection."""

    def __init__(self):
        self._socket = socket.create_server(("127.0.0.1", 0))
        self.arrived: list[float] = []
        self.dropped: list[float] = []
        self.requests: list[bytes] = []
        self._open: list[socket.socket] = []
        threading.Thread(target=self._accept, daemon=True).start()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self._socket.getsockname()[1]}"

    def _accept(self):
        while True:
            try:
                connection, _ = self._socket.accept()
            except OSError:
                return
            self._open.append(connection)
            threading.Thread(target=self._hold, args=(connection,), daemon=True).start()

    def _hold(self, connection: socket.socket):
        data = b""
        while b"\r\n\r\n" not in data:
            chunk = connection.recv(65536)
            if not chunk:
                return  # a connection that never carried a request
            data += chunk
        self.requests.append(data)
        self.arrived.append(time.monotonic())
        try:
            while connection.recv(65536):
                pass  # the rest of the body; then nothing more comes until the client closes
        except OSError:
            pass
        self.dropped.append(time.monotonic())

    def close(self):
        self._socket.close()
        for connection in self._open:
            connection.close()


@pytest.fixture
def silent_model(monkeypatch):
    model = SilentModel()
    monkeypatch.setenv("OPENAI_BASE_URL", model.url + "/v1")
    monkeypatch.setenv("OLLAMA_HOST", model.url)
    monkeypatch.setattr(agents_base, "API_ATTEMPTS", 1)
    yield model
    model.close()


@pytest.mark.parametrize("provider", ["openai", "ollama"])
def test_a_request_past_its_timeout_is_dropped_before_it_is_asked_again(provider, silent_model, monkeypatch):
    """The request's timeout is a retryable failure: the loop asks again after a backoff. The server (llama-server
    with its one slot, -np 1) must have seen the first request dropped before the second arrives, or the second
    waits behind a prompt nobody will read."""
    monkeypatch.setattr(agents_base, "API_ATTEMPTS", 2)
    client = make_provider(SETTINGS[provider], None, Limits(request_timeout=0.5))
    with pytest.raises(agents_base.ModelAPIError):
        asyncio.run(agents_base.with_retries(lambda: client.chat([{"role": "user", "content": "hi"}], []),
                                             client.label, lambda *a, **k: None))
    wait_for(lambda: len(silent_model.dropped) == 2, timeout=10, what="the server to see both requests dropped")
    assert len(silent_model.arrived) == 2
    assert silent_model.dropped[0] < silent_model.arrived[1], "the retry came while the first request was open"


@pytest.mark.parametrize("provider", ["openai", "ollama"])
def test_a_request_cut_by_the_trials_time_limit_is_dropped_when_the_limit_is_reached(provider, silent_model,
                                                                                    tool_server, tmp_path):
    """When the harness records the time limit, the request it stopped waiting for is already dropped: not left
    to whatever closes connections when the trial's event loop ends."""
    seen_at_limit: list[bool] = []

    def on_event(event: dict) -> None:
        if event["kind"] == "error" and event.get("where") == "limit":
            # Blocks the trial's event loop: a request still open now stays open until this returns.
            try:
                wait_for(lambda: silent_model.dropped, timeout=5, what="the server to see the request dropped")
                seen_at_limit.append(True)
            except AssertionError:
                seen_at_limit.append(False)

    run = run_agent(SETTINGS[provider], "Open MobiumApp.", tool_server.spec,
                    Limits(max_seconds=15, request_timeout=600), on_event, tmp_path / "w")
    assert run.stop_reason == "time_limit" and len(silent_model.requests) == 1
    assert seen_at_limit == [True], "the request was still open when the time limit was recorded"


def load_probe():
    spec = importlib.util.spec_from_file_location("probe_local_model_drops", ROOT / "probes" / "local_model.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_the_recording_proxy_passes_a_dropped_request_on_to_the_server(silent_model, tmp_path):
    """The probe's --record proxy stands between the harness and llama-server: when the harness drops a request,
    the proxy drops its own request to the server (it used to wait for the server's answer, up to its own timeout,
    and the server kept generating); the recording says the request was dropped, with status 499."""
    probe = load_probe()
    recording = tmp_path / "recording.jsonl"
    proxy = probe.RecordingProxy(silent_model.url + "/v1", recording, timeout=600)
    try:
        client = make_provider(SETTINGS["openai"], proxy.base_url, Limits(request_timeout=0.5))
        with pytest.raises(agents_base.ModelAPIError):
            asyncio.run(agents_base.with_retries(lambda: client.chat([{"role": "user", "content": "hi"}], []),
                                                 client.label, lambda *a, **k: None))
        wait_for(lambda: silent_model.dropped, timeout=10, what="the server behind the proxy to see the close")
        assert silent_model.dropped[0] - silent_model.arrived[0] < 5  # passed on at once, not at the proxy's timeout
        wait_for(lambda: recording.read_text().strip(), timeout=10, what="the proxy to record the exchange")
    finally:
        proxy.close()
    exchange = json.loads(recording.read_text().splitlines()[0])
    assert exchange["status"] == 499 and "closed its connection" in exchange["response"]["error"]["message"]
    assert exchange["request"]["messages"] == [{"role": "user", "content": "hi"}]
