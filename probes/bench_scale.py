"""How the harness scales with devices: the same trials on 1, 2, 4 and 8 virtual devices, each behind an ADB server
process of its own (as a fleet of emulators would be), one xdist worker per device. Prints trials per minute and the
ratio to one device.

Each round is one pytest run of the MobiumApp tasks' reference controls (`--device HOST:PORT/SERIAL,… -n N`): the
wall time from the command to its exit, so each worker's start (pytest, collection, the prepared tool server) is in
it, as it is in a user's run. `busy` is the CPU time the run's processes used (pytest and its workers, the prepared
tool servers, the device servers; not the forked tool servers, which the kernel reaps: a lower bound) over the wall
time: when it nears the core count, more devices only queue for the cores. `CPU/trial` is that CPU time per trial,
and the ceiling it sets, cores / CPU per trial, is the most trials a minute this machine can run however many
devices wait in parallel: where the rate stops growing, it has met that ceiling. The same rate is also given over the
trials alone (from the first trial's start to the last one's end), without the workers' start, which a longer run
spreads thinner.

    python probes/bench_scale.py [--devices 1,2,4,8] [--tasks t01,t04,t07,t09,t15,t11] [--repeats 4]
                                 [--in-workers] [--checkout DIR [--checkout DIR]]

`--agent` measures where users are instead: agent trials of t01 (sign in) driven by Claude (the bundled CLI, the
agent client a user runs) against a local stand-in of the Messages API that answers each turn after a seeded
2-4 s, as a model does, on devices at the `emulator` pace; by default on 1, 2, 4, 8, 16 and 32 devices, each
device doing --per-device trials. Besides the rate, it prints the harness's CPU seconds and peak memory (PSS) per
device by part: the pytest worker, the tool server (the prepared server and its per-trial forks, and the attach
command), the agent client (the Claude CLI), and the virtual device itself for scale. Loopback only.

    python probes/bench_scale.py --agent [--devices 1,2,4,8,16,32] [--per-device 2] [--seed 7] [--checkout DIR ...]

`1st req s` and `turn s` say where a trial's time goes, from the stand-in's side: from a trial's start to its first
request to the model (the device's reset, the agent client's start, its tool server connected and listed), and from
an answer to the next request (a tool call at the device's pace, the client's own work). `harness/trial` is the
harness's CPU seconds per trial (worker, tool server and agent client; not the device), the
figure issue 45 set at 1.2. With --checkout given twice, each device count runs on both checkouts in turn, against
the same stand-in, so the old and new figures share the machine's load.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import resource
import subprocess
import sys
import tempfile
import threading
import time
from datetime import datetime
from pathlib import Path
from typing import Optional

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "tests" / "agents"))

from pytest_mobium_evals.sim.processes import server_processes  # noqa: E402


def trials_window(run: Path) -> float:
    """From the first trial's start to the last one's end: the run without its workers' start and stop. A trial
    ends at its transcript's last stamped event (an agent's transcript, heard from its client, has none: then
    when its verdict was written) and started its total_s before that."""
    spans = []
    for verdict in run.glob("trials/*/verdict.json"):
        total = json.loads(verdict.read_text())["timings"]["total_s"]
        lines = (verdict.parent / "transcript.jsonl").read_text().splitlines()
        stamps = [json.loads(line).get("t") for line in lines if line.strip()]
        end = max((t for t in stamps if isinstance(t, (int, float))), default=verdict.stat().st_mtime)
        spans.append((end - total, end))
    return max(e for _, e in spans) - min(s for s, _ in spans) if spans else float("nan")


def one_round(devices: int, tasks: list[str], repeats: int, folder: Path, checkout: Path,
              in_workers: bool) -> tuple[float, float, int, float]:
    """(wall seconds, CPU seconds of the pytest run and its children, trials passed, the trials' window)."""
    with server_processes(0 if in_workers else devices) as servers:
        fleet = "sim" if in_workers else ",".join(f"{s.adb}/{s.serials[0]}" for s in servers)
        command = [str(checkout / ".venv" / "bin" / "python"), "-m", "pytest", str(checkout / "tasks"),
                   "-k", " or ".join(tasks), "--driver=reference", f"--repeats={repeats}", "--device", fleet,
                   "-n", str(devices), f"--run-dir={folder / f'n{devices}'}", "-p", "no:cacheprovider", "-q"]
        before = resource.getrusage(resource.RUSAGE_CHILDREN)
        started = time.monotonic()
        proc = subprocess.run(command, capture_output=True, text=True, cwd=folder)
        wall = time.monotonic() - started
    # Taken once the device servers have exited and been reaped, so their CPU time is in it too.
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if proc.returncode != 0:
        raise SystemExit(f"bench_scale: the run on {devices} device(s) failed (exit {proc.returncode}):\n"
                         f"{proc.stdout[-1500:]}{proc.stderr[-800:]}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    passed = len(list((folder / f"n{devices}" / "trials").glob("*/verdict.json")))
    return wall, cpu, passed, trials_window(folder / f"n{devices}")


# ---- agent trials against a model stand-in ----------------------------------------------------------------------

PARTS = ("worker", "tool server", "agent client", "virtual device")
TICKS = os.sysconf("SC_CLK_TCK")


def part_of(cmdline: list[str]) -> str | None:
    """Which part of a run a process is, from its command line."""
    line = " ".join(cmdline)
    if cmdline and os.path.basename(cmdline[0]) == "claude":
        return "agent client"  # before the tool server: its own command line names the MCP config
    if "prepared_python" in line:
        return "worker"  # the prepared Python the workers are forks of, its forks, and their attach commands
    if "pytest_mobium_evals.commands.cli sim" in line:
        return "virtual device"
    if "--prefork" in line or "mobium_server" in line or " mcp " in f" {line} ":
        return "tool server"
    if "pytest" in line or "execnet" in line or "xdist" in line or "exec(eval(" in line:
        return "worker"
    return None


class Sampler:
    """Every process under this one, read from /proc twice a second: each process's last CPU time (user + system),
    and every few seconds each part's peak summed PSS. A process that ends between two looks loses its last half
    second of CPU: the figures are a lower bound. Reading PSS walks a process's page tables, and with 32 devices
    there are some 150 processes: read twice a second it took a good part of a core from the run it measured, so
    memory is read less often (a device's memory holds for the trial) and the sampler's own CPU is printed."""

    def __init__(self, root: int, period: float = 0.5, memory_every: int = 8):
        self.root, self.period, self.memory_every = root, period, memory_every
        self.cpu: dict[int, tuple[str, float]] = {}
        self.peak = {p: 0.0 for p in PARTS}
        self.own_cpu = 0.0  # the sampler thread's CPU seconds
        self._parts: dict[int, Optional[str]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def __enter__(self) -> "Sampler":
        self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._stop.set()
        self._thread.join()

    def _children(self) -> dict[int, int]:
        parents = {}
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    stat = Path(f"/proc/{entry}/stat").read_text()
                except OSError:
                    continue
                parents[int(entry)] = int(stat.rsplit(")", 1)[1].split()[1])
        below, frontier = set(), {self.root}
        while frontier:
            frontier = {pid for pid, parent in parents.items() if parent in frontier} - below
            below |= frontier
        return {pid: parents[pid] for pid in below}

    def _part(self, pid: int) -> Optional[str]:
        # A process's part is read once: a tool server's start logger execs the server with the same arguments.
        if pid not in self._parts:
            try:
                cmdline = Path(f"/proc/{pid}/cmdline").read_text().split("\0")
            except OSError:
                return None
            self._parts[pid] = part_of([c for c in cmdline if c])
        return self._parts[pid]

    def _run(self) -> None:
        tick = 0
        while not self._stop.wait(self.period):
            started = time.thread_time()
            tick += 1
            memory = {p: 0.0 for p in PARTS} if tick % self.memory_every == 1 else None
            for pid in self._children():
                part = self._part(pid)
                if part is None:
                    continue
                try:
                    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
                    if memory is not None:
                        memory[part] += next(int(line.split()[1]) for line in Path(f"/proc/{pid}/smaps_rollup")
                                             .read_text().splitlines() if line.startswith("Pss:")) / 1024
                except (OSError, StopIteration, ValueError):
                    continue
                self.cpu[pid] = (part, (int(fields[11]) + int(fields[12])) / TICKS)
            if memory is not None:
                for part in PARTS:
                    self.peak[part] = max(self.peak[part], memory[part])
            self.own_cpu += time.thread_time() - started

    def cpu_by_part(self) -> dict[str, float]:
        out = {p: 0.0 for p in PARTS}
        for part, seconds in self.cpu.values():
            out[part] += seconds
        return out


def model_standin(seed: int):
    """The Messages API as a model answers it: t01 solved in six tool calls and an answer, each turn after a
    seeded 2-4 s (the draws are the seed's; which trial meets which depends on arrival)."""
    from standins import AnthropicStandin, solve_t01

    rng, lock = random.Random(seed), threading.Lock()

    class Thinking(AnthropicStandin):
        #: (the CLI's session, the request's arrival, its answer's end) in wall-clock seconds, as a trial's
        #: started_at is: where a trial's time goes (turns_of).
        turns: list[tuple[str, float, float]] = []

        def _post(self, handler, body):
            arrived = time.time()
            with lock:
                delay = rng.uniform(2.0, 4.0)
            time.sleep(delay)
            super()._post(handler, body)
            with lock:
                self.turns.append((json.dumps(body.get("metadata"), sort_keys=True), arrived, time.time()))

    return Thinking(solve_t01())


def turns_of(turns: list[tuple[str, float, float]], run: Path) -> tuple[float, float]:
    """(from a trial's start to its first request to the model, from an answer to the next request), means in
    seconds. The first is the device's reset and the agent client's start with its tool server connected and
    listed; the second a tool call at the device's pace and the client's own work between turns. Trials and
    sessions are not paired: the difference of their means is the mean of their differences."""
    by_session: dict[str, list[tuple[float, float]]] = {}
    for session, arrived, ended in turns:
        by_session.setdefault(session, []).append((arrived, ended))
    starts = [datetime.fromisoformat(json.loads(v.read_text())["started_at"]).timestamp()
              for v in run.glob("trials/*/verdict.json")]
    firsts = [min(a for a, _ in spans) for spans in by_session.values()]
    gaps = [later[0] - earlier[1] for spans in by_session.values()
            for earlier, later in zip(sorted(spans), sorted(spans)[1:])]
    if not starts or not firsts or not gaps:
        return float("nan"), float("nan")
    return sum(firsts) / len(firsts) - sum(starts) / len(starts), sum(gaps) / len(gaps)


def agent_round(devices: int, per_device: int, folder: Path, endpoint, checkout: Path = ROOT) -> dict:
    trials = devices * per_device
    with server_processes(devices, pace="emulator") as servers:
        fleet = ",".join(f"{s.adb}/{s.serials[0]}" for s in servers)
        command = [str(checkout / ".venv" / "bin" / "python"), "-m", "pytest", str(checkout / "tasks"), "-k", "t01",
                   "--driver=agent",
                   "--model=haiku:low", f"--repeats={trials}", "--device", fleet, "-n", str(devices),
                   "--run-dir", str(folder / f"n{devices}"), "-p", "no:cacheprovider", "-q"]
        env = {**os.environ, "ANTHROPIC_API_KEY": "sk-ant-standin", "ANTHROPIC_BASE_URL": endpoint.url}
        env.pop("CLAUDE_CODE_OAUTH_TOKEN", None)
        env.pop("ANTHROPIC_AUTH_TOKEN", None)
        # Measured as a user's Python runs: with its bytecode cached. Without the cache every worker, tool server
        # and attach compiles the package and every task file afresh (two CPU seconds a worker, measured).
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        endpoint.turns.clear()
        started = time.monotonic()
        with Sampler(os.getpid()) as sampler:
            proc = subprocess.run(command, capture_output=True, text=True, cwd=folder, env=env)
        wall = time.monotonic() - started
    verdicts = [json.loads(v.read_text()) for v in (folder / f"n{devices}").glob("trials/*/verdict.json")]
    graded = [v for v in verdicts if v.get("verdict") != "infra_error"]
    if not graded:
        raise SystemExit(f"bench_scale: no agent trial on {devices} device(s) was graded (exit {proc.returncode}):"
                         f"\n{proc.stdout[-1500:]}{proc.stderr[-800:]}")
    return {"devices": devices, "trials": len(verdicts), "graded": len(graded),
            "passed": sum(v.get("verdict") == "pass" for v in verdicts), "wall": wall,
            "window": trials_window(folder / f"n{devices}"), "cpu": sampler.cpu_by_part(), "peak": sampler.peak,
            "sampler": sampler.own_cpu, "turns": turns_of(endpoint.turns, folder / f"n{devices}")}


def agent_main(counts: list[int], per_device: int, seed: int, checkouts: list[Path]) -> int:
    load_before = os.getloadavg()[0]
    rows: dict[Path, list[dict]] = {c: [] for c in checkouts}
    with tempfile.TemporaryDirectory(prefix="bench-scale-agent-") as tmp, model_standin(seed) as endpoint:
        for i, checkout in enumerate(checkouts):
            # Unmeasured: the bytecode cache filled, as on a user's second run.
            (Path(tmp) / f"warm{i}").mkdir()
            agent_round(1, 1, Path(tmp) / f"warm{i}", endpoint, checkout)
        for n in counts:
            for i, checkout in enumerate(checkouts):
                folder = Path(tmp) / f"c{i}-r{n}"
                folder.mkdir()
                rows[checkout].append(agent_round(n, per_device, folder, endpoint, checkout))
    for checkout in checkouts:
        print_agent_table(checkout, rows[checkout], per_device, seed)
    print(f"load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after, on {os.cpu_count()} cores")
    return 0


def print_agent_table(checkout: Path, rows: list[dict], per_device: int, seed: int) -> None:
    print(f"{checkout}: t01 agent trials (Claude CLI, model stand-in 2-4 s a turn, seed {seed}), {per_device} a "
          f"device, devices at the emulator pace, each behind an ADB server process of its own")
    print(f"{'devices':>7} {'trials':>6} {'pass':>5} {'wall s':>7} {'trials/min':>10} {'vs 1':>6} {'busy':>5}"
          f" {'harness/trial':>13} {'probe s':>8} {'1st req s':>9} {'turn s':>6}"
          f" | CPU s per device: {'worker':>6} {'tools':>6} {'agent':>6} {'device':>6}"
          f" | MB per device: {'worker':>6} {'tools':>6} {'agent':>6} {'device':>6}")
    base = None
    for r in rows:
        rate = r["trials"] / r["window"] * 60
        base = base or rate
        n = r["devices"]
        cpu, peak = r["cpu"], r["peak"]
        busy = sum(cpu.values()) / r["wall"]
        harness = sum(cpu[p] for p in PARTS if p != "virtual device") / r["trials"]
        print(f"{n:>7} {r['trials']:>6} {r['passed']:>5} {r['wall']:>7.1f} {rate:>10.1f} {rate / base:>5.2f}x"
              f" {busy:>5.2f} {harness:>13.2f} {r['sampler']:>8.1f} {r['turns'][0]:>9.1f} {r['turns'][1]:>6.2f}"
              f" |                   "
              + " ".join(f"{cpu[p] / n:>6.1f}" for p in PARTS)
              + " |                " + " ".join(f"{peak[p] / n:>6.0f}" for p in PARTS))
    print("trials/min over the trials' window (first start to last end); busy: the run's CPU seconds over its "
          "wall time, in cores; harness/trial: worker, tool server and agent client CPU seconds over the trials; "
          "probe s: the CPU this probe's sampling took from the run; 1st req s: from a trial's start to its first "
          "request to the model (the device's reset, the agent client's start), turn s: from an answer to the next "
          "request (a tool call, the client's own work), means; CPU and memory per device are the run's totals "
          "(memory: the peak of the summed PSS) over its devices")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--agent", action="store_true",
                        help="agent trials of t01 driven by the Claude CLI against a model stand-in, on "
                             "emulator-paced devices (above)")
    parser.add_argument("--per-device", type=int, default=2, help="--agent: trials per device (default 2)")
    parser.add_argument("--seed", type=int, default=7, help="--agent: the seed of the model's turn times")
    parser.add_argument("--devices", default=None,
                        help="comma list of device counts (default 1,2,4,8; with --agent 1,2,4,8,16,32)")
    parser.add_argument("--tasks", default="t01,t04,t07,t09,t15,t11", help="the MobiumApp tasks to run")
    parser.add_argument("--repeats", type=int, default=4, help="trials per task (default 4)")
    parser.add_argument("--in-workers", action="store_true",
                        help="each worker's virtual device in the worker itself (--device sim), not a process of "
                             "its own: the form an older checkout understands")
    parser.add_argument("--checkout", type=Path, action="append", default=None,
                        help="a checkout to measure, with its own .venv (default: this one); given twice (old and "
                             "new), each device count runs on both in turn, so both tables share the run's load")
    args = parser.parse_args(argv)
    if args.devices is None:
        args.devices = "1,2,4,8,16,32" if args.agent else "1,2,4,8"
    try:
        counts = [int(c) for c in args.devices.split(",") if c.strip()]
    except ValueError:
        print(f"bench_scale: --devices {args.devices}: expected numbers, e.g. 1,2,4,8", file=sys.stderr)
        return 2
    if not counts or min(counts) < 1 or args.repeats < 1:
        print("bench_scale: device counts and --repeats must be at least 1", file=sys.stderr)
        return 2
    if args.agent and (args.per_device < 1 or max(counts) > 64):
        print("bench_scale: --per-device must be at least 1, and at most 64 devices", file=sys.stderr)
        return 2
    checkouts = [c.resolve() for c in (args.checkout or [ROOT])]
    missing = [str(c) for c in checkouts if not (c / ".venv" / "bin" / "python").exists()]
    if missing:
        print(f"bench_scale: --checkout {', '.join(missing)}: no .venv/bin/python there", file=sys.stderr)
        return 2
    if args.agent:
        return agent_main(counts, args.per_device, args.seed, checkouts)
    tasks = [t.strip() for t in args.tasks.split(",") if t.strip()]
    load_before = os.getloadavg()[0]
    rows: dict[Path, list] = {c: [] for c in checkouts}
    with tempfile.TemporaryDirectory(prefix="bench-scale-") as tmp:
        for n in counts:
            for i, checkout in enumerate(checkouts):
                folder = Path(tmp) / str(i)
                folder.mkdir(exist_ok=True)
                rows[checkout].append((n, *one_round(n, tasks, args.repeats, folder, checkout, args.in_workers)))
    where = "in each worker" if args.in_workers else "behind an ADB server process of its own"
    for checkout in checkouts:
        print_table(checkout, rows[checkout], counts, tasks, args.repeats, where)
    print(f"load average {load_before:.1f} before, {os.getloadavg()[0]:.1f} after, on {os.cpu_count()} cores")
    return 0


def print_table(checkout: Path, rows: list, counts: list[int], tasks: list[str], repeats: int, where: str) -> None:
    print(f"{checkout}: {len(tasks)} tasks x {repeats} repeats, reference control, each virtual device {where}")
    print(f"{'devices':>8} {'trials':>7} {'wall s':>8} {'trials/min':>11} {'vs 1':>6} {'busy (cores)':>13}"
          f" {'CPU/trial s':>12} {'trials s':>9} {'trials/min':>11} {'vs 1':>6}")
    base = steady_base = None
    cores = os.cpu_count() or 1
    for n, wall, cpu, trials, window in rows:
        rate, steady = trials / wall * 60, trials / window * 60
        if n == counts[0]:
            base, steady_base = rate, steady
        print(f"{n:>8} {trials:>7} {wall:>8.1f} {rate:>11.1f} {rate / base:>5.2f}x {cpu / wall:>13.2f}"
              f" {cpu / max(trials, 1):>12.2f} {window:>9.1f} {steady:>11.1f} {steady / steady_base:>5.2f}x")
    print("wall: the whole pytest run, workers' start included; trials: first trial's start to last one's end")
    widest = rows[-1]
    per_trial = widest[2] / max(widest[3], 1)
    print(f"ceiling: {per_trial:.2f} CPU s a trial (workers' start included) on {cores} cores caps the whole run "
          f"at {cores / per_trial * 60:.0f} trials/min however many devices wait in parallel")


if __name__ == "__main__":
    sys.exit(main())
