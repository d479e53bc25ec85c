"""The tool loop for models that do not run their own (Ollama, OpenAI-compatible servers).

The driver starts the trial's MCP server with the mcp SDK's stdio client, offers its tools as functions, and runs
the conversation: each tool call the model makes goes to the server and its result back to the model, until the
model stops calling tools. Then one more request gives the final answer: no tool call asked for, the answer
constrained to FINAL_SCHEMA by the provider's structured-output option, the tools still offered so that the request
shares the turns' prefix (and the server's prompt cache). Same limits as Claude: the call past the tool-call limit is
not made, and the time limit cancels everything; either way the trial is unreported. A reply that writes a tool call
as text ends the turns too (recorded as that), unless Limits.nudge_text_calls tells the model once. Every request
bounds the reply's tokens (Limits.max_output_tokens); a reply cut there is said in the transcript and read as it
is. A request the loop gives up on (the request's timeout, the trial's time limit) is dropped with its connection,
which is how a server learns to stop generating it (llama.cpp's server cancels the task)."""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from pytest_mobium_evals.core.tasks import Claim
from pytest_mobium_evals.core.transcript import EventKind

from .base import (
    AgentInfraError,
    AgentRun,
    Limits,
    ModelAPIError,
    ModelSetting,
    Recorder,
    stop_reason,
    with_retries,
    written_call,
)
from .context import truncation
from .ollama import OllamaProvider
from .openai_compat import OpenAIProvider
from .prompt import FINAL_REQUEST, FINAL_SCHEMA, SYSTEM_PROMPT, claim_from_output
from .provider import Provider, Reply, ToolCall  # noqa: F401  (Reply and ToolCall: the loop's vocabulary)

SERVER_START_TIMEOUT_S = 60.0


def function_schema(tool: Any) -> dict:
    """An MCP tool as an OpenAI/Ollama function definition."""
    parameters = dict(tool.input_schema or {"type": "object", "properties": {}})
    parameters.setdefault("type", "object")
    parameters.setdefault("properties", {})
    return {"type": "function",
            "function": {"name": tool.name, "description": tool.description or "", "parameters": parameters}}


def result_text(result: Any) -> str:
    """An MCP tool result as the text a function-calling model reads (images are named, not sent)."""
    parts = []
    for item in result.content or []:
        kind = getattr(item, "type", "")
        if kind == "text":
            parts.append(item.text)
        else:
            parts.append(f"[{kind or 'content'}]")
    if not parts and getattr(result, "structured_content", None) is not None:
        parts.append(json.dumps(result.structured_content))
    return "\n".join(parts)


def make_provider(setting: ModelSetting, base_url: Optional[str], limits: Limits) -> Provider:
    if setting.provider == "ollama":
        size = limits.prompt_size
        return OllamaProvider(setting, limits.request_timeout, num_ctx=None if size is None else size.num_ctx,
                              max_output_tokens=limits.max_output_tokens)
    return OpenAIProvider(setting, base_url, limits.request_timeout, max_output_tokens=limits.max_output_tokens)


class _ServerGone(Exception):
    pass


async def run_loop(setting: ModelSetting, prompt: str, spec: Any, limits: Limits, on_event, workdir: Path,
                   base_url: Optional[str] = None) -> AgentRun:
    record = Recorder(on_event)
    system = limits.system_prompt or SYSTEM_PROMPT
    record(EventKind.PROMPT, model=setting.label, system=system, text=prompt)
    provider = make_provider(setting, base_url, limits)
    # Ollama's prompt_eval_count leaves out what its cache held, so only an OpenAI-compatible server's count (the
    # whole prompt, cached or not) tells a cut prompt; Ollama is given a num_ctx that holds it instead.
    state = _State(prompt_size=limits.prompt_size if setting.provider == "openai" else None)
    Path(workdir).mkdir(parents=True, exist_ok=True)
    scratch = Path(tempfile.mkdtemp(prefix="loop-", dir=workdir))
    try:
        try:
            await asyncio.wait_for(_converse(provider, system, prompt, spec, limits, record, state, scratch),
                                   timeout=limits.max_seconds)
        except asyncio.TimeoutError:
            if not state.server_ready:
                # The time went on starting the server, before the model saw a tool: the infrastructure's.
                exc = AgentInfraError(f"the tool server did not finish its handshake within the trial's "
                                      f"{limits.max_seconds:g} s{_stderr_note(scratch)}")
                record(EventKind.ERROR, where="infra", message=str(exc))
                raise exc from None
            state.hit_limit = state.hit_limit or "time"
            state.claim = Claim()
            record(EventKind.ERROR, where="limit", message=f"time limit ({limits.max_seconds:g} s) reached")
        except AgentInfraError as exc:
            record(EventKind.ERROR, where="infra", message=str(exc))
            raise
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    claim = state.claim if state.hit_limit is None else Claim()
    why = stop_reason(state.hit_limit, claim, text_call=state.text_call is not None)
    record(EventKind.FINAL, **claim.to_json(), hit_limit=state.hit_limit, stop_reason=why, tool_calls=state.tool_calls,
           tokens_in=state.tokens_in, tokens_out=state.tokens_out, cost_usd=None)
    return AgentRun(claim=claim, tool_calls=state.tool_calls, tokens_in=state.tokens_in,
                    tokens_out=state.tokens_out, cost_usd=None, hit_limit=state.hit_limit, model=setting.label,
                    stop_reason=why, stop_text=state.stop_text if state.hit_limit is None else None,
                    nudged=state.nudged)


@dataclass
class _State:
    tool_calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    hit_limit: Optional[str] = None
    claim: Claim = field(default_factory=Claim)
    prompt_size: Any = None  # context.PromptSize: a reply that read fewer prompt tokens than its floor was cut
    text_call: Optional[str] = None  # the text of the reply that ended the turns by writing a tool call as prose
    stop_text: Optional[str] = None  # the text of the reply that ended the turns (a written call's, or any other)
    nudged: bool = False  # told once that a call written as text is not a call
    server_ready: bool = False  # the tool server answered its handshake and listed its tools

    def add(self, reply: Reply, record: Recorder, seconds: float) -> None:
        """Counts a reply's tokens, and records the reply's arrival: the transcript's model step (its tokens, what
        of its prompt the server's cache held, and how long the model took, retries included), before what the
        reply said. A reply to a prompt the server cut ends the trial as an infra_error."""
        self.tokens_in += reply.tokens_in
        self.tokens_out += reply.tokens_out
        tokens = {"input": reply.tokens_in, "output": reply.tokens_out}
        if reply.cached is not None:
            tokens["cached"] = reply.cached
        record(EventKind.MODEL, tokens=tokens, seconds=round(seconds, 3))
        cut = truncation(self.prompt_size, reply.tokens_in)
        if cut is not None:
            raise ModelAPIError(cut)


async def _converse(provider: Provider, system: str, prompt: str, spec: Any, limits: Limits, record: Recorder,
                    state: _State, scratch: Path) -> None:
    from mcp import Client, StdioServerParameters
    from mcp.client.stdio import stdio_client

    command = list(spec.command)
    # The whole environment, as the harness's own client and the Claude CLI give it: the SDK's default passes only
    # a handful of variables, and a real `mobium mcp` needs the Android SDK's.
    params = StdioServerParameters(command=command[0], args=command[1:],
                                   env={**os.environ, **dict(getattr(spec, "env", None) or {})}, cwd=str(scratch))
    stderr_path = scratch / "server.stderr"
    final: Optional[asyncio.Task] = None
    with open(stderr_path, "w") as errlog:
        try:
            async with Client(stdio_client(params, errlog=errlog), read_timeout_seconds=limits.max_seconds) as mcp:
                tools = await asyncio.wait_for(mcp.list_tools(), timeout=SERVER_START_TIMEOUT_S)
                state.server_ready = True
                functions = [function_schema(tool) for tool in tools.tools]
                messages = await _turns(provider, system, prompt, functions, mcp, limits, record, state)
                if messages is not None:
                    # The tools are done with: the final answer is asked for while the server shuts down (which
                    # takes the built-in server about a second), not after.
                    final = asyncio.ensure_future(_final_answer(provider, messages, functions, record, state, limits))
        except BaseException as exc:  # noqa: BLE001 - sorted out below, everything else re-raised as it was
            if final is not None:
                final.cancel()
            raise _infra_error(exc, stderr_path) from exc
    if final is not None:
        await final


def _leaves(exc: BaseException) -> list[BaseException]:
    """The errors inside anyio's exception groups (a dying stdio transport fails several tasks at once)."""
    if isinstance(exc, BaseExceptionGroup):
        return [leaf for inner in exc.exceptions for leaf in _leaves(inner)]
    return [exc]


def _infra_error(exc: BaseException, stderr_path: Path) -> BaseException:
    """What a failure inside the MCP session means for the trial: the provider's own AgentInfraError as it is; a
    cancellation (the time limit) as a cancellation; a broken stream or a dead process as the tool server gone;
    anything else (a bug) as itself."""
    leaves = _leaves(exc)
    for leaf in leaves:
        if isinstance(leaf, AgentInfraError):
            return leaf
    if all(isinstance(leaf, asyncio.CancelledError) for leaf in leaves):
        return leaves[0]
    gone = _server_gone_types()
    cause = next((leaf for leaf in leaves if isinstance(leaf, gone)), None)
    if cause is None:
        return exc  # a bug or an interrupt, not the server: keep its own traceback
    tail = _tail(stderr_path)
    return AgentInfraError(f"tool server died mid-trial: {cause}" + (f" (stderr: {tail})" if tail else ""))


def _server_gone_types() -> tuple[type[BaseException], ...]:
    import anyio  # noqa: PLC0415  anyio, only when a tool call fails
    from mcp.shared.exceptions import MCPError

    return (_ServerGone, OSError, MCPError, anyio.ClosedResourceError, anyio.BrokenResourceError, anyio.EndOfStream)


def _stderr_note(scratch: Path) -> str:
    tail = _tail(scratch / "server.stderr")
    return f" (stderr: {tail})" if tail else ""


def _tail(path: Path, lines: int = 3) -> str:
    try:
        return " | ".join(path.read_text(errors="replace").strip().splitlines()[-lines:])
    except OSError:
        return ""


async def _turns(provider: Provider, system: str, prompt: str, functions: list[dict], mcp: Any, limits: Limits,
                 record: Recorder, state: _State) -> Optional[list[dict]]:
    """The tool-calling turns. Returns the conversation when the model stopped calling tools (its final answer is
    due), None when a limit stopped it."""
    from mcp.shared.exceptions import MCPError

    messages: list[dict] = [{"role": "system", "content": system}, {"role": "user", "content": prompt}]
    require = limits.require_first_call  # the first request only
    while True:
        asked = time.monotonic()
        reply = await with_retries(lambda require=require: provider.chat(messages, functions, require_call=require),
                                   provider.label, record)
        require = False
        state.add(reply, record, time.monotonic() - asked)
        if reply.thinking or reply.text:
            record(EventKind.ASSISTANT, **({"text": reply.text} if reply.text else {}),
                   **({"thinking": reply.thinking} if reply.thinking else {}))
        note_cut(reply, limits, record)
        messages.append(reply.message)
        if not reply.tool_calls:
            state.stop_text = reply.text or None
            written = written_tool_call(reply.text, functions)
            if written is None:
                break
            record(EventKind.TEXT_TOOL_CALL, tool=written, text=reply.text)
            if limits.nudge_text_calls and not state.nudged:
                # Once, and said in the transcript and the record: a model that wrote a call as prose is told the
                # call did not happen, and may make it.
                state.nudged = True
                record(EventKind.NUDGE, text=NUDGE)
                messages.append({"role": "user", "content": NUDGE})
                continue
            state.text_call = reply.text
            break
        for call in reply.tool_calls:
            record(EventKind.TOOL_CALL, id=call.id, tool=call.name, arguments=call.arguments)
            if state.tool_calls >= limits.max_tool_calls:
                state.hit_limit = "tool_calls"
                record(EventKind.ERROR, where="limit", message=f"tool-call limit ({limits.max_tool_calls}) reached")
                return None
            state.tool_calls += 1
            try:
                result = await asyncio.wait_for(mcp.call_tool(call.name, call.arguments),
                                                timeout=limits.tool_timeout)
            except asyncio.TimeoutError:
                # A stalled server or device, not the model's doing: the trial ends now, as an infra error.
                raise AgentInfraError(f"the tool server did not answer {call.name} within "
                                      f"{limits.tool_timeout:g}s") from None
            except MCPError as exc:
                if _is_transport_loss(exc):
                    raise _ServerGone(str(exc)) from exc
                # A protocol-level refusal (unknown tool, bad arguments): the model's mistake, shown to it.
                text, is_error = f"Error: {exc}", True
            except _server_gone_types() as exc:  # the stream to the server broke: it is gone
                raise _ServerGone(repr(exc)) from exc
            else:
                text, is_error = result_text(result), bool(result.is_error)
            record(EventKind.TOOL_RESULT, id=call.id, tool=call.name, text=text, is_error=is_error)
            messages.append(provider.tool_message(call, text))

    return messages


def note_cut(reply: Reply, limits: Limits, record: Recorder) -> None:
    """Says in the transcript that a reply stopped because it reached its token bound, not because the model ended
    it: a cut call or answer is read as what it is (a call the server could not parse is text, a cut final answer
    no claim), and this is why."""
    if reply.finish_reason != "length":
        return
    bound = limits.max_output_tokens
    record(EventKind.OUTPUT_LIMIT, tokens=reply.tokens_out, bound=bound,
           message=(f"the reply reached the output bound of {bound:,} tokens (--max-output-tokens) and was cut"
                    if bound else "the reply reached the server's own output bound and was cut"))


async def _final_answer(provider: Provider, messages: list[dict], functions: list[dict], record: Recorder,
                        state: _State, limits: Limits) -> None:
    """The final answer, asked with the same tools as every turn before it: templates that put the tools in the
    system block (Qwen's, Llama's) then render the same prefix, so the server's prompt cache holds it, where a
    request without them shared ~200 tokens with the cache and evicted the tool list for the next trial. The
    provider asks for no tool call (tool_choice none) and the answer in FINAL_SCHEMA."""
    messages = messages + [{"role": "user", "content": FINAL_REQUEST}]
    asked = time.monotonic()
    reply = await with_retries(lambda: provider.final(messages, FINAL_SCHEMA, functions), provider.label, record)
    state.add(reply, record, time.monotonic() - asked)
    record(EventKind.ASSISTANT, structured_output=reply.text)
    note_cut(reply, limits, record)
    state.claim = claim_from_output(reply.text)
    if state.claim.status is None:
        record(EventKind.ERROR, where="final", message="the final answer does not match the schema; no claim")


#: What a model that wrote a tool call as text is told, once, under --nudge-text-calls.
NUDGE = ("That was text, not a tool call: no tool ran. To use a tool, call it through the tool-calling interface. "
         "If you are finished, say so and stop calling tools.")


def written_tool_call(text: str, functions: list[dict]) -> Optional[str]:
    """The offered function a reply's text names as a call it did not make (base.written_call), or None."""
    return written_call(text, [f.get("function", {}).get("name") for f in functions])


def _is_transport_loss(exc: Exception) -> bool:
    text = str(exc).lower()
    return "connection closed" in text or "not connected" in text
