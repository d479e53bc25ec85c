"""`python -I -S prepared_python_attach.py SOCKET ARGS…` runs `python ARGS…` as a fork of the prepared Python at
SOCKET (prepared_python.py), in this process's folder, umask and environment and on its standard streams, and stands
in for it: the signals it gets go to the fork, and it exits as the fork exited (by the same signal, when a signal
ended it). When the prepared Python is not there, or went before it forked, or ARGS are not a command line it forks
(`-m MODULE` or `-c CODE` after `-u` and `-B`), this process becomes `python ARGS…` itself.

Started with -I -S, it imports only the standard library's C parts and json, and starts in a few milliseconds; it
is run by its path, so it cannot import the package: the command-line check is prepared_python.split_command_line's,
written again."""

import _signal
import _socket
import json
import os
import sys

FLAGS = ("-u", "-B")


def forked_command_line(args):
    i = 0
    while i < len(args) and args[i] in FLAGS:
        i += 1
    if i >= len(args):
        return False
    return (args[i] in ("-m", "-c") and i + 1 < len(args)) or (args[i].startswith("-m") and len(args[i]) > 2)


def become_the_interpreter(args):
    os.execv(sys.executable, [sys.executable, *args])


def attach(path, args):
    if not forked_command_line(args):
        become_the_interpreter(args)
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError:
        sock.close()
        become_the_interpreter(args)
    umask = os.umask(0)
    os.umask(umask)
    request = json.dumps({"argv": args, "cwd": os.getcwd(), "umask": umask, "env": dict(os.environ)}).encode("utf-8")
    fds = b"".join(fd.to_bytes(4, sys.byteorder) for fd in (0, 1, 2))  # three C ints, as SCM_RIGHTS carries them
    try:
        sock.sendmsg([len(request).to_bytes(4, "big") + request], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, fds)])
    except OSError:
        sock.close()
        become_the_interpreter(args)
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
                if not pid:  # it went before it forked (it did not come up): nothing has read this process's stdin
                    sock.close()
                    for signum in pending:
                        _signal.signal(signum, _signal.SIG_DFL)
                        os.kill(os.getpid(), signum)
                    become_the_interpreter(args)
                print("prepared python: the server went before its fork ended", file=sys.stderr, flush=True)
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
