"""Loading and checking a run folder, for every after-run command (report, compare, runs, judge, verify).

A run folder is `record.json` plus `trials/<task>-<driver>-<model>-r<repeat>/verdict.json` (DEVELOPERS.md, Records).
A number is only reported from a complete run, so loading says precisely what is missing or malformed: which keys of
the record, which scheduled trials have no verdict.json, which verdict.json cannot be read and why. Every such
problem is a `UsageError` naming the file, never a traceback."""

from __future__ import annotations

import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterable, Optional

from pytest_mobium_evals.core.errors import UsageError
from pytest_mobium_evals.core.run_record import RunRecord
from pytest_mobium_evals.core.trial_record import RecordInvalid, TrialRecord
from pytest_mobium_evals.core.verdicts import ALL_CONTROL_DRIVERS, is_control
from pytest_mobium_evals.runfolder.files import read_json
from pytest_mobium_evals.runfolder.writing import (
    read_run_record,
    trial_name,  # noqa: F401  (trial_name: the folder names, one definition)
)

RECORD = "record.json"
TRIALS = "trials"
VERDICT = "verdict.json"
TRANSCRIPT = "transcript.jsonl"

#: What a record must say before its run is reported: what it ran on and what it scheduled.
RECORD_KEYS = ("seed", "tasks", "device", "mobium")



@dataclass(frozen=True)
class Setting:
    """What one pass rate is about: a driver, and for the agent its model and effort."""

    driver: str
    model: str = "none"
    effort: Optional[str] = None
    surface: Optional[str] = None  # the surface variant the agent saw (--surface); None: the server's own

    @classmethod
    def of(cls, record: TrialRecord) -> "Setting":
        """The setting a trial's record ran under."""
        return cls(record.driver, record.model_name, str(record.effort) if record.effort else None,
                   record.surface or None)

    @property
    def is_control(self) -> bool:
        return is_control(self.driver)

    @property
    def short(self) -> str:
        """One word for one-line listings: reference, or claude-haiku-5-5:low."""
        if self.is_control or self.model in ("", "none"):
            return self.driver
        short = f"{self.model}:{self.effort}" if self.effort else self.model
        return f"{short} surface={self.surface}" if self.surface else short

    @property
    def label(self) -> str:
        if self.is_control:
            return f"{self.driver} (control)"
        label = self.model if self.model not in ("", "none") else self.driver
        label = f"{label}, {self.effort} effort" if self.effort else label
        return f"{label}, surface {self.surface}" if self.surface else label


@dataclass
class Trial:
    """A trial as its run folder holds it: the folder, and the record its verdict.json holds (trial_record.py), read
    by its fields (`trial.record.verdict`; its setting: `Setting.of(trial.record)`)."""

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
        rank = {d: i for i, d in enumerate(ALL_CONTROL_DRIVERS)}
        # agent settings in the order the run was asked for them (--model haiku:low,opus:medium), then controls
        asked = {str(m): i for i, m in enumerate(self.record.models or [])}
        for record in sorted((t.record for t in self.trials),
                             key=lambda r: (r.is_control, rank.get(r.driver, -1), r.driver,
                                            asked.get(str(r.model_label), len(asked)),
                                            r.model_name, Setting.of(r).effort or "")):
            seen.setdefault(Setting.of(record), None)
        return list(seen)

    def by_setting(self) -> dict[Setting, list[Trial]]:
        groups: dict[Setting, list[Trial]] = {s: [] for s in self.settings()}
        for trial in self.trials:
            groups[Setting.of(trial.record)].append(trial)
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

    trials, malformed = load_trials(folder / TRIALS)
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


def load_trials(trials_dir: Path) -> tuple[list[Trial], list[str]]:
    if not trials_dir.is_dir():
        return [], []
    trials: list[Trial] = []
    problems: list[str] = []
    no_verdict: list[str] = []
    for child in sorted(trials_dir.iterdir()):
        if not child.is_dir():
            continue
        verdict_path = child / VERDICT
        if not verdict_path.exists():
            no_verdict.append(child.name)
            continue
        try:
            data = read_json(verdict_path, "verdict")
        except UsageError as exc:
            problems.append(str(exc))
            continue
        try:
            record = TrialRecord.parse(data)
        except RecordInvalid as exc:
            problems.append(f"{verdict_path}: {exc}")
            continue
        trials.append(Trial(child.name, child, record))
    if no_verdict:
        shown = ", ".join(no_verdict[:8]) + (f" and {len(no_verdict) - 8} more" if len(no_verdict) > 8 else "")
        problems.append(f"{len(no_verdict)} trial folder(s) have no {VERDICT}: {shown}")
    return trials, problems


def fmt_pct(value: Optional[float]) -> str:
    return "–" if value is None else f"{round(100 * value)}%"


def describe_commit(commit, dirty) -> str:
    """"0123456789ab", "0123456789ab (dirty)", or "unknown (not a git checkout)": without a commit, whether the
    tree was dirty is unknown too."""
    if not commit:
        return "unknown (not a git checkout)"
    commit = str(commit)
    short = commit[:12] if len(commit) >= 12 and all(c in "0123456789abcdef" for c in commit) else commit
    return short + (" (dirty)" if dirty else "" if dirty is False else " (dirty: unknown)")


def describe_mobium(record: RunRecord) -> str:
    mobium = record.mobium
    if isinstance(mobium, dict):
        return describe_commit(mobium.get("commit"), mobium.get("dirty"))
    return str(mobium) if mobium else "unknown"


DEVICE_KINDS = {"virtual": "virtual device (pytest-mobium-evals)", "emulator": "Android emulator",
                "physical": "physical device"}


def describe_device(record: RunRecord, short: bool = False) -> str:
    """The device a run used: serial, model, Android release and API level, and (unless short) its system image."""
    return device_text(record.device, short)


def run_devices(record: RunRecord) -> list:
    """Every device the run's processes leased (one per xdist worker), once each; older records: the one."""
    devices = [d for d in record.devices or [] if d] or ([record.device] if record.device else [])
    seen: dict[str, Any] = {}
    for d in devices:
        seen.setdefault(json.dumps(d, sort_keys=True) if isinstance(d, dict) else str(d), d)
    return list(seen.values())


def describe_devices(record: RunRecord, short: bool = True) -> str:
    """The devices a run used: one as describe_device says it; several grouped by what they are, each group with the
    ADB servers its devices sit behind (virtual devices share a serial): "2 × virtual device …, emulator-5554,
    Android 15 (API 35), at 127.0.0.1:41935 and 127.0.0.1:35925"."""
    devices = run_devices(record)
    if not devices:
        return "not recorded"
    if len(devices) == 1:
        return device_text(devices[0], short)
    groups: dict[str, list[str]] = {}
    for d in devices:
        groups.setdefault(device_text(d, short), []).append(str(d.get("adb")) if isinstance(d, dict) and
                                                            d.get("adb") else "")
    return "; ".join(f"{len(where)} × {what}" + (f", at {' and '.join(filter(None, where))}" if any(where) else "")
                     for what, where in groups.items())


def device_text(device, short: bool = False) -> str:
    if isinstance(device, dict):
        kind = DEVICE_KINDS.get(str(device.get("kind")))
        parts = ([kind] if kind else []) + [str(device[k]) for k in ("name", "serial", "model") if device.get(k)]
        if device.get("release"):
            parts.append(f"Android {device['release']}" + (f" (API {device['sdk']})" if device.get("sdk") else ""))
        if device.get("image") and not short:
            parts.append(str(device["image"]))
        return ", ".join(dict.fromkeys(parts)) if parts else json.dumps(device, sort_keys=True)
    return str(device) if device else "unknown"


def surface_fact(record: RunRecord) -> str:
    """Which surface the agent saw, for every report's facts."""
    names = record.surfaces or []
    server = "Mobium's own (mobium mcp)" if (record.tool_server or "").startswith("mobium mcp") else \
        "the built-in server's own words (not Mobium's text)"
    if not names:
        return f"{server}, unchanged (no --surface)"
    return f"variants {', '.join(names)} applied by the surface proxy over {server}"


def describe_app(record: RunRecord) -> Optional[str]:
    device = record.device
    if isinstance(device, dict) and device.get("app_build"):
        return f"{device.get('app') or 'app'} {device['app_build']}"
    return record.mobiumapp


def join(items: Iterable[str]) -> str:
    items = list(items)
    return ", ".join(items) if items else "none"


def run_facts(run_) -> list[tuple[str, str]]:
    """The run's facts, one (name, value) each: the summary's facts table and the Environment table."""
    rec = run_.record
    device = rec.device if isinstance(rec.device, dict) else {}
    mobium = rec.mobium
    if mobium == "built-in" or not mobium:
        mobium_text = "the built-in Mobium-compatible server (mobium-evals mcp), not a Mobium build"
    else:
        mobium_text = f"Mobium commit {describe_mobium(rec)}" + (
            f" ({mobium.get('binary')})" if isinstance(mobium, dict) and mobium.get("binary") else "")
    efforts = rec.efforts or {}
    models = ", ".join(f"{m}" + (f" ({efforts[m]} effort)" if efforts.get(m) else "") for m in rec.models
                       or []) or "none (controls only)"
    tasks = run_.task_ids
    devices = run_devices(rec)
    facts = [("Seed", str(rec.seed)), ("Run folder", str(run_.path)),
             ("Started", str(rec.started or "unknown")),
             ("Ended", str(rec.ended or "not finished (no end recorded)")),
             ("Devices" if len(devices) > 1 else "Device", describe_devices(rec)),
             ("System image", str(device.get("image") or "unknown")),
             ("Mobium", mobium_text), ("Surface", surface_fact(rec)),
             ("Drivers", ", ".join(rec.drivers or []) or "unknown"),
             ("Models", models), ("Repeats", str(rec.repeats)),
             ("Tasks", f"{len(tasks)}: " + ", ".join(tasks) if tasks else "unknown"),
             ("Suites", ", ".join(rec.suites or []) or "unknown"),
             ("Plugin", f"{rec.plugin} {rec.plugin_version or '?'}, commit "
                        f"{describe_commit(rec.plugin_commit, rec.plugin_dirty)}")]
    app = describe_app(rec)
    if app:
        facts.insert(6, ("App", app))
    return facts


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
