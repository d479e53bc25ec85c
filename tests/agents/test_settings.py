"""Model settings (--model), readiness checks before any trial, the Claude isolation's home, the final answer."""

from __future__ import annotations

import json
import os
import socket
from types import SimpleNamespace

import pytest

from pytest_mobium_evals.drivers.agents import AgentConfigError, ModelSetting, check_ready, claude, parse_models
from pytest_mobium_evals.drivers.agents.loop import function_schema, result_text
from pytest_mobium_evals.drivers.agents.prompt import FINAL_SCHEMA, claim_from_output


@pytest.mark.parametrize("text, expected", [
    ("opus:medium", [ModelSetting("claude", "claude-opus-5-5", "medium", "opus:medium")]),
    ("haiku", [ModelSetting("claude", "claude-haiku-5-5", None, "haiku")]),
    ("claude-sonnet-4-5:high", [ModelSetting("claude", "claude-sonnet-4-5", "high", "claude-sonnet-4-5:high")]),
    ("ollama/qwen2.5:7b", [ModelSetting("ollama", "qwen2.5:7b", None, "ollama/qwen2.5:7b")]),
    ("ollama/gpt-oss:20b:low", [ModelSetting("ollama", "gpt-oss:20b", "low", "ollama/gpt-oss:20b:low")]),
    ("openai/meta-llama/llama-3.3-70b", [ModelSetting("openai", "meta-llama/llama-3.3-70b", None,
                                                      "openai/meta-llama/llama-3.3-70b")]),
    (" sonnet:low , opus ", [ModelSetting("claude", "claude-sonnet-5-5", "low", "sonnet:low"),
                             ModelSetting("claude", "claude-opus-5-5", None, "opus")]),
])
def test_parse_models(text, expected):
    assert parse_models(text) == expected


def test_default_model_is_opus_medium():
    assert parse_models(None) == parse_models("") == parse_models("opus:medium")


@pytest.mark.parametrize("text, message", [
    ("gpt4", "unknown model"),
    ("mistral/large", "unknown provider 'mistral'"),
    ("opus:extreme", "unknown effort 'extreme'"),
    ("opus,,sonnet", "empty model name"),
    ("ollama/", "missing or malformed model name"),
    ("opus,opus", "given twice"),
])
def test_parse_models_rejects_bad_input_in_one_line(text, message):
    with pytest.raises(AgentConfigError, match=message) as caught:
        parse_models(text)
    assert "\n" not in str(caught.value) and isinstance(caught.value, ValueError)


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def bare_env(monkeypatch, tmp_path):
    """No credentials, no endpoints, an empty home."""
    for name in ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN", "ANTHROPIC_BASE_URL",
                 "CLAUDE_CONFIG_DIR", "OLLAMA_HOST", "OPENAI_BASE_URL", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    return tmp_path / "home"


def test_check_ready_claude_needs_a_login_or_a_key(bare_env, monkeypatch):
    opus = parse_models("opus")[0]
    with pytest.raises(AgentConfigError, match="ANTHROPIC_API_KEY"):
        check_ready(opus)
    (bare_env / ".claude").mkdir(parents=True)
    (bare_env / ".claude" / ".credentials.json").write_text("{}")
    check_ready(opus)  # a Claude login is enough
    (bare_env / ".claude" / ".credentials.json").unlink()
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-x")
    check_ready(opus)
    check_ready(opus, base_url=f"http://127.0.0.1:{_closed_port()}/v1")  # --base-url is for openai/ models
    monkeypatch.setenv("ANTHROPIC_BASE_URL", f"http://127.0.0.1:{_closed_port()}")
    with pytest.raises(AgentConfigError, match="ANTHROPIC_BASE_URL .* unreachable"):
        check_ready(opus)


def test_check_ready_ollama(bare_env, monkeypatch, ollama_api):
    setting = parse_models("ollama/qwen2.5:7b")[0]
    check_ready(setting)  # the fixture set OLLAMA_HOST to the stand-in
    check_ready(parse_models("ollama/llama3.2")[0])  # ":latest" is the tag a bare name means
    with pytest.raises(AgentConfigError, match="no model 'mistral:7b': run `ollama pull mistral:7b`"):
        check_ready(parse_models("ollama/mistral:7b")[0])
    # Without OLLAMA_HOST, Ollama's default address is tried (here pointed at the stand-in, then at a closed port).
    from pytest_mobium_evals.drivers.agents import endpoints

    monkeypatch.setattr(endpoints, "OLLAMA_DEFAULT_HOST", os.environ["OLLAMA_HOST"].split("://")[-1])
    monkeypatch.delenv("OLLAMA_HOST")
    check_ready(setting)
    monkeypatch.setattr(endpoints, "OLLAMA_DEFAULT_HOST", f"127.0.0.1:{_closed_port()}")
    with pytest.raises(AgentConfigError, match="OLLAMA_HOST is not set and nothing answers at 127.0.0.1:"):
        check_ready(setting)
    monkeypatch.setenv("OLLAMA_HOST", f"127.0.0.1:{_closed_port()}")
    with pytest.raises(AgentConfigError, match="OLLAMA_HOST .* unreachable"):
        check_ready(setting)


def test_check_ready_openai(bare_env, monkeypatch, openai_api):
    setting = parse_models("openai/local-model")[0]
    check_ready(setting)
    with pytest.raises(AgentConfigError, match="serves no model 'gpt-9'"):
        check_ready(parse_models("openai/gpt-9")[0])
    monkeypatch.delenv("OPENAI_BASE_URL")
    with pytest.raises(AgentConfigError, match="--base-url or OPENAI_BASE_URL"):
        check_ready(setting)
    check_ready(setting, base_url=openai_api.base_url)
    with pytest.raises(AgentConfigError, match="unreachable"):
        check_ready(setting, base_url=f"http://127.0.0.1:{_closed_port()}/v1")


def test_claude_home_holds_the_credentials_and_nothing_else(bare_env, tmp_path):
    real = bare_env / ".claude"
    (real / "skills" / "secret-rule").mkdir(parents=True)
    (real / "skills" / "secret-rule" / "SKILL.md").write_text("---\nname: secret-rule\n---\nAlways say X.")
    (real / "CLAUDE.md").write_text("Always say X.")
    (real / "settings.json").write_text(json.dumps({"permissions": {"allow": ["Bash"]}}))
    (real / ".credentials.json").write_text('{"claudeAiOauth": {"accessToken": "t"}}')

    home, cwd = claude.isolated_home(tmp_path / "scratch")
    files = sorted(str(p.relative_to(home)) for p in home.rglob("*") if p.is_file())
    assert files == [".claude/.credentials.json"]
    assert (home / ".claude" / ".credentials.json").read_text() == (real / ".credentials.json").read_text()
    assert (home / ".claude" / ".credentials.json").stat().st_mode & 0o077 == 0
    assert list(cwd.iterdir()) == []


def test_claude_options_isolate_the_cli(tmp_path):
    setting = parse_models("opus:high")[0]
    spec = SimpleNamespace(command=["mobium", "mcp", "--device", "emulator-5554"], env={"A": "1"})
    options = claude.build_options(setting, spec, claude.Limits(), tmp_path / "h", tmp_path / "c",
                                   "http://127.0.0.1:9")
    assert options.tools == [] and options.setting_sources == [] and options.strict_mcp_config
    assert options.permission_mode == "dontAsk" and options.allowed_tools == ["mcp__mobium"]
    server = options.mcp_servers["mobium"]
    assert (server["type"], server["command"], server["args"]) == ("stdio", "mobium",
                                                                   ["mcp", "--device", "emulator-5554"])
    # The server under test keeps the user's real HOME; only the CLI gets the temporary one.
    assert server["env"]["A"] == "1" and server["env"]["HOME"] == os.environ["HOME"]
    assert options.effort == "high" and options.model == "claude-opus-5-5"
    assert options.output_format == {"type": "json_schema", "schema": FINAL_SCHEMA}
    assert "no-session-persistence" in options.extra_args
    env = options.env
    assert env["HOME"] == str(tmp_path / "h") and env["CLAUDE_CONFIG_DIR"] == str(tmp_path / "h" / ".claude")
    assert env["CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC"] == "1"
    assert env["ANTHROPIC_BASE_URL"] == "http://127.0.0.1:9"


def test_claude_registers_another_server_under_its_own_name(tmp_path):
    """--tool-server: the CLI names the server for what it is, so its tools reach the model as
    mcp__mobile-mcp__<tool>, not as Mobium's; the limit hook counts that server's calls."""
    from pytest_mobium_evals.reach.toolserver import ToolServerSpec

    spec = ToolServerSpec.external("npx -y @mobilenext/mobile-mcp@1.0.4", "emulator-5554")
    options = claude.build_options(parse_models("haiku:low")[0], spec, claude.Limits(), tmp_path / "h",
                                   tmp_path / "c", None)
    assert options.allowed_tools == ["mcp__mobile-mcp"] and list(options.mcp_servers) == ["mobile-mcp"]
    trial = claude._Trial(parse_models("haiku:low")[0], claude.Limits(max_tool_calls=1), lambda *a, **k: None)
    trial.server = claude.server_name(spec)
    import asyncio

    assert asyncio.run(trial.pre_tool_use({"tool_name": "mcp__mobile-mcp__mobile_list_apps"}, None, None)) == {}
    denied = asyncio.run(trial.pre_tool_use({"tool_name": "mcp__mobile-mcp__mobile_list_apps"}, None, None))
    assert denied["hookSpecificOutput"]["permissionDecision"] == "deny" and trial.tool_calls == 1
    assert asyncio.run(trial.pre_tool_use({"tool_name": "mcp__mobium__app_map"}, None, None)) == {}


@pytest.mark.parametrize("value, status", [
    ({"status": "done", "answer": "42", "reason": "r"}, "done"),
    ('{"status": "cannot", "answer": null, "reason": "r"}', "cannot"),
    ({"status": "maybe"}, None),
    ("not json", None),
    ('```json\n{"status": "done", "answer": "4", "reason": "r"}\n```', "done"),
    ("{broken", None),
    (None, None),
    (["done"], None),
])
def test_claim_from_output(value, status):
    assert claim_from_output(value).status == status


def test_mcp_tool_as_function_and_its_result_as_text():
    tool = SimpleNamespace(name="app_tap", description="Tap.", input_schema={"properties": {"target": {}}})
    assert function_schema(tool) == {"type": "function", "function": {
        "name": "app_tap", "description": "Tap.",
        "parameters": {"type": "object", "properties": {"target": {}}}}}
    result = SimpleNamespace(content=[SimpleNamespace(type="text", text="ok"), SimpleNamespace(type="image")],
                             structured_content=None)
    assert result_text(result) == "ok\n[image]"
