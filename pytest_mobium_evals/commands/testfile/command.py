"""`mobium-evals test FILE`: options, exit status, the report."""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path
from typing import Any, Optional

from pytest_mobium_evals.core.errors import UsageError
from pytest_mobium_evals.reach.devices import DeviceUnavailable, parse_host_port
from pytest_mobium_evals.reach.toolserver import InfraError, Tools, ToolServerSpec
from pytest_mobium_evals.runfolder.files import atomic_write_json

from .format import EXIT_BAD_FILE, EXIT_NO_DEVICE
from .results import TestFileResult
from .running import read_test_file, run_file

# ---- the command ------------------------------------------------------------------------------------------------

def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="a Mobium *.test.json file")
    parser.add_argument("--device", metavar="SERIAL", help="the device to run on (default: the only one the ADB "
                                                           "server has)")
    parser.add_argument("--adb", metavar="HOST:PORT", default="127.0.0.1:5037",
                        help="the ADB server that has the device (default 127.0.0.1:5037)")
    parser.add_argument("--mobium", metavar="PATH", help="run the real Mobium binary's `mobium mcp` as the tool "
                                                         "server (default: $MOBIUM_BIN if set, else the built-in "
                                                         "server)")
    parser.add_argument("-g", "--grep", metavar="REGEX", help="run only the tests whose title (file › name) matches")
    parser.add_argument("--timeout", metavar="SECONDS", type=float, default=90.0,
                        help="the time each test may take: one still running after it fails at its next step "
                             "(default 90)")
    parser.add_argument("--json", metavar="PATH", help="also write the result as JSON to PATH")
    parser.add_argument("--max-failures", metavar="N", type=int,
                        help="stop after N failed tests; the rest are not run")
    parser.add_argument("--assertion-timeout", metavar="MS", type=int,
                        help="how long an assertion that gives no timeout_ms waits (default 10000)")
    parser.add_argument("--allow-tools", metavar="TOOL,TOOL", help="refuse the file (as a bad file) if a step uses a "
                                                                  "tool not listed here")


def run(args: argparse.Namespace) -> int:
    name, data, problem = read_test_file(args.file)
    if problem:
        _write_json(args.json, TestFileResult(file=name, problems=[problem]))
        print(f"bad file {name}: {problem}", file=sys.stderr)
        return EXIT_BAD_FILE
    host, port = _host_port(args.adb)
    if args.timeout <= 0:
        raise UsageError(f"--timeout must be more than 0 seconds, got {args.timeout:g}")
    if args.max_failures is not None and args.max_failures < 1:
        raise UsageError(f"--max-failures must be 1 or more, got {args.max_failures}")
    if args.assertion_timeout is not None and not 0 < args.assertion_timeout <= 120_000:
        raise UsageError(f"--assertion-timeout must be from 1 to 120000 ms, got {args.assertion_timeout}")
    if args.grep:
        try:
            re.compile(args.grep)
        except re.error as exc:
            raise UsageError(f"--grep {args.grep!r} is not a regular expression: {exc}") from None
    allowed = [t.strip() for t in args.allow_tools.split(",") if t.strip()] if args.allow_tools else None
    serial = args.device or _only_device(host, port)
    if serial is None:
        return EXIT_NO_DEVICE

    mobium = args.mobium or os.environ.get("MOBIUM_BIN")
    spec = ToolServerSpec.mobium(mobium, serial, host, port) if mobium else ToolServerSpec.builtin(serial, host, port)
    try:
        tools = Tools(spec)
    except InfraError as exc:
        print(f"mobium-evals test: the tool server did not start: {exc}", file=sys.stderr)
        return EXIT_NO_DEVICE
    try:
        result = run_file(Path(args.file), tools, device_label=serial, grep=args.grep, test_timeout_s=args.timeout,
                          report=lambda line: print(line, flush=True), allowed_tools=allowed,
                          max_failures=args.max_failures, assertion_timeout_ms=args.assertion_timeout)
    finally:
        _close(tools)
    _write_json(args.json, result)
    if result.problems:
        for p in result.problems:
            print(f"bad file {result.file}: {p}", file=sys.stderr)
        print(f"error: {result.file} is a bad file ({len(result.problems)} problem"
              f"{'s' if len(result.problems) != 1 else ''}); nothing ran", file=sys.stderr)
        return EXIT_BAD_FILE
    print(result.summary())
    if result.infra_error:
        print(f"error: the run could not go on: {result.infra_error}", file=sys.stderr)
    elif result.failed:
        print(f"error: {len(result.failed)} of {len(result.tests)} tests failed", file=sys.stderr)
    elif not result.tests:
        print("error: no test matched", file=sys.stderr)
        return EXIT_BAD_FILE
    return result.exit_code


def _write_json(path: Optional[str], result: TestFileResult) -> None:
    if path:
        atomic_write_json(Path(path), result.to_json(), sort_keys=False, ensure_ascii=False)


def _close(tools: Any) -> None:
    for attr in ("close", "stop"):
        fn = getattr(tools, attr, None)
        if callable(fn):
            fn()
            return


def _host_port(value: str) -> tuple[str, int]:
    try:
        return parse_host_port(value, f"--adb {value}", default_port=None)
    except DeviceUnavailable as exc:
        raise UsageError(str(exc)) from None


def _only_device(host: str, port: int) -> Optional[str]:
    """The one device the ADB server has; None (with a message) when it has none, UsageError when several."""
    import adbutils  # noqa: PLC0415  adbutils, only for --device

    try:
        devices = [d.serial for d in adbutils.AdbClient(host=host, port=port, socket_timeout=10).device_list()]
    except Exception as exc:  # the ADB server is not there: the run cannot start
        print(f"mobium-evals test: no ADB server at {host}:{port}: {exc}", file=sys.stderr)
        return None
    if not devices:
        print(f"mobium-evals test: no device on the ADB server at {host}:{port}", file=sys.stderr)
        return None
    if len(devices) > 1:
        raise UsageError(f"{len(devices)} devices on {host}:{port} ({', '.join(devices)}); name one with --device")
    return devices[0]
