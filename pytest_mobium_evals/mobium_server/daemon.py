"""The daemon behind the `mobium` CLI face: one process per session that holds one server's state (the ref table,
dialog rules, context and last screen of each device) between CLI calls, as Mobium's daemon does.

Its socket is named by `MOBIUM_SESSION` and the ADB endpoint, so two checks running at once, or one check against
two virtual devices, never share refs. The first call starts it; `mobium daemon stop` ends it; it also exits after
30 idle minutes. One call is served at a time.

Wire: the client sends one JSON line `{"tool", "args"}` (or `{"op": "stop"|"status"}`) and reads one JSON line back:
`{"text", "data"}` on success, `{"error": <Mobium's error payload>}` on a tool's failure.
"""

from __future__ import annotations

import argparse
import fcntl
import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import traceback
from typing import Any, Optional

from .errors import MobiumError

IDLE_EXIT_S = 30 * 60
START_DEADLINE_S = 30.0


def socket_path(session: str, adb_host: str, adb_port: int) -> str:
    """Short on purpose: the OS caps a Unix socket's path at about 104 bytes."""
    home = os.environ.get("MOBIUM_HOME")
    base = os.path.join(home, "daemon") if home else os.path.join(tempfile.gettempdir(), f"mobium-evals-{os.getuid()}")
    os.makedirs(base, mode=0o700, exist_ok=True)
    host = "" if adb_host in ("127.0.0.1", "localhost") else f"{adb_host}-"
    return os.path.join(base, f"mobium-{session}-{host}{adb_port}.sock")


# ====================================================================================================================
# The client side (each CLI call)

class DaemonUnreachable(Exception):
    """The daemon could not be started or stopped answering."""


def _exchange(path: str, request: dict, timeout: Optional[float]) -> dict:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        sock.connect(path)
        sock.sendall(json.dumps(request).encode() + b"\n")
        chunks = []
        while True:
            chunk = sock.recv(65536)
            if not chunk:
                break
            chunks.append(chunk)
    raw = b"".join(chunks)
    if not raw:
        raise DaemonUnreachable("the daemon closed the connection without an answer")
    return json.loads(raw)


def running(path: str) -> bool:
    try:
        _exchange(path, {"op": "status"}, 5.0)
        return True
    except (OSError, DaemonUnreachable, ValueError):
        return False


def request(path: str, adb_host: str, adb_port: int, message: dict) -> dict:
    """Send one request, starting the daemon first if none answers on `path`."""
    try:
        return _exchange(path, message, None)
    except (FileNotFoundError, ConnectionRefusedError):
        pass
    _start(path, adb_host, adb_port)
    return _exchange(path, message, None)


def _start(path: str, adb_host: str, adb_port: int) -> None:
    # Two first calls at once must not start two daemons on one socket: the lock makes the second wait for the first.
    with open(path + ".lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if running(path):
            return
        if os.path.exists(path):
            os.unlink(path)
        log = open(path + ".log", "ab")
        subprocess.Popen([sys.executable, "-m", "pytest_mobium_evals.mobium_server.daemon", "--socket", path,
                          "--adb", f"{adb_host}:{adb_port}"], stdin=subprocess.DEVNULL, stdout=log, stderr=log,
                         start_new_session=True, close_fds=True)
        log.close()
        deadline = time.monotonic() + START_DEADLINE_S
        while time.monotonic() < deadline:
            if running(path):
                return
            time.sleep(0.05)
        raise DaemonUnreachable(f"the daemon did not start within {START_DEADLINE_S:.0f}s (its log: {path}.log)")


# ====================================================================================================================
# The daemon side

def _answer(mobium: Any, message: dict) -> dict:
    name, args = message.get("tool", ""), message.get("args") or {}
    if name not in mobium.tools:
        return {"error": MobiumError("unsupported", f"this server has no {name} tool, so `mobium {message.get('verb')}`"
                                     " cannot be served here", "use a command whose tool the server has").payload()}
    try:
        res = mobium.call(name, args)
    except MobiumError as err:
        return {"error": err.payload()}
    except Exception as exc:  # a bug must not end the session's state
        traceback.print_exc()
        return {"error": MobiumError("internal", f"{name} failed inside the server: {type(exc).__name__}: {exc}",
                                     "report this; try the call again").payload()}
    return {"text": res.text, "data": res.data}


def serve(path: str, adb_host: str, adb_port: int) -> None:
    from .tools import Mobium  # noqa: PLC0415  the tools load the MCP SDK, Pillow and adbutils: only the daemon side serves them
    mobium = Mobium(adb_host, adb_port)
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(path)
    server.listen(8)
    server.settimeout(IDLE_EXIT_S)
    try:
        while True:
            try:
                conn, _ = server.accept()
            except socket.timeout:
                return
            with conn:
                conn.settimeout(None)
                message = json.loads(_read_line(conn) or b"{}")
                op = message.get("op")
                if op == "status":
                    reply: dict = {"text": f"daemon running (pid {os.getpid()}), adb {adb_host}:{adb_port}",
                                   "data": {"pid": os.getpid(), "socket": path}}
                elif op == "stop":
                    conn.sendall(json.dumps({"text": "daemon stopped", "data": {"stopped": True}}).encode())
                    return
                else:
                    reply = _answer(mobium, message)
                conn.sendall(json.dumps(reply, ensure_ascii=False).encode())
    finally:
        mobium.close()  # the daemon's sessions end with it (stopped, or idle too long): their changes put back
        server.close()
        if os.path.exists(path):
            os.unlink(path)


def _read_line(conn: socket.socket) -> bytes:
    buf = b""
    while not buf.endswith(b"\n"):
        chunk = conn.recv(65536)
        if not chunk:
            break
        buf += chunk
    return buf


def main() -> int:
    parser = argparse.ArgumentParser(prog="mobium-evals mobium daemon")
    parser.add_argument("--socket", required=True)
    parser.add_argument("--adb", required=True, metavar="HOST:PORT")
    args = parser.parse_args()
    host, _, port = args.adb.rpartition(":")
    serve(args.socket, host, int(port))
    return 0


if __name__ == "__main__":
    sys.exit(main())
