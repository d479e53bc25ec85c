"""The agent drivers: Claude (claude-agent-sdk and its bundled CLI), Ollama, and OpenAI-compatible servers.

Each gets the trial's MCP tool server as its only tools, runs under the same limits, and ends with a structured
final answer (`{status: done|cannot, answer, reason}`), never a tool call. The plugin calls:

    settings = parse_models("opus:medium,ollama/qwen2.5:7b")       # --model
    check_ready(setting, base_url)                                 # before any trial: one clear line if not
    run = run_agent(setting, prompt, server_spec, Limits(), on_event, workdir, base_url)

`on_event` receives every message as a JSON-able dict (kind prompt/assistant/tool_call/tool_result/final/error,
with `ts` and `elapsed_s`): the trial's transcript.jsonl."""

from __future__ import annotations

import asyncio
import json
import os
import re
import socket
import urllib.request
from pathlib import Path
from typing import Any, Callable, Optional
from urllib.parse import urlsplit

from pytest_mobium_evals.reach.private_state import private_state

from . import endpoints
from .base import AgentConfigError, AgentInfraError, AgentRun, InfraError, Limits, ModelSetting
from .claude import credential_source, run_claude
from .endpoints import ollama_host, openai_base_url
from .loop import run_loop

__all__ = ["ModelSetting", "parse_models", "check_ready", "Limits", "AgentRun", "run_agent", "AgentInfraError",
           "AgentConfigError", "InfraError", "DEFAULT_MODEL", "EFFORTS"]

DEFAULT_MODEL = "opus:medium"
EFFORTS = ("low", "medium", "high")
CLAUDE_ALIASES = {"haiku": "claude-haiku-5-5", "sonnet": "claude-sonnet-5-5", "opus": "claude-opus-5-5"}
PROVIDER_PREFIXES = {"ollama/": "ollama", "openai/": "openai"}
_CLAUDE_ID = re.compile(r"claude-[a-z0-9][a-z0-9.\-]*")
_USAGE = "use haiku, sonnet, opus or claude-<id>, ollama/<name>, openai/<name>, each optionally :low|:medium|:high"


def parse_models(text: Optional[str]) -> list[ModelSetting]:
    """The --model value: a comma-separated list of NAME[:EFFORT]. Raises AgentConfigError on the first bad item."""
    text = DEFAULT_MODEL if text is None or not text.strip() else text
    settings: list[ModelSetting] = []
    for item in (part.strip() for part in text.split(",")):
        if not item:
            raise AgentConfigError(f"--model {text!r}: empty model name in the list ({_USAGE})")
        setting = _parse_one(item)
        if any(s.label == setting.label for s in settings):
            raise AgentConfigError(f"--model {text!r}: {setting.label!r} is given twice")
        settings.append(setting)
    return settings


def _parse_one(item: str) -> ModelSetting:
    for prefix, provider in PROVIDER_PREFIXES.items():
        if item.startswith(prefix):
            # Ollama names carry their own colon ("qwen2.5:7b"): only a trailing effort word is an effort.
            name, effort = item[len(prefix):], None
            head, _, tail = name.rpartition(":")
            if head and tail in EFFORTS:
                name, effort = head, tail
            if not name or any(c.isspace() for c in name):
                raise AgentConfigError(f"--model {item!r}: missing or malformed model name after {prefix!r}")
            return ModelSetting(provider=provider, name=name, effort=effort, label=item)
    name, _, effort = item.partition(":")
    if effort and effort not in EFFORTS:
        raise AgentConfigError(f"--model {item!r}: unknown effort {effort!r} (use {', '.join(EFFORTS)})")
    if name in CLAUDE_ALIASES:
        full = CLAUDE_ALIASES[name]
    elif _CLAUDE_ID.fullmatch(name):
        full = name
    elif "/" in name:
        raise AgentConfigError(f"--model {item!r}: unknown provider {name.split('/')[0]!r} ({_USAGE})")
    else:
        raise AgentConfigError(f"--model {item!r}: unknown model ({_USAGE})")
    return ModelSetting(provider="claude", name=full, effort=effort or None, label=item)


def _reachable(url: str, timeout: float = 3.0) -> Optional[str]:
    """None when something listens at the URL's host and port, else why not."""
    parts = urlsplit(url)
    if not parts.hostname:
        return "not a URL"
    port = parts.port or (443 if parts.scheme == "https" else 80)
    try:
        with socket.create_connection((parts.hostname, port), timeout=timeout):
            return None
    except OSError as exc:
        return exc.strerror or str(exc)


def _listed_models(url: str, key: str, field: str, api_key: Optional[str] = None) -> Optional[set[str]]:
    """The model names a server lists, or None when it does not answer the listing (not every server has one)."""
    request = urllib.request.Request(url, headers={"Authorization": f"Bearer {api_key}"} if api_key else {})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            data = json.loads(response.read())
        return {str(item[field]) for item in data.get(key, []) if isinstance(item, dict) and field in item}
    except (OSError, ValueError, AttributeError, TypeError):
        return None


def check_ready(setting: ModelSetting, base_url: Optional[str] = None) -> None:
    """Before any trial: raise AgentConfigError (one line, naming what to set) when this setting cannot run."""
    if setting.provider == "claude":
        if credential_source() is None:
            raise AgentConfigError(f"{setting.label}: no Claude credential: log in with `claude` (a "
                                   f"~/.claude/.credentials.json) or set ANTHROPIC_API_KEY")
        url = os.environ.get("ANTHROPIC_BASE_URL")  # --base-url is for openai/ models only
        if url and (why := _reachable(url)):
            raise AgentConfigError(f"{setting.label}: ANTHROPIC_BASE_URL {url} is unreachable ({why})")
    elif setting.provider == "ollama":
        host = ollama_host()
        if why := _reachable(host):
            if not os.environ.get("OLLAMA_HOST", "").strip():
                raise AgentConfigError(f"{setting.label}: OLLAMA_HOST is not set and nothing answers at "
                                       f"{endpoints.OLLAMA_DEFAULT_HOST} ({why}): start `ollama serve`, or set "
                                       f"OLLAMA_HOST to the Ollama server")
            raise AgentConfigError(f"{setting.label}: OLLAMA_HOST {host} is unreachable ({why})")
        models = _listed_models(f"{host.rstrip('/')}/api/tags", "models", "name")
        wanted = setting.name if ":" in setting.name else f"{setting.name}:latest"
        if models is not None and wanted not in models and setting.name not in models:
            raise AgentConfigError(f"{setting.label}: {host} has no model {setting.name!r}: "
                                   f"run `ollama pull {setting.name}` (it has: {', '.join(sorted(models)) or 'none'})")
    elif setting.provider == "openai":
        url = openai_base_url(base_url)
        if url is None:
            raise AgentConfigError(f"{setting.label}: set --base-url or OPENAI_BASE_URL to the server's API "
                                   f"(e.g. http://127.0.0.1:8080/v1)")
        if why := _reachable(url):
            raise AgentConfigError(f"{setting.label}: {url} is unreachable ({why}); check --base-url or "
                                   f"OPENAI_BASE_URL")
        models = _listed_models(f"{url.rstrip('/')}/models", "data", "id", os.environ.get("OPENAI_API_KEY"))
        # Some servers list nothing, or one model whatever they serve: only a real list that lacks it is an error.
        if models and len(models) > 1 and setting.name not in models:
            raise AgentConfigError(f"{setting.label}: {url} serves no model {setting.name!r} "
                                   f"(it lists {len(models)}, e.g. {', '.join(sorted(models)[:5])})")
    else:
        raise AgentConfigError(f"{setting.label}: unknown provider {setting.provider!r}")


def run_agent(setting: ModelSetting, prompt: str, server: Any, limits: Limits, on_event: Callable[[dict], None],
              workdir: Path, base_url: Optional[str] = None) -> AgentRun:
    """One trial's agent: start the tool server (the Claude CLI starts its own), let the model work under the
    limits, return its claim and usage. Raises AgentInfraError when the API or the tool server fails it.

    `base_url` (--base-url) is the OpenAI-compatible server's; Claude follows ANTHROPIC_BASE_URL, Ollama
    OLLAMA_HOST. `workdir` is a scratch folder of the trial's own, outside any project: the driver makes the
    agent's empty working directory and temporary HOME in it and removes them afterwards."""
    if setting.provider == "claude":
        run = run_claude
    elif setting.provider in ("ollama", "openai"):
        def run(setting, prompt, server, limits, on_event, workdir):
            return run_loop(setting, prompt, server, limits, on_event, workdir, base_url)
    else:
        raise AgentConfigError(f"{setting.label}: unknown provider {setting.provider!r}")
    # The server's machine-wide state is this run's (a trial's spec arrives with it made: nothing more is made).
    with private_state(server) as server:
        return asyncio.run(run(setting, prompt, server, limits, on_event, Path(workdir)))
