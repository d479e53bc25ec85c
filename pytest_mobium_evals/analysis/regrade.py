"""`mobium-evals report RUN --regrade`: every stored answer (and refusal reason) graded again with the current
answer rules, in memory (the report shows the new verdicts; verdict.json files are left as they were), and
regrade.md listing what changed."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

from pytest_mobium_evals.core.answers import answer_given, check_answer
from pytest_mobium_evals.core.errors import UsageError
from pytest_mobium_evals.core.grading import SideEffect, fold_injection, grade
from pytest_mobium_evals.runfolder.reading import Run
from pytest_mobium_evals.suites.catalog import default_task_paths, load_task_definitions

REGRADE = "regrade.md"


@dataclass
class RegradeChange:
    trial: str
    answer: Optional[str]
    old_answer_ok: Optional[bool]
    new_answer_ok: Optional[bool]
    old_verdict: str
    new_verdict: str


def regrade_run(run_: Run, tasks: Optional[dict] = None, progress=None) -> list[RegradeChange]:
    """Grade every stored answer (and refusal reason) again with the current answer rules. The run's trials are
    updated in memory, so the report shows the regraded verdicts; the stored verdict.json files are left as they
    were. Returns every trial whose answer judgement or verdict changed."""
    if tasks is None:
        tasks = load_task_definitions(default_task_paths())
    ruled = {tid for tid, t in tasks.items() if t.answer is not None or t.refusal_reason is not None}
    if not ruled & {t.record.task for t in run_.trials}:
        raise UsageError("--regrade: none of the run's tasks has an answer rule in the task suites loaded "
                       "(give them with --tasks-path)")
    changes = []
    for i, trial in enumerate(run_.trials, 1):
        if progress and i % 50 == 0:
            progress(f"regrade: {i}/{len(run_.trials)} trials")
        task = tasks.get(trial.record.task)
        if task is None or trial.record.is_infra_error:
            continue
        data = trial.record
        claim = data.claim or {}
        # the trial's own parameters as stored; a record without them gets them again from the seed
        params = data.params if isinstance(data.params, dict) else \
            task.seeded_params(int(run_.seed), trial.record.repeat) if isinstance(run_.seed, int) else {}
        observed = str(data.outcome_observed or "")
        # the injected goal folded into one blocker as the trial's grader folded it (grading.fold_injection)
        obeyed_blocker, side_effects, exposures = fold_injection(
            task, data.injection_goal_done,
            [SideEffect(e["namespace"], e["key"], e.get("before"), e.get("after")) for e in data.side_effects or []],
            _exposures(data.password_exposures))
        common = dict(claim_status=claim.get("status"), side_effects=side_effects, password_exposures=exposures,
                      irreversible=task.irreversible, obeyed_injection=obeyed_blocker)
        if task.refusal:
            if task.refusal_reason is None:
                continue
            text = claim.get("reason") or claim.get("answer")
            new_ok = check_answer(task.refusal_reason, text, params, observed)
            if data.outcome_acted is not None:
                old_ok = data.reason_ok
                new = grade(kind="refusal", reached=bool(data.outcome_reached),
                            acted=bool(data.outcome_acted), reason_ok=new_ok, **common)
            else:
                # An older record without outcome_acted: only a trial that left the target alone and refused is
                # decided by its reason, and those are exactly the ones graded pass or wrong_reason.
                if data.verdict not in ("pass", "wrong_reason") or claim.get("status") != "cannot":
                    continue
                old_ok = data.verdict == "pass"
                new = grade(kind="refusal", reached=True, acted=False, reason_ok=new_ok, **common)
        elif task.answer is not None:
            old_ok = data.answer_ok
            new_ok = check_answer(task.answer, answer_given(claim.get("status"), claim.get("answer"),
                                                            claim.get("reason")), params, observed)
            new = grade(kind="answer", reached=bool(data.outcome_reached), answer_ok=new_ok, **common)
            text = claim.get("answer")
        else:
            continue
        if new_ok == old_ok and new.verdict == data.verdict:
            continue
        changes.append(RegradeChange(trial.name, text, old_ok, new_ok, data.verdict, new.verdict))
        trial.record = data.model_copy(update={
            "regraded_from": {"verdict": data.verdict, "answer_ok": old_ok},
            "verdict": new.verdict, "severity": new.severity, "blockers": list(new.blockers),
            "reason_ok" if task.refusal else "answer_ok": new_ok,
            # a control is wrong about its task when its script broke or a form was misgraded (script_error), as
            # grading.grade_trial has it
            "ok": (new.verdict == data.expected and not data.script_error) if data.is_control
            else new.verdict == "pass"})
    return changes


def _exposures(stored) -> list[str]:
    if isinstance(stored, list):
        return [str(x) for x in stored]
    if isinstance(stored, int) and stored > 0:  # a count: keep the blocker, without the where
        return [f"stored exposure {i + 1}" for i in range(stored)]
    return []


def render_regrade(run_: Run, changes: list) -> str:
    lines = [f"# Regrade of {run_.name}", "",
             f"{len(run_.trials)} stored trials graded again with the current answer rules: "
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
