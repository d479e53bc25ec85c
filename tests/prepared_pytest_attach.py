"""`python -I -S prepared_pytest_attach.py SOCKET ARGS…` runs `python -mpytest ARGS…` as a fork of the prepared pytest
at SOCKET (prepared_pytest.py), in this process's folder and environment and on its standard streams, and stands in
for it: the signals it gets go to the fork, and it exits as the fork exited (by the same signal, when a signal ended
it). When the prepared pytest is not there, it becomes `python -mpytest ARGS…` itself.

Started with -I -S, it imports only the standard library's C parts and json, and starts in a few milliseconds."""

import _signal
import _socket
import json
import os
import sys


def attach(path: str, argv: list) -> int:
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError:
        sock.close()
        os.execv(sys.executable, [sys.executable, "-mpytest", *argv])
    request = json.dumps({"argv": argv, "cwd": os.getcwd(), "env": dict(os.environ)}).encode("utf-8")
    fds = b"".join(fd.to_bytes(4, sys.byteorder) for fd in (0, 1, 2))  # three C ints, as SCM_RIGHTS carries them
    sock.sendmsg([len(request).to_bytes(4, "big") + request], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, fds)])
    pid = []
    pending = []

    def forward(signum, _frame):
        if pid:
            os.kill(pid[0], signum)
        else:
            pending.append(signum)

    for signum in (_signal.SIGINT, _signal.SIGTERM, _signal.SIGHUP, _signal.SIGQUIT, _signal.SIGUSR1,
                   _signal.SIGUSR2):
        if _signal.getsignal(signum) != _signal.SIG_IGN:  # an ignored signal stays ignored, as it would in a run
            _signal.signal(signum, forward)
    received = b""
    while True:
        while b"\n" not in received:
            chunk = sock.recv(4096)
            if not chunk:
                print("prepared pytest: the server went before the run ended", file=sys.stderr, flush=True)
                return 1
            received += chunk
        line, _, received = received.partition(b"\n")
        message = json.loads(line)
        if "pid" in message:
            pid.append(message["pid"])
            for signum in pending:
                os.kill(pid[0], signum)
        else:
            return message["exit"]


if __name__ == "__main__":
    code = attach(sys.argv[1], sys.argv[2:])
    if code < 0:  # ended by a signal: this process too, so its parent sees what it would of the run
        _signal.signal(-code, _signal.SIG_DFL)
        os.kill(os.getpid(), -code)
    sys.exit(code & 0xFF if code >= 0 else 1)
