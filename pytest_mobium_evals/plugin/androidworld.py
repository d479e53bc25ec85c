"""AndroidWorld's pytest hooks: its run summary (`androidworld.json`), written as Ghost Bench's is. Its JSON task
files are collected as every suite's are, through the task registry (its loader is `adapter.entries`), one test
per task, marked `androidworld`. The harness's plugin registers this module; it hears the run through the hooks the
harness declares."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import pytest

from pytest_mobium_evals.suites.androidworld.adapter import SUITE

from .ghost_bench import run_trials

if TYPE_CHECKING:
    from pytest_mobium_evals.core.trial_record import TrialRecord


#: This session's readers of run folders for the AndroidWorld summary (as Ghost Bench's: `ghost_bench.TRIALS_READ`).
TRIALS_READ = pytest.StashKey[dict]()


def _write_summary(config: Any, run_dir: Path, status: str):
    from pytest_mobium_evals.suites.androidworld.summary import SPEC  # noqa: PLC0415  the run folder's loader and the records' pydantic models: only once a trial of the suite is recorded
    from pytest_mobium_evals.suites.ghost_bench.summary import write_summary  # noqa: PLC0415  the run folder's loader and the records' pydantic models: only once a trial of the suite is recorded

    return write_summary(run_dir, status=status, spec=SPEC, trials=run_trials(config, run_dir, TRIALS_READ))


def pytest_mobium_trial_recorded(config: Any, run_dir: Path, record: TrialRecord) -> None:
    # Rewritten after every AndroidWorld trial, so a run that is killed still leaves a summary of what it finished.
    if record.suite == SUITE:
        _write_summary(config, run_dir, "running")


#: Where this session's AndroidWorld summary went, said in the terminal summary (as Ghost Bench's: the run finishes
#: while pytest's "[100%]" line is still open).
SUMMARY_WRITTEN = pytest.StashKey[Path]()


def pytest_mobium_run_finished(config: Any, run_dir: Path, status: str) -> None:
    path = _write_summary(config, run_dir, status)
    if path is not None:
        config.stash[SUMMARY_WRITTEN] = path


def pytest_terminal_summary(terminalreporter: Any, config: Any) -> None:
    path = config.stash.get(SUMMARY_WRITTEN, None)
    if path is not None:
        terminalreporter.write_line(f"AndroidWorld summary: {path}")
