"""`mobium-evals mobium [--device S] [--json] VERB …`: the built-in server behind Mobium's own command line, so a
script written for `mobium` (Mobium's device checks) runs unchanged against it.

What it prints is what Mobium prints: a tool's text on stdout; with `--json` its structured half, indented by two
and keys sorted; a failure as `error: <message>` on stderr (with `--json`, the error payload on stdout). It exits
with Mobium's codes. State lasts across calls in a daemon per `MOBIUM_SESSION` (see `daemon`).

The ADB server is `--adb HOST:PORT`, else adb's own `ANDROID_ADB_SERVER_ADDRESS` / `ANDROID_ADB_SERVER_PORT`, else
127.0.0.1:5037.
"""

from __future__ import annotations

import argparse
import json
import os
import sys

from . import daemon
from .cli_grammar import GrammarError, parse

# Mobium's exit status for each error code; anything unlisted is 1.
EXIT_CODES = {
    "invalid_argument": 2,
    "no_device": 3, "device_not_ready": 3, "toolchain_missing": 3,
    "no_such_element": 4, "ambiguous_locator": 4, "element_not_reachable": 4, "no_such_context": 4,
    "no_such_alert": 4,
    "unsupported": 5,
    "timeout": 6,
    "not_confirmed": 7,
}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("words", nargs=argparse.REMAINDER, metavar="VERB …",
                        help="a command in Mobium's grammar, e.g. `--device emulator-5554 map --json`")


def run(args: argparse.Namespace) -> int:
    return main(list(args.words))


def adb_endpoint(flag: str | None) -> tuple[str, int]:
    if flag:
        host, sep, port = flag.rpartition(":")
    else:
        host, sep = os.environ.get("ANDROID_ADB_SERVER_ADDRESS", "127.0.0.1"), ":"
        port = os.environ.get("ANDROID_ADB_SERVER_PORT", "5037")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise GrammarError(f"the ADB server must be HOST:PORT, e.g. 127.0.0.1:5037, got {flag!r}")
    return host, int(port)


def _print_json(obj: object, stream=None) -> None:
    print(json.dumps(obj, indent=2, sort_keys=True, ensure_ascii=False), file=stream or sys.stdout)


def _fail(message: str, code: str, as_json: bool, payload: dict | None = None) -> int:
    if as_json:
        # Mobium prints the error payload in its own field order: the message first, as "error".
        print(json.dumps({"error": message, **(payload or {"code": code, "message": message})}, indent=2,
                         ensure_ascii=False))
    else:
        print(f"error: {message}", file=sys.stderr)
    return EXIT_CODES.get(code, 1)


def main(argv: list[str]) -> int:
    try:
        return _main(argv)
    except BrokenPipeError:
        # `mobium map | grep -q X` closes the pipe at the first match, as check scripts do; end quietly, as a
        # program killed by SIGPIPE would (status 128 + 13), and keep Python's flush at exit from failing again.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141


def _main(argv: list[str]) -> int:
    as_json = "--json" in argv
    try:
        line = parse(argv)
        host, port = adb_endpoint(line.adb)
    except GrammarError as exc:
        return _fail(str(exc), "invalid_argument", as_json)
    session = os.environ.get("MOBIUM_SESSION") or "default"
    path = daemon.socket_path(session, host, port)
    try:
        if line.daemon == "stop" or line.daemon == "status":
            if not daemon.running(path):
                print("no daemon is running" if line.daemon == "status" else "no daemon was running")
                return 0
            reply = daemon.request(path, host, port, {"op": line.daemon})
        elif line.daemon == "start":
            reply = daemon.request(path, host, port, {"op": "status"})
        else:
            reply = daemon.request(path, host, port, {"tool": line.tool, "args": line.args, "verb": line.verb})
    except (OSError, daemon.DaemonUnreachable) as exc:
        return _fail(f"the mobium daemon could not be reached: {exc}", "internal", line.json)
    error = reply.get("error")
    if error:
        return _fail(error.get("message", ""), error.get("code", "error"), line.json, error)
    if line.json:
        _print_json(reply.get("data") or {})
    else:
        text = reply.get("text") or ""
        print(text)
    return 0
