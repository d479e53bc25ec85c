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
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from pytest_mobium_evals.sim.processes import server_processes  # noqa: E402


def trials_window(run: Path) -> float:
    """From the first trial's start to the last one's end: the run without its workers' start and stop. A trial
    ends at its transcript's last event and started its total_s before that."""
    spans = []
    for verdict in run.glob("trials/*/verdict.json"):
        total = json.loads(verdict.read_text())["timings"]["total_s"]
        lines = (verdict.parent / "transcript.jsonl").read_text().splitlines()
        stamps = [json.loads(line).get("t") for line in lines if line.strip()]
        end = max((t for t in stamps if isinstance(t, (int, float))), default=None)
        if end is not None:
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


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", default="1,2,4,8", help="comma list of device counts (default 1,2,4,8)")
    parser.add_argument("--tasks", default="t01,t04,t07,t09,t15,t11", help="the MobiumApp tasks to run")
    parser.add_argument("--repeats", type=int, default=4, help="trials per task (default 4)")
    parser.add_argument("--in-workers", action="store_true",
                        help="each worker's virtual device in the worker itself (--device sim), not a process of "
                             "its own: the form an older checkout understands")
    parser.add_argument("--checkout", type=Path, action="append", default=None,
                        help="a checkout to measure, with its own .venv (default: this one); given twice (old and "
                             "new), each device count runs on both in turn, so both tables share the run's load")
    args = parser.parse_args(argv)
    try:
        counts = [int(c) for c in args.devices.split(",") if c.strip()]
    except ValueError:
        print(f"bench_scale: --devices {args.devices}: expected numbers, e.g. 1,2,4,8", file=sys.stderr)
        return 2
    if not counts or min(counts) < 1 or args.repeats < 1:
        print("bench_scale: device counts and --repeats must be at least 1", file=sys.stderr)
        return 2
    checkouts = [c.resolve() for c in (args.checkout or [ROOT])]
    missing = [str(c) for c in checkouts if not (c / ".venv" / "bin" / "python").exists()]
    if missing:
        print(f"bench_scale: --checkout {', '.join(missing)}: no .venv/bin/python there", file=sys.stderr)
        return 2
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
