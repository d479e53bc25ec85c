"""A tool server's machine-wide state made private to one trial.

Some MCP servers keep state outside their own process, shared by every run on the machine. mobile-mcp runs each
device command through mobilecli, whose first command starts a daemon (detached, in a session of its own, idle for
30 minutes before it leaves) listening on `$MOBILECLI_HOME/daemon.sock` (default `~/.mobilecli`); every later
command of any run talks to that daemon, which keeps the ADB server it was started with (mobilecli's
daemon/ensure.go, daemon/paths.go). A trial against another ADB server then finds no device, and a tool answer
saying so would be charged to the agent.

So each trial's server gets a fresh empty folder for each such variable (`ToolServerSpec.private_state`), and when
the trial is over, what the server left running there is ended: a process named by a `*.pid` file in it (mobilecli
writes `{"pid": N, ...}`), and only when that process's environment still names the folder — a pid the system
reused is someone else's. Then the folder goes.

    with private_state(spec) as spec:     # spec.env now names the fresh folders
        run the trial's driver on spec
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import tempfile
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from pathlib import Path
from typing import Any, Optional

# How long a daemon has to leave after SIGTERM before it is killed.
TERM_GRACE_S = 3.0


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
    """Ends each process a pid file in `folder` names whose environment names `folder`; returns their pids."""
    ended = []
    for pid_file in sorted(folder.rglob("*.pid")):
        pid = _pid_in(pid_file)
        if pid is not None and _belongs(pid, folder):
            _end(pid)
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


def _belongs(pid: int, folder: Path) -> bool:
    """Whether the live process `pid` was started with `folder` in its environment (so the trial's server, or what
    it spawned, started it)."""
    try:
        environ = Path(f"/proc/{pid}/environ").read_bytes()
    except OSError:
        return False
    return any(entry.split(b"=", 1)[-1] == os.fsencode(folder) for entry in environ.split(b"\0"))


def _end(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGTERM)
    except ProcessLookupError:
        return
    deadline = time.monotonic() + TERM_GRACE_S
    while time.monotonic() < deadline:
        if not _running(pid):
            return
        time.sleep(0.02)
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _running(pid: int) -> bool:
    """Alive and not a zombie (a detached daemon's parent is init, which reaps it; until then it reads Z)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"
