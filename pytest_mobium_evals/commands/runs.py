"""`mobium-evals runs [FOLDER]`: the runs in a folder, one line each, newest first.

Every run shows when it ran, its seed and how many tasks it has. A complete run adds its drivers and models, its
device, its pass rate (or, for controls, the share graded as declared) and its blockers. An incomplete run is listed
as incomplete with what it lacks, so a half-run is never mistaken for a result; a folder that is not a run at all is
skipped."""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

from pytest_mobium_evals.core.errors import UsageError
from pytest_mobium_evals.report.facts import describe_device, fmt_pct, join
from pytest_mobium_evals.report.view import summarize
from pytest_mobium_evals.runfolder.layout import RECORD
from pytest_mobium_evals.runfolder.reading import Run, is_run, load_run


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("folder", metavar="FOLDER", nargs="?", default="runs",
                        help="the folder holding run folders (default: runs/)")


def run(args: argparse.Namespace) -> int:
    folder = Path(args.folder)
    if not folder.exists():
        raise UsageError(f"{folder}: no such folder")
    if not folder.is_dir():
        raise UsageError(f"{folder}: not a folder")
    if is_run(folder):
        raise UsageError(f"{folder}: this is a run folder; give the folder that holds runs (e.g. {folder.parent})")
    lines = list_runs(folder)
    if not lines:
        print(f"{folder}: no runs (no sub-folder has a {RECORD})", file=sys.stderr)
        return 0
    try:
        print("\n".join(lines), flush=True)
    except BrokenPipeError:  # `mobium-evals runs | head`: the reader has what it wanted
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
    return 0


def list_runs(folder: Path) -> list[str]:
    runs = []
    for child in folder.iterdir():
        if child.is_dir() and is_run(child):
            try:
                runs.append(load_run(child, require_complete=False))
            except UsageError as exc:  # a malformed record is listed, not fatal: the other runs are still readable
                runs.append(str(exc))
    runs.sort(key=_when, reverse=True)
    return [r if isinstance(r, str) else describe_run(r) for r in runs]


def _when(item) -> str:
    if isinstance(item, str):
        return ""
    return str(item.record.started or item.path.name)


def describe_run(run_: Run) -> str:
    when = str(run_.record.started or "unknown time")
    # the seed and the task count say which runs can be compared, and keep a 3-task run from passing for a whole one
    seed = run_.seed if run_.seed is not None else "unknown"
    tasks = len(run_.task_ids or {t.record.task for t in run_.trials})
    head = f"{run_.name}  {when}  seed {seed}  {tasks} task{'' if tasks == 1 else 's'}"
    if not run_.complete:
        return f"{head}  INCOMPLETE: {run_.summary_of_problems()}"
    drivers = join(dict.fromkeys([d for d in run_.record.drivers or [] if any(t.record.driver == d for t in
                                                                                    run_.trials)]
                                 + [t.record.driver for t in run_.trials]))
    models = join(dict.fromkeys(t.record.model_name for t in run_.trials if t.record.model_name != "none")) or "none"
    rates = []
    blockers = 0
    for setting, trials in run_.by_setting().items():
        s = summarize(setting, trials, run_.task_ids, with_interval=False)
        blockers += len(s.blockers)
        rates.append(f"{setting.short} {fmt_pct(s.rate)}")
    kind = "as declared" if run_.is_controls_run() else "pass"
    return (f"{head}  driver {drivers}  model {models}  device {describe_device(run_.record, short=True)}  "
            f"{kind} {'; '.join(rates)}  blockers {blockers}")
