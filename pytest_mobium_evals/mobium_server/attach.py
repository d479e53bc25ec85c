"""The command a client spawns to reach a prepared server (`prefork`): it hands its own stdin, stdout and stderr
to the prepared process, which forks a fresh server onto them, and then stands in for that server until it exits.

It is run by path as `python -I -S attach.py SOCKET mcp OPTION…`, so it imports only
the standard library and starts in a few milliseconds. Its exit status is the server's. If the prepared process is
gone it runs the server itself, slower but the same (`python -m pytest_mobium_evals.commands.cli mcp OPTION…`)."""

# The C modules, not `socket`, `signal` and `array`: their Python wrappers import enum and collections, which would
# double this process's start.
import _signal
import _socket
import os
import sys

FALLBACK_MODULE = "pytest_mobium_evals.commands.cli"


def attach(path: str, args: list[str]) -> int:
    sock = _socket.socket(_socket.AF_UNIX, _socket.SOCK_STREAM)
    try:
        sock.connect(path)
    except OSError as exc:
        sock.close()
        print(f"mobium-evals mcp: the prepared server at {path} is not there ({exc}); starting one here",
              file=sys.stderr, flush=True)
        os.execv(sys.executable, [sys.executable, "-m", FALLBACK_MODULE, *args])
    request = "\0".join(args).encode("utf-8")
    fds = b"".join(fd.to_bytes(4, sys.byteorder) for fd in (0, 1, 2))  # three C ints, as SCM_RIGHTS carries them
    sock.sendmsg([len(request).to_bytes(4, "big") + request], [(_socket.SOL_SOCKET, _socket.SCM_RIGHTS, fds)])
    # A client that ends this process means to end the server: the socket's end tells it (see prefork), and this
    # process goes once the server has ended its session, as `mobium mcp` goes on SIGTERM, so a client that waits
    # for it finds the session's changes put back.
    terminated = []

    def end_server(*_):
        terminated.append(True)
        sock.shutdown(_socket.SHUT_WR)

    _signal.signal(_signal.SIGTERM, end_server)
    answer = b""
    while True:
        chunk = sock.recv(16)
        if not chunk:
            break
        answer += chunk
    if terminated:
        return 143
    try:
        return int(answer.decode() or "1")
    except ValueError:
        return 1


if __name__ == "__main__":
    if len(sys.argv) < 2:
        print("usage: attach.py SOCKET [mcp options]", file=sys.stderr)
        sys.exit(2)
    sys.exit(attach(sys.argv[1], sys.argv[2:]))
