"""A trial's transcript events as a conversation a person reads: the prompt, what the driver said, each tool call
with its arguments and the tool's answer, errors, and the final claim. The grader (`tool_calls`), the HTML report and
the Inspect AI export all read the events from here, so they see the same steps; reading transcript.jsonl from a run
folder is `runfolder.reading.read_events`.

Events come from two recorders: the agent's (prompt, model, assistant, tool_call, tool_result, error, text_tool_call,
nudge, final) and the harness's MCP client (call, answer, infra_error), which also sees every call an agent makes; the
trial adds the prompt and the claim (`final`) of a control, and a control's script_error. When the agent's own
tool_call events are there, the client's duplicates are left out. Every kind is spelt once, as an `EventKind`, which
the writers name; an event's kind is read here only (`event_kind`, `is_call`, `is_response`, `event_tool`,
`prompt_text`): the grader, the drivers' call counter, the reports and the commands all ask this module.

A call may name its target by a map ref (`@e3`), which means what the last map the agent read said it was. Each
tool step carries its arguments as sent and, in `resolved`, with each ref replaced by that map's line for it (its
label, role and state, and its locator where the answer had the structured form): what the grader's patterns
(an injection's `begun`) and the hillclimb's reflection read, so a tap by ref and a tap by name match alike."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import Any, Iterable, Mapping, Optional


@dataclass
class Step:
    """One step: role is "prompt", "model" (a model's reply came: its tokens), "assistant", "tool", "error" or
    "final".

    `started` and `ended` are wall-clock times (seconds since the epoch) where the transcript has them: a tool
    step's call and answer, the moment any other step was recorded (as both). `opened` and `answered` are the
    indexes of the events that began and answered it, so a reader can tell calls made together (one reply's) from
    calls made one after the other."""

    role: str
    text: str = ""
    tool: Optional[str] = None
    call_id: Optional[str] = None
    arguments: dict = field(default_factory=dict)
    answer: Optional[str] = None  # a tool step's answer, once it came
    is_error: bool = False
    extra: dict = field(default_factory=dict)
    started: Optional[float] = None
    ended: Optional[float] = None
    opened: int = 0
    answered: Optional[int] = None
    resolved: dict = field(default_factory=dict)  # a tool step's arguments, each map ref as what it named


class EventKind(StrEnum):
    """Every kind of event a transcript holds, by who writes it. A string, so an event is plain JSON."""

    # the agents' recorder (drivers/agents/base.Recorder); the trial writes a control's prompt and final claim too
    PROMPT = "prompt"
    MODEL = "model"  # a model's reply came: its tokens and seconds
    ASSISTANT = "assistant"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"
    ERROR = "error"  # an API, infrastructure or limit error, with `where`
    TEXT_TOOL_CALL = "text_tool_call"  # a tool call written as text: no tool ran
    NUDGE = "nudge"  # what the harness told the model then (--nudge-text-calls)
    OUTPUT_LIMIT = "output_limit"  # a reply cut at its token bound (--max-output-tokens), with the bound
    FINAL = "final"  # the claim
    # the harness's MCP client (reach/toolserver.Tools), which sees every call
    CALL = "call"
    ANSWER = "answer"
    INFRA_ERROR = "infra_error"  # the tool server failed the call
    # a control's script raised (drivers/controls.py)
    SCRIPT_ERROR = "script_error"


#: The kinds of a tool call: the agent's own, and the harness's MCP client's (which sees every call).
CALL_KINDS = (EventKind.TOOL_CALL, EventKind.CALL)
#: The kinds of event that carry what the tool server answered (the MCP client's and the agents' recorders; an
#: `error` carries a failed answer's text).
RESPONSE_KINDS = (EventKind.ANSWER, EventKind.TOOL_RESULT, EventKind.ERROR)


def event_kind(event: dict) -> str:
    """An event's kind, as every writer puts it (`kind`); "" when it has none."""
    return str(event.get("kind") or "")


def event_tool(event: dict) -> Optional[str]:
    """The tool a call or answer is about: the agent's recorder says `tool`, the MCP client `name`."""
    return event.get("tool") or event.get("name")


def is_call(event: dict) -> bool:
    return event_kind(event) in CALL_KINDS


def is_response(event: dict) -> bool:
    return event_kind(event) in RESPONSE_KINDS


def prompt_text(events: Iterable[dict]) -> str:
    """The task's prompt as the driver was given it (the first `prompt` event's text); "" when there is none."""
    for e in events:
        if event_kind(e) == EventKind.PROMPT:
            return str(e.get("text") or "")
    return ""


#: A map ref as Mobium hands them out, alone in an argument ("@e3").
REF = re.compile(r"@e\d+")
#: A map line: the ref, then what the element is ("@e3 Dark theme (switch, unchecked)").
MAP_LINE = re.compile(r"^(@e\d+) (.+)$", re.M)


def steps(events: Iterable[dict]) -> list[Step]:
    events = list(events)
    agent_calls = any(event_kind(e) == EventKind.TOOL_CALL for e in events)
    out: list[Step] = []
    open_calls: dict[str, Step] = {}  # call id (or tool name) -> the step awaiting its answer
    refs: dict[str, str] = {}  # the ref table as the agent last read it: "@e3" -> its map line
    for index, e in enumerate(events):
        kind = event_kind(e)
        at = event_time(e)
        before = len(out)
        if kind == EventKind.MODEL:
            out.append(Step("model", extra={k: e[k] for k in ("tokens", "seconds", "id") if e.get(k) is not None}))
        elif kind == EventKind.PROMPT:
            out.append(Step("prompt", text=str(e.get("text") or ""),
                            extra={k: e[k] for k in ("params", "model", "driver", "system") if e.get(k) is not None}))
        elif kind == EventKind.ASSISTANT:
            if e.get("thinking"):
                out.append(Step("assistant", text=str(e["thinking"]), extra={"thinking": True}))
            if e.get("text"):
                out.append(Step("assistant", text=str(e["text"])))
            if e.get("structured_output") is not None:
                out.append(Step("assistant", text=_json(e["structured_output"])))
        elif kind == EventKind.TOOL_CALL or (kind == EventKind.CALL and not agent_calls):
            name = str(event_tool(e) or "?")
            step = Step("tool", tool=name, call_id=e.get("id"), arguments=_dict(e.get("arguments")))
            step.resolved = resolve_refs(step.arguments, refs)
            if name == BATCH and isinstance(step.arguments.get("steps"), list):
                # a batch's steps name their targets by the same map's refs
                step.resolved["steps"] = [dict(st, arguments=resolve_refs(_dict(st.get("arguments")), refs))
                                          if isinstance(st, dict) else st for st in step.arguments["steps"]]
            out.append(step)
            open_calls[str(e.get("id") or name)] = step
        elif kind == EventKind.TOOL_RESULT or (kind == EventKind.ANSWER and not agent_calls):
            name = str(event_tool(e) or "?")
            step = open_calls.pop(str(e.get("id") or name), None)
            if step is None:
                step = Step("tool", tool=name, call_id=e.get("id"))
                out.append(step)
            step.answer = str(e.get("text") or "")
            step.is_error = bool(e.get("is_error"))
            if not step.is_error:
                read_refs(step.tool or name, step.arguments, step.answer, e.get("data"), refs)
            step.ended, step.answered = at, index
            if step.started is None:
                step.started = at
        elif kind in (EventKind.ERROR, EventKind.INFRA_ERROR):
            where = e.get("where") or ("tool server" if kind == EventKind.INFRA_ERROR else None)
            message = str(e.get("message") or e.get("error") or "")
            out.append(Step("error", text=f"{where}: {message}" if where else message, is_error=True))
        elif kind == EventKind.TEXT_TOOL_CALL:  # the reply's text is its assistant step; this says what it was
            out.append(Step("error", text=f"a call to {e.get('tool')} written as text: no tool ran", is_error=True))
        elif kind == EventKind.OUTPUT_LIMIT:  # the reply before it stopped at its token bound, not at its own end
            out.append(Step("error", text=str(e.get("message") or "the reply was cut at its output bound"),
                            is_error=True))
        elif kind == EventKind.NUDGE:  # what the harness told the model then (--nudge-text-calls)
            out.append(Step("prompt", text=str(e.get("text") or "")))
        elif kind == EventKind.FINAL:
            out.append(Step("final", text=claim_text(e), extra={k: e.get(k) for k in ("status", "answer", "reason")}))
        for step in out[before:]:  # the steps this event began
            step.started, step.opened = at, index
            if step.role != "tool":
                step.ended = at
    return out


#: The tool that runs other tools' calls in one (`app_batch`: steps of {name, arguments}).
BATCH = "app_batch"
#: How a failed batch says which of its steps failed: the ones before it ran ("step 3 of 5 (app_tap) failed: …").
BATCH_FAILED = re.compile(r"\bstep (\d+) of \d+ \(")


def tool_calls(events: Iterable[dict], answered: bool = False) -> list[tuple[str, dict]]:
    """Every tool call the driver made, as (tool, arguments), read as the steps read them (an agent's own tool_call
    events, else the MCP client's), each map ref as what the map the agent had read named; a batch's steps each as
    a call of its own, after the batch itself (a call made inside a batch is made all the same). `answered`: only
    the calls the tool server answered without an error (of a batch that failed, the steps before the one that
    failed, which ran)."""
    out = []
    for s in steps(events):
        if s.role != "tool" or not s.tool:
            continue
        done = s.answered is not None and not s.is_error
        if not answered or done:
            out.append((s.tool, s.resolved))
        if s.tool == BATCH:
            inner = [st for st in s.resolved.get("steps") or [] if isinstance(st, dict) and st.get("name")]
            if answered and not done:
                failed = BATCH_FAILED.search(s.answer or "") if s.answered is not None else None
                inner = inner[:int(failed.group(1)) - 1] if failed else []
            out += [(str(st["name"]), _dict(st.get("arguments"))) for st in inner]
    return out


def resolve_refs(arguments: dict, refs: dict[str, str]) -> dict:
    """The arguments with each value that is a map ref replaced by the line the last map gave it; a ref that map
    did not have stays as it was."""
    return {k: refs.get(v.strip(), v) if isinstance(v, str) and REF.fullmatch(v.strip()) else v
            for k, v in arguments.items()}


def read_refs(tool: str, arguments: dict, answer: str, data: Any, refs: dict[str, str]) -> None:
    """The refs an answer handed out, into the table: from its structured elements (the harness's client keeps
    them; the Claude CLI passes them as the answer's JSON text) or else its map lines. A whole map (`app_map`
    without `diff`) is a new table; anything else that lists refs (a find, a diff) updates the one there."""
    elements = _elements(data) or _elements(_loads(answer or ""))
    found = {el["ref"]: _element_line(el) for el in elements} if elements else \
        {m.group(1): m.group(0) for m in MAP_LINE.finditer(answer or "")}
    if not found:
        return
    if tool == "app_map" and not (arguments or {}).get("diff"):
        refs.clear()
    refs.update(found)


def _elements(data: Any) -> list[dict]:
    elements = data.get("elements") if isinstance(data, dict) else None
    return [el for el in elements if isinstance(el, dict) and isinstance(el.get("ref"), str)] \
        if isinstance(elements, list) else []


def _loads(text: str) -> Any:
    if not text.lstrip().startswith("{"):
        return None
    try:
        return json.loads(text)
    except ValueError:
        return None


def _element_line(el: dict) -> str:
    """An element of a map's structured answer as its map line, with its locator: "@e3 mobium (input)
    testid=username"."""
    line = f"{el['ref']} {el.get('label') or ''}".rstrip()
    if el.get("role"):
        line += f" ({el['role']})"
    locator = el.get("locator")
    if isinstance(locator, dict) and locator.get("kind") and locator.get("value") is not None:
        line += f" {locator['kind']}={locator['value']}"
    return line


def event_time(event: dict) -> Optional[float]:
    """When an event was recorded, in seconds since the epoch: the harness's client stamps `t`, the agents' recorder
    `ts` (ISO 8601); None when it has neither (a prompt or claim the harness wrote)."""
    if isinstance(event.get("t"), (int, float)):
        return float(event["t"])
    if isinstance(event.get("ts"), str):
        try:
            return datetime.fromisoformat(event["ts"].replace("Z", "+00:00")).timestamp()
        except ValueError:
            return None
    return None


def claim_text(claim) -> str:
    """"done", "cannot: <reason>", "done, answer '42'", or "no claim": of a `final` event, or of a record's claim
    (record_parts.RecordedClaim; None when it has none)."""
    if claim is None:
        return "no claim"
    status, answer, reason = ((claim.get("status"), claim.get("answer"), claim.get("reason"))
                              if isinstance(claim, Mapping) else (claim.status, claim.answer, claim.reason))
    if not status:
        return "no claim"
    text = str(status)
    if answer is not None:
        text += f", answer {answer!r}"
    if reason:
        text += f": {reason}"
    return text


def _dict(value: Any) -> dict:
    return dict(value) if isinstance(value, dict) else {}


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, sort_keys=True, default=str)


def arguments_text(arguments: dict) -> str:
    """Tool arguments as `name(key=value, …)` reads them: JSON values, strings quoted."""
    return ", ".join(f"{k}={_json(v)}" for k, v in arguments.items())
