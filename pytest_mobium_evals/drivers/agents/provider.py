"""What a function-calling model provider (Ollama, OpenAI-compatible) gives the tool loop: a reply with its tool
calls. Its own module so that the providers and the loop that drives them depend on it, not on each other."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional, Protocol


@dataclass
class ToolCall:
    id: str
    name: str
    arguments: dict


@dataclass
class Reply:
    text: str
    tool_calls: list[ToolCall] = field(default_factory=list)
    tokens_in: int = 0
    tokens_out: int = 0
    thinking: str = ""
    message: dict = field(default_factory=dict)  # the assistant message to append, in the provider's shape
    cached: Optional[int] = None  # prompt tokens the server's cache held (not read again), when it says
    finish_reason: Optional[str] = None  # why the model stopped writing, as the server says it


class Provider(Protocol):
    label: str

    async def chat(self, messages: list[dict], tools: list[dict], require_call: bool = False) -> Reply: ...

    async def final(self, messages: list[dict], schema: dict, tools: list[dict]) -> Reply: ...

    def tool_message(self, call: ToolCall, text: str) -> dict: ...
