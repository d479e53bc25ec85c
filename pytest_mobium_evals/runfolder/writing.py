"""The run folder: `record.json` for the run, and per trial `verdict.json`, `transcript.jsonl` and `screen.png`.

Every file is written atomically (a temp file in the same folder, then `os.replace`), mode 0644, and a trial's
`verdict.json` is written last, so its presence means the trial is complete: an interrupted run loses no graded
trial, and `--resume` skips exactly the trials that have one. Under xdist the controller writes `record.json` and
each worker writes the trials it ran. The layout and keys are the contract in DEVELOPERS.md (read by reports.py and
runfolder.py)."""

from __future__ import annotations

import json
import os
import tempfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Iterable, Optional

from pytest_mobium_evals.core.errors import RecordError

RECORD = "record.json"
TRIALS = "trials"
VERDICT = "verdict.json"
TRANSCRIPT = "transcript.jsonl"
SCREEN = "screen.png"
FILE_MODE = 0o644


def trial_name(task: str, driver: str, model: Optional[str], repeat: int) -> str:
    """`<task>-<driver>-<model>-r<repeat>`, model "none" for controls, ":" and "/" made "-" (safe on every OS)."""
    return f"{task}-{driver}-{model or 'none'}-r{repeat}".replace(":", "-").replace("/", "-")


def default_run_dir(driver: str, root: os.PathLike | str = "runs", now: Optional[datetime] = None) -> Path:
    now = now or datetime.now(timezone.utc)
    return Path(root) / f"{now.strftime('%Y%m%d-%H%M%S')}-{driver.replace(',', '_')}"


def atomic_write_bytes(path: Path, data: bytes) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            # mkstemp makes a private 0600 file; a run folder is an artifact others read (CI uploads, a reviewer's
            # account), so it gets the mode a file written by open() has under the usual umask
            os.fchmod(fh.fileno(), FILE_MODE)
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def atomic_write_json(path: Path, data: Any) -> None:
    atomic_write_bytes(path, (json.dumps(data, indent=2, sort_keys=True, default=str) + "\n").encode("utf-8"))


def atomic_write_jsonl(path: Path, events: Iterable[dict]) -> None:
    text = "".join(json.dumps(e, sort_keys=True, default=str, ensure_ascii=False) + "\n" for e in events)
    atomic_write_bytes(path, text.encode("utf-8"))


class RunDir:
    def __init__(self, path: os.PathLike | str):
        self.path = Path(path)

    @property
    def record_path(self) -> Path:
        return self.path / RECORD

    def trial_dir(self, name: str) -> Path:
        return self.path / TRIALS / name

    def write_record(self, record: dict) -> None:
        atomic_write_json(self.record_path, record)

    def read_record(self) -> dict:
        try:
            data = json.loads(self.record_path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            raise RecordError(f"{self.path}: not a run folder (no {RECORD})") from None
        except (OSError, json.JSONDecodeError) as exc:
            raise RecordError(f"{self.record_path}: cannot read the run record: {exc}") from None
        if not isinstance(data, dict):
            raise RecordError(f"{self.record_path}: the run record is not a JSON object")
        return data

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
        if self.half_written(name) is not None:
            return None
        path = self.trial_dir(name) / VERDICT
        try:
            return json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            return None

    def half_written(self, name: str) -> Optional[str]:
        """What is wrong with a trial folder that holds a verdict.json but not a whole trial (a truncated or
        unparsable verdict, one without a verdict, a transcript missing), as one line naming the file; None for a
        complete folder or one with no verdict.json yet."""
        folder = self.trial_dir(name)
        path = folder / VERDICT
        if not path.exists():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as exc:
            return f"{path}: not readable JSON (truncated?): {exc}"
        if not isinstance(data, dict) or not data.get("verdict"):
            return f"{path}: has no verdict"
        if not (folder / TRANSCRIPT).exists():
            return f"{folder / TRANSCRIPT}: missing beside its verdict.json"
        return None

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


def utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")
