"""A trial's tool server's CPU by how the harness reaches its fork: asked for in the harness's own process, over a
socket pair (`reach/forked_server.py`), or through the attach command the SDK's stdio client spawns, over that
process's pipes (what every trial did before, and what an agent's CLI still does). Prints CPU milliseconds a session
for the prepared server and its forks (counted in a control group of their own, so a fork's exit counts too), for the
attach processes, and for this process (the client and the virtual device), and the wall time a session.

Each session is a short control trial's traffic: the handshake and tools/list, app_launch, two app_map and a
screenshot. The two ways alternate in batches against one prepared server and one virtual device, so a load that
drifts meanwhile falls on both alike. Needs root (to make the group).

    sudo .venv/bin/python probes/tool_server_transport.py [--batches 6] [--sessions 20]
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import time
from contextlib import contextmanager
from pathlib import Path

from pytest_mobium_evals import sim
from pytest_mobium_evals.reach import forked_server
from pytest_mobium_evals.reach.toolserver import PreparedServer, Tools, ToolServerSpec

APP = "dev.mobium.mobiumapp"
WAYS = ("socket pair", "attach command")


class Group:
    """A cgroup v2 group holding one process and the forks it makes."""

    def __init__(self):
        root = next((p for p in (Path("/sys/fs/cgroup"), Path("/sys/fs/cgroup/unified"))
                     if (p / "cgroup.procs").exists() and (p / "cpu.stat").exists()), None)
        if root is None:
            raise SystemExit("tool_server_transport: no cgroup v2 hierarchy with cpu.stat here")
        self.path = root / f"tool-server-transport-{os.getpid()}"
        try:
            self.path.mkdir()
        except OSError as exc:
            raise SystemExit(f"tool_server_transport: cannot make a control group ({exc}): run it as root") from None

    def add(self, pid: int) -> None:
        (self.path / "cgroup.procs").write_text(str(pid))

    def processes(self) -> int:
        return len((self.path / "cgroup.procs").read_text().split())

    def seconds(self) -> tuple[float, float]:
        stat = dict(line.split() for line in (self.path / "cpu.stat").read_text().splitlines())
        return int(stat["user_usec"]) / 1e6, int(stat["system_usec"]) / 1e6

    def remove(self) -> None:
        parent = self.path.parent / "cgroup.procs"
        for pid in (self.path / "cgroup.procs").read_text().split():
            try:
                parent.write_text(pid)
            except OSError:
                pass
        self.path.rmdir()


@contextmanager
def way(name: str):
    """The attach command: the harness's fork request declined, so Tools spawns the command as a process."""
    if name == "socket pair":
        yield
        return
    original = forked_server.fork_request
    forked_server.fork_request = lambda command: None
    try:
        yield
    finally:
        forked_server.fork_request = original


def session(spec: ToolServerSpec) -> None:
    with Tools(spec, timeout=60) as tools:
        tools.call("app_launch", app=APP)
        tools.call("app_map")
        tools.call("app_screenshot")
        tools.call("app_map")


def cpu(who: int) -> float:
    usage = resource.getrusage(who)
    return usage.ru_utime + usage.ru_stime


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--batches", type=int, default=6, help="batches of each way, alternating (default 6)")
    parser.add_argument("--sessions", type=int, default=20, help="sessions a batch (default 20)")
    args = parser.parse_args(argv)
    group = Group()
    totals = {name: [0.0] * 5 for name in WAYS}  # server user, server system, attach, this process, wall
    try:
        with sim.start(devices=1) as device:
            prepared = PreparedServer()
            try:
                spec = ToolServerSpec.builtin(device.serials[0], "127.0.0.1", device.port, prepared=prepared)
                group.add(prepared._proc.pid)
                session(spec)  # the first session warms the device and the client's imports
                for batch in range(args.batches):
                    for name in (WAYS if batch % 2 == 0 else WAYS[::-1]):
                        server, attach, own, wall = (group.seconds(), cpu(resource.RUSAGE_CHILDREN),
                                                     cpu(resource.RUSAGE_SELF), time.monotonic())
                        with way(name):
                            for _ in range(args.sessions):
                                session(spec)
                        # The last fork sends its status just before it exits: its exit counts once it is gone.
                        deadline = time.monotonic() + 10
                        while group.processes() > 1 and time.monotonic() < deadline:
                            time.sleep(0.01)
                        after = group.seconds()
                        row = (after[0] - server[0], after[1] - server[1], cpu(resource.RUSAGE_CHILDREN) - attach,
                               cpu(resource.RUSAGE_SELF) - own, time.monotonic() - wall)
                        totals[name] = [t + r for t, r in zip(totals[name], row)]
                        print(f"batch {batch + 1} {name:<15} " + " ".join(f"{v:7.3f}" for v in row), flush=True)
            finally:
                prepared.close()
    finally:
        group.remove()
    sessions = args.batches * args.sessions
    print(f"load average {' '.join(f'{v:.1f}' for v in os.getloadavg())}, {os.cpu_count()} cores; "
          f"CPU ms a session ({sessions} sessions each):")
    print(f"{'way':<15} {'tool server':>11} {'user':>7} {'system':>7} {'attach':>7} {'client+device':>14} "
          f"{'wall ms':>8}")
    for name in WAYS:
        user, system, attach, own, wall = (v / sessions * 1000 for v in totals[name])
        print(f"{name:<15} {user + system:>11.1f} {user:>7.1f} {system:>7.1f} {attach:>7.1f} {own:>14.1f} {wall:>8.1f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
