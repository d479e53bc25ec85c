"""Every file name of a run folder, spelt once, and where each file goes (`RunDir`: paths only, no I/O).

    <run>/record.json                                  the run's record (core.run_record.RunRecord)
    <run>/trials/<task>-<driver>-<model>-r<repeat>/    one trial (`trial_name`):
        verdict.json                                   its record (core.trial_record.TrialRecord), written last
        transcript.jsonl                               the tool calls, answers and model turns, one event a line
        screen.png                                     the device's final screen
    <run>/.session/                                    what the run's processes share while it runs:
        collection.json                                what was scheduled (runfolder.collection)
        device-<worker>.json                           the device each process leased
        prepared-server.json                           the tool server xdist's controller prepared for its workers
    <run>/report.md, pass-rate.png, regrade.md         `mobium-evals report` (--regrade)
    <run>/compare.md, judge.md, surfaces.md            compare or verify, judge, a run with --surface
    <run>/ghost_bench.json, androidworld.json          a suite's own summary
    <run>/<run>.eval                                   `mobium-evals export --inspect`

A module elsewhere that names one of these files takes its name from here (tests/runfolder/test_layout.py holds the
package to it), so a name changes in one place and the writers and readers cannot disagree on a spelling."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path
from typing import Optional

RECORD = "record.json"
TRIALS = "trials"
VERDICT = "verdict.json"
TRANSCRIPT = "transcript.jsonl"
SCREEN = "screen.png"
SESSION = ".session"
COLLECTION = "collection.json"
SESSION_DEVICE = "device-{worker}.json"  # one per process: its xdist worker index, 0 without xdist
SESSION_DEVICES = "device-*.json"
PREPARED_SERVER = "prepared-server.json"  # the controller's prepared tool server's attach command, for its workers

REPORT = "report.md"
CHART = "pass-rate.png"
REGRADE = "regrade.md"
COMPARE = "compare.md"
JUDGE = "judge.md"
SURFACES = "surfaces.md"
GHOST_BENCH_SUMMARY = "ghost_bench.json"
ANDROIDWORLD_SUMMARY = "androidworld.json"
INSPECT_LOG = "{run}.eval"

#: Every name above: what a run folder may hold (tests/runfolder/test_layout.py greps the package for them).
NAMES = (RECORD, TRIALS, VERDICT, TRANSCRIPT, SCREEN, SESSION, COLLECTION, SESSION_DEVICE, SESSION_DEVICES,
         PREPARED_SERVER, REPORT, CHART, REGRADE, COMPARE, JUDGE, SURFACES, GHOST_BENCH_SUMMARY, ANDROIDWORLD_SUMMARY,
         INSPECT_LOG)


def trial_name(task: str, driver: str, model: Optional[str], repeat: int) -> str:
    """`<task>-<driver>-<model>-r<repeat>`, model "none" for controls, ":" and "/" made "-" (safe on every OS)."""
    return f"{task}-{driver}-{model or 'none'}-r{repeat}".replace(":", "-").replace("/", "-")


def default_run_dir(driver: str, root: os.PathLike | str = "runs", now: Optional[datetime] = None) -> Path:
    now = now or datetime.now(timezone.utc)
    return Path(root) / f"{now.strftime('%Y%m%d-%H%M%S')}-{driver.replace(',', '_')}"


def trial_link(name: str, file: str) -> str:
    """A trial's file as a path relative to its run folder (`trials/<name>/<file>`), for a report's links."""
    return f"{TRIALS}/{name}/{file}"


def inspect_log(run: str) -> str:
    """The Inspect AI log `export --inspect` writes into a run folder named `run`."""
    return INSPECT_LOG.format(run=run)


class RunDir:
    """Where each file of one run folder goes. Paths only: runfolder.writing writes them, runfolder.reading reads
    them."""

    def __init__(self, path: os.PathLike | str):
        self.path = Path(path)

    def __fspath__(self) -> str:  # a RunDir goes wherever a path does (RunDir(RunDir(p)) too)
        return os.fspath(self.path)

    @property
    def record_path(self) -> Path:
        return self.path / RECORD

    @property
    def trials_dir(self) -> Path:
        return self.path / TRIALS

    def trial_dir(self, name: str) -> Path:
        return self.trials_dir / name

    def verdict_path(self, name: str) -> Path:
        return self.trial_dir(name) / VERDICT

    def transcript_path(self, name: str) -> Path:
        return self.trial_dir(name) / TRANSCRIPT

    def screen_path(self, name: str) -> Path:
        return self.trial_dir(name) / SCREEN

    @property
    def session_dir(self) -> Path:
        return self.path / SESSION

    @property
    def collection_path(self) -> Path:
        return self.session_dir / COLLECTION

    def session_device_path(self, worker: int) -> Path:
        return self.session_dir / SESSION_DEVICE.format(worker=worker)

    @property
    def prepared_server_path(self) -> Path:
        return self.session_dir / PREPARED_SERVER

    def session_device_paths(self) -> list[Path]:
        """The devices' files the run's processes wrote, in their names' order."""
        return sorted(self.session_dir.glob(SESSION_DEVICES))
