"""Hooks the plugin declares for others (a suite, a reporter, a user's conftest), so that nothing needs to import
the plugin back to learn how a run is going. All of them are called on the process that keeps the run's books:
the controller under xdist, the only process otherwise."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import pluggy
import pytest

if TYPE_CHECKING:
    from pytest_mobium_evals.core.trial_record import TrialRecord

hookspec = pluggy.HookspecMarker("pytest")


@hookspec
def pytest_mobium_run_started(config: pytest.Config, run_dir: Path) -> None:
    """The run folder is chosen and the first trial is about to be recorded."""


@hookspec
def pytest_mobium_trial_recorded(config: pytest.Config, run_dir: Path, record: TrialRecord) -> None:
    """A trial ended and its verdict.json is on disk (graded or infra_error). `record` is the trial's
    `trial_record.TrialRecord`, read by its fields (`record.suite`, `.task`, `.driver`, `.verdict`, `.ok`,
    `.resumed`…; `record.to_json()` is verdict.json's content); under xdist, rebuilt on the controller from the
    worker's report."""


@hookspec
def pytest_mobium_run_finished(config: pytest.Config, run_dir: Path, status: str) -> None:
    """record.json has been written for the last time in this session. `status` is `completed` (every scheduled
    trial has its verdict), `stopped` (interrupted, or trials are missing: --resume continues it)."""
