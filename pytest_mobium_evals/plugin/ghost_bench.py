"""Ghost Bench's pytest hooks: its category marks and its run summary (its files are collected as every task
suite's are, through the task registry: collection.py). The harness's plugin registers this module; it hears about
the run through the hooks the harness declares (hookspecs.py) and never imports the harness's plugin back."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_mobium_evals.runfolder.reading import RunTrials
from pytest_mobium_evals.suites.ghost_bench.adapter import SUITE

if TYPE_CHECKING:
    from pytest_mobium_evals.core.trial_record import TrialRecord

#: The categories Ghost Bench's own tasks use, registered up front so `-m "ghost_bench and settings"` is a known
#: mark under --strict-markers before any file is collected; a task file registers any other category it uses.
CATEGORY_MARKS = {
    "navigation": "a Ghost Bench task that opens an app",
    "settings": "a Ghost Bench task that changes a system setting",
}


#: The run folders' readers this session's summaries keep, one a summary and a folder: rewritten after each of
#: the suite's trials, a summary then reads only the trials new since (`RunTrials`).
TRIALS_READ = pytest.StashKey[dict]()


def run_trials(config: Any, run_dir: Path, key: pytest.StashKey[dict]) -> RunTrials:
    readers = config.stash.setdefault(key, {})
    return readers.setdefault(Path(run_dir), RunTrials(run_dir))


def _write_summary(config: Any, run_dir: Path, status: str):
    from pytest_mobium_evals.suites.ghost_bench.summary import write_summary  # noqa: PLC0415  the run folder's loader and the records' pydantic models: only once a trial of the suite is recorded

    return write_summary(run_dir, status=status, trials=run_trials(config, run_dir, TRIALS_READ))


def pytest_configure(config: Any) -> None:
    for name, what in CATEGORY_MARKS.items():
        config.addinivalue_line("markers", f"{name}: {what} (its category)")


def pytest_mobium_trial_recorded(config: Any, run_dir: Path, record: TrialRecord) -> None:
    # Rewritten after every Ghost Bench trial, so a run that is killed still leaves a summary of what it finished.
    if record.suite == SUITE:
        _write_summary(config, run_dir, "running")


#: Where this session's Ghost Bench summary went, said in the terminal summary: the run finishes while pytest's
#: progress line ("[100%]") is still open, and a line written then would land on it.
SUMMARY_WRITTEN = pytest.StashKey[Path]()


def pytest_mobium_run_finished(config: Any, run_dir: Path, status: str) -> None:
    path = _write_summary(config, run_dir, status)
    if path is not None:
        config.stash[SUMMARY_WRITTEN] = path


def pytest_terminal_summary(terminalreporter: Any, config: Any) -> None:
    path = config.stash.get(SUMMARY_WRITTEN, None)
    if path is not None:
        terminalreporter.write_line(f"Ghost Bench summary: {path}")
