"""Claude through claude-agent-sdk and its bundled CLI, with the trial's tool server as its only tool source.

What the model can reach is exactly the MCP server under test: no built-in tools (`tools=[]`), no MCP servers but
ours (strict MCP config), no settings, CLAUDE.md, skills or plugins (`setting_sources=[]`, an empty temporary HOME
and config dir holding nothing but a copy of the login's credentials file), an empty working directory, no session
files, no non-essential traffic. probes/context_leak.py checks this against a planted CLAUDE.md and skill.

Limits are enforced here rather than trusted to the model: a PreToolUse hook counts the server's tool calls and
denies the first one past the limit, then the run is interrupted; the time limit cancels the run. Either way the
trial is unreported (no claim)."""

from __future__ import annotations

import asyncio
import os
import shutil
import stat
import tempfile
from pathlib import Path
from typing import Any, Optional

from pytest_mobium_evals.core.tasks import Claim
from pytest_mobium_evals.core.transcript import EventKind

from . import base
from .base import AgentInfraError, AgentRun, Limits, ModelAPIError, ModelSetting, Recorder, stop_reason, written_call
from .prompt import FINAL_SCHEMA, SYSTEM_PROMPT, claim_from_output

SERVER_NAME = "mobium"
STRUCTURED_OUTPUT_TOOL = "StructuredOutput"  # the CLI's own tool for --json-schema answers
CREDENTIALS_FILE = ".credentials.json"  # where `claude login` keeps its OAuth tokens on Linux
ENV_CREDENTIALS = ("ANTHROPIC_API_KEY", "ANTHROPIC_AUTH_TOKEN", "CLAUDE_CODE_OAUTH_TOKEN")
INTERRUPT_GRACE_S = 10.0  # after an interrupt, how long to wait for the CLI's closing result
# What the CLI answers for a call whose tool server went away (see _check_server_alive).
SERVER_GONE = ("Connection closed",)
SERVER_GONE_PREFIXES = ("MCP error -32000: Connection closed", "MCP error -32000: Not connected")


def real_config_dir() -> Path:
    configured = os.environ.get("CLAUDE_CONFIG_DIR")
    return Path(configured) if configured else Path.home() / ".claude"


def credential_source() -> Optional[str]:
    """What the CLI will authenticate with, or None when there is nothing."""
    for name in ENV_CREDENTIALS:
        if os.environ.get(name):
            return name
    if (real_config_dir() / CREDENTIALS_FILE).is_file():
        return str(real_config_dir() / CREDENTIALS_FILE)
    return None


# The CLI restarts a stdio server that died, on its next use, without a word in the message stream (its MCP status
# reads "connected" again). So the server is started through a one-line shell that notes every start in a file: a
# second start means the first server died mid-trial.
START_LOGGER = 'echo started >> "$0"; exec "$@"'


def tool_server_config(spec: Any, starts_file: Optional[Path] = None) -> dict:
    command = list(spec.command)
    if starts_file is not None:
        command = ["/bin/sh", "-c", START_LOGGER, str(starts_file)] + command
    # The CLI hands its own environment to the server, temporary HOME included; the server under test gets the
    # user's real one back (Mobium keeps its state and finds the Android SDK there). The spec's own env wins.
    env = {**server_home_env(), **dict(getattr(spec, "env", None) or {})}
    return {server_name(spec): {"type": "stdio", "command": command[0], "args": command[1:], "env": env}}


def server_name(spec: Any) -> str:
    """The name the CLI registers the trial's one server under: Mobium's, or --tool-server's own (its tools are
    then mcp__<name>__<tool>, so the model is not told another server's tools are Mobium's)."""
    return getattr(spec, "name", None) or SERVER_NAME


def tool_prefix(spec: Any) -> str:
    return f"mcp__{server_name(spec)}__"


def server_home_env() -> dict[str, str]:
    home = os.environ.get("HOME") or str(Path.home())
    defaults = {"XDG_CONFIG_HOME": ".config", "XDG_CACHE_HOME": ".cache", "XDG_DATA_HOME": ".local/share",
                "XDG_STATE_HOME": ".local/state"}
    return {"HOME": home, **{name: os.environ.get(name) or str(Path(home) / rel) for name, rel in defaults.items()}}


def server_starts(starts_file: Path) -> int:
    try:
        return len(starts_file.read_text().split())
    except FileNotFoundError:
        return 0


def isolated_home(scratch: Path) -> tuple[Path, Path]:
    """An empty HOME (with the login's credentials file and nothing else) and an empty working directory."""
    home, cwd = scratch / "home", scratch / "cwd"
    (home / ".claude").mkdir(parents=True)
    cwd.mkdir()
    source = real_config_dir() / CREDENTIALS_FILE
    if source.is_file():
        target = home / ".claude" / CREDENTIALS_FILE
        shutil.copyfile(source, target)
        target.chmod(stat.S_IRUSR | stat.S_IWUSR)
    return home, cwd


def cli_env(home: Path, limits: Limits, base_url: Optional[str]) -> dict[str, str]:
    env = {
        "HOME": str(home),
        # The inherited environment may point the CLI at the user's real config; pin every lookup to the
        # temporary home.
        "CLAUDE_CONFIG_DIR": str(home / ".claude"),
        "XDG_CONFIG_HOME": str(home / ".config"),
        "XDG_CACHE_HOME": str(home / ".cache"),
        "XDG_DATA_HOME": str(home / ".local" / "share"),
        "XDG_STATE_HOME": str(home / ".local" / "state"),
        "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1",
        "DISABLE_AUTOUPDATER": "1",
        # The CLI retries API errors itself, with backoff; bound it to the harness's attempt count.
        "CLAUDE_CODE_MAX_RETRIES": str(max(0, base.API_ATTEMPTS - 1)),
        "MCP_TOOL_TIMEOUT": str(int(limits.max_seconds * 1000)),
        # One API request's bound, as the loop's providers take it (--request-timeout).
        "API_TIMEOUT_MS": str(int(limits.request_timeout * 1000)),
    }
    if base_url:
        env["ANTHROPIC_BASE_URL"] = base_url
    return env


def _block_text(content: Any) -> str:
    """A tool result's content as text: strings as they are, text blocks joined, images named."""
    if content is None:
        return ""
    if isinstance(content, str):
        return content
    parts = []
    for item in content:
        if isinstance(item, dict) and item.get("type") == "text":
            parts.append(item.get("text", ""))
        elif isinstance(item, dict):
            parts.append(f"[{item.get('type', 'content')}]")
        else:
            parts.append(str(item))
    return "\n".join(parts)


class _Trial:
    """The state of one Claude run while its messages stream in."""

    def __init__(self, setting: ModelSetting, limits: Limits, record: Recorder):
        self.setting, self.limits, self.record = setting, limits, record
        self.tool_calls = 0  # calls to the server's tools that were let through
        self.hit_limit: Optional[str] = None
        self.stop = asyncio.Event()
        self.result: Any = None
        self.usage_by_message: dict[str, dict] = {}
        self.api_error: Optional[str] = None
        self.tool_names: dict[str, str] = {}  # tool_use id -> short name
        self.starts_file: Optional[Path] = None
        self.server = SERVER_NAME  # the name its tool server is registered under (server_name)
        self.server_up = False  # the CLI's init message said the tool server connected
        self.tools: list[str] = []  # the server's tools as the CLI offers them (its init message's list)
        # The text the model wrote after its last call to the server's tools: what it stopped with, before its final
        # answer or in place of one (None once it calls a tool again).
        self.stop_text: Optional[str] = None

    def written_call(self) -> Optional[str]:
        """The server's tool the model's stop text names as a call it wrote instead of making (base.written_call)."""
        short = [name.removeprefix(self.prefix) for name in self.tools if name.startswith(self.prefix)]
        return written_call(self.stop_text, short, prefix=self.prefix)

    @property
    def prefix(self) -> str:
        return f"mcp__{self.server}__"

    def check_server(self, result_text: str, is_error: bool) -> None:
        if self.starts_file is not None and server_starts(self.starts_file) > 1:
            raise AgentInfraError("tool server died mid-trial: the Claude CLI had to start it again")
        if is_error:
            _check_server_alive(result_text)

    async def pre_tool_use(self, hook_input: dict, tool_use_id: Optional[str], context: Any) -> dict:
        name = hook_input.get("tool_name", "")
        if not name.startswith(self.prefix):
            return {}
        if self.tool_calls >= self.limits.max_tool_calls:
            self.hit_limit = "tool_calls"
            self.stop.set()
            return {"hookSpecificOutput": {
                "hookEventName": "PreToolUse", "permissionDecision": "deny",
                "permissionDecisionReason": f"tool-call limit ({self.limits.max_tool_calls}) reached"}}
        self.tool_calls += 1
        return {}

    def usage(self) -> tuple[int, int]:
        usage = getattr(self.result, "usage", None)
        if usage:
            return _tokens_in(usage), int(usage.get("output_tokens") or 0)
        # No result (the run was cut off): add up what the assistant messages reported.
        total_in = sum(_tokens_in(u) for u in self.usage_by_message.values())
        total_out = sum(int(u.get("output_tokens") or 0) for u in self.usage_by_message.values())
        return total_in, total_out


def _tokens_in(usage: dict) -> int:
    return sum(int(usage.get(key) or 0)
               for key in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"))


def build_options(setting: ModelSetting, spec: Any, limits: Limits, home: Path, cwd: Path,
                  base_url: Optional[str], trial: Optional[_Trial] = None, stderr=None,
                  starts_file: Optional[Path] = None):
    from claude_agent_sdk import ClaudeAgentOptions, HookMatcher  # noqa: PLC0415  claude_agent_sdk, only for Claude models

    hooks = None
    if trial is not None:
        hooks = {"PreToolUse": [HookMatcher(matcher=None, hooks=[trial.pre_tool_use])]}
    # The server's tools by name when the spec lists them; otherwise the rule for every tool of that one server
    # (with strict MCP config and no built-in tools, there is nothing else it could match).
    prefix = tool_prefix(spec)
    tool_names = [prefix + name for name in getattr(spec, "tools", None) or ()] or [f"mcp__{server_name(spec)}"]
    return ClaudeAgentOptions(
        model=setting.name,
        effort=setting.effort,
        system_prompt=limits.system_prompt or SYSTEM_PROMPT,
        mcp_servers=tool_server_config(spec, starts_file),
        strict_mcp_config=True,
        tools=[],
        allowed_tools=tool_names,
        permission_mode="dontAsk",
        setting_sources=[],
        skills=[],
        cwd=str(cwd),
        env=cli_env(home, limits, base_url),
        extra_args={"no-session-persistence": None},
        output_format={"type": "json_schema", "schema": FINAL_SCHEMA},
        # A backstop only: the hook stops the run at the tool-call limit long before this.
        max_turns=2 * limits.max_tool_calls + 10,
        hooks=hooks,
        stderr=stderr,
    )


async def run_claude(setting: ModelSetting, prompt: str, spec: Any, limits: Limits, on_event, workdir: Path) \
        -> AgentRun:
    from claude_agent_sdk import ClaudeSDKClient, ClaudeSDKError  # noqa: PLC0415  claude_agent_sdk, only for Claude models

    record = Recorder(on_event)
    record(EventKind.PROMPT, model=setting.label, system=limits.system_prompt or SYSTEM_PROMPT, text=prompt)
    trial = _Trial(setting, limits, record)
    trial.server = server_name(spec)
    stderr_tail: list[str] = []
    # Only ANTHROPIC_BASE_URL points Claude elsewhere: --base-url is the OpenAI-compatible server's.
    base_url = os.environ.get("ANTHROPIC_BASE_URL") or None
    Path(workdir).mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="claude-", dir=workdir))
    try:
        home, cwd = isolated_home(scratch)
        trial.starts_file = scratch / "server-starts"
        options = build_options(setting, spec, limits, home, cwd, base_url, trial,
                                stderr=lambda line: _keep_tail(stderr_tail, line), starts_file=trial.starts_file)
        client = ClaudeSDKClient(options)
        try:
            await asyncio.wait_for(_converse(client, trial, prompt), timeout=limits.max_seconds)
        except asyncio.TimeoutError:
            if not trial.server_up:
                # The time went on starting the CLI and its tool server, before the model saw a tool.
                message = f"the tool server did not connect within the trial's {limits.max_seconds:g} s"
                record(EventKind.ERROR, where="infra", message=message)
                await _interrupt(client)
                raise AgentInfraError(message) from None
            trial.hit_limit = trial.hit_limit or "time"
            record(EventKind.ERROR, where="limit", message=f"time limit ({limits.max_seconds:g} s) reached")
            # Abort the turn in flight first: a CLI waiting on the API ignores stdin's end for its 5 s grace.
            await _interrupt(client)
        except AgentInfraError as exc:
            record(EventKind.ERROR, where="infra", message=str(exc))
            raise
        except ClaudeSDKError as exc:
            message = trial.api_error or f"Claude CLI failed: {exc}"
            if trial.hit_limit is None:
                tail = "; ".join(stderr_tail[-3:])
                record(EventKind.ERROR, where="infra", message=message, stderr=tail)
                error = ModelAPIError if trial.api_error else AgentInfraError
                raise error(message + (f" ({tail})" if tail and not trial.api_error else "")) from exc
        finally:
            await _close(client)
    finally:
        shutil.rmtree(scratch, ignore_errors=True)

    claim = Claim()
    if trial.hit_limit is None and trial.result is not None:
        claim = claim_from_output(trial.result.structured_output)
    tokens_in, tokens_out = trial.usage()
    cost = getattr(trial.result, "total_cost_usd", None)
    # Why it stopped, read as the tool loop reads it: a call written as text is text_tool_call, with its text.
    written = trial.written_call() if trial.hit_limit is None else None
    if written is not None:
        record(EventKind.TEXT_TOOL_CALL, tool=written, text=trial.stop_text)
    why = stop_reason(trial.hit_limit, claim, text_call=written is not None)
    stop_text = trial.stop_text if trial.hit_limit is None else None
    record(EventKind.FINAL, **claim.to_json(), hit_limit=trial.hit_limit, stop_reason=why, tool_calls=trial.tool_calls,
           tokens_in=tokens_in, tokens_out=tokens_out, cost_usd=cost)
    return AgentRun(claim=claim, tool_calls=trial.tool_calls, tokens_in=tokens_in, tokens_out=tokens_out,
                    cost_usd=cost, hit_limit=trial.hit_limit, model=setting.label, stop_reason=why,
                    stop_text=stop_text)


def _keep_tail(lines: list[str], line: str) -> None:
    lines.append(line.rstrip())
    del lines[:-20]


async def _interrupt(client: Any) -> None:
    try:
        await asyncio.wait_for(client.interrupt(), timeout=INTERRUPT_GRACE_S)
    except Exception:  # already gone, or not answering: disconnect's escalation deals with it
        pass


async def _close(client: Any) -> None:
    # Not under a timeout of ours: disconnect bounds itself (stdin closed, then SIGTERM, then SIGKILL, about 20 s
    # at worst), and cancelling it midway would leave the CLI and its tool server running, holding the device.
    try:
        await client.disconnect()
    except Exception:  # the process is reaped by disconnect's own escalation; nothing more to do here
        pass


async def _converse(client: Any, trial: _Trial, prompt: str) -> None:
    from claude_agent_sdk import (  # noqa: PLC0415  claude_agent_sdk, only for Claude models
        AssistantMessage,
        ResultMessage,
        SystemMessage,
        TextBlock,
        ThinkingBlock,
        ToolResultBlock,
        ToolUseBlock,
        UserMessage,
    )

    record = trial.record
    await client.connect()
    await client.query(prompt)
    interrupted = False
    async for message in client.receive_response():
        if isinstance(message, SystemMessage) and message.subtype == "init":
            _check_server_started(message.data, trial.server)
            trial.server_up = True
            trial.tools = [str(t) for t in message.data.get("tools") or []]
        elif isinstance(message, AssistantMessage):
            if message.message_id and message.usage:
                if message.message_id not in trial.usage_by_message:
                    # The transcript's model step: one per reply (the CLI hands over a reply block by block).
                    record(EventKind.MODEL, id=message.message_id, tokens={
                        "input": _tokens_in(message.usage), "output": int(message.usage.get("output_tokens") or 0)})
                trial.usage_by_message[message.message_id] = message.usage
            if message.error:
                trial.api_error = f"API error ({message.error})"
            for block in message.content:
                if isinstance(block, TextBlock):
                    record(EventKind.ASSISTANT, text=block.text)
                    if block.text.strip():
                        trial.stop_text = block.text
                elif isinstance(block, ThinkingBlock):
                    record(EventKind.ASSISTANT, thinking=block.thinking)
                elif isinstance(block, ToolUseBlock):
                    short = block.name.removeprefix(trial.prefix)
                    trial.tool_names[block.id] = short
                    if block.name == STRUCTURED_OUTPUT_TOOL:
                        record(EventKind.ASSISTANT, structured_output=block.input)
                    else:
                        trial.stop_text = None  # it went on calling tools: what it said before was not its stop
                        record(EventKind.TOOL_CALL, id=block.id, tool=short, arguments=block.input)
        elif isinstance(message, UserMessage) and isinstance(message.content, list):
            for block in message.content:
                if isinstance(block, ToolResultBlock):
                    tool = trial.tool_names.get(block.tool_use_id, "")
                    if tool == STRUCTURED_OUTPUT_TOOL:
                        continue
                    record(EventKind.TOOL_RESULT, id=block.tool_use_id, tool=tool, text=_block_text(block.content),
                           is_error=bool(block.is_error))
                    trial.check_server(_block_text(block.content), bool(block.is_error))
        elif isinstance(message, ResultMessage):
            trial.check_server("", False)
            trial.result = message
            if message.is_error and trial.hit_limit is None:
                if message.subtype == "error_max_turns":
                    trial.hit_limit = "tool_calls"
                else:  # the API still failing after the CLI's own retries, or the CLI failing: not the model
                    status = message.api_error_status
                    detail = message.result or ", ".join(message.errors or []) or message.subtype
                    what = f"API error {status}" if status else f"the Claude CLI ended with {message.subtype}"
                    trial.api_error = f"{what}: {detail}"
                    raise (ModelAPIError if status else AgentInfraError)(trial.api_error)
            return
        if trial.stop.is_set() and not interrupted:
            interrupted = True
            record(EventKind.ERROR, where="limit", message=f"tool-call limit ({trial.limits.max_tool_calls}) reached")
            await client.interrupt()


def _check_server_started(data: dict, name: str = SERVER_NAME) -> None:
    for server in data.get("mcp_servers") or []:
        if server.get("name") == name and server.get("status") != "connected":
            raise AgentInfraError(f"tool server did not start: status {server.get('status')}")


def _check_server_alive(result_text: str) -> None:
    """A tool error is usually the model's mistake; it is infrastructure when the server itself went away. The CLI
    (2.1.332) answers a call whose stdio server died with the bare error "Connection closed" and restarts the server
    on the next call, so its MCP status reads "connected" again: this result text is the only trace of the death."""
    text = result_text.strip()
    if text in SERVER_GONE or any(text.startswith(prefix) for prefix in SERVER_GONE_PREFIXES):
        raise AgentInfraError(f"tool server died mid-trial: {text}")
