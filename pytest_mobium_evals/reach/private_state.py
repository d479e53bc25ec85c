"""A tool server's machine-wide state made private to one trial.

Some MCP servers keep state outside their own process, shared by every run on the machine. mobile-mcp runs each
device command through mobilecli, whose first command starts a daemon (detached, in a session of its own, idle for
30 minutes before it leaves) listening on `$MOBILECLI_HOME/daemon.sock` (default `~/.mobilecli`); every later
command of any run talks to that daemon, which keeps the ADB server it was started with (mobilecli's
daemon/ensure.go, daemon/paths.go). A trial against another ADB server then finds no device, and a tool answer
saying so would be charged to the agent.

So each trial's server gets a fresh empty folder for each such variable (`ToolServerSpec.private_state`), and when
the trial is over, what the server left running there is ended, by the way mobilecli itself offers (`mobilecli
daemon stop`): its daemon answers newline-delimited JSON-RPC on the Unix socket it keeps in the folder
(`daemon.status` gives its pid, `daemon.shutdown` ends it, and it removes its socket and pid file on the way out,
as mobilecli 1.0.9 does). A process that answers on a socket in the trial's own fresh folder is the trial's, so no
pid is taken on trust: a pid file whose process answers nowhere there (its daemon gone, the pid reused) is left
alone. One that answers but outlives its shutdown is sent SIGTERM, then SIGKILL. Then the folder goes. Nothing here
reads /proc: it works wherever Unix sockets and os.kill do (Linux, macOS).

    with private_state(spec) as spec:     # spec.env now names the fresh folders
        run the trial's driver on spec
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Optional

# How long a daemon has to leave after it is asked to (and after SIGTERM) before it is signalled harder.
TERM_GRACE_S = 3.0
# How long a daemon has to answer one request on its socket.
ASK_TIMEOUT_S = 2.0


@contextmanager
def private_state(spec: Any) -> Iterator[Any]:
    """`spec` with a fresh folder in each variable of its `private_state` (and none left to make: a launch site
    handed the result makes no second one), ended and removed afterwards; `spec` unchanged when it names none."""
    names = tuple(getattr(spec, "private_state", ()) or ())
    if not names:
        yield spec
        return
    # Short, under the system's temporary folder: a Unix socket's path is limited to about 104 bytes.
    root = Path(tempfile.mkdtemp(prefix="mte-"))
    folders = {name: root / str(i) for i, name in enumerate(names)}
    for folder in folders.values():
        folder.mkdir()
    try:
        yield replace(spec, env={**spec.env, **{name: str(folder) for name, folder in folders.items()}},
                      private_state=())
    finally:
        for folder in folders.values():
            end_left_running(folder)
        shutil.rmtree(root, ignore_errors=True)


def end_left_running(folder: Path) -> list[int]:
    """Ends each daemon that answers on a socket in `folder` and whose pid a pid file there names; returns their
    pids."""
    named = {pid for pid in (_pid_in(path) for path in sorted(folder.rglob("*.pid"))) if pid is not None}
    ended = []
    for sock in sorted(p for p in folder.rglob("*.sock") if p.is_socket()):
        status = _ask(sock, "daemon.status")
        pid = status.get("pid") if isinstance(status, dict) else None
        if isinstance(pid, int) and not isinstance(pid, bool) and pid in named:
            _end(pid, sock)
            ended.append(pid)
    return ended


def _pid_in(path: Path) -> Optional[int]:
    try:
        text = path.read_text().strip()
    except OSError:
        return None
    try:
        value = json.loads(text)
    except ValueError:
        return None
    pid = value.get("pid") if isinstance(value, dict) else value
    return pid if isinstance(pid, int) and not isinstance(pid, bool) and pid > 1 else None


def _ask(sock: Path, method: str) -> Any:
    """One JSON-RPC request on the daemon's socket, its result; None when nothing answers there."""
    family = getattr(socket, "AF_UNIX", None)
    if family is None:
        return None
    try:
        with socket.socket(family, socket.SOCK_STREAM) as conn:
            conn.settimeout(ASK_TIMEOUT_S)
            conn.connect(str(sock))
            conn.sendall(json.dumps({"jsonrpc": "2.0", "id": 1, "method": method}).encode() + b"\n")
            answer = b""
            while not answer.endswith(b"\n"):
                chunk = conn.recv(65536)
                if not chunk:
                    break
                answer += chunk
        return json.loads(answer).get("result")
    except (OSError, ValueError, AttributeError):
        return None


def _end(pid: int, sock: Path) -> None:
    """Asks the daemon to shut down, and ends it by signal if it is still there after the grace."""
    _ask(sock, "daemon.shutdown")
    if _gone(pid, sock, TERM_GRACE_S):
        return
    for sig in (signal.SIGTERM, getattr(signal, "SIGKILL", signal.SIGTERM)):
        try:
            os.kill(pid, sig)
        except ProcessLookupError:
            return
        if _gone(pid, sock, TERM_GRACE_S):
            return


def _gone(pid: int, sock: Path, within: float) -> bool:
    """Whether the daemon stops answering and its pid leaves within `within` seconds. A pid that stays is a zombie
    at worst once the socket is silent: a detached daemon's parent is init, which reaps it."""
    deadline = time.monotonic() + within
    while True:
        if not _alive(pid) or (_ask(sock, "daemon.status") is None and not sock.exists()):
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(0.02)


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
