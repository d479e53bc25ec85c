"""Types and plumbing shared by the drivers: the model setting, limits, the run's result, the errors, the
transcript recorder, and the bounded retry with backoff for API calls."""

from __future__ import annotations

import asyncio
import functools
import json
import ssl
import time
from dataclasses import dataclass
from datetime import datetime, timezone
from typing import Any, Awaitable, Callable, Iterable, Optional, TypeVar

from pytest_mobium_evals.core.errors import MobiumEvalsError
from pytest_mobium_evals.core.tasks import Claim
from pytest_mobium_evals.core.transcript import EventKind
from pytest_mobium_evals.reach.toolserver import InfraError


class AgentConfigError(MobiumEvalsError, ValueError):
    """A model setting that cannot run: unknown name, missing credential, unreachable endpoint. Its message is one
    line naming what to set."""


class AgentInfraError(InfraError):
    """The trial could not finish for reasons outside the model's behaviour: the API still failing after retries,
    the tool server dying. The trial is recorded as infra_error, and the run goes on."""

    stop_reason = "infra_error"  # why the agent stopped, as the record says it (trial_record.StopReason)


class ModelAPIError(AgentInfraError):
    """The model's API failed the trial: still failing after the retries, a refusal no retry mends, or a prompt the
    server cut or refused as too long for its context."""

    stop_reason = "api_error"


@dataclass(frozen=True)
class ModelSetting:
    provider: str  # "claude" | "ollama" | "openai"
    name: str  # the provider's model id: "claude-opus-5-5", "qwen2.5:7b"
    effort: Optional[str]  # "low" | "medium" | "high" | None (the model's default)
    label: str  # how reports name it: "opus:medium", "ollama/qwen2.5:7b"


#: One model request's default bound: a generation, prompt processing included. A local model on a CPU reads a
#: long prompt slowly (a 19k-token first request is minutes of it), so `--request-timeout` raises it.
REQUEST_TIMEOUT_S = 300.0

#: One reply's default bound in tokens, sent with every request of the tool loop (OpenAI's max_tokens, Ollama's
#: num_predict; `--max-output-tokens`). A tool call or a final answer is tens to a few hundred tokens, and a
#: reasoning model's thinking before a call a few thousand; without a bound a model that rambles writes until its
#: context is full, which on a CPU is an hour of one request.
MAX_OUTPUT_TOKENS = 4096


@dataclass
class Limits:
    max_tool_calls: int = 40
    max_seconds: float = 300
    tool_timeout: Optional[float] = None  # one tool call; None: only the trial's time limit bounds it
    request_timeout: float = REQUEST_TIMEOUT_S  # one model request (--request-timeout)
    # Which --trial-timeout entry gave max_seconds: a model setting's own label, or None for the run's value.
    max_seconds_for: Optional[str] = None
    # The first request as counted before the run (context.PromptSize): Ollama's num_ctx, and the floor a reply's
    # prompt count is checked against. None: not counted (Claude, or a caller that did not).
    prompt_size: Any = None
    # A model that writes a tool call as text (no call made) is told so once and goes on (--nudge-text-calls);
    # off, such a reply ends the tool turns as any text does.
    nudge_text_calls: bool = False
    # What the model is told first: a surface variant's `[prompt] system` (prompt.system_prompt_of); None, the
    # default (prompt.SYSTEM_PROMPT). The transcript's prompt event keeps the text, the record the variant's name.
    system_prompt: Optional[str] = None
    # The most tokens one reply may write (--max-output-tokens); None sends no bound, and the server's own applies.
    max_output_tokens: Optional[int] = MAX_OUTPUT_TOKENS
    # The first request asks for a tool call (tool_choice "required", --require-first-call: OpenAI-compatible
    # servers only); the turns after it leave the choice to the model.
    require_first_call: bool = False

    def to_json(self) -> dict:
        """What a trial's record keeps of the limits that applied to it."""
        return {"max_tool_calls": self.max_tool_calls, "trial_timeout_s": self.max_seconds,
                "trial_timeout_for": self.max_seconds_for, "request_timeout_s": self.request_timeout,
                "tool_timeout_s": self.tool_timeout, "nudge_text_calls": self.nudge_text_calls,
                "max_output_tokens": self.max_output_tokens, "require_first_call": self.require_first_call}


@dataclass
class AgentRun:
    claim: Claim
    tool_calls: int
    tokens_in: int
    tokens_out: int
    cost_usd: Optional[float]
    hit_limit: Optional[str]  # "tool_calls" | "time" | None
    model: str
    # Why the agent stopped (trial_record.StopReason): final_answer, text, text_tool_call, tool_calls_limit,
    # time_limit; an API error raises instead.
    stop_reason: Optional[str] = None
    # What the model wrote when it stopped calling tools: the call it wrote as text instead of making it
    # (text_tool_call), the text that never became a final answer (text), or the text before its final answer.
    stop_text: Optional[str] = None
    nudged: bool = False  # the model was told once that its text was not a call (Limits.nudge_text_calls)


LIMIT_STOPS = {"tool_calls": "tool_calls_limit", "time": "time_limit"}


def stop_reason(hit_limit: Optional[str], claim: Claim, text_call: bool = False) -> str:
    """Why an agent that returned stopped: the limit that stopped it, a call it wrote as text, its final answer, or
    text that never became one."""
    if hit_limit:
        return LIMIT_STOPS.get(hit_limit, "time_limit")
    if text_call:
        return "text_tool_call"
    return "final_answer" if claim.status is not None else "text"


def written_call(text: Optional[str], tools: Iterable[str], prefix: str = "") -> Optional[str]:
    """The tool a reply's text names as a call it did not make (`{"name": "app_version", "arguments": {...}}` in
    prose, a code fence or <tool_call> tags: what a small model writes when its template's call syntax slips), or
    None. Only an object naming one of the offered tools counts (`tools`; under `prefix` too, as the Claude CLI
    names them: mcp__mobium__app_tap): JSON about anything else is the model's answer. The same reading for every
    driver, so a call written as text is `text_tool_call` whichever wrote it."""
    if not text or "{" not in text:
        return None
    names = set(tools)
    decoder = json.JSONDecoder()
    at = text.find("{")
    while at != -1:
        try:
            value, _ = decoder.raw_decode(text, at)
        except ValueError:
            value = None
        if isinstance(value, dict):
            function = value.get("function")  # OpenAI's own shape, {"function": {"name": ...}}, written out
            name = value.get("name") or (function.get("name") if isinstance(function, dict) else None)
            if isinstance(name, str) and prefix and name.startswith(prefix):
                name = name[len(prefix):]
            if name in names:
                return name
        at = text.find("{", at + 1)
    return None


class Recorder:
    """Stamps every transcript event with wall-clock time and seconds since the trial's start, and hands it on."""

    def __init__(self, on_event: Callable[[dict], None]):
        self._on_event = on_event
        self.started = time.monotonic()

    def elapsed(self) -> float:
        return time.monotonic() - self.started

    def __call__(self, kind: EventKind, **fields: Any) -> None:
        event = {"kind": kind, "ts": datetime.now(timezone.utc).isoformat(timespec="milliseconds"),
                 "elapsed_s": round(self.elapsed(), 3), **fields}
        self._on_event(event)


@functools.lru_cache(maxsize=1)
def tls_context() -> ssl.SSLContext:
    """One TLS context for every trial's HTTP client: building one (loading the CA bundle) costs ~70 ms, and each
    trial makes a new client (its event loop is new)."""
    import certifi  # noqa: PLC0415  the CA bundle, when the first model client is made

    return ssl.create_default_context(cafile=certifi.where())


# API calls: attempts in all and the first delay (doubling each time). Module constants so tests can shorten them.
API_ATTEMPTS = 4
API_BACKOFF_S = 1.0

T = TypeVar("T")


class RetryableAPIError(Exception):
    """Raised by a provider adapter for a failure worth retrying (connection, 429, 5xx)."""


async def with_retries(call: Callable[[], Awaitable[T]], what: str, record: Recorder) -> T:
    """`call()` with bounded retries and exponential backoff on RetryableAPIError; after the last attempt, an
    AgentInfraError naming the endpoint and the last error. Other errors pass through at once."""
    delay = API_BACKOFF_S
    for attempt in range(1, API_ATTEMPTS + 1):
        try:
            return await call()
        except RetryableAPIError as exc:
            record(EventKind.ERROR, where="api", message=str(exc), attempt=attempt, of=API_ATTEMPTS)
            if attempt == API_ATTEMPTS:
                raise ModelAPIError(f"{what}: still failing after {API_ATTEMPTS} attempts: {exc}") from exc
            await asyncio.sleep(delay)
            delay *= 2
    raise AssertionError("unreachable")
