"""`mobium-evals mcp [--device SERIAL] [--adb HOST:PORT]`: the Mobium-compatible MCP server on stdio, the same shape
as `mobium mcp --device SERIAL`. `mobium-evals mcp --prefork SOCKET`: the same server, prepared once and forked per
client (prefork.py)."""

from __future__ import annotations

import argparse
import logging
import sys
from typing import Callable, Mapping

from .prefork import add_arguments as add_prefork_arguments
from .prefork import end_if_detached, on_detach, serve_forks


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--device", metavar="SERIAL", help="pin the server to this device (default: the only one)")
    parser.add_argument("--adb", metavar="HOST:PORT", default="127.0.0.1:5037",
                        help="the ADB server to reach devices through (default 127.0.0.1:5037)")
    add_prefork_arguments(parser)


def parse_adb(value: str) -> tuple[str, int] | None:
    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit() or not 0 < int(port) < 65536:
        return None
    return host, int(port)


def run(args: argparse.Namespace, others: Mapping[str, Callable[[list[str]], int]] | None = None) -> int:
    """`others`: the commands besides `mcp` a prepared server's fork may run for an attached client, by name, each
    called with the client's whole command line (the caller's router: this package stands apart from it)."""
    if args.prefork:
        parser = argparse.ArgumentParser(prog="mobium-evals mcp", add_help=False)
        add_arguments(parser)
        parser.parse_args(["--device", "x", "--adb", "h:1"])  # argparse compiles its patterns once, here
        return serve_forks(args.prefork, lambda argv: serve_args(parser, argv, others or {}))
    return serve(args.device, args.adb)


def serve_args(parser: argparse.ArgumentParser, argv: list[str],
               others: Mapping[str, Callable[[list[str]], int]] | None = None) -> int:
    """One server for an attached client, from the command line it asked with (`mcp` and its options), or one of
    the `others` commands it asked for."""
    if argv[:1] and argv[0] in (others or {}):
        return others[argv[0]](argv)
    if argv[:1] != ["mcp"]:
        print(f"mobium-evals mcp --prefork: an attached client asked for {argv[:1]}, not mcp", file=sys.stderr)
        return 2
    try:
        args = parser.parse_args(argv[1:])
    except SystemExit as exc:  # argparse has printed its one line to the client's stderr
        return int(exc.code or 2)
    if args.prefork:
        print("mobium-evals mcp: --prefork cannot be asked for by an attached client", file=sys.stderr)
        return 2
    return serve(args.device, args.adb)


def serve(device: str | None, adb: str) -> int:
    # Imported here, not at the top: the router loads this module for every `mobium-evals` command's --help, and
    # the MCP SDK behind the server costs start-up time the other commands should not pay.
    import anyio  # noqa: PLC0415  the MCP SDK, only when the server starts (comment above)

    from .server import serve_stdio  # noqa: PLC0415  the MCP SDK, only when the server starts (comment above)
    from .tools import Mobium  # noqa: PLC0415  the MCP SDK, only when the server starts (comment above)

    parsed = parse_adb(adb)
    if parsed is None:
        # Printed here rather than raised: the router may run as __main__ (python -m), with its own UsageError.
        print(f"mobium-evals mcp: --adb must be HOST:PORT, e.g. 127.0.0.1:5037, got {adb!r}", file=sys.stderr)
        return 2
    # stdout is the protocol channel: logs go to stderr only.
    logging.basicConfig(stream=sys.stderr, level=logging.WARNING, format="mobium-evals mcp: %(message)s")
    mobium = Mobium(parsed[0], parsed[1], device)
    on_detach(mobium.close)  # a fork whose client detached ends the session as one whose stdin closed does
    try:
        anyio.run(serve_stdio, mobium, end_if_detached)
    except KeyboardInterrupt:
        pass
    return 0
