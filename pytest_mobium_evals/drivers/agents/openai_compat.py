"""OpenAI-compatible chat completions (`--model openai/NAME`): OpenRouter, vLLM, llama.cpp's server, LM Studio.
Base URL from --base-url or OPENAI_BASE_URL; OPENAI_API_KEY only when the server wants one. The server's tools go
as functions; the final answer through `response_format` json_schema (strict). The effort, when given, is sent as
`reasoning_effort`. Each request of the tool loop bounds the reply (`max_tokens`, --max-output-tokens), the name
llama.cpp's server, vLLM, OpenRouter and LM Studio all read. The client's own retries are off: the loop's bounded
backoff is the one policy for all."""

from __future__ import annotations

import json
import os
from typing import Any, Optional

from .base import REQUEST_TIMEOUT_S, AgentInfraError, ModelAPIError, ModelSetting, RetryableAPIError, tls_context
from .endpoints import openai_base_url
from .provider import Reply, ToolCall

PLACEHOLDER_KEY = "not-needed"  # local servers ignore the key, but the client insists on one


class OpenAIProvider:
    def __init__(self, setting: ModelSetting, base_url: Optional[str], request_timeout: float = REQUEST_TIMEOUT_S,
                 max_output_tokens: Optional[int] = None):
        import openai  # noqa: PLC0415  openai, only for openai/ models

        url = openai_base_url(base_url)
        if url is None:
            raise AgentInfraError(f"{setting.label}: set --base-url or OPENAI_BASE_URL")
        self.setting = setting
        self.label = f"{setting.label} at {url}"
        # The tool loop's bound on one reply (None: the server's own); a text completion (complete()) has none.
        self._bound = {"max_tokens": max_output_tokens} if max_output_tokens else {}
        self._client = openai.AsyncOpenAI(
            base_url=url, api_key=os.environ.get("OPENAI_API_KEY") or PLACEHOLDER_KEY, max_retries=0,
            timeout=request_timeout, http_client=openai.DefaultAsyncHttpxClient(verify=tls_context()))

    async def chat(self, messages: list[dict], tools: list[dict], require_call: bool = False) -> Reply:
        # require_call: tool_choice "required", the reply must be a call (the server constrains it to its template's
        # call syntax); otherwise none is sent, the API's own default, auto.
        return await self._call(messages=messages, tools=tools, **self._bound,
                                **({"tool_choice": "required"} if require_call else {}))

    async def final(self, messages: list[dict], schema: dict, tools: list[dict]) -> Reply:
        # The same tools as the turns before, so the rendered prompt keeps their prefix (and the server's cache
        # holds it); tool_choice none: the answer, not a call.
        return await self._call(messages=messages, tools=tools, tool_choice="none", **self._bound, response_format={
            "type": "json_schema", "json_schema": {"name": "final_answer", "schema": schema, "strict": True}})

    def tool_message(self, call: ToolCall, text: str) -> dict:
        return {"role": "tool", "tool_call_id": call.id, "content": text}

    async def complete(self, messages: list[dict]) -> Reply:
        """A text answer with no tools offered (agents.text: a reflection model's proposal)."""
        return await self._call(messages=messages)

    async def _call(self, **kwargs: Any) -> Reply:
        import openai  # noqa: PLC0415  openai, only for openai/ models
        from openai.types.chat import ChatCompletion  # noqa: PLC0415  openai, only for openai/ models

        if self.setting.effort:
            kwargs["reasoning_effort"] = self.setting.effort
        try:
            # Posted as it is, not through chat.completions.create: that walks the whole body against the SDK's
            # typed parameters before every request (the trial's ~70 tool schemas, ~8 ms a request), to convert
            # what plain JSON made here never holds.
            response = await self._client.post("/chat/completions", cast_to=ChatCompletion,
                                               body={"model": self.setting.name, **kwargs})
        except (openai.APIConnectionError, openai.APITimeoutError) as exc:
            raise RetryableAPIError(f"{type(exc).__name__}: {exc}") from exc
        except (ValueError, openai.APIResponseValidationError) as exc:
            # A body that is not the API's JSON (a proxy's error page, a cut stream): the endpoint's failure.
            raise RetryableAPIError(f"the answer is not the API's JSON: {type(exc).__name__}: {exc}") from exc
        except openai.APIStatusError as exc:
            if exc.status_code in (408, 409, 429) or exc.status_code >= 500:
                raise RetryableAPIError(f"HTTP {exc.status_code}: {exc.message}") from exc
            if "context" in str(exc.message).lower():
                # llama.cpp's exceed_context_size_error, vLLM's "maximum context length": the prompt does not fit.
                raise ModelAPIError(f"{self.label}: the server refused the prompt as longer than its context "
                                      f"(HTTP {exc.status_code}: {exc.message}); serve the model with a larger "
                                      f"context, or offer fewer tools (--tools, --surface)") from exc
            raise ModelAPIError(f"{self.label}: HTTP {exc.status_code}: {exc.message}") from exc
        if not response.choices:
            raise RetryableAPIError("the response has no choices")
        message = response.choices[0].message
        calls = []
        for call in message.tool_calls or []:
            try:
                arguments = json.loads(call.function.arguments or "{}")
            except ValueError:
                # The model wrote arguments that are not JSON: the server will reject the call, and the model
                # reads that, as it would any wrong argument.
                arguments = {"_unparsed": call.function.arguments}
            calls.append(ToolCall(id=call.id, name=call.function.name,
                                  arguments=arguments if isinstance(arguments, dict) else {"_value": arguments}))
        assistant: dict = {"role": "assistant", "content": message.content or ""}
        if message.tool_calls:
            assistant["tool_calls"] = [{"id": c.id, "type": "function",
                                        "function": {"name": c.function.name, "arguments": c.function.arguments}}
                                       for c in message.tool_calls]
        usage = response.usage
        return Reply(text=message.content or "", tool_calls=calls,
                     thinking=getattr(message, "reasoning_content", None) or "",
                     tokens_in=getattr(usage, "prompt_tokens", 0) or 0,
                     tokens_out=getattr(usage, "completion_tokens", 0) or 0, message=assistant,
                     cached=cached_tokens(response), finish_reason=response.choices[0].finish_reason)


def cached_tokens(response: Any) -> Optional[int]:
    """The prompt tokens the server's cache held: OpenAI's usage.prompt_tokens_details.cached_tokens, else
    llama.cpp's own timings.cache_n (its usage.prompt_tokens is the whole prompt, cached or not); None when the
    server says neither."""
    details = getattr(getattr(response, "usage", None), "prompt_tokens_details", None)
    cached = getattr(details, "cached_tokens", None)
    if isinstance(cached, int):
        return cached
    timings = (getattr(response, "model_extra", None) or {}).get("timings")
    cached = timings.get("cache_n") if isinstance(timings, dict) else None
    return cached if isinstance(cached, int) else None
