"""Ghost Bench's run summary (`<run_dir>/ghost_bench.json`), from our stored verdicts (each trial's TrialRecord,
loaded as every after-run reader loads it: `runfolder.reading.load_trials`), in Ghost Bench's run shape.
It is rewritten after every trial (status "running") and once more when the run ends ("completed" or "stopped").
Another suite writes the same shape with its own score (`SummarySpec`): AndroidWorld's `androidworld.json`."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_mobium_evals.core.run_record import RunRecord
from pytest_mobium_evals.core.setting import is_control
from pytest_mobium_evals.core.trial_record import TrialRecord
from pytest_mobium_evals.core.verdicts import AGENT, CONTROL_DRIVERS
from pytest_mobium_evals.drivers.agents import AgentConfigError, parse_models
from pytest_mobium_evals.runfolder.files import atomic_write_json
from pytest_mobium_evals.runfolder.layout import GHOST_BENCH_SUMMARY, RunDir
from pytest_mobium_evals.runfolder.reading import RunTrials, Trial, read_run_record

from .adapter import SUITE

#: What `status` may say: trials are still being added, or the run ended with every trial or was stopped early.
STATUSES = ("running", "completed", "stopped")


#: What Ghost Bench's summary says its figures are.
NOTE = ("score is Ghost Bench's (the eval check on the device, 1.0 or 0.0); verdict is ours (the check set against "
        "the driver's claim); a repeat is one more result row, as Ghost Bench would count it")


def ghost_bench_score(record: TrialRecord) -> float:
    """Ghost Bench's score of a trial: 1.0 when the eval check held on the device, whatever was claimed."""
    return 1.0 if record.outcome_reached and not record.infra_error else 0.0


@dataclass(frozen=True)
class SummarySpec:
    """A suite's run summary: which trials (`suite`), the file it is written to, how a trial scores in that
    benchmark's own terms, and the note saying so."""

    suite: str = SUITE
    file: str = GHOST_BENCH_SUMMARY
    score: Callable[[TrialRecord], float] = ghost_bench_score
    note: str = NOTE


GHOST_BENCH = SummarySpec()


def write_summary(run_dir: Path | str, status: str = "completed", spec: SummarySpec = GHOST_BENCH,
                  trials: RunTrials | None = None) -> Path | None:
    """Write `<run_dir>/ghost_bench.json` from the run's stored `trials/*/verdict.json` of suite ghost_bench, in
    Ghost Bench's run shape, one run per setting (driver, model, effort) so a Sonnet run sits beside theirs.
    Returns the path, or None when the run holds no Ghost Bench trial (then nothing is written).

    Score is Ghost Bench's: 1.0 when the eval check held on the device, whatever the driver claimed (their runner
    never asks). Our verdict, which also weighs the claim, is kept beside it. An infrastructure error scores 0 with
    its error, as in Ghost Bench, and stays in the denominator. `trials`, the run's reader kept by a caller that
    writes the summary after each trial, reads only the trials that are new since."""
    if status not in STATUSES:
        raise ValueError(f"summary status must be one of {', '.join(STATUSES)}, got {status!r}")
    run_dir = Path(run_dir)
    # A folder without a verdict.json is a trial still running (runfolder/writing.py writes it last); one that does not
    # load is left out here and named by `mobium-evals report`, which refuses the run. Neither stops the summary.
    loaded, _ = (trials or RunTrials(run_dir)).load()
    verdicts = [t for t in loaded if t.record.suite == spec.suite]
    if not verdicts:
        return None

    record = read_run_record(RunDir(run_dir).record_path, default=None) or RunRecord()
    groups: dict[tuple, list[Trial]] = {}
    for trial in verdicts:
        key = (trial.record.driver or AGENT, trial.record.model or "none", trial.record.effort)
        groups.setdefault(key, []).append(trial)
    runs = [_ghost_run(run_dir, record, key, rows, status, spec)
            for key, rows in sorted(groups.items(), key=_group_order)]
    summary = {
        "suite": spec.suite,
        "run_dir": run_dir.name,
        "seed": record.seed,
        "status": status,
        "note": spec.note,
        "runs": runs,
    }
    out = run_dir / spec.file
    atomic_write_json(out, summary)
    return out


def _group_order(item: tuple) -> tuple:
    # The agent's runs first, then the controls in their usual order (reference, null, wrong), then the others.
    (driver, model, effort), _ = item
    if not is_control(driver):
        return (0, driver, model, effort or "")
    rank = CONTROL_DRIVERS.index(driver) if driver in CONTROL_DRIVERS else len(CONTROL_DRIVERS)
    return (1 + rank, driver, model, effort or "")


def _ghost_run(run_dir: Path, record: RunRecord, key: tuple, rows: list[Trial], status: str, spec: SummarySpec) -> dict:
    driver, model, effort = key
    rows = sorted(rows, key=lambda t: (t.record.task, t.record.repeat))
    results = [_ghost_result(t, spec.score) for t in rows]
    passed = sum(1 for r in results if r["score"] == 1.0)
    total_time = sum(r["time_s"] for r in results)
    devices = sorted({_device_name(t.record.device) for t in rows if t.record.device})
    return {
        "id": f"{run_dir.name}-{driver}" + ("" if model in ("", "none") else f"-{model}"),
        "suite": spec.suite,
        "model": model,
        "provider": _provider(driver, rows[0].record),
        "driver": driver,
        "effort": effort,
        "device": devices[0] if len(devices) == 1 else devices,
        "status": status,
        # the mean score: Ghost Bench's passed / total, AndroidWorld's mean success rate (a composite's 0.5 counts)
        "success_rate": round(sum(r["score"] for r in results) / len(results), 3),
        "total_tasks": len(results),
        "passed": passed,
        "total_time_s": round(total_time, 1),
        "started_at": record.started,
        "finished_at": record.ended if status != "running" else None,
        "results": results,
    }


def _provider(driver: str, verdict: TrialRecord) -> str:
    """Ghost Bench's provider: the agent's backend as `--model` named it ("ollama/qwen2.5:7b" is ollama, a bare
    Claude name is claude); a control has none, so it is named by its driver."""
    if is_control(driver):
        return f"{driver} (control)"
    try:
        (setting,) = parse_models(str(verdict.model_label or verdict.model))
    except (AgentConfigError, ValueError):  # a label from another version of the harness: say so, do not guess
        return "unknown"
    return setting.provider


def _device_name(device: Any) -> str:
    # verdict.json holds the device's properties (serial, release, model …); Ghost Bench names a device by serial.
    if isinstance(device, dict):
        return str(device.get("serial") or device.get("model") or "unknown")
    return str(device)


def _ghost_result(trial: Trial, score: Callable[[TrialRecord], float]) -> dict:
    verdict = trial.record
    infra = verdict.infra_error
    reached = bool(verdict.outcome_reached) and not infra
    observed = str(verdict.outcome_observed or "")
    if infra:
        reason = f"error: {infra}"
    else:
        reason = observed or ("goal state reached" if reached else "goal state not reached")
    return {
        "task_id": verdict.task,
        "repeat": verdict.repeat,
        "score": 0.0 if infra else score(verdict),
        "reason": reason,
        "verdict": verdict.verdict,
        "claim": verdict.claim_status,
        "steps": int(verdict.tool_calls or 0),
        "max_steps": verdict.max_steps,  # complexity x 10; a cap only under --enforce-max-steps
        "hit_limit": verdict.hit_limit,
        "time_s": round(float(verdict.seconds or 0.0), 1),
        "error": str(infra) if infra else "",
        "trial": trial.name,
    }
