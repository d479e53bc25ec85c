"""One answer in text from any configured provider, no tools: what a reflection model is asked (the hillclimb's
proposals). The same settings, credentials and endpoints as the agent drivers (`--model`'s names), the same bounded
retries; Claude through the bundled CLI in an isolated home with no tools at all.

    reply = complete(parse_models("sonnet:medium")[0], prompt)     # TextReply(text, tokens_in, tokens_out, cost)"""

from __future__ import annotations

import asyncio
import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from .base import AgentInfraError, Limits, ModelSetting, Recorder, with_retries
from .claude import _tokens_in, cli_env, isolated_home
from .ollama import OllamaProvider
from .openai_compat import OpenAIProvider

REFLECTION_LIMITS = Limits(max_tool_calls=0, max_seconds=600)


@dataclass
class TextReply:
    text: str
    tokens_in: int
    tokens_out: int
    cost_usd: Optional[float]  # None when the provider does not say (Ollama, most OpenAI-compatible servers)


def complete(setting: ModelSetting, prompt: str, base_url: Optional[str] = None) -> TextReply:
    """Raises AgentInfraError when the provider still fails after the retries."""
    if setting.provider == "claude":
        return asyncio.run(_claude(setting, prompt))
    return asyncio.run(_chat(setting, prompt, base_url))


async def _chat(setting: ModelSetting, prompt: str, base_url: Optional[str]) -> TextReply:
    if setting.provider == "ollama":
        provider = OllamaProvider(setting)
    elif setting.provider == "openai":
        provider = OpenAIProvider(setting, base_url)
    else:
        raise AgentInfraError(f"{setting.label}: unknown provider {setting.provider!r}")
    reply = await with_retries(lambda: provider.complete([{"role": "user", "content": prompt}]), provider.label,
                               Recorder(lambda event: None))
    return TextReply(reply.text, reply.tokens_in, reply.tokens_out, None)


async def _claude(setting: ModelSetting, prompt: str) -> TextReply:
    from claude_agent_sdk import ClaudeAgentOptions, ClaudeSDKError, ResultMessage, query  # noqa: PLC0415  claude_agent_sdk, only for Claude models

    scratch = Path(tempfile.mkdtemp(prefix="claude-reflect-"))
    try:
        home, cwd = isolated_home(scratch)
        options = ClaudeAgentOptions(model=setting.name, effort=setting.effort, tools=[], allowed_tools=[],
                                     strict_mcp_config=True, mcp_servers={}, setting_sources=[], skills=[],
                                     permission_mode="dontAsk", cwd=str(cwd), max_turns=1,
                                     env=cli_env(home, REFLECTION_LIMITS, os.environ.get("ANTHROPIC_BASE_URL")),
                                     extra_args={"no-session-persistence": None})
        result = None
        try:
            async for message in query(prompt=prompt, options=options):
                if isinstance(message, ResultMessage):
                    result = message
        except ClaudeSDKError as exc:
            raise AgentInfraError(f"{setting.label}: Claude CLI failed: {exc}") from exc
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    if result is None or result.is_error:
        raise AgentInfraError(f"{setting.label}: the Claude CLI gave no answer"
                              + (f" ({result.result})" if result is not None and result.result else ""))
    usage = result.usage or {}
    return TextReply(result.result or "", _tokens_in(usage), int(usage.get("output_tokens") or 0),
                     result.total_cost_usd)
