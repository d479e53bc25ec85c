"""The model-driven agents on another MCP server than Mobium's (`--tool-server`): mobile-mcp 1.0.4 from npm on the
virtual device, each provider's driver replaying a scripted model. Claude's CLI registers the server under its own
name, so the model is offered mcp__mobile-mcp__<tool> and the call is let through (allowed_tools), not denied; the
function-calling loop offers its tools by their own names. What the agent did is read from the device."""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from standins import Answer, Call

from pytest_mobium_evals import sim
from pytest_mobium_evals.drivers.agents import Limits, parse_models, run_agent
from pytest_mobium_evals.reach.toolserver import ToolServerSpec

ROOT = Path(__file__).resolve().parents[2]
ENTRY = Path("node_modules/@mobilenext/mobile-mcp/lib/index.js")
MODEL = {"claude": "haiku:low", "openai": "openai/local-model"}
ENDPOINT = {"claude": "anthropic_api", "openai": "openai_api"}


@pytest.fixture
def mobile_mcp(monkeypatch):
    clients = Path(os.environ.get("MOBIUM_EVALS_CLIENTS") or ROOT / ".clients")
    if shutil.which("node") is None or shutil.which("adb") is None or not (clients / ENTRY).is_file():
        pytest.skip(f"needs node, adb and mobile-mcp in {clients}: npm install --prefix .clients "
                    "@mobilenext/mobile-mcp@1.0.4")
    home = tempfile.mkdtemp(prefix="mcli-")  # mobilecli's daemon, private to the test (tests/clients/conftest.py)
    monkeypatch.setenv("MOBILECLI_HOME", home)
    monkeypatch.setenv("MOBILEMCP_DISABLE_TELEMETRY", "1")
    yield f"node {clients / ENTRY}"
    subprocess.run([str(clients / "node_modules/.bin/mobilecli"), "daemon", "stop"],
                   env={**os.environ, "MOBILECLI_HOME": home}, capture_output=True, timeout=30)
    shutil.rmtree(home, ignore_errors=True)


@pytest.mark.parametrize("provider", [pytest.param("claude", marks=pytest.mark.slow), "openai"])
def test_an_agent_drives_mobile_mcp(provider, request, mobile_mcp, tmp_path):
    api = request.getfixturevalue(ENDPOINT[provider])
    with sim.start(devices=1) as server:
        serial = server.serials[0]
        spec = ToolServerSpec.external(mobile_mcp, serial, "127.0.0.1", server.port)
        api.script([Call("mobile_launch_app", {"device": serial, "packageName": "com.android.settings"}),
                    Answer("done", None, "Settings is open")])
        events: list[dict] = []
        run = run_agent(parse_models(MODEL[provider])[0], "Open Settings.", spec, Limits(), events.append,
                        tmp_path / "work")
        device = server.device()
        assert device.current_activity().package.name == "com.android.settings"
    assert run.claim.status == "done" and run.tool_calls == 1
    calls = [e for e in events if e.get("kind") == "tool_call"]
    assert [c["tool"] for c in calls] == ["mobile_launch_app"]
    results = [e for e in events if e.get("kind") == "tool_result"]
    assert results and not results[0].get("is_error") and "Launched app com.android.settings" in results[0]["text"]
    offered = api.requests[0].get("tools") or []
    names = [t.get("name") or (t.get("function") or {}).get("name") for t in offered]
    want = "mcp__mobile-mcp__mobile_launch_app" if provider == "claude" else "mobile_launch_app"
    assert want in names and not any("mobium" in str(n) for n in names)


@pytest.mark.parametrize("provider", [pytest.param("claude", marks=pytest.mark.slow), "openai"])
def test_a_tool_server_that_never_answers_its_handshake_is_the_infrastructures(provider, request, tmp_path):
    """The trial's time running out while the server has not yet listed its tools is not the model's: it never saw
    a tool. An AgentInfraError (an infra_error in the driver phase), not a time limit charged as unreported."""
    from pytest_mobium_evals.drivers.agents import AgentInfraError

    api = request.getfixturevalue(ENDPOINT[provider])
    api.script([Answer("done", None, "nothing to do")])
    spec = ToolServerSpec.external("sleep 600", "emulator-5554", "127.0.0.1", 5037)
    events: list[dict] = []
    with pytest.raises(AgentInfraError, match="did not (finish its handshake|connect) within the trial's 3 s"):
        run_agent(parse_models(MODEL[provider])[0], "Open Settings.", spec, Limits(max_seconds=3), events.append,
                  tmp_path / "work")
    assert not [e for e in events if e.get("kind") == "tool_call"]
    assert not any(e.get("where") == "limit" for e in events)
