"""The run folder: `record.json` for the run, and per trial `verdict.json`, `transcript.jsonl` and `screen.png`.

Every file is written atomically (files.py: a temp file in the same folder, then `os.replace`), mode 0644, a trial's
`verdict.json` is written last, so its presence means the trial is complete: an interrupted run loses no graded
trial, and `--resume` skips exactly the trials that have one. Under xdist the controller writes `record.json` and
each worker writes the trials it ran. The layout and keys are the contract in DEVELOPERS.md (read by reports.py and
runfolder.py)."""

from __future__ import annotations

import os
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Optional, Union

from pytest_mobium_evals.core.errors import RecordError, RecordInvalid, UsageError
from pytest_mobium_evals.runfolder.files import (
    NO_DEFAULT,
    atomic_write_bytes,
    atomic_write_json,
    atomic_write_jsonl,
    read_json,
)

if TYPE_CHECKING:  # pydantic's import is left to the first reader: the entry point imports this module
    from pytest_mobium_evals.core.run_record import RunRecord

RECORD = "record.json"
TRIALS = "trials"
VERDICT = "verdict.json"
TRANSCRIPT = "transcript.jsonl"
SCREEN = "screen.png"
SESSION = ".session"  # what the run's processes share while it runs: the collection, the leased devices
PREPARED_SERVER = "prepared-server.json"  # in .session/: the controller's prepared tool server, for its workers


def trial_name(task: str, driver: str, model: Optional[str], repeat: int) -> str:
    """`<task>-<driver>-<model>-r<repeat>`, model "none" for controls, ":" and "/" made "-" (safe on every OS)."""
    return f"{task}-{driver}-{model or 'none'}-r{repeat}".replace(":", "-").replace("/", "-")


def default_run_dir(driver: str, root: os.PathLike | str = "runs", now: Optional[datetime] = None) -> Path:
    now = now or datetime.now(timezone.utc)
    return Path(root) / f"{now.strftime('%Y%m%d-%H%M%S')}-{driver.replace(',', '_')}"


class RunDir:
    def __init__(self, path: os.PathLike | str):
        self.path = Path(path)

    @property
    def record_path(self) -> Path:
        return self.path / RECORD

    @property
    def session_dir(self) -> Path:
        return self.path / SESSION

    def write_session_device(self, worker: int, info: dict) -> None:
        """The device a process (its xdist worker index; 0 without xdist) leased, for the record."""
        atomic_write_json(self.session_dir / f"device-{worker}.json", info)

    def write_session_prepared_server(self, command: list[str]) -> None:
        """The command that attaches to the tool server xdist's controller prepared for its workers on its machine."""
        atomic_write_json(self.session_dir / PREPARED_SERVER, command)

    def session_prepared_server(self) -> Optional[list[str]]:
        """The controller's prepared tool server's attach command, or None when it prepared none."""
        command = read_json(self.session_dir / PREPARED_SERVER, default=None)
        if isinstance(command, list) and command and all(isinstance(part, str) for part in command):
            return command
        return None

    def session_devices(self) -> list[dict]:
        """The devices this run's processes leased (`.session/device-*.json`), in their files' order."""
        return [d for p in sorted(self.session_dir.glob("device-*.json")) if (d := read_json(p, default=None))]

    def trial_dir(self, name: str) -> Path:
        return self.path / TRIALS / name

    def write_record(self, record: Union[RunRecord, dict]) -> None:
        """record.json: a `RunRecord` (the session's), or a mapping a test writes as it is."""
        atomic_write_json(self.record_path, record if isinstance(record, dict) else record.to_json())

    def read_record(self) -> RunRecord:
        """The run's record, for a run this session continues or compares with; a `RecordError` in one line naming
        the file when there is none or it does not load."""
        if not self.record_path.exists():
            raise RecordError(f"{self.path}: not a run folder (no {RECORD})")
        try:
            return read_run_record(self.record_path, "the run record")
        except UsageError as exc:
            raise RecordError(str(exc)) from None

    def write_trial(self, name: str, verdict: dict, transcript: Iterable[dict] = (),
                    screen: Optional[bytes] = None) -> Path:
        folder = self.trial_dir(name)
        atomic_write_jsonl(folder / TRANSCRIPT, transcript)
        if screen:
            atomic_write_bytes(folder / SCREEN, screen)
        atomic_write_json(folder / VERDICT, verdict)  # last: its presence marks the trial complete
        return folder

    def graded(self, name: str) -> Optional[dict]:
        """The stored verdict of a completed trial, or None (absent, unreadable, or half-written: then the trial
        runs again)."""
        data, problem = self._verdict(name)
        return None if problem else data

    def half_written(self, name: str) -> Optional[str]:
        """What is wrong with a trial folder that holds a verdict.json but not a whole trial (a truncated or
        unparsable verdict, one without a verdict, a transcript missing), as one line naming the file; None for a
        complete folder or one with no verdict.json yet."""
        return self._verdict(name)[1]

    def _verdict(self, name: str) -> tuple[Optional[dict], Optional[str]]:
        """A trial's verdict.json read once: (its data, None) for a whole trial, (None, None) with no verdict.json
        yet, (None, what is wrong) for a half-written one."""
        folder = self.trial_dir(name)
        path = folder / VERDICT
        if not path.exists():
            return None, None
        try:
            data = read_json(path, "the verdict")
        except UsageError as exc:
            return None, f"{path}: not readable JSON (truncated?): {str(exc).removeprefix(f'{path}: ')}"
        if not isinstance(data, dict) or not data.get("verdict"):
            return None, f"{path}: has no verdict"
        if not (folder / TRANSCRIPT).exists():
            return None, f"{folder / TRANSCRIPT}: missing beside its verdict.json"
        return data, None

    def half_written_trials(self) -> list[str]:
        """One line for each half-written trial folder of the run (see half_written)."""
        root = self.path / TRIALS
        if not root.is_dir():
            return []
        return [problem for folder in sorted(root.iterdir()) if (problem := self.half_written(folder.name))]

    def all_verdicts(self) -> list[dict]:
        root = self.path / TRIALS
        out = []
        if root.is_dir():
            for folder in sorted(root.iterdir()):
                data = self.graded(folder.name)
                if data is not None:
                    out.append(data)
        return out



def read_run_record(path: Path, what: str = "the run record", default=NO_DEFAULT) -> Optional[RunRecord]:
    """The one reader of a record.json: its `RunRecord`. A file that is missing, not JSON, or not a record is a
    one-line `UsageError` naming it, or `default` when one is given."""
    from pytest_mobium_evals.core.run_record import RunRecord  # noqa: PLC0415  pydantic: the entry point imports this module

    try:
        data = read_json(path, what)
        try:
            return RunRecord.parse(data)
        except RecordInvalid as exc:
            raise UsageError(f"{path}: {exc}") from None
    except UsageError:
        if default is not NO_DEFAULT:
            return default
        raise


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
