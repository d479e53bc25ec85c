"""A prepared server: one process that has already imported the MCP SDK and the tools, and forks a fresh server
for every client that attaches (`attach.py`). A trial's server then answers tools/list in tens of milliseconds
instead of the half second an interpreter takes to import all of it, and still starts from nothing: each fork builds
its own `Mobium` (ref tables, dialog rules) and serves one client on the client's own pipes.

    mobium-evals mcp --prefork SOCKET

binds SOCKET, prints one JSON line `{"attach": [ARGV…]}` (the command to spawn, followed by `mcp` and the options
of the server wanted, e.g. `mcp --device SERIAL --adb HOST:PORT`), then serves until its stdin closes: the process that
started it holds the other end, so the prepared server never outlives it. The forks outlive it only as long as
their own clients keep them. A fork may itself be asked for another command its caller serves (`run_server` decides:
t25's `mobium-evals test` runs, which have the MCP SDK imported here already); such a fork finds the attach command
of the server it came from in `attach_command()`, for tool servers of its own."""

from __future__ import annotations

import argparse
import gc
import json
import os
import select
import signal
import socket
import sys
import threading
from pathlib import Path

from pytest_mobium_evals.reach.prepared_processes import receive_request

_attach: list[str] = []  # this prepared server's attach command, which its forks inherit


def attach_command() -> list[str] | None:
    """In a fork of a prepared server, the command that attaches to that server (for a fresh fork of it); else
    None."""
    return list(_attach) or None


def serve_forks(path: str, run_server) -> int:
    """`run_server(argv: list[str]) -> int` serves one client on fds 0/1/2; it runs in a fresh fork per client."""
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    if os.path.exists(path):
        os.unlink(path)
    listener.bind(path)
    listener.listen(64)
    attach = [sys.executable, "-I", "-S", str(Path(__file__).with_name("attach.py")), path]
    _attach[:] = attach
    sys.stdout.write(json.dumps({"attach": attach}) + "\n")
    sys.stdout.flush()
    # Clients that connect from here on wait in the backlog while the rest is imported.
    _import_everything()
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)  # forks are reaped by the kernel
    gc.freeze()  # what is imported now is shared with every fork, not copied on its first collection
    try:
        while True:
            ready, _, _ = select.select([listener, sys.stdin.fileno()], [], [])
            if sys.stdin.fileno() in ready and not os.read(sys.stdin.fileno(), 4096):
                return 0
            if listener in ready:
                conn, _ = listener.accept()
                _fork_for(conn, listener, run_server)
    finally:
        listener.close()
        try:
            os.unlink(path)
        except OSError:
            pass


def _import_everything() -> None:
    # anyio loads its event-loop backend on the first anyio.run: loaded here, once, not in every fork.
    import anyio._backends._asyncio  # noqa: F401, PLC0415  preloaded before forking: the imports are the point
    import anyio.to_thread  # noqa: F401, PLC0415  preloaded before forking

    from . import server, tools  # noqa: F401, PLC0415  (the imports are the point)

    server.tool_list()  # the tool list, built once here rather than in every fork


def _fork_for(conn: socket.socket, listener: socket.socket, run_server) -> None:
    try:
        args, fds = _receive(conn)
    except (OSError, ValueError) as exc:
        print(f"mobium-evals mcp --prefork: a bad attach request: {exc}", file=sys.stderr, flush=True)
        conn.close()
        return
    pid = os.fork()
    if pid:
        for fd in fds:
            os.close(fd)
        conn.close()
        return
    # The fork: the client's pipes become this process's standard streams.
    status = 1
    try:
        listener.close()
        signal.signal(signal.SIGCHLD, signal.SIG_DFL)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        _client_pipes.update((os.fstat(fd).st_dev, os.fstat(fd).st_ino) for fd in (0, 1))
        _attach_socket.append(conn)
        threading.Thread(target=_exit_when_detached, args=(conn,), daemon=True).start()
        status = run_server(args)
    except BaseException as exc:  # the fork must never return into the prepared server's loop
        print(f"mobium-evals mcp: the server failed: {type(exc).__name__}: {exc}", file=sys.stderr)
    finally:
        try:
            sys.stdout.flush()
            sys.stderr.flush()
            conn.sendall(str(status).encode())
        except BaseException:  # noqa: B036  (nothing may stop the exit below)
            pass
        os._exit(status if isinstance(status, int) else 1)


def _receive(conn: socket.socket) -> tuple[list[str], list[int]]:
    data, fds = receive_request(conn)
    body = data.decode("utf-8")
    return (body.split("\0") if body else []), fds


# What a fork does before it goes because its client detached: the server registers its own ending here
# (`on_detach`), so a client that ends the attach process rather than closing the server's stdin still ends the
# server's session as Mobium's ends (its changes put back).
_detach_hooks: list = []


def on_detach(hook) -> None:
    """Run `hook()` in this fork when its client detaches, before the fork exits."""
    _detach_hooks.append(hook)


_client_pipes: set[tuple[int, int]] = set()  # what the client's stdin and stdout are (device, inode), in a fork


def _descriptors_of(files: set[tuple[int, int]]) -> list[int]:
    found = []
    for name in os.listdir("/proc/self/fd"):
        try:
            stat = os.fstat(int(name))
        except (OSError, ValueError):
            continue
        if (stat.st_dev, stat.st_ino) in files and int(name) != 2:
            found.append(int(name))
    return found


_attach_socket: list[socket.socket] = []  # in a fork: the socket its attach process holds the other end of
_ending = threading.Lock()


def end_if_detached() -> None:
    """Before a fork answers a call: if its attach process has ended, the fork ends now, as the watcher below would.
    A killed attach process's end of the socket is closed before its client can write another request, but the
    watcher thread may not have run by the time the server reads that request, and a server its client killed
    answers nothing more. A no-op outside a fork, and one system call inside it."""
    if not _attach_socket:
        return
    try:
        if _attach_socket[0].recv(16, socket.MSG_PEEK | socket.MSG_DONTWAIT):
            return  # the attach process sends nothing once attached: not an end
    except BlockingIOError:
        return  # nothing to read and no end: the attach process is there
    except OSError:
        pass
    _end_detached()


def _exit_when_detached(conn: socket.socket) -> None:
    """The attach process was ended by its client (it sends nothing once attached): the server goes with it, after
    its registered endings."""
    try:
        while conn.recv(16):
            pass
    except OSError:
        pass
    _end_detached()


def _end_detached() -> None:
    _ending.acquire()  # once: a second caller waits here for the first one's exit
    # As a server its client killed: its pipes end now, so the client reads the end at once rather than one more
    # answer while the session is put back. The MCP SDK serves the wire from private duplicates of fds 0 and 1
    # (it diverts the standard ones), so every descriptor of the client's pipes is found by what it is.
    devnull = os.open(os.devnull, os.O_RDWR)
    for fd in _descriptors_of(_client_pipes):
        try:
            os.dup2(devnull, fd)
        except OSError:
            pass
    for hook in _detach_hooks:
        try:
            hook()
        except BaseException:  # noqa: B036, S110 - the fork exits below whatever an ending raised
            pass
    os._exit(0)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--prefork", metavar="SOCKET",
                        help="serve no client itself: bind SOCKET and fork a fresh server for each client that "
                             "attaches (prints the command to attach with)")
