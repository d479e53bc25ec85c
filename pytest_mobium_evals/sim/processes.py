"""Virtual devices behind ADB servers of their own, each in a separate process (`mobium-evals sim --port 0`): what
a fleet of emulators on several hosts looks like to the harness, for its tests and the scaling benchmark."""

from __future__ import annotations

import re
import select
import subprocess
import sys
import time
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Iterator

READY = re.compile(r"port=(\d+) serials=(\S+)")


@dataclass
class ServerProcess:
    process: subprocess.Popen
    port: int
    serials: list[str]

    @property
    def adb(self) -> str:
        return f"127.0.0.1:{self.port}"


@contextmanager
def server_processes(count: int, devices: int = 1, clock_speed: float = 1.0, timeout: float = 60.0,
                     pace: str = "fast") -> Iterator[list[ServerProcess]]:
    """`count` ADB servers, each a process of its own with `devices` virtual devices at `pace`; stopped on exit."""
    started: list[subprocess.Popen] = []
    try:
        for _ in range(count):
            started.append(subprocess.Popen(
                [sys.executable, "-m", "pytest_mobium_evals.commands.cli", "sim", "--port", "0", "--devices",
                 str(devices),
                 "--clock-speed", str(clock_speed), "--pace", pace],
                stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True))
        servers = [_ready(p, time.monotonic() + timeout) for p in started]
        yield servers
    finally:
        for p in started:
            p.terminate()
        for p in started:
            try:
                p.wait(timeout=10)
            except subprocess.TimeoutExpired:
                p.kill()
                p.wait()
            for stream in (p.stdout, p.stderr):
                if stream is not None:
                    stream.close()


def _ready(process: subprocess.Popen, deadline: float) -> ServerProcess:
    # The first line names the port: the server listens before it prints it.
    ready, _, _ = select.select([process.stdout], [], [], max(0.0, deadline - time.monotonic()))
    line = process.stdout.readline() if ready else ""
    m = READY.search(line)
    if not m:
        process.kill()
        raise RuntimeError(f"a virtual ADB server did not start: {line.strip()!r} {process.stderr.read()[-400:]}")
    return ServerProcess(process, int(m.group(1)), m.group(2).split(","))
