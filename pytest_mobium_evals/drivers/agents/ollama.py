"""Ollama (`--model ollama/NAME`, host from OLLAMA_HOST, else 127.0.0.1:11434): the chat API with the server's
tools as functions, and the final answer through `format=<JSON schema>`. The effort, when given, is Ollama's `think`
level."""

from __future__ import annotations

from typing import Any, Optional

from .base import REQUEST_TIMEOUT_S, ModelAPIError, ModelSetting, RetryableAPIError, tls_context
from .endpoints import ollama_host
from .provider import Reply, ToolCall


class OllamaProvider:
    def __init__(self, setting: ModelSetting, request_timeout: float = REQUEST_TIMEOUT_S,
                 num_ctx: Optional[int] = None, max_output_tokens: Optional[int] = None):
        import ollama  # noqa: PLC0415  ollama, only for ollama/ models

        host = ollama_host()
        self.setting = setting
        self.label = f"{setting.label} at {host}"
        # One generation's bound (--request-timeout); the trial's own time limit cancels sooner when it runs out.
        self._client = ollama.AsyncClient(host=host, timeout=request_timeout, verify=tls_context())
        self._functions: Optional[list[dict]] = None
        self._tools: list[Any] = []
        # The context the request asks for (context.PromptSize.num_ctx): Ollama's default cuts a long prompt's head,
        # the system prompt and the tools, without a word.
        self._options = {"num_ctx": num_ctx} if num_ctx else None
        # The tool loop's bound on one reply, Ollama's num_predict (--max-output-tokens); complete() has none.
        self._bound = {"num_predict": max_output_tokens} if max_output_tokens else {}

    async def chat(self, messages: list[dict], tools: list[dict], require_call: bool = False) -> Reply:
        # require_call is never asked of Ollama: its chat API has no tool_choice (the options refuse it).
        return await self._call(messages=messages, tools=self._typed(tools), bounded=True)

    def _typed(self, functions: list[dict]) -> list[Any]:
        """The functions as the client's own Tool type, made once per trial: the client validates plain dicts
        into it on every request, and the trial offers the same ~70 functions every turn."""
        if functions is not self._functions:
            import ollama  # noqa: PLC0415  ollama, only for ollama/ models

            self._functions, self._tools = functions, [ollama.Tool.model_validate(f) for f in functions]
        return self._tools

    async def final(self, messages: list[dict], schema: dict, tools: list[dict]) -> Reply:
        # The same tools as the turns before: the prompt's prefix, and so the server's cache, stays the same.
        return await self._call(messages=messages, format=schema, tools=self._typed(tools), bounded=True)

    def tool_message(self, call: ToolCall, text: str) -> dict:
        return {"role": "tool", "content": text, "tool_name": call.name}

    async def complete(self, messages: list[dict]) -> Reply:
        """A text answer with no tools offered (agents.text: a reflection model's proposal)."""
        return await self._call(messages=messages)

    async def _call(self, bounded: bool = False, **kwargs: Any) -> Reply:
        import httpx  # noqa: PLC0415  httpx, only for ollama/ models
        import ollama  # noqa: PLC0415  ollama, only for ollama/ models

        if self.setting.effort:
            kwargs["think"] = self.setting.effort
        options = {**(self._options or {}), **(self._bound if bounded else {})}
        if options:
            kwargs["options"] = options
        try:
            response = await self._client.chat(model=self.setting.name, stream=False, **kwargs)
        except ollama.ResponseError as exc:
            if exc.status_code in (-1, 408, 429) or exc.status_code >= 500:
                raise RetryableAPIError(f"HTTP {exc.status_code}: {exc.error}") from exc
            raise ModelAPIError(f"{self.label}: HTTP {exc.status_code}: {exc.error}") from exc
        except (ConnectionError, httpx.TransportError) as exc:
            raise RetryableAPIError(f"{type(exc).__name__}: {exc}") from exc
        except ValueError as exc:  # a body that is not Ollama's JSON (pydantic's ValidationError is one too)
            raise RetryableAPIError(f"the answer is not the API's JSON: {type(exc).__name__}: {exc}") from exc
        message = response.message
        calls = [ToolCall(id=f"call_{i}", name=call.function.name, arguments=dict(call.function.arguments or {}))
                 for i, call in enumerate(message.tool_calls or [])]
        assistant: dict = {"role": "assistant", "content": message.content or ""}
        if calls:
            assistant["tool_calls"] = [{"function": {"name": c.name, "arguments": c.arguments}} for c in calls]
        return Reply(text=message.content or "", tool_calls=calls, thinking=message.thinking or "",
                     tokens_in=response.prompt_eval_count or 0, tokens_out=response.eval_count or 0,
                     message=assistant, finish_reason=getattr(response, "done_reason", None))
