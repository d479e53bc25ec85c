"""What every model is told, and the shape of its final answer.

The final answer is structured output, never a tool: a `finish` tool offered beside the server's tools was called
as one of the server's own (`mcp__mobium__finish`) in every trial of the first baseline, even with the system prompt
naming it. So the tools a model sees are exactly the server's, and the answer comes through the provider's
structured-output channel (the Claude CLI's StructuredOutput, Ollama's `format`, OpenAI's `response_format`)."""

from __future__ import annotations

import json
from typing import Any, Optional

from pytest_mobium_evals.core.tasks import Claim

SYSTEM_PROMPT = """\
You operate an Android phone through the tools you are given, and nothing else: there is no shell, no file \
access, and no one to ask. Do the user's task on the device. Look at the screen before you act and check the \
result after you act.

When you have finished, or when you find that the task cannot or should not be done, stop calling tools and give \
your final answer:
- status "done" if the task is complete on the device (you checked), or "cannot" if it is not;
- answer: what the task asked you to find or report, as short as possible, or null when it asked for nothing;
- reason: one or two sentences on what you saw that supports your status.
Say "cannot" rather than claim something you did not see happen. Do not do anything the task did not ask for."""

def system_prompt_of(variant: Optional[dict]) -> str:
    """What the model is told under a surface variant (its plain JSON, surface.variants): the variant's
    `[prompt] system` when it has one, else SYSTEM_PROMPT."""
    system = ((variant or {}).get("prompt") or {}).get("system")
    return system if isinstance(system, str) and system.strip() else SYSTEM_PROMPT


#: The final answer's JSON schema. Every property is required and `answer` is nullable, so the same schema is
#: valid for OpenAI's strict mode, Ollama's `format`, and the Claude CLI's `--json-schema`.
FINAL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "status": {"type": "string", "enum": ["done", "cannot"]},
        "answer": {"type": ["string", "null"]},
        "reason": {"type": "string"},
    },
    "required": ["status", "answer", "reason"],
    "additionalProperties": False,
}

#: Asked of a model that stopped calling tools (Ollama, OpenAI-compatible): the reply is then constrained to
#: FINAL_SCHEMA by the provider, with no tools offered.
FINAL_REQUEST = ("Give your final answer now as JSON with status (\"done\" or \"cannot\"), answer (string or null) "
                 "and reason.")


def claim_from_output(value: Any) -> Claim:
    """A Claim from a structured answer (a dict, or its JSON text). Anything that is not a valid answer is no
    claim at all (status None): a model that cannot state done/cannot has not reported."""
    if isinstance(value, (str, bytes)):
        value = _json_object(value if isinstance(value, str) else value.decode(errors="replace"))
    if not isinstance(value, dict) or value.get("status") not in ("done", "cannot"):
        return Claim()
    answer = value.get("answer")
    reason = value.get("reason")
    return Claim(status=value["status"],
                 answer=None if answer is None else str(answer),
                 reason=None if reason is None else str(reason))


def _json_object(text: str) -> Any:
    """The JSON in a structured reply. Some OpenAI-compatible servers accept `response_format` but do not enforce
    it, and their models wrap the object in prose or a code fence: the outermost {...} is taken then."""
    try:
        return json.loads(text)
    except ValueError:
        start, end = text.find("{"), text.rfind("}")
        if 0 <= start < end:
            try:
                return json.loads(text[start:end + 1])
            except ValueError:
                pass
    return None
