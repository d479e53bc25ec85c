"""A stand-in for mobilecli 1.0.9's daemon, as far as a trial's private state meets it: it writes
`$MOBILECLI_HOME/daemon.pid` (`{"pid": N, "version": ...}`), listens on `$MOBILECLI_HOME/daemon.sock` and answers
newline-delimited JSON-RPC there: `daemon.status` with its pid, `daemon.shutdown` with `{"status": "ok"}`, after
which it removes its socket and pid file and exits (what the real daemon answered and did, asked by hand).

    python mobilecli_daemon_standin.py HOME [--deaf]

`--deaf` answers status but ignores shutdown (a daemon that hangs on the way out), so its end comes by signal."""

from __future__ import annotations

import json
import os
import socket
import sys


def serve(home: str, deaf: bool) -> None:
    sock_path = os.path.join(home, "daemon.sock")
    pid_path = os.path.join(home, "daemon.pid")
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(sock_path)
    listener.listen(8)
    with open(pid_path, "w") as fh:
        json.dump({"pid": os.getpid(), "version": "1.0.9"}, fh)
    print("ready", flush=True)
    while True:
        conn, _ = listener.accept()
        with conn:
            line = b""
            while not line.endswith(b"\n"):
                chunk = conn.recv(4096)
                if not chunk:
                    break
                line += chunk
            request = json.loads(line or b"{}")
            method = request.get("method")
            if method == "daemon.status":
                result = {"version": "1.0.9", "pid": os.getpid(), "socket": sock_path}
            elif method == "daemon.shutdown" and not deaf:
                result = {"status": "ok"}
            else:
                continue
            conn.sendall(json.dumps({"jsonrpc": "2.0", "id": request.get("id"), "result": result}).encode() + b"\n")
        if method == "daemon.shutdown":
            os.unlink(sock_path)
            os.unlink(pid_path)
            return


if __name__ == "__main__":
    serve(sys.argv[1], "--deaf" in sys.argv)
