"""`mobium-evals mcp [--device SERIAL] [--adb HOST:PORT]`: the Mobium-compatible MCP server on stdio, the same shape
as `mobium mcp --device SERIAL`."""

from __future__ import annotations

import argparse
import logging
import sys

import anyio


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--device", metavar="SERIAL", help="pin the server to this device (default: the only one)")
    parser.add_argument("--adb", metavar="HOST:PORT", default="127.0.0.1:5037",
                        help="the ADB server to reach devices through (default 127.0.0.1:5037)")


def parse_adb(value: str) -> tuple[str, int] | None:
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        return None
    return host, int(port)


def run(args: argparse.Namespace) -> int:
    # Imported here, not at the top: the router loads this module for every `mobium-evals` command's --help, and
    # the MCP SDK behind the server costs start-up time the other commands should not pay.
    from .server import serve_stdio
    from .tools import Mobium
    parsed = parse_adb(args.adb)
    if parsed is None:
        # Printed here rather than raised: the router may run as __main__ (python -m), with its own CliError.
        print(f"mobium-evals mcp: --adb must be HOST:PORT, e.g. 127.0.0.1:5037, got {args.adb!r}", file=sys.stderr)
        return 2
    # stdout is the protocol channel: logs go to stderr only.
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="mobium-evals mcp: %(message)s")
    try:
        anyio.run(serve_stdio, Mobium(parsed[0], parsed[1], args.device))
    except KeyboardInterrupt:
        pass
    return 0
