"""Hooks the plugin declares for others (a suite, a reporter, a user's conftest), so that nothing needs to import
the plugin back to learn how a run is going. All of them are called on the process that keeps the run's books:
the controller under xdist, the only process otherwise."""

from __future__ import annotations

from pathlib import Path

import pluggy
import pytest

hookspec = pluggy.HookspecMarker("pytest")


@hookspec
def pytest_mobium_run_started(config: pytest.Config, run_dir: Path) -> None:
    """The run folder is chosen and the first trial is about to be recorded."""


@hookspec
def pytest_mobium_trial_recorded(config: pytest.Config, run_dir: Path, result: dict) -> None:
    """A trial ended and its verdict.json is on disk (graded or infra_error). `result` is the trial's record in its
    JSON form (trial_record.TrialRecord: verdict.json's keys, task, suite, driver, model, repeat, verdict, expected,
    ok, severity...), with `resumed`."""


@hookspec
def pytest_mobium_run_finished(config: pytest.Config, run_dir: Path, status: str) -> None:
    """record.json has been written for the last time in this session. `status` is `completed` (every scheduled
    trial has its verdict), `stopped` (interrupted, or trials are missing: --resume continues it)."""
