"""What the harness's stdio proxies in front of a trial's tool server share (the fault proxy, the surface proxy):
handing the client's line to the server, and ending the server the way the client ended us. Standard library only:
a proxy is spawned for every trial, and its start is part of every tool call's first latency."""

from __future__ import annotations

import subprocess


def pass_line(child: subprocess.Popen, line: bytes) -> bool:
    """The client's line written through to the server; False when the server has gone (its stdin closed)."""
    try:
        child.stdin.write(line)
        child.stdin.flush()
    except BrokenPipeError:
        return False
    return True


def end_child(child: subprocess.Popen) -> int:
    """The client closed our stdin: close the server's, give it 5 s to exit as MCP servers do on EOF, then kill
    it. Its exit status."""
    try:
        child.stdin.close()
    except OSError:
        pass
    try:
        return child.wait(timeout=5)
    except subprocess.TimeoutExpired:
        child.kill()
        return child.wait()
