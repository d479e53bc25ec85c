"""A surface variant applied in front of any MCP server command (the built-in one or the real `mobium mcp`): a stdio
proxy that passes every message through and rewrites only what an agent reads of Mobium's surface — the tools/list
answer, an isError answer's message and remedy, app_map's text and its matching structured keys (the rewrites are
rewrite.py's) — and the trial's side of it: the server spec behind the proxy, and what the model was shown.

    python -m pytest_mobium_evals.surface.proxy VARIANT.json SEEN.json -- mobium-evals mcp --device emulator-5554 ...

VARIANT.json is `surfaces.LoadedVariant.plain()`, with `reader`: how the trial's client passes a tool's answer to its
model (`model_view`). SEEN.json is rewritten (atomically) whenever what the model was shown grows: the variant's
name, the tools/list as sent, each distinct error as the model read it (and beside it its Mobium code and the
remedy the client did not pass on: for the hillclimb's reflection, never for the model), and a hash of what the
variant changed in what the model received (the tools/list, and each answer whose model view the rewrite changed);
the trial reads it after the driver. So a variant whose rewrite a client never passes on hashes as baseline does.
Standard library only, and one JSON parse per line: the proxy is a pipe, not a second server."""

from __future__ import annotations

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

from .rewrite import RAW, apply_error, apply_map, apply_tools, model_view, unknown_to

HIDDEN_TOOL_TEXT = "Unknown tool: {name}"


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
