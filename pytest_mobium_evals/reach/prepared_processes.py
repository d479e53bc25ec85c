"""What the two prepared processes share: the tool server's (`mobium_server/prefork.py`), which forks a trial's
server, and the prepared Python (`plugin/prepared_python.py`), which forks xdist's workers and the tests' inner runs.

A client asks either to be forked onto with one request on a Unix socket: its body's length (4 bytes, big-endian),
then the body, in one message with three descriptors, the fork's stdin, stdout and stderr (SCM_RIGHTS). Either ends
when its stdin closes, that is when the process that started it ends, however it ends. This module imports nothing
of the package, so that the tool server may import it: the import contracts keep the server apart from the harness
otherwise."""

from __future__ import annotations

import array
import os
import shutil
import socket
import subprocess
from typing import IO, Iterable

HEADER = 4
DESCRIPTORS = 3  # the fork's stdin, stdout and stderr


def framed(body: bytes) -> bytes:
    """A request's bytes: its length, then its body."""
    return len(body).to_bytes(HEADER, "big") + body


def receive_request(conn: socket.socket, chunk: int = 65536) -> tuple[bytes, list[int]]:
    """One request's body and its three descriptors, which the caller then owns. ValueError (the descriptors
    closed) when it does not carry three, or ends early."""
    fds = array.array("i")
    data, ancdata, _, _ = conn.recvmsg(chunk, socket.CMSG_SPACE(DESCRIPTORS * fds.itemsize))
    for level, kind, payload in ancdata:
        if level == socket.SOL_SOCKET and kind == socket.SCM_RIGHTS:
            fds.frombytes(payload[:len(payload) - len(payload) % fds.itemsize])
    try:
        if len(fds) != DESCRIPTORS:
            raise ValueError(f"expected 3 descriptors (stdin, stdout, stderr), got {len(fds)}")
        size = int.from_bytes(data[:HEADER], "big")
        while len(data) < HEADER + size:
            more = conn.recv(chunk)
            if not more:
                raise ValueError("the request ended early")
            data += more
    except BaseException:
        for fd in fds:
            os.close(fd)
        raise
    return data[HEADER:HEADER + size], list(fds)


def end_prepared(proc: subprocess.Popen, streams: Iterable[IO], folder: str, timeout: float) -> None:
    """Ends a prepared process as it is meant to end, by its stdin's end, or kills it after `timeout` seconds;
    then closes its streams and removes its folder (its socket, its log)."""
    if proc.poll() is None:
        proc.stdin.close()
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()
    for stream in streams:
        stream.close()
    shutil.rmtree(folder, ignore_errors=True)
