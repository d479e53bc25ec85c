"""Reading a run folder back: the state of a run in progress (which trials are graded, which half-written, the
devices its processes leased), the record of a run to continue or compare with, and whole runs loaded and checked for
every after-run command (report, compare, runs, judge, verify).

A run folder is `record.json` plus `trials/<task>-<driver>-<model>-r<repeat>/verdict.json` (layout.py; DEVELOPERS.md,
Records). A number is only reported from a complete run, so loading says precisely what is missing or malformed:
which keys of the record, which scheduled trials have no verdict.json, which verdict.json cannot be read and why.
Every such problem is a `UsageError` naming the file, never a traceback.

The plugin's entry point imports this module (the session reads the run's state), so pydantic, which the records'
models need, is imported by the readers that build a record, when first called."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

from pytest_mobium_evals.core.errors import RecordError, RecordInvalid, UsageError
from pytest_mobium_evals.core.setting import Setting, is_control
from pytest_mobium_evals.runfolder.files import NO_DEFAULT, read_json
from pytest_mobium_evals.runfolder.layout import RECORD, TRANSCRIPT, TRIALS, VERDICT, RunDir, trial_name

if TYPE_CHECKING:
    from pytest_mobium_evals.core.run_record import RunRecord
    from pytest_mobium_evals.core.trial_record import TrialRecord

#: What a record must say before its run is reported: what it ran on and what it scheduled.
RECORD_KEYS = ("seed", "tasks", "device", "mobium")


# ---- a run in progress: its record, its trials' state, its devices ----

def read_run_record(path: os.PathLike | str, what: str = "the run record", default=NO_DEFAULT) -> Optional[RunRecord]:
    """The one reader of a record.json: its `RunRecord`. A file that is missing, not JSON, or not a record is a
    one-line `UsageError` naming it, or `default` when one is given."""
    from pytest_mobium_evals.core.run_record import RunRecord  # noqa: PLC0415  pydantic: the entry point imports this module

    try:
        data = read_json(Path(path), what)
        try:
            return RunRecord.parse(data)
        except RecordInvalid as exc:
            raise UsageError(f"{path}: {exc}") from None
    except UsageError:
        if default is not NO_DEFAULT:
            return default
        raise


def is_run(path: os.PathLike | str) -> bool:
    """Whether a folder holds a run: its record.json."""
    return RunDir(path).record_path.is_file()


def read_record(run_dir: os.PathLike | str) -> RunRecord:
    """The record of a run this session continues or compares with; a `RecordError` in one line naming the file
    when there is none or it does not load."""
    run = RunDir(run_dir)
    if not run.record_path.exists():
        raise RecordError(f"{run.path}: not a run folder (no {RECORD})")
    try:
        return read_run_record(run.record_path, "the run record")
    except UsageError as exc:
        raise RecordError(str(exc)) from None


def session_devices(run_dir: os.PathLike | str) -> list[dict]:
    """The devices this run's processes leased (layout.SESSION_DEVICES), in their files' order."""
    return [d for p in RunDir(run_dir).session_device_paths() if (d := read_json(p, default=None))]


def session_prepared_server(run_dir: os.PathLike | str) -> Optional[list[str]]:
    """The controller's prepared tool server's attach command (layout.PREPARED_SERVER), or None when it prepared
    none."""
    command = read_json(RunDir(run_dir).prepared_server_path, default=None)
    if isinstance(command, list) and command and all(isinstance(part, str) for part in command):
        return command
    return None


def graded(run_dir: os.PathLike | str, name: str) -> Optional[dict]:
    """The stored verdict of a completed trial, or None (absent, unreadable, or half-written: then the trial runs
    again)."""
    data, problem = _verdict(RunDir(run_dir), name)
    return None if problem else data


def half_written(run_dir: os.PathLike | str, name: str) -> Optional[str]:
    """What is wrong with a trial folder that holds a verdict.json but not a whole trial (a truncated or unparsable
    verdict, one without a verdict, a transcript missing), as one line naming the file; None for a complete folder or
    one with no verdict.json yet."""
    return _verdict(RunDir(run_dir), name)[1]


def _verdict(run: RunDir, name: str) -> tuple[Optional[dict], Optional[str]]:
    """A trial's verdict.json read once: (its data, None) for a whole trial, (None, None) with no verdict.json yet,
    (None, what is wrong) for a half-written one."""
    path = run.verdict_path(name)
    if not path.exists():
        return None, None
    try:
        data = read_json(path, "the verdict")
    except UsageError as exc:
        return None, f"{path}: not readable JSON (truncated?): {str(exc).removeprefix(f'{path}: ')}"
    if not isinstance(data, dict) or not data.get("verdict"):
        return None, f"{path}: has no verdict"
    transcript = run.transcript_path(name)
    if not transcript.exists():
        return None, f"{transcript}: missing beside its {VERDICT}"
    return data, None


def half_written_trials(run_dir: os.PathLike | str) -> list[str]:
    """One line for each half-written trial folder of the run (see half_written)."""
    run = RunDir(run_dir)
    if not run.trials_dir.is_dir():
        return []
    return [problem for folder in sorted(run.trials_dir.iterdir()) if (problem := half_written(run, folder.name))]


def has_verdicts(run_dir: os.PathLike | str) -> bool:
    """Whether any trial of the run has its verdict.json (whole or not)."""
    run = RunDir(run_dir)
    return run.trials_dir.is_dir() and any(run.verdict_path(folder.name).exists()
                                           for folder in run.trials_dir.iterdir())


# ---- a whole run, loaded for the after-run commands ----



@dataclass
class Trial:
    """A trial as its run folder holds it: the folder, and the record its verdict.json holds (trial_record.py), read
    by its fields (`trial.record.verdict`; its setting: `trial.record.setting`)."""

    name: str  # the folder name under trials/
    path: Path
    record: TrialRecord


@dataclass
class Run:
    path: Path
    record: RunRecord
    trials: list[Trial]
    missing: list[str] = field(default_factory=list)  # scheduled trials without a verdict.json
    problems: list[str] = field(default_factory=list)  # what makes the run incomplete, one line each

    @property
    def name(self) -> str:
        return str(self.record.run or self.path.name)

    @property
    def complete(self) -> bool:
        return not self.problems

    def summary_of_problems(self) -> str:
        """The problems in a few words, for one-line listings: what is missing, counted, not named."""
        parts = []
        if self.record.finished is False:
            parts.append("did not finish")
        scheduled = scheduled_trials(self.record)
        if self.missing:
            parts.append(f"{len(self.missing)} of {len(scheduled or [])} scheduled trials without {VERDICT}")
        others = [p for p in self.problems if "did not finish" not in p and "scheduled trial(s)" not in p]
        if others:
            parts.append(others[0] + (f" (and {len(others) - 1} more problems)" if len(others) > 1 else ""))
        return "; ".join(parts)

    @property
    def seed(self) -> Any:
        return self.record.seed

    @property
    def task_ids(self) -> list[str]:
        return self.record.task_ids

    def settings(self) -> list[Setting]:
        seen: dict[Setting, None] = {}
        # agent settings in the order the run was asked for them (--model haiku:low,opus:medium), then controls
        asked = {str(m): i for i, m in enumerate(self.record.models or [])}
        for setting in sorted((t.record.setting for t in self.trials),
                              key=lambda s: (s.rank, s.driver, asked.get(str(s.model_label), len(asked)), s.model,
                                             s.effort or "")):
            seen.setdefault(setting, None)
        return list(seen)

    def by_setting(self) -> dict[Setting, list[Trial]]:
        groups: dict[Setting, list[Trial]] = {s: [] for s in self.settings()}
        for trial in self.trials:
            groups[trial.record.setting].append(trial)
        return groups

    def is_controls_run(self) -> bool:
        return bool(self.trials) and all(t.record.is_control for t in self.trials)


def scheduled_trials(record: RunRecord) -> Optional[list[str]]:
    """The trial folders the run scheduled, when the record says: an explicit list, or tasks × settings × repeats.
    None when the record cannot tell (then only the trials present are checked)."""
    explicit = record.scheduled
    if isinstance(explicit, list):
        return [str(x) for x in explicit]
    tasks = record.task_ids
    repeats = record.repeats
    drivers = record.drivers
    if not tasks or not isinstance(repeats, int) or not isinstance(drivers, list):
        return None
    names = []
    models = record.models or []
    for task in tasks:
        for driver in drivers:
            driver_models = ["none"] if is_control(driver) else [_model_name(m) for m in models] or ["none"]
            for model in driver_models:
                for repeat in range(repeats):  # the plugin numbers repeats from 0
                    names.append(trial_name(task, driver, model, repeat))
    return names


def _model_name(entry: Any) -> str:
    # "claude-haiku-5-5:low" in the record is the model and its effort; the trial folder carries the model only
    if isinstance(entry, dict):
        return str(entry.get("model") or "none")
    return str(entry).split(":")[0] if str(entry).count(":") == 1 and not str(entry).startswith("ollama/") \
        else str(entry)


def load_run(path: os.PathLike | str, require_complete: bool = True) -> Run:
    """Read a run folder. With `require_complete`, an incomplete run is a `UsageError` listing what is missing."""
    folder = Path(path)
    if not folder.exists():
        raise UsageError(f"{folder}: no such run folder")
    if not folder.is_dir():
        raise UsageError(f"{folder}: not a folder (a run is a folder with record.json and trials/)")
    record_path = folder / RECORD
    if not record_path.exists():
        raise UsageError(f"{folder}: not a run folder: it has no {RECORD}")
    record = read_run_record(record_path, "run record")

    problems: list[str] = []
    absent = [k for k in RECORD_KEYS if getattr(record, k) in (None, "", [])]
    if absent:
        problems.append(f"{RECORD} lacks {', '.join(absent)}")
    if record.said_unfinished:
        problems.append(f"{RECORD} says the run did not finish")

    trials, malformed = load_trials(folder)
    problems.extend(malformed)
    # A kept run drops every transcript on purpose (evidence/); one trial without its transcript among trials with
    # theirs was cut short while being written.
    without = [t for t in trials if not (t.path / TRANSCRIPT).exists()]
    if without and len(without) < len(trials):
        problems.append(f"{without[0].path / TRANSCRIPT}: missing beside its {VERDICT} (a half-written trial; "
                        f"--resume runs it again)" + (f", and {len(without) - 1} more" if len(without) > 1 else ""))
    present = {t.name for t in trials}
    scheduled = scheduled_trials(record)
    missing = [name for name in (scheduled or []) if name not in present]
    if missing:
        shown = ", ".join(missing[:8]) + (f" and {len(missing) - 8} more" if len(missing) > 8 else "")
        problems.append(f"{len(missing)} scheduled trial(s) have no {VERDICT}: {shown}")
    if not trials and not missing:
        problems.append(f"no trial has a {VERDICT} under {TRIALS}/")

    run = Run(folder, record, trials, missing, problems)
    if require_complete and problems:
        raise UsageError(f"{folder}: incomplete run, not reported: " + "; ".join(problems))
    return run


def load_trials(run_dir: os.PathLike | str) -> tuple[list[Trial], list[str]]:
    """The run's trials that have a verdict.json, each with its record, and one line for each trial folder that has
    none or whose verdict.json does not load."""
    return RunTrials(run_dir).load()


class RunTrials:
    """A run folder's trials (`load_trials`), read again as the run goes on: a verdict.json read before is parsed
    again only when it changed (its size or its time), so what is rewritten after each trial (Ghost Bench's and
    AndroidWorld's summaries) reads each trial once, where every one of a run's trials was parsed again after each
    of theirs (in the main job, most of the controller's CPU)."""

    def __init__(self, run_dir: os.PathLike | str):
        self.trials_dir = RunDir(run_dir).trials_dir
        self._read: dict[str, tuple[tuple[int, int], Optional[Trial], Optional[str]]] = {}

    def load(self) -> tuple[list[Trial], list[str]]:
        from pytest_mobium_evals.core.trial_record import TrialRecord  # noqa: PLC0415  pydantic: the entry point imports this module

        try:
            children = sorted((entry.name, entry) for entry in os.scandir(self.trials_dir) if entry.is_dir())
        except (FileNotFoundError, NotADirectoryError):
            return [], []
        trials: list[Trial] = []
        problems: list[str] = []
        no_verdict: list[str] = []
        read: dict[str, tuple[tuple[int, int], Optional[Trial], Optional[str]]] = {}
        for name, entry in children:
            child = Path(entry.path)
            verdict_path = child / VERDICT
            try:
                stat = os.stat(verdict_path)
            except FileNotFoundError:
                no_verdict.append(name)
                continue
            except OSError:
                stat = None
            stamp = (stat.st_mtime_ns, stat.st_size) if stat is not None else (-1, -1)
            known = self._read.get(name)
            if known is None or known[0] != stamp or stat is None:
                trial = problem = None
                try:
                    trial = Trial(name, child, TrialRecord.parse(read_json(verdict_path, "verdict")))
                except UsageError as exc:
                    problem = str(exc)
                except RecordInvalid as exc:
                    problem = f"{verdict_path}: {exc}"
                known = (stamp, trial, problem)
            read[name] = known
            if known[1] is not None:
                trials.append(known[1])
            else:
                problems.append(known[2])
        self._read = read
        if no_verdict:
            shown = ", ".join(no_verdict[:8]) + (f" and {len(no_verdict) - 8} more" if len(no_verdict) > 8 else "")
            problems.append(f"{len(no_verdict)} trial folder(s) have no {VERDICT}: {shown}")
        return trials, problems


def read_events(path: Path) -> list[dict]:
    """The events of a trial's transcript.jsonl; an absent file is no events, and an unreadable line is skipped (a
    transcript cut short by a crash still shows what it has). `core.transcript.steps` reads them as steps."""
    try:
        text = path.read_text(encoding="utf-8")
    except OSError:
        return []
    events = []
    for line in text.splitlines():
        try:
            event = json.loads(line)
        except json.JSONDecodeError:
            continue
        if isinstance(event, dict):
            events.append(event)
    return events
