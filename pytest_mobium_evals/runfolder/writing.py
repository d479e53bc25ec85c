"""Writing a run folder: `record.json` for the run, per trial `verdict.json`, `transcript.jsonl` and `screen.png`,
and under `.session/` the device each process leased and the controller's prepared tool server (the names and
places are layout.py's).

Every file is written atomically (files.py: a temp file in the same folder, then `os.replace`), mode 0644, a trial's
`verdict.json` is written last, so its presence means the trial is complete: an interrupted run loses no graded
trial, and `--resume` skips exactly the trials that have one (reading.py's `graded`). Under xdist the controller
writes `record.json` and each worker writes the trials it ran. The layout and keys are the contract in DEVELOPERS.md
(Records)."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Optional, Union

from pytest_mobium_evals.runfolder.files import atomic_write_bytes, atomic_write_json, atomic_write_jsonl
from pytest_mobium_evals.runfolder.layout import RunDir

if TYPE_CHECKING:
    from pytest_mobium_evals.core.run_record import RunRecord


def write_record(run_dir: os.PathLike | str, record: Union[RunRecord, dict]) -> None:
    """record.json: a `RunRecord` (the session's), or a mapping a test writes as it is."""
    atomic_write_json(RunDir(run_dir).record_path, record if isinstance(record, dict) else record.to_json())


def write_trial(run_dir: os.PathLike | str, name: str, verdict: dict, transcript: Iterable[dict] = (),
                screen: Optional[bytes] = None) -> Path:
    """One trial's folder: its transcript, its final screen, then its verdict (last: its presence marks the trial
    complete)."""
    run = RunDir(run_dir)
    atomic_write_jsonl(run.transcript_path(name), transcript)
    if screen:
        atomic_write_bytes(run.screen_path(name), screen)
    atomic_write_json(run.verdict_path(name), verdict)
    return run.trial_dir(name)


def write_session_device(run_dir: os.PathLike | str, worker: int, info: dict) -> None:
    """The device a process (its xdist worker index; 0 without xdist) leased, for the record."""
    atomic_write_json(RunDir(run_dir).session_device_path(worker), info)


def write_session_prepared_server(run_dir: os.PathLike | str, command: list[str]) -> None:
    """The command that attaches to the tool server xdist's controller prepared for its workers on its machine."""
    atomic_write_json(RunDir(run_dir).prepared_server_path, command)


def utc_now() -> str:
    """A record's time stamp: now, in UTC, to the second (ISO 8601)."""
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
