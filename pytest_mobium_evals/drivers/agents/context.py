"""The agent's first request, measured before the first trial: how many tokens a model reads before it has done
anything (the tools' schemas, the system prompt, the task), whether that fits the model's context, and what to ask
of the server so that it does.

The count is the server's own where it has a tokenizer: llama.cpp's server renders the request with the model's
chat template (`POST /apply-template`, a chat completion's body) and counts the result (`POST /tokenize`); a server
with `/tokenize` alone has the messages and the tools' JSON counted without the template's few framing tokens.
Ollama's API has no tokenizer (ollama/ollama#10023: "We don't have a /tokenize endpoint yet"), and none can be
fetched at run time (tiktoken downloads its BPE files), so there it is an estimate and says so: a token per 3
characters, an over-count on this text (JSON schemas and English run 3.5 to 4.5 characters a token in the BPE
vocabularies of the models people serve), so what it calls fitting fits.

What the count is for:
- Ollama: the request's `options.num_ctx` is set to hold the prompt and the conversation after it (Ollama's default
  context is a few thousand tokens and cuts the prompt's head, the system prompt and tools, without a word), and a
  model whose own context (`/api/show`) is smaller than the prompt is refused before the first trial, in one line.
- An OpenAI-compatible server: a context it reports (llama.cpp's `/props`) smaller than the prompt is refused the
  same way; otherwise, where the server counted the prompt itself, each reply's `usage.prompt_tokens` (the whole
  prompt, cached or not) is checked against the fewest tokens the request can be (`floor`), and a reply that read
  fewer was cut by the server: the trial is an infra_error that says so, never the agent's failure. A server that
  refuses an over-long prompt instead (llama.cpp's and vLLM's HTTP 400) makes each trial an infra_error already."""

from __future__ import annotations

import json
import math
import os
import urllib.error
import urllib.request
from dataclasses import dataclass
from typing import Any, Optional

from .base import AgentConfigError, ModelSetting
from .endpoints import ollama_host, openai_base_url

#: Characters a token in the estimate: fewer than any BPE vocabulary gives on this text, so it over-counts.
ESTIMATE_CHARS_PER_TOKEN = 3
#: Room after the first request for the conversation a trial adds (tool results, the model's turns): num_ctx is the
#: prompt plus this, rounded up to a multiple of 1024, and never more than the model's own context.
CONVERSATION_ROOM = 16384
#: The least a model must have left to answer in at all: a prompt that leaves less does not fit.
REPLY_ROOM = 1024
#: A count by the server's tokenizer of a prefix can differ from its count of the whole request by a few tokens
#: where the two meet: the floor is this much under the count.
FLOOR_SLACK = 0.98
TIMEOUT_S = 10.0


@dataclass(frozen=True)
class PromptSize:
    """One model setting's first request, counted."""

    label: str  # the model setting
    tokens: int  # system prompt, tools and the longest task prompt: the first request
    fixed: int  # system prompt and tools alone: every trial's first request holds at least these
    tool_count: int
    method: str  # how it was counted, said as the header says it
    exact: bool  # counted by the server's tokenizer (else an estimate)
    # The fewest prompt tokens a first request can be read as without having been cut: known only from the server's
    # own tokenizer (an estimate cannot tell a cut prompt from a tokenizer denser than it guessed).
    floor: Optional[int]
    context: Optional[int] = None  # the model's or the server's context, when it says
    context_from: str = ""  # where that came from
    num_ctx: Optional[int] = None  # what the run asks of Ollama (options.num_ctx)

    def fits(self) -> bool:
        return self.context is None or self.tokens + REPLY_ROOM <= self.context

    def line(self) -> str:
        """The header's line for this setting."""
        about = "" if self.exact else "~"
        text = (f"mobium-evals: {self.label}: first request {about}{self.tokens:,} tokens ({self.tool_count} tools' "
                f"schemas and the system prompt {about}{self.fixed:,}, the longest task prompt the rest), "
                f"{self.method}")
        if self.context is not None:
            text += f"; context {self.context:,} ({self.context_from})"
        if self.num_ctx is not None:
            text += f"; num_ctx {self.num_ctx:,} asked"
        elif self.floor is None:
            text += "; a cut prompt is seen only if the server refuses it"
        return text

    def refusal(self) -> str:
        """Why the run stops before its first trial, in one line."""
        about = "" if self.exact else "~"
        return (f"{self.label}: the first request is {about}{self.tokens:,} tokens ({self.method}), and the model's "
                f"context is {self.context:,} ({self.context_from}), with {REPLY_ROOM} left to answer in: it cannot "
                f"read the tools and the task whole. Serve it with a larger context, or offer fewer tools "
                f"(--tools=NAME,... or a --surface variant that hides some)")


def first_messages(system: str, task: str) -> list[dict]:
    return [{"role": "system", "content": system}, {"role": "user", "content": task}]


def measure(setting: ModelSetting, functions: list[dict], system: str, task: str,
            base_url: Optional[str] = None) -> PromptSize:
    """The first request under this setting, counted as well as its server allows; its context, when the server
    says; for Ollama, the num_ctx that holds it."""
    if setting.provider == "ollama":
        host = ollama_host().rstrip("/")
        fixed, _ = _estimate(first_messages(system, ""), functions)
        tokens, method = _estimate(first_messages(system, task), functions)
        context, where = ollama_context(host, setting.name)
        num_ctx = _num_ctx(tokens, context)
        return PromptSize(setting.label, tokens, fixed, len(functions), method, False, None, context, where,
                          num_ctx)
    if setting.provider == "openai":
        root = server_root(openai_base_url(base_url) or "")
        counted = _server_count(root, first_messages(system, task), functions)
        if counted is not None:
            tokens, method = counted
            fixed, _ = _server_count(root, first_messages(system, ""), functions) or counted
            exact, floor = True, int(fixed * FLOOR_SLACK)
        else:
            tokens, method = _estimate(first_messages(system, task), functions)
            fixed, _ = _estimate(first_messages(system, ""), functions)
            exact, floor = False, None
        context = llama_cpp_context(root)
        return PromptSize(setting.label, tokens, fixed, len(functions), method, exact, floor, context,
                          "the server's /props n_ctx" if context else "")
    raise AgentConfigError(f"{setting.label}: the prompt is counted only for the tool loop's providers")


def truncation(size: Optional[PromptSize], read: int) -> Optional[str]:
    """Why a reply whose usage says it read `read` prompt tokens was given a cut prompt, or None. A server that
    reports no usage (0) is not judged."""
    if size is None or size.floor is None or read <= 0 or read >= size.floor:
        return None
    return (f"the server read {read:,} prompt tokens, where the system prompt and the {size.tool_count} tools alone "
            f"are {size.fixed:,} (counted by its own tokenizer): it cut the prompt to fit its context. Serve the "
            f"model with a larger context (llama-server -c), or offer fewer tools (--tools, --surface)")


# --- counting -------------------------------------------------------------------------------------------------------

def request_chars(messages: list[dict], functions: list[dict]) -> int:
    """The characters of what the request carries to the template: each message's text and each tool as JSON."""
    text = sum(len(str(m.get("content") or "")) for m in messages)
    return text + sum(len(json.dumps(f, ensure_ascii=False)) for f in functions)


def _estimate(messages: list[dict], functions: list[dict]) -> tuple[int, str]:
    chars = request_chars(messages, functions)
    return (math.ceil(chars / ESTIMATE_CHARS_PER_TOKEN),
            f"estimated at 1 token per {ESTIMATE_CHARS_PER_TOKEN} characters (an over-count; the server has no "
            f"tokenizer endpoint)")


def _server_count(root: str, messages: list[dict], functions: list[dict]) -> Optional[tuple[int, str]]:
    """(tokens, how) by the server's own tokenizer, or None when it has none."""
    rendered = _post(f"{root}/apply-template", {"messages": messages, "tools": functions})
    if isinstance(rendered, dict) and isinstance(rendered.get("prompt"), str):
        tokens = _tokenize(root, rendered["prompt"])
        if tokens is not None:
            return tokens, "counted by the server (its chat template, /apply-template, then /tokenize)"
    parts = [str(m.get("content") or "") for m in messages] + [json.dumps(f, ensure_ascii=False) for f in functions]
    tokens = _tokenize(root, "\n".join(parts))
    if tokens is not None:
        return tokens, "counted by the server's /tokenize (the messages and tools' JSON, without its chat template)"
    return None


def _tokenize(root: str, text: str) -> Optional[int]:
    answer = _post(f"{root}/tokenize", {"content": text, "add_special": True})
    if isinstance(answer, dict) and isinstance(answer.get("tokens"), list):
        return len(answer["tokens"])
    return None


def llama_cpp_context(root: str) -> Optional[int]:
    """The context of the server's slot (llama.cpp's `/props`: default_generation_settings.n_ctx), or None."""
    props = _get(f"{root}/props")
    settings = props.get("default_generation_settings") if isinstance(props, dict) else None
    n_ctx = settings.get("n_ctx") if isinstance(settings, dict) else None
    return n_ctx if isinstance(n_ctx, int) and n_ctx > 0 else None


def ollama_context(host: str, model: str) -> tuple[Optional[int], str]:
    """The model's own context length from Ollama's `/api/show` (model_info's `<architecture>.context_length`),
    and where it came from; (None, "") when the server does not say."""
    shown = _post(f"{host}/api/show", {"model": model})
    info = shown.get("model_info") if isinstance(shown, dict) else None
    if isinstance(info, dict):
        for key, value in info.items():
            if key.endswith(".context_length") and isinstance(value, int) and value > 0:
                return value, f"/api/show {key}"
    return None, ""


def _num_ctx(tokens: int, context: Optional[int]) -> int:
    wanted = math.ceil((tokens + CONVERSATION_ROOM) / 1024) * 1024
    return wanted if context is None else min(wanted, context)


def server_root(base_url: str) -> str:
    """An OpenAI-compatible base URL's server root: llama.cpp serves /tokenize and /props beside /v1, not in it."""
    root = base_url.rstrip("/")
    return root[:-3] if root.endswith("/v1") else root


def _headers() -> dict:
    # llama-server started with --api-key wants it on these endpoints too.
    key = os.environ.get("OPENAI_API_KEY")
    return {"Authorization": f"Bearer {key}"} if key else {}


def _post(url: str, body: dict) -> Any:
    request = urllib.request.Request(url, data=json.dumps(body).encode(), method="POST",
                                     headers={"Content-Type": "application/json", **_headers()})
    return _open(request)


def _get(url: str) -> Any:
    return _open(urllib.request.Request(url, headers=_headers()))


def _open(request: urllib.request.Request) -> Any:
    """The JSON a server answers, or None when it has no such endpoint or does not answer JSON."""
    try:
        with urllib.request.urlopen(request, timeout=TIMEOUT_S) as response:
            return json.loads(response.read())
    except (urllib.error.URLError, OSError, ValueError):
        return None
