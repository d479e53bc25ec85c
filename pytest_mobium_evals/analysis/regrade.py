"""`mobium-evals report RUN --regrade`: every stored trial graded again by the grader the trial used
(`grading.grade_trial`), with the current rules (answer rules, reason rules, allowed settings, the controls'
declared verdicts, how a secret is found), in memory: the report shows the new verdicts, verdict.json files are left
as they were, and regrade.md lists what changed.

Nothing of the rules is copied here: the trial's inputs are rebuilt from what its record and its transcript kept
(the claim, the outcome as the check read it, the settings changed, the parameters, the transcript's events) and
handed to the same function. A record written before a fact was kept stands in with what it has (its
`injection_goal_done` for the outcome's obeyed, its side effects for the settings); a trial whose transcript was not
kept (the runs in evidence/) is graded with the transcript's facts its record stored."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional

from pytest_mobium_evals.core import grading
from pytest_mobium_evals.core.errors import UsageError
from pytest_mobium_evals.core.tasks import Claim, Outcome, Task
from pytest_mobium_evals.core.trial_record import RegradedFrom, TrialRecord
from pytest_mobium_evals.runfolder.reading import TRANSCRIPT, Run, read_events
from pytest_mobium_evals.suites.catalog import default_task_paths, load_task_definitions


@dataclass
class RegradeChange:
    trial: str
    answer: Optional[str]
    old_answer_ok: Optional[bool]
    new_answer_ok: Optional[bool]
    old_verdict: str
    new_verdict: str


def regrade_run(run_: Run, tasks: Optional[dict] = None, progress=None) -> list[RegradeChange]:
    """Grade every stored trial again, as its trial was graded, with the current rules. The run's trials are
    updated in memory, so the report shows the regraded verdicts; the stored verdict.json files are left as they
    were. Returns every trial whose answer or reason judgement, verdict or `ok` changed."""
    if tasks is None:
        tasks = load_task_definitions(default_task_paths())
    if not set(tasks) & {t.record.task for t in run_.trials}:
        raise UsageError("--regrade: none of the run's tasks is in the task suites loaded (give them with "
                         "--tasks-path)")
    changes = []
    for i, trial in enumerate(run_.trials, 1):
        if progress and i % 50 == 0:
            progress(f"regrade: {i}/{len(run_.trials)} trials")
        task = task_for(tasks, trial.record.task)
        stored = trial.record
        if task is None or stored.is_infra_error:
            continue
        verdict = regrade_record(task, stored, trial.path / TRANSCRIPT, run_seed=run_.seed)
        rule = "reason_ok" if task.refusal else "answer_ok"
        old_ok, new_ok = getattr(stored, rule), getattr(verdict, rule)
        if (verdict.verdict, new_ok, verdict.ok, list(verdict.blockers)) == (
                stored.verdict, old_ok, stored.ok, stored.blocker_lines):
            continue
        text = (stored.reason or stored.answer) if task.refusal else stored.answer
        changes.append(RegradeChange(trial.name, text, old_ok, new_ok, stored.verdict, verdict.verdict))
        trial.record = stored.regraded(verdict.record_fields(), RegradedFrom(
            verdict=stored.verdict, answer_ok=stored.answer_ok, reason_ok=stored.reason_ok, ok=stored.ok))
    return changes


def task_for(tasks: dict, task_id: str) -> Optional[Task]:
    """The task a record is of: the catalog's, or an injection task's clean twin (`t39.clean`), which the run
    collected beside its attacked task and the catalog does not list."""
    task = tasks.get(task_id)
    if task is None and task_id.endswith(".clean"):
        attacked = tasks.get(task_id.removesuffix(".clean"))
        if attacked is not None and attacked.injection is not None:
            return attacked.clean_twin()
    return task


def regrade_record(task: Task, record: TrialRecord, transcript: Optional[Path] = None, *,
                   run_seed=None) -> grading.Verdict:
    """A stored trial's verdict as `grading.grade_trial` gives it now, from what the record and the transcript
    kept."""
    params = record.params if isinstance(record.params, dict) else \
        task.seeded_params(int(run_seed), record.repeat) if isinstance(run_seed, int) else {}
    outcome = Outcome(
        reached=bool(record.outcome_reached), observed=record.outcome_observed or "",
        acted=bool(record.outcome_acted),
        obeyed=record.outcome_obeyed if record.outcome_obeyed is not None else record.injection_goal_done,
        unreadable=bool(record.outcome_unreadable))
    if record.settings_changed is not None:
        before, after, written = grading.snapshots_of(c.model_dump() for c in record.settings_changed)
    else:  # an older record: only the changes its task did not allow were kept
        before, after, written = grading.snapshots_of(e.model_dump() for e in record.side_effects or [])
    events = read_events(transcript) if transcript is not None and transcript.is_file() else None
    facts = events if events else grading.TranscriptFacts(
        password_exposures=tuple(_exposures(record.password_exposures)),
        injection_begun=record.injection_begun,
        done_by_answered=None)
    claim = Claim.from_json(record.claim.model_dump() if record.claim is not None else None)
    return grading.grade_trial(
        task, claim, outcome, before, after, facts, params, driver=record.driver,
        near_miss=record.near_miss,
        # what the control's script raised; an older record kept it only in script_error
        script_error=record.script_raised if record.settings_changed is not None else record.script_error,
        written=written if record.settings_history else None, stop_text=record.stop_text)


def _exposures(stored) -> list[str]:
    if isinstance(stored, list):
        return [str(x) for x in stored]
    if isinstance(stored, int) and stored > 0:  # a count: keep the blocker, without the where
        return [f"stored exposure {i + 1}" for i in range(stored)]
    return []


def render_regrade(run_: Run, changes: list) -> str:
    lines = [f"# Regrade of {run_.name}", "",
             f"{len(run_.trials)} stored trials graded again with the current rules: "
             f"{len(changes)} judgement(s) changed, {verdicts_changed(changes)} verdict(s) changed.", ""]
    if changes:
        lines += ["| Trial | Answer | Answer ok (stored → now) | Verdict (stored → now) |",
                  "| --- | --- | --- | --- |"]
        for c in changes:
            lines.append(f"| {c.trial} | {_cell(c.answer)} | {c.old_answer_ok} → {c.new_answer_ok} "
                         f"| {c.old_verdict} → {c.new_verdict} |")
    return "\n".join(lines) + "\n"


def verdicts_changed(changes: list) -> int:
    return sum(c.old_verdict != c.new_verdict for c in changes)


def _cell(text: Optional[str]) -> str:
    return "–" if text is None else repr(text).replace("|", "\\|")
