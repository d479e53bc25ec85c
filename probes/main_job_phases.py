"""Where the main job's time goes: per phase (reset, driver, grade) the total and the median over trials, the
slowest tasks, and the run's span, from run folders' verdict.json timings, side by side with issue 34's figures
(a fresh clone on 2 cores, before any of its work). With `--run`, the main job is run first, as the README gives it,
and its wall time (the command, start to exit), the load average before and after, and the HTML report's size are
printed beside. `--run LABEL=CHECKOUT` (repeatable) runs it in another checkout of the project (its own code first on
the import path), so an old commit and a new one run one after the other under the same load:

    python probes/main_job_phases.py runs/<before> runs/<after>
    python probes/main_job_phases.py --run [runs/<before> ...]
    python probes/main_job_phases.py --run before=/tmp/base --run after=.

A run's span is from its first trial's start to its last trial's end (the workers' start-up and the report are
outside it); the wall time covers the whole command. Phases sum over every worker, so they exceed the span."""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PHASES = ("reset_s", "driver_s", "grade_s", "total_s")

# Issue 34's figures for the main job on a fresh clone (2 cores): 672 trials in 222 s, the trials' own time 738 s.
ISSUE = {"trials": 672, "wall": 222.0, "totals": {"reset_s": 21.0, "driver_s": 531.0, "grade_s": 186.0,
                                                   "total_s": 738.0}}


@dataclass
class RunTimes:
    label: str
    trials: int = 0
    as_declared: int = 0
    span: float | None = None
    wall: float | None = None
    load: str = ""
    report_bytes: int | None = None
    by_phase: dict[str, list[float]] = field(default_factory=dict)
    by_task: dict[str, float] = field(default_factory=dict)


def _started(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def read_run(path: Path, label: str | None = None) -> RunTimes:
    out = RunTimes(label or path.name, by_phase={p: [] for p in PHASES})
    first, last = None, None
    for verdict in sorted((path / "trials").glob("*/verdict.json")):
        record = json.loads(verdict.read_text())
        timings = record.get("timings") or {}
        out.trials += 1
        out.as_declared += bool(record.get("ok"))
        for phase in PHASES:
            out.by_phase[phase].append(float(timings.get(phase) or 0.0))
        total = float(timings.get("total_s") or 0.0)
        out.by_task[record["task"]] = out.by_task.get(record["task"], 0.0) + total
        if record.get("started_at"):
            start = _started(record["started_at"])
            first = start if first is None else min(first, start)
            last = start + total if last is None else max(last, start + total)
    if first is not None and last is not None:
        out.span = last - first
    return out


def load_average() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def run_main_job(label: str, root: Path) -> RunTimes:
    """The README's main job in checkout `root`, into a fresh run folder; its wall time and the load average
    around it."""
    run_dir = Path(tempfile.mkdtemp(prefix=f"main-job-{label}-"))
    html = run_dir.with_suffix(".html")
    env = dict(os.environ, PYTHONPATH=str(root.resolve()))
    load_before = load_average()
    started = time.monotonic()
    command = [sys.executable, "-m", "pytest", "--driver=controls", f"--html={html}", "--self-contained-html",
               "-p", "no:cacheprovider", "-q", f"--run-dir={run_dir}"]
    proc = subprocess.run(command, cwd=root, env=env, capture_output=True, text=True)
    wall = time.monotonic() - started
    if proc.returncode != 0:
        print((proc.stdout + proc.stderr)[-3000:], file=sys.stderr)
    times = read_run(run_dir, label)
    times.wall = wall
    times.load = f"{load_before} before, {load_average()} after"
    times.report_bytes = html.stat().st_size if html.exists() else None
    print(f"{label}: {run_dir}, {html} (exit {proc.returncode})", file=sys.stderr)
    return times


def _fmt(value: float | None, digits: int = 0) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


def table(runs: list[RunTimes]) -> str:
    heads = ["", "issue 34 (before)"] + [r.label for r in runs]
    rows = [["trials", str(ISSUE["trials"])] + [str(r.trials) for r in runs],
            ["graded as declared", str(ISSUE["trials"])] + [str(r.as_declared) for r in runs],
            ["wall time of the command, s", _fmt(ISSUE["wall"])] + [_fmt(r.wall) for r in runs],
            ["span of the trials, s", "–"] + [_fmt(r.span) for r in runs]]
    for phase in PHASES:
        name = phase[:-2]
        rows.append([f"{name}: total s", _fmt(ISSUE["totals"][phase])]
                    + [_fmt(sum(r.by_phase[phase])) for r in runs])
        rows.append([f"{name}: median s", "1.2–1.5" if phase == "total_s" else "–"]
                    + [_fmt(statistics.median(r.by_phase[phase]) if r.by_phase[phase] else None, 2) for r in runs])
    rows.append(["longest trial, s", "~60 (t25)"] + [_fmt(max(r.by_phase["total_s"], default=None)) for r in runs])
    rows.append(["report, MB", "9.6"] + [_fmt(r.report_bytes / 1e6, 1) if r.report_bytes else "–" for r in runs])
    rows.append(["load average", "–"] + [r.load or "–" for r in runs])
    lines = ["| " + " | ".join(heads) + " |", "|" + " --- |" * len(heads)]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    for r in runs:
        slow = sorted(r.by_task.items(), key=lambda kv: -kv[1])[:8]
        lines.append("")
        lines.append(f"{r.label}: the tasks whose trials took longest, s summed: "
                     + ", ".join(f"{task} {secs:.0f}" for task, secs in slow))
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("runs", nargs="*", type=Path, help="run folders to read")
    parser.add_argument("--run", nargs="?", action="append", const=f"this checkout={ROOT}", metavar="LABEL=CHECKOUT",
                        help="run the main job (in this checkout, or the one given) and add it as a column")
    args = parser.parse_args(argv)
    runs = [read_run(p) for p in args.runs]
    for spec in args.run or []:
        label, _, root = spec.rpartition("=")
        runs.append(run_main_job(label or Path(root).name, Path(root)))
    if not runs:
        parser.error("give run folders, or --run")
    print(table(runs))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
