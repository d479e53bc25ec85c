"""The harness's own MCP client on a fork of the prepared tool server, with no process between them.

An agent's client (the Claude CLI, an SDK's stdio client) starts its tool server as a command; for the built-in
server that command is `attach.py`, a small Python process that hands its stdin, stdout and stderr to the prepared
server, which forks a fresh server onto them (`mobium_server/prefork.py`), and then waits for that server's end.
The harness's own client (`Tools`, the controls' scripts and `mobium-evals test`) makes the same request itself:
one end of a socket pair is the fork's stdin and stdout, the trial's error log its stderr, and the fork serves the
same protocol on it (newline-delimited JSON-RPC) as an MCP transport of the SDK's kind (`TransportStreams`, what
`stdio_client` yields). The fork is the same fresh server either way; what this saves is the attach process a
trial, about 9 CPU ms to start, besides spawning it from a large worker (a control trial's whole harness side
is some 60 CPU ms).

The session ends as the SDK's stdio client ends a server: its input closed, then its exit awaited for a while
(`mobium mcp` puts a session's changes back before it goes), then, if it has not gone, the request's socket
closed, which ends the fork the way the end of its attach process does (its detach hooks first)."""

from __future__ import annotations

import os
import socket
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import IO, TYPE_CHECKING, Optional

import anyio
import anyio.abc
import mcp_types
from mcp.shared.message import SessionMessage  # noqa: TID253  a transport's own: Tools loads it as a session starts

from .prepared_processes import framed

if TYPE_CHECKING:
    from mcp.client._transport import TransportStreams

ATTACH_SCRIPT = "attach.py"


def split_command(command: list[str]) -> Optional[tuple[str, list[str]]]:
    """The socket and the server's arguments of an attach command a prepared server printed (`python -I -S
    attach.py SOCKET ARGS…`), or None for any other command."""
    if len(command) < 5 or command[1:3] != ["-I", "-S"] or os.path.basename(command[3]) != ATTACH_SCRIPT:
        return None
    return command[4], command[5:]


def request(args: list[str]) -> bytes:
    """The request attach.py makes, read by prefork._receive: the command line's length (4 bytes, big-endian),
    then its words NUL-separated, in one message with the fork's stdin, stdout and stderr."""
    return framed("\0".join(args).encode("utf-8"))

# As the SDK's stdio client waits: for the server to go once its input is closed, then once it is told to go.
EXIT_TIMEOUT = 2.0
DETACH_TIMEOUT = 2.0


def fork_request(command: list[str]) -> Optional[tuple[str, list[str]]]:
    """The prepared server's socket and the server's arguments when `command` attaches to a prepared server that is
    there; None for any other command (it is started as a process)."""
    split = split_command(command)
    return split if split is not None and os.path.exists(split[0]) else None


async def connect(path: str, args: list[str], errlog: IO) -> tuple[anyio.abc.UNIXSocketStream,
                                                                   anyio.abc.UNIXSocketStream]:
    """Asks the prepared server at `path` for a fork serving `args`: returns the request's socket (the fork's
    status arrives on it when it ends) and this side of the fork's stdin and stdout. OSError when nothing
    answers at `path`, or it went before it took the request."""
    control = await anyio.connect_unix(path)
    ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        await control.send_fds(request(args), [theirs.fileno(), theirs.fileno(), errlog.fileno()])
    except BaseException as exc:
        ours.close()
        await control.aclose()
        if isinstance(exc, anyio.BrokenResourceError):
            raise OSError(f"the prepared server at {path} went: {exc.__cause__ or exc}") from exc
        raise
    finally:
        theirs.close()  # the fork holds its own copies: this side sees the fork's end as the end of the stream
    return control, await anyio.abc.UNIXSocketStream.from_socket(ours)


@asynccontextmanager
async def fork_streams(control: anyio.abc.UNIXSocketStream,
                       channel: anyio.abc.UNIXSocketStream) -> AsyncIterator["TransportStreams"]:
    """The session's read and write streams over a fork's stdin and stdout (`connect`)."""
    read_writer, read_stream = anyio.create_memory_object_stream[SessionMessage | Exception](0)
    write_stream, write_reader = anyio.create_memory_object_stream[SessionMessage](0)

    async def read_lines() -> None:
        pending = b""
        async with read_writer:
            try:
                while True:
                    try:
                        chunk = await channel.receive()
                    except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                        return
                    *lines, pending = (pending + chunk).split(b"\n")
                    for line in lines:
                        await read_writer.send(_parsed(line))
            except (anyio.ClosedResourceError, anyio.BrokenResourceError):
                return  # the session is gone

    async def write_lines() -> None:
        async with write_reader:
            try:
                async for message in write_reader:
                    text = message.message.model_dump_json(by_alias=True, exclude_unset=True)
                    await channel.send(text.encode("utf-8") + b"\n")
            except (anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
                await read_writer.aclose()  # a request would wait forever on a server that cannot hear it

    async with anyio.create_task_group() as tasks:
        tasks.start_soon(read_lines)
        tasks.start_soon(write_lines)
        try:
            yield read_stream, write_stream
        finally:
            with anyio.CancelScope(shield=True):
                await _end(control, channel, write_stream)
            tasks.cancel_scope.cancel()
    for stream in (read_stream, read_writer, write_stream, write_reader):
        stream.close()


async def _end(control: anyio.abc.UNIXSocketStream, channel: anyio.abc.UNIXSocketStream, write_stream) -> None:
    write_stream.close()
    try:
        await channel.send_eof()  # the server's stdin ends: it ends its session and goes
    except (OSError, anyio.ClosedResourceError, anyio.BrokenResourceError):
        pass
    if not await _status_within(control, EXIT_TIMEOUT):
        try:
            await control.send_eof()  # as the attach process's end: the fork runs its detach hooks and exits
        except (OSError, anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass
        await _status_within(control, DETACH_TIMEOUT)
    await control.aclose()
    await channel.aclose()


async def _status_within(control: anyio.abc.UNIXSocketStream, timeout: float) -> bool:
    """Whether the fork's end (its status, then the socket's end) arrived within `timeout` seconds."""
    with anyio.move_on_after(timeout):
        try:
            while await control.receive():
                pass
        except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError, OSError):
            pass
        return True
    return False


def _parsed(line: bytes) -> SessionMessage | Exception:
    # As the SDK's stdio client reads a line: a line that is not JSON-RPC reaches the session as an error value.
    try:
        return SessionMessage(mcp_types.jsonrpc_message_adapter.validate_json(line, by_name=False))
    except ValueError as exc:
        return exc
