"""Faults on purpose in the tool server: a stdio proxy in front of any MCP server command (the built-in one or the
real `mobium mcp`) that passes messages through until the Nth `tools/call`, then

    kill:call=N     passes the Nth call on and kills the server with it (the server died mid-call)
    hang:call=N     passes the Nth call on and never answers it or anything after (the server stalled mid-call)
    garbage:call=N  answers the Nth call with a line that is not JSON-RPC, then nothing

    python -m pytest_mobium_evals.reach.toolserver_faults kill:call=2 -- mobium-evals mcp --device emulator-5554 ...

`MOBIUM_EVALS_MCP_FAULT=kill:call=2` in a pytest run's environment puts every trial's tool server behind it
(`wrap_if_asked`): the harness must then record the trial as an infrastructure error within the tool timeout."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
import threading
from dataclasses import dataclass

from .stdio_proxy import end_child, pass_line

ENV = "MOBIUM_EVALS_MCP_FAULT"
KINDS = ("kill", "hang", "garbage")
GARBAGE_LINE = b"\x00\xffthis is not JSON-RPC {{{\n"


@dataclass(frozen=True)
class ServerFault:
    kind: str
    call: int


def parse(spec: str) -> ServerFault:
    kind, _, when = spec.strip().partition(":")
    key, _, value = when.partition("=")
    if kind not in KINDS or key != "call" or not value.isdigit() or int(value) < 1:
        raise ValueError(f"tool server fault {spec!r}: expected KIND:call=N with KIND one of {', '.join(KINDS)} "
                         f"and N from 1")
    return ServerFault(kind, int(value))


def wrap_if_asked(spec):
    """The ToolServerSpec behind the proxy when MOBIUM_EVALS_MCP_FAULT is set; else the spec unchanged."""
    fault = os.environ.get(ENV)
    if not fault:
        return spec
    parse(fault)  # a bad spec fails here, in the harness, not silently in every trial's server
    return dataclasses.replace(spec, command=[sys.executable, "-m", __name__, fault, "--", *spec.command])


def _is_call(line: bytes) -> bool:
    try:
        message = json.loads(line)
    except ValueError:
        return False
    return isinstance(message, dict) and message.get("method") == "tools/call"


def serve(fault: ServerFault, command: list[str]) -> int:
    child = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE)
    out = sys.stdout.buffer
    out_lock = threading.Lock()
    silent = threading.Event()  # set once the fault fired: the server's answers no longer reach the client

    def pump_answers() -> None:
        for line in child.stdout:
            if silent.is_set():
                continue
            with out_lock:
                out.write(line)
                out.flush()

    threading.Thread(target=pump_answers, daemon=True).start()
    calls = 0
    for line in sys.stdin.buffer:
        if _is_call(line) and not silent.is_set():
            calls += 1
            if calls == fault.call:
                silent.set()
                if fault.kind == "garbage":
                    with out_lock:
                        out.write(GARBAGE_LINE)
                        out.flush()
                    continue
                child.stdin.write(line)
                child.stdin.flush()
                if fault.kind == "kill":
                    child.kill()
                    child.wait()
                    os._exit(1)
                continue
        if silent.is_set():
            continue  # a stalled server reads nothing more
        if not pass_line(child, line):
            return 1
    return end_child(child)


def main(argv: list[str]) -> int:
    if len(argv) < 3 or argv[1] != "--":
        sys.stderr.write("usage: python -m pytest_mobium_evals.reach.toolserver_faults KIND:call=N -- COMMAND...\n")
        return 2
    try:
        fault = parse(argv[0])
    except ValueError as exc:
        sys.stderr.write(f"{exc}\n")
        return 2
    return serve(fault, argv[2:])


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
