"""A surface variant applied in front of any MCP server command (the built-in one or the real `mobium mcp`): a stdio
proxy that passes every message through and rewrites only what an agent reads of Mobium's surface — the tools/list
answer, an isError answer's message and remedy, app_map's text and its matching structured keys.

    python -m pytest_mobium_evals.surface.proxy VARIANT.json SEEN.json -- mobium-evals mcp --device emulator-5554 ...

VARIANT.json is `surfaces.LoadedVariant.plain()`, with `reader`: how the trial's client passes a tool's answer to its
model (`model_view`). SEEN.json is rewritten (atomically) whenever what the model was shown grows: the variant's
name, the tools/list as sent, each distinct error as the model read it (and beside it its Mobium code and the
remedy the client did not pass on: for the hillclimb's reflection, never for the model), and a hash of what the
variant changed in what the model received (the tools/list, and each answer whose model view the rewrite changed);
the trial reads it after the driver. So a variant whose rewrite a client never passes on hashes as baseline does.
Standard library only, and one JSON parse per line: the proxy is a pipe, not a second server."""

from __future__ import annotations

import copy
import dataclasses
import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import threading
from typing import Optional

from pytest_mobium_evals.core.errors import UsageError
from pytest_mobium_evals.reach.stdio_proxy import end_child, pass_line
from pytest_mobium_evals.runfolder.files import atomic_write_json, read_json

HIDDEN_TOOL_TEXT = "Unknown tool: {name}"


# --- what each client passes its model --------------------------------------------------------------------------------
#
# Observed at the model API boundary by tests/agents/test_what_the_model_reads.py, from the clients themselves:
# the Claude CLI sends a successful answer's structuredContent as JSON (its text blocks then never reach the model)
# and an error's text; the agent loop (OpenAI-compatible and Ollama, agents/loop.py `result_text`) sends the text
# blocks. "raw" is a reader of the whole MCP result (the project's Python stand-in agent, which reads both).
CLAUDE_CLI, TEXT, RAW = "claude-cli", "text", "raw"
READERS = (CLAUDE_CLI, TEXT, RAW)
READER_NAMES = {CLAUDE_CLI: "the Claude CLI", TEXT: "the agent loop (OpenAI-compatible and Ollama)",
                RAW: "a reader of the raw MCP result"}


def reader_of(provider: str) -> str:
    """The reader of a model setting's client (`agents.ModelSetting.provider`)."""
    return CLAUDE_CLI if provider == "claude" else TEXT


def model_view(reader: str, result: dict) -> str:
    """A tools/call result as `reader`'s client passes it to its model."""
    if reader == RAW:
        return json.dumps(result, sort_keys=True, ensure_ascii=False)
    structured = result.get("structuredContent")
    if reader == CLAUDE_CLI and not result.get("isError") and structured is not None:
        return json.dumps(structured, ensure_ascii=False)
    parts = [block.get("text", "") if block.get("type") == "text" else f"[{block.get('type') or 'content'}]"
             for block in result.get("content") or []]
    if not parts and structured is not None:
        return json.dumps(structured, ensure_ascii=False)
    return "\n".join(parts)


def edits_seen_by(variant: dict, reader: str) -> tuple[list[str], list[str]]:
    """The variant's edits `reader`'s client can pass to its model, and those it never can. A remedy reaches a text
    reader (and every client reads an error as text) only when `show_remedy` copies it into the message;
    `layout = verbose` adds bounds the structured content (the Claude CLI's view of a map) already has."""
    seen, unseen = [], []
    seen += [f"tools.{name}" for name in variant.get("tools") or {}]
    if (variant.get("prompt") or {}).get("system") is not None:
        seen.append("prompt.system")  # the driver tells it the model; every client reads its system prompt
    for code, rule in (variant.get("errors") or {}).items():
        if rule.get("message") is not None or rule.get("message_append") or rule.get("show_remedy"):
            seen.append(f"errors.{code}.message")
        if rule.get("remedy") is not None or rule.get("remedy_append"):
            shown = reader == RAW or rule.get("show_remedy")
            (seen if shown else unseen).append(f"errors.{code}.remedy (without show_remedy)")
    for name, choice in (variant.get("map") or {}).items():
        if choice != "as_is":
            hidden = reader == CLAUDE_CLI and (name, choice) == ("layout", "verbose")
            (unseen if hidden else seen).append(f"map.{name} = {choice}")
    return seen, unseen


def refusal(variant: dict, reader: str) -> Optional[str]:
    """One line when the variant changes something and none of it can reach `reader`'s model; else None (a variant
    with no edits at all, a null control, is not refused)."""
    seen, unseen = edits_seen_by(variant, reader)
    if seen or not unseen:
        return None
    return (f"surface variant {variant.get('name')} cannot change what {READER_NAMES[reader]} passes to its model "
            f"(its edits: {', '.join(unseen)})")


def apply_tools(variant: dict, tools: list[dict]) -> list[dict]:
    edits = variant.get("tools") or {}
    out = []
    for tool in tools:
        edit = edits.get(tool.get("name"))
        if edit is None:
            out.append(tool)
            continue
        if edit.get("hidden"):
            continue
        tool = copy.deepcopy(tool)
        tool["description"] = _edited(tool.get("description", ""), edit)
        props = (tool.get("inputSchema") or {}).get("properties") or {}
        for param, pedit in (edit.get("params") or {}).items():
            if param in props:
                props[param]["description"] = _edited(props[param].get("description", ""), pedit)
        out.append(tool)
    return out


def _edited(text: str, edit: dict) -> str:
    if edit.get("description") is not None:
        return edit["description"]
    if edit.get("description_append"):
        return f"{text} {edit['description_append']}".strip()
    return text


def apply_error(variant: dict, result: dict) -> dict:
    """An isError result with Mobium's payload, its message and remedy rewritten by the rule for its code (or "*")."""
    payload = result.get("structuredContent")
    if not isinstance(payload, dict) or "code" not in payload:
        return result
    errors = variant.get("errors") or {}
    rule = errors.get(payload["code"]) or errors.get("*")
    if not rule:
        return result
    payload = dict(payload)
    old_message, old_remedy = payload.get("message", ""), payload.get("remedy", "")
    message = rule["message"] if rule.get("message") is not None else old_message
    if rule.get("message_append"):
        message = f"{message} {rule['message_append']}"
    remedy = rule["remedy"] if rule.get("remedy") is not None else old_remedy
    if rule.get("remedy_append"):
        remedy = f"{remedy}; {rule['remedy_append']}" if remedy else rule["remedy_append"]
    payload["message"] = message
    if remedy:
        payload["remedy"] = remedy
    else:
        payload.pop("remedy", None)
    text = _first_text(result)
    # Mobium's text is the message, the remedy's prose included when the server put it there.
    if old_remedy and old_remedy in text:
        text = text.replace(old_remedy, remedy)
    text = text.replace(old_message, message) if old_message and old_message in text else (text or message)
    if rule.get("show_remedy") and remedy and remedy not in text:
        text = f"{text} (remedy: {remedy})"
    return _with_text(dict(result, structuredContent=payload), text)


def _first_text(result: dict) -> str:
    for block in result.get("content") or []:
        if block.get("type") == "text":
            return block.get("text", "")
    return ""


def _with_text(result: dict, text: str) -> dict:
    content = list(result.get("content") or [])
    for i, block in enumerate(content):
        if block.get("type") == "text":
            content[i] = dict(block, text=text)
            return dict(result, content=content)
    return dict(result, content=[{"type": "text", "text": text}, *content])


def element_line(el: dict, map_edit: dict) -> str:
    """An element's map line from its structured form, as the server prints it (`Element.line`), with the map
    transforms that touch one line applied."""
    head = f"{el['ref']} {el['label']}" if el.get("ref") else f"(no ref) {el['label']}"
    parts = [el["role"]] if el.get("role") else []
    if "checked" in el and not el.get("context"):
        parts.append("checked" if el["checked"] else "unchecked")
    if el.get("selected"):
        parts.append("selected")
    if el.get("disabled"):
        parts.append("disabled")
    if "value" in el and el["value"] is not None:
        values = map_edit.get("values", "as_is")
        if values == "labelled":
            parts.append(f"value {el['value']} as the app shows it, not the bar's own progress")
        elif values == "as_is":
            parts.append(el["value"])
    if el.get("covered"):
        covered = map_edit.get("covered", "as_is")
        if covered == "explained":
            parts.append(f'covered by "{el["covered"]}": a tap on it lands on "{el["covered"]}"')
        elif covered == "as_is":
            parts.append(f'covered by "{el["covered"]}"')
    if map_edit.get("roleless_state") == "hidden" and not el.get("role"):
        parts = []
    out = f"{head} ({', '.join(parts)})" if parts else head
    if el.get("frames"):
        out += " in " + " >> ".join(f"iframe#{f}" for f in el["frames"])
    if map_edit.get("layout") == "verbose" and isinstance(el.get("bounds"), dict):
        b = el["bounds"]
        out += f" [{b['x1']},{b['y1']} {b['x2']},{b['y2']}]"
    return out


LOADING_PREFIX = "loading… "
TERSE_LOADING = "loading… more may be on its way"


def apply_map(variant: dict, result: dict) -> dict:
    edit = variant.get("map") or {}
    if all(v == "as_is" for v in edit.values()):
        return result
    data = result.get("structuredContent")
    if not isinstance(data, dict) or "elements" not in data or data.get("diff") is not None:
        return result  # a diff's text is the diff's own: left as it is
    elements = data["elements"]
    lines = _first_text(result).split("\n")
    head_count = len(elements) if elements else 1
    heads, notes = lines[:head_count], lines[head_count:]
    plain = {}
    if elements and all(element_line(el, plain) == line for el, line in zip(elements, heads)):
        kept = [(el, element_line(el, edit)) for el in elements]
        if edit.get("layout") == "compact":
            kept = [(el, line) for el, line in kept if el.get("ref")]
        heads = [line for _, line in kept] or ["No actionable elements found"]
    data = structured_map(edit, data)
    loading = edit.get("loading", "as_is")
    if loading != "as_is":
        notes = [n for n in notes if not n.startswith(LOADING_PREFIX)] if loading == "hidden" else \
            [TERSE_LOADING if n.startswith(LOADING_PREFIX) else n for n in notes]
    if edit.get("notes") == "hidden":
        notes = []
        for key in ("loading", "keyboard", "dialog", "locked", "cross_origin_frames"):
            data.pop(key, None)
    return _with_text(dict(result, structuredContent=data), "\n".join(heads + notes))


VALUE_IS = "as the app shows it, not the bar's own progress"
STATE_KEYS = ("checked", "selected", "disabled", "value", "covered")


def structured_map(edit: dict, data: dict) -> dict:
    """The map's transforms on its structured content, which is what the Claude CLI shows its model: each one says
    there what it says in the text (the bounds `layout = verbose` adds to the text are already here)."""
    data = copy.deepcopy(data)
    elements = data["elements"]
    if edit.get("layout") == "compact":
        elements[:] = [el for el in elements if el.get("ref")]
    for el in elements:
        if "value" in el:
            if edit.get("values") == "hidden":
                el.pop("value")
            elif edit.get("values") == "labelled":
                el["value_is"] = VALUE_IS
        if el.get("covered"):
            if edit.get("covered") == "hidden":
                el.pop("covered")
            elif edit.get("covered") == "explained":
                el["covered_means"] = f'a tap on it lands on "{el["covered"]}"'
        if edit.get("roleless_state") == "hidden" and not el.get("role"):
            for key in STATE_KEYS:
                el.pop(key, None)
    loading = edit.get("loading", "as_is")
    if loading == "hidden":
        data.pop("loading", None)
    elif loading == "terse" and data.get("loading"):
        data["loading"] = TERSE_LOADING
    return data


# --- the pipe -------------------------------------------------------------------------------------------------------

class Seen:
    """What the model was shown, written out whenever it grows."""

    def __init__(self, variant: dict, path: str):
        self.variant = variant
        self.reader = variant.get("reader") or RAW
        self.path = path
        self.tools: list = []
        self.errors: list[str] = []
        # each distinct error as the model read it, with Mobium's code for it and the remedy when the model's client
        # did not pass it on: what the hillclimb's reflection reads beside the text (no client shows a model the code)
        self.coded: list[dict] = []
        self.changed: list[str] = []  # each distinct answer whose model view the variant changed, as the model got it

    def saw_tools(self, tools: list) -> None:
        self.tools = tools
        self._write()

    def saw_answer(self, before: Optional[dict], after: dict) -> None:
        """A tools/call answer as the server gave it (None: the proxy made it up) and as the variant left it."""
        view = model_view(self.reader, after)
        grew = False
        if after.get("isError") and view not in self.errors:
            self.errors.append(view)
            payload = after.get("structuredContent")
            if isinstance(payload, dict) and payload.get("code"):
                coded = {"text": view, "code": payload["code"]}
                if payload.get("remedy") and payload["remedy"] not in view:
                    coded["remedy_not_shown"] = payload["remedy"]
                self.coded.append(coded)
            grew = True
        if (before is None or model_view(self.reader, before) != view) and view not in self.changed:
            self.changed.append(view)
            grew = True
        if grew:
            self._write()

    def _write(self) -> None:
        # What the variant changed in what the model received: the tools/list as sent, and the answers the rewrite
        # changed as the model's client passes them. The screens themselves are the device's, not the surface's.
        body = json.dumps({"tools": self.tools, "changed": sorted(self.changed)}, sort_keys=True,
                          separators=(",", ":"), ensure_ascii=False)
        out = {"variant": self.variant.get("name"), "reader": self.reader,
               "hash": hashlib.sha256(body.encode()).hexdigest()[:16],
               "tools_hash": hashlib.sha256(json.dumps(self.tools, sort_keys=True).encode()).hexdigest()[:16],
               "tool_count": len(self.tools), "errors": self.errors, "error_codes": self.coded,
               "changed_answers": len(self.changed)}
        atomic_write_json(self.path, out, indent=None, sort_keys=False, ensure_ascii=False)


def unknown_to(variant: dict, tools: list[dict]) -> list[str]:
    """What the variant names that this server's own tools/list lacks (the variant was checked against the built-in
    server's; a real Mobium may list other tools or parameters)."""
    listed = {t.get("name"): ((t.get("inputSchema") or {}).get("properties") or {}) for t in tools}
    out = []
    for name, edit in (variant.get("tools") or {}).items():
        if name not in listed:
            if edit.get("hidden") and not _edits_text(edit):
                continue  # hiding a tool this server does not list asks for what already holds (--tools)
            out.append(name)
            continue
        out += [f"{name}.{param}" for param in (edit.get("params") or {}) if param not in listed[name]]
    return out


def _edits_text(edit: dict) -> bool:
    """Whether a tool's edit changes any text (its description or a parameter's), beyond hiding it."""
    return any(edit.get(k) is not None for k in ("description", "description_append")) or bool(edit.get("params"))


def rewrite_answer(variant: dict, asked: tuple, message: dict, seen: Seen) -> dict:
    method, tool = asked
    result = message.get("result")
    if not isinstance(result, dict):
        return message
    if method == "tools/list" and isinstance(result.get("tools"), list):
        unknown = unknown_to(variant, result["tools"])
        if unknown:
            # Refused in-band: the trial cannot start, and its infra_error says why in one line.
            return {"jsonrpc": "2.0", "id": message.get("id"), "error": {
                "code": -32602, "message": f"surface variant {variant.get('name')} names what this server's "
                                           f"tools/list does not have: {', '.join(unknown)}"}}
        tools = apply_tools(variant, result["tools"])
        seen.saw_tools(tools)
        return dict(message, result=dict(result, tools=tools))
    if method == "tools/call":
        before = result
        if result.get("isError"):
            result = apply_error(variant, result)
        elif tool == "app_map":
            result = apply_map(variant, result)
        seen.saw_answer(before, result)
        return dict(message, result=result)
    return message


def serve(variant: dict, seen_path: str, command: list[str]) -> int:
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    out = sys.stdout.buffer
    out_lock = threading.Lock()
    pending: dict = {}  # request id → (method, tool name): which answers to rewrite
    hidden = {name for name, edit in (variant.get("tools") or {}).items() if edit.get("hidden")}
    seen = Seen(variant, seen_path)

    def send(raw: bytes) -> None:
        with out_lock:
            out.write(raw)
            out.flush()

    def pump_answers() -> None:
        for line in child.stdout:
            if pending:
                try:
                    message = json.loads(line)
                except ValueError:
                    message = None
                if isinstance(message, dict) and message.get("id") in pending and "method" not in message:
                    asked = pending.pop(message["id"])
                    line = (json.dumps(rewrite_answer(variant, asked, message, seen), ensure_ascii=False)
                            + "\n").encode("utf-8")
            send(line)

    threading.Thread(target=pump_answers, daemon=True).start()
    for line in sys.stdin.buffer:
        try:
            message = json.loads(line)
        except ValueError:
            message = None
        if isinstance(message, dict) and message.get("method") in ("tools/list", "tools/call") and "id" in message:
            tool = (message.get("params") or {}).get("name")
            if message["method"] == "tools/call" and tool in hidden:
                text = HIDDEN_TOOL_TEXT.format(name=tool)
                made_up = {"content": [{"type": "text", "text": text}], "isError": True}
                seen.saw_answer(None, made_up)
                send((json.dumps({"jsonrpc": "2.0", "id": message["id"], "result": made_up}) + "\n").encode("utf-8"))
                continue
            pending[message["id"]] = (message["method"], tool)
        if not pass_line(child, line):
            return 1
    return end_child(child)


def wrap(spec, variant_json: str, seen_path: str):
    """The ToolServerSpec behind the proxy."""
    return dataclasses.replace(spec, command=[sys.executable, "-m", __name__, variant_json, seen_path, "--",
                                              *spec.command])


class SeenFile:
    """A trial's record of what its agent was shown, read once after the driver (the folder then goes)."""

    def __init__(self, variant: Optional[dict]):
        self.variant = variant
        self._dir: Optional[str] = None
        self._read: Optional[dict] = None
        if variant is not None:
            self._dir = tempfile.mkdtemp(prefix="mobium-surface-")
            atomic_write_json(self.variant_path, variant, indent=None, sort_keys=False, ensure_ascii=False)

    @property
    def variant_path(self) -> str:
        return os.path.join(self._dir, "variant.json")

    @property
    def seen_path(self) -> str:
        return os.path.join(self._dir, "seen.json")

    def read(self) -> Optional[dict]:
        if self.variant is None:
            return None
        if self._read is None:
            self._read = read_json(self.seen_path, default=None)
            if self._read is None:
                self._read = {"variant": self.variant.get("name"), "hash": None, "tools_hash": None,
                              "tool_count": 0, "errors": []}
            shutil.rmtree(self._dir, ignore_errors=True)
        return self._read


NOT_SEEN = SeenFile(None)


def wrap_for_trial(spec, variant: Optional[dict], reader: str = RAW):
    """The trial's server spec behind the proxy when it has a variant, with the file the proxy writes what the
    model saw (through `reader`'s client) into; the spec unchanged (and NOT_SEEN) when it has none."""
    if variant is None:
        return spec, NOT_SEEN
    seen = SeenFile({**variant, "reader": reader})
    return wrap(spec, seen.variant_path, seen.seen_path), seen


def main(argv: list[str]) -> int:
    if len(argv) < 4 or argv[2] != "--":
        sys.stderr.write("usage: python -m pytest_mobium_evals.surface.proxy VARIANT.json SEEN.json -- COMMAND...\n")
        return 2
    try:
        variant = read_json(argv[0], "the variant")
    except UsageError as exc:
        sys.stderr.write(f"surface proxy: cannot read the variant {argv[0]}: {exc}\n")
        return 2
    return serve(variant, argv[1], argv[3:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
