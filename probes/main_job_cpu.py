"""Where the main job's CPU goes, by kind of process: the controller, the xdist workers (each with its virtual device
in it), the tool servers (the prepared server and the fork each trial gets), the attach commands that hand a trial's
pipes to its fork, t25's `mobium-evals test` runs (their attach commands: a run itself is a fork of the prepared
server since issue 45, and counts with the tool servers), and anything else the run starts. Prints CPU seconds per kind,
exactly (in user mode and in the kernel), and the wall time beside them.

How it measures: the command runs in a control group of its own (cgroup v2's cpu.stat, or v1's cpuacct), one
child group per kind; each process of the run is moved into its kind's group as soon as it is seen (it is looked for
every 20 ms), and a fork stays in its parent's group, so a trial's tool server counts with the prepared server it was
forked from. A group's CPU includes the processes that have ended, which /proc cannot see. What a process spent
before it was first seen (its first few milliseconds) counts with the kind that started it. Needs root (to make the
groups); a run folder and report are the command's own.

    sudo python probes/main_job_cpu.py                       # the README's main job, in this checkout
    sudo python probes/main_job_cpu.py -- pytest --driver=controls -k t05   # any command, in this checkout
    PYTHONDONTWRITEBYTECODE=1 sudo -E python probes/main_job_cpu.py          # as a newcomer's machine runs it

Under load, CPU seconds grow too (cores shared with others' work are slower): compare runs made one after the
other."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
KINDS = ("controller", "worker", "tool server", "attach", "t25 run", "agent client", "other")
MAIN_JOB = [".venv/bin/pytest", "--driver=controls", "--html=report.html", "--self-contained-html"]


def kind_of(cmdline: list[str], is_root: bool) -> str:
    line = " ".join(cmdline)
    if is_root:
        return "controller"
    if cmdline and os.path.basename(cmdline[0]) == "claude":
        return "agent client"
    if "prepared_python" in line:
        return "worker"  # the prepared Python the workers are forks of, its forks, and their attach commands
    if "attach.py" in line:
        # t25's runs are forks of the prepared tool server, counted with it; what they were asked with, here
        return "t25 run" if " test " in f" {line} " else "attach"
    if "commands.cli test" in line:
        return "t25 run"
    if "--prefork" in line or " mcp " in f" {line} ":
        return "tool server"
    if "exec(eval(" in line or (os.path.basename(cmdline[0]).startswith("python") and "pytest" in cmdline[1:3]):
        return "worker"
    return "other"


class Groups:
    """One control group for the run, with a child per kind; cgroup v2 where it is mounted, else v1's cpuacct."""

    def __init__(self):
        v2 = next((p for p in (Path("/sys/fs/cgroup"), Path("/sys/fs/cgroup/unified"))
                   if (p / "cgroup.procs").exists() and (p / "cpu.stat").exists()), None)
        v1 = Path("/sys/fs/cgroup/cpuacct")
        if v2 is not None:
            self.base, self.v2 = v2 / f"main-job-cpu-{os.getpid()}", True
        elif (v1 / "cpuacct.usage").exists():
            self.base, self.v2 = v1 / f"main-job-cpu-{os.getpid()}", False
        else:
            raise SystemExit("main_job_cpu: no cgroup v2 cpu.stat and no v1 cpuacct here")
        try:
            self.base.mkdir()
        except OSError as exc:
            raise SystemExit(f"main_job_cpu: cannot make a control group ({exc}): run it as root") from None
        self.kinds = {kind: self.base / kind.replace(" ", "-") for kind in KINDS}
        for folder in self.kinds.values():
            folder.mkdir()

    def move(self, pid: int, kind: str) -> None:
        try:
            (self.kinds[kind] / "cgroup.procs").write_text(str(pid))
        except OSError:
            pass  # it ended meanwhile

    def pids(self, kind: str) -> list[int]:
        try:
            return [int(p) for p in (self.kinds[kind] / "cgroup.procs").read_text().split()]
        except OSError:
            return []

    def seconds(self, kind: str) -> tuple[float, float, float]:
        """CPU seconds: in all, in user mode, in the kernel (a fork's page copies, its exit, pipes and sockets)."""
        folder = self.kinds[kind]
        if self.v2:
            stat = dict(line.split() for line in (folder / "cpu.stat").read_text().splitlines())
            return int(stat["usage_usec"]) / 1e6, int(stat["user_usec"]) / 1e6, int(stat["system_usec"]) / 1e6
        ticks = dict(line.split() for line in (folder / "cpuacct.stat").read_text().splitlines())
        hertz = os.sysconf("SC_CLK_TCK")
        return (int((folder / "cpuacct.usage").read_text()) / 1e9, int(ticks["user"]) / hertz,
                int(ticks["system"]) / hertz)

    def remove(self) -> None:
        parent = self.base.parent / "cgroup.procs"
        for folder in self.kinds.values():
            for pid in self.pids_in(folder):
                try:
                    parent.write_text(str(pid))
                except OSError:
                    pass
            folder.rmdir()
        self.base.rmdir()

    @staticmethod
    def pids_in(folder: Path) -> list[str]:
        try:
            return (folder / "cgroup.procs").read_text().split()
        except OSError:
            return []


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("command", nargs="*", help="the command to measure (default: the README's main job)")
    args = parser.parse_args(argv)
    command = args.command or MAIN_JOB
    groups = Groups()
    seen: dict[int, tuple[str, tuple[str, ...]]] = {}
    counts = {kind: 0 for kind in KINDS}
    stop = threading.Event()
    proc = subprocess.Popen(command, cwd=ROOT,
                            preexec_fn=lambda: groups.move(os.getpid(), "controller"))

    def watch() -> None:
        while not stop.is_set():
            for kind in KINDS:
                for pid in groups.pids(kind):
                    try:
                        cmdline = tuple(p for p in Path(f"/proc/{pid}/cmdline").read_text().split("\0") if p)
                    except OSError:
                        continue
                    if not cmdline or seen.get(pid, ("", ()))[1] == cmdline:
                        continue  # a fork keeps its parent's command line, and its parent's group
                    mine = kind_of(list(cmdline), pid == proc.pid)
                    if pid not in seen or seen[pid][0] != mine:
                        counts[mine] += 1
                    seen[pid] = (mine, cmdline)
                    if mine != kind:
                        groups.move(pid, mine)
            stop.wait(0.02)

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    started, load = time.monotonic(), os.getloadavg()
    try:
        status = proc.wait()
    finally:
        wall = time.monotonic() - started
        time.sleep(1.0)  # what the run left to end (a fork finishing its exit) ends in its group
        stop.set()
        watcher.join()
        seconds = {kind: groups.seconds(kind) for kind in KINDS}
        groups.remove()
    print(f"{' '.join(command)}: exit {status}, wall {wall:.1f} s, PYTHONDONTWRITEBYTECODE "
          f"{'set' if os.environ.get('PYTHONDONTWRITEBYTECODE') else 'unset'}, load average "
          f"{' '.join(f'{v:.1f}' for v in load)} before, {' '.join(f'{v:.1f}' for v in os.getloadavg())} after, "
          f"{os.cpu_count()} cores")
    print(f"{'kind':<14} {'CPU s':>8} {'user':>8} {'system':>8} {'processes':>10}")
    for kind in KINDS:
        total, user, system = seconds[kind]
        print(f"{kind:<14} {total:>8.1f} {user:>8.1f} {system:>8.1f} {counts[kind]:>10}")
    print(f"{'total':<14} {sum(s[0] for s in seconds.values()):>8.1f} {sum(s[1] for s in seconds.values()):>8.1f} "
          f"{sum(s[2] for s in seconds.values()):>8.1f}")
    return status


if __name__ == "__main__":
    sys.exit(main())
