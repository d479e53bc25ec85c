"""report.md, rendered from the run's computed view (report/view.py).

Per setting: the pass rate with a 95% interval bootstrapped over tasks (three repeats of one task are not three
independent samples), the verdict counts, what was scheduled, graded and lost to infrastructure, each blocker on its
own line (blockers are never averaged away), a per-task table across repeats, tokens and cost. A controls run also
gets each control's declared verdict beside the one it got."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional

from pytest_mobium_evals.analysis import injection_rates
from pytest_mobium_evals.analysis.regrade import verdicts_changed
from pytest_mobium_evals.analysis.summary import NOT_RECORDED, agent_pairs, difference_lines
from pytest_mobium_evals.core.trial_record import STOP_REASONS
from pytest_mobium_evals.core.verdicts import ALL_VERDICTS as KNOWN_VERDICTS
from pytest_mobium_evals.report.facts import fmt_pct, run_facts
from pytest_mobium_evals.report.surfaces import section_markdown
from pytest_mobium_evals.report.view import (
    CLAIM_CONFLICTS,
    DECLARED_BLOCKERS,
    SettingSummary,
    blocker_rows,
    claim_conflicts,
    controls_matrix,
    one_line,
    task_sort_key,
)
from pytest_mobium_evals.runfolder.layout import CHART, REGRADE, REPORT, SCREEN, TRANSCRIPT
from pytest_mobium_evals.runfolder.reading import Run, Trial

SHORT = {"pass": "P", "false_success": "FS", "false_refusal": "FR", "honest_failure": "HF", "unreported": "U",
         "touched": "T", "wrong_reason": "WR", "infra_error": "IE"}


def render_report(run_: Run, summaries: list[SettingSummary], regraded: Optional[list] = None,
                  out: Optional[Path] = None) -> str:
    """report.md's text; links to transcripts and screens are relative to `out`, where report.md is written."""
    base = out or run_.path
    lines = [f"# Run {run_.name}", ""]
    # The same facts, in the same words, as the HTML report's facts table: worked out once, in run_facts.
    lines += [f"- {name}: {value}" for name, value in run_facts(run_)]
    if regraded is not None:
        lines.append(f"- Regraded with the current rules: {verdicts_changed(regraded)} verdict(s) "
                     f"changed (see {REGRADE})")
    lines += ["", f"![pass rate per setting]({CHART})", ""]
    lines += _settings_table(summaries)
    lines += section_markdown(run_).splitlines()
    lines += _verdict_table(summaries)
    lines += _stop_table(summaries)
    lines += _claim_conflicts(base, summaries)
    lines += _blockers(base, summaries)
    lines += injection_rates.markdown(injection_rates.of_summaries(summaries))
    if any(s.setting.is_control for s in summaries):
        lines += _controls_table(run_, summaries)
    lines += _per_task_table(run_, summaries)
    lines += _failed_trials(base, summaries)
    return "\n".join(lines).rstrip() + "\n"


def _interval(s: SettingSummary) -> str:
    return "–" if s.interval is None else f"{round(100 * s.interval[0])}–{round(100 * s.interval[1])}%"


def _settings_table(summaries: list[SettingSummary]) -> list[str]:
    lines = ["## Settings", "",
             "Pass rate for the agent; for a control, the share of its trials graded as the task declares. "
             "The 95% interval is bootstrapped over tasks, not trials. Infra errors count as not passed.", "",
             "| Setting | Rate | 95% interval | pass^k | Scheduled | Graded | Infra errors | False success "
             "| Blockers | Obeyed injected text | Tokens in | Tokens out | Cost |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for s in summaries:
        cost = f"${s.cost_usd:.2f}" if s.cost_known else "–"
        pass_k = s.figures.pass_k_text() if s.figures and s.figures.pass_k else "–"
        lines.append(f"| {s.setting.label} | {fmt_pct(s.rate)} ({s.successes}/{len(s.trials)}) | {_interval(s)} "
                     f"| {pass_k} | {s.scheduled} | {s.graded} | {s.infra_errors} "
                     f"| {s.verdicts.get('false_success', 0)} | {len(s.blockers)} "
                     f"| {s.figures.injection_text() if s.figures else '–'} | {s.tokens_in:,} "
                     f"| {s.tokens_out:,} | {cost} |")
    lines.append("")
    if any(s.figures and s.figures.pass_k for s in summaries):
        lines += ["pass^k: the chance that all k repeats of a task pass (C(c, k) / C(n, k) per task, averaged over "
                  "tasks), with its 95% interval over tasks.", ""]
    pairs = agent_pairs([s.figures for s in summaries if s.figures])
    if pairs:
        lines += ["### Differences between settings", "",
                  "Paired over the same tasks and seed: the 95% interval comes from resampling tasks for both "
                  "settings at once. A difference whose interval holds 0 could be noise.", ""]
        lines += [f"- {line}" for a, b in pairs for line in difference_lines(a, b)] + [""]
    return lines


def _verdict_table(summaries: list[SettingSummary]) -> list[str]:
    used = [v for v in KNOWN_VERDICTS if any(s.verdicts.get(v) for s in summaries)]
    lines = ["## Verdicts", "", "| Setting | " + " | ".join(used) + " |",
             "| --- |" + " --- |" * len(used)]
    for s in summaries:
        lines.append(f"| {s.setting.label} | " + " | ".join(str(s.verdicts.get(v, 0)) for v in used) + " |")
    return lines + [""]


def _stop_table(summaries: list[SettingSummary]) -> list[str]:
    """Why the agent's trials stopped, per setting: its final answer, text, a call written as text, a limit, the
    model's API or the infrastructure."""
    agents = [s for s in summaries if not s.setting.is_control]
    if not agents:
        return []
    reasons = [r for r in (*STOP_REASONS, NOT_RECORDED) if any(s.stop_reasons.get(r) for s in agents)]
    lines = ["## Why agent trials stopped", "", "| Setting | " + " | ".join(reasons) + " |",
             "| --- |" + " --- |" * len(reasons)]
    for s in agents:
        lines.append(f"| {s.setting.label} | " + " | ".join(str(s.stop_reasons.get(r, 0)) for r in reasons) + " |")
    nudged = sum(1 for s in agents for t in s.trials if t.record.nudged)
    if nudged:
        lines += ["", f"{nudged} trial(s) were told once that a tool call written as text was not a call "
                      f"(--nudge-text-calls)."]
    return lines + [""]


def _claim_conflicts(base: Path, summaries: list[SettingSummary]) -> list[str]:
    conflicts = claim_conflicts(summaries)
    if not conflicts:
        return []
    return ["## Claims that disagree", "", CLAIM_CONFLICTS, ""] + \
        [f"- {c.text()} ({_evidence(base, c.trial)})" for c in conflicts] + [""]


def _link(base: Path, trial: Trial, name: str) -> Optional[str]:
    path = trial.path / name
    if not path.exists():
        return None
    return f"[{name}]({Path(os.path.relpath(path, base)).as_posix()})"


def _evidence(base: Path, trial: Trial) -> str:
    links = [x for x in (_link(base, trial, TRANSCRIPT), _link(base, trial, SCREEN)) if x]
    return " · ".join(links) if links else "no transcript or screen kept"


def _blockers(base: Path, summaries: list[SettingSummary]) -> list[str]:
    lines = ["## Blockers", "", "A blocker holds the decision whatever the pass rate.", ""]
    gating, declared = blocker_rows(summaries)
    lines += [f"- {r.text(bold=True)} ({_evidence(base, r.trial)})" for r in gating]
    if not gating:
        lines.append("None gating." if declared else "None.")
    if declared:
        lines += ["", DECLARED_BLOCKERS, ""] + [f"- {r.text()}" for r in declared]
    return lines + [""]


def _cell_text(cells: list) -> str:
    if not cells:
        return "–"
    return "<br>".join((f"{c.near_miss}: " if c.near_miss else "") +
                       (f"{c.verdict} ✓" if c.ok else f"**{c.verdict}** ✗ (declared {c.expected})") for c in cells)


def _controls_table(run_: Run, summaries: list[SettingSummary]) -> list[str]:
    columns, rows, wrong = controls_matrix(run_, summaries)
    lines = ["## Controls: declared vs got", "",
             "Each control must grade as its task declares before the grader's numbers count. The reference+ "
             "columns are the reference followed by what a model might do besides (30 s of the app's time, HOME, "
             "back to the menu, its answer in other forms), each of which must get the reference's verdict; "
             "near-miss lists each nearly-right action the task declares.", "",
             "| Task | Repeat | " + " | ".join(columns) + " |",
             "| --- | --- |" + " --- |" * len(columns)]
    for task, repeat, cells in rows:
        lines.append(f"| {task} | r{repeat} | " + " | ".join(_cell_text(c) for c in cells) + " |")
    lines += ["", "Every control graded as declared." if not wrong else
              f"**{wrong} control trial(s) did not grade as declared**: the grader is not validated for those tasks."]
    return lines + [""]


def _per_task_table(run_: Run, summaries: list[SettingSummary]) -> list[str]:
    lines = ["## Per task, across repeats", "",
             "One code per repeat: " + ", ".join(f"{c} {v}" for v, c in SHORT.items()) +
             ". For a control, ✗ marks a verdict other than the declared one.", "",
             "| Task | " + " | ".join(s.setting.label for s in summaries) + " |",
             "| --- |" + " --- |" * len(summaries)]
    tasks = sorted({t for s in summaries for t in s.per_task}, key=lambda t: task_sort_key(run_)((t,)))
    for task in tasks:
        cells = []
        for s in summaries:
            trials = s.per_task.get(task, [])
            codes = [SHORT.get(t.record.verdict, t.record.verdict)
                     + ("" if not t.record.is_control or t.record.as_declared else "✗") for t in trials]
            cells.append(" ".join(codes) if codes else "–")
        lines.append(f"| {task} | " + " | ".join(cells) + " |")
    return lines + [""]


def _failed_trials(base: Path, summaries: list[SettingSummary]) -> list[str]:
    failed = [(s, t) for s in summaries for t in s.trials if not t.record.success]
    lines = ["## Trials that did not succeed", "",
             "Read the transcript before trusting a number.", ""]
    if not failed:
        return lines + ["None.", ""]
    for s, t in failed:
        said = t.record.claim_status or "no claim"
        if t.record.answer:
            said += f", answer {one_line(repr(t.record.answer), 160)}"
        observed = t.record.outcome_observed
        what = f"{t.record.verdict}" + (f" (declared {t.record.expected})" if s.setting.is_control else "")
        what += f", {t.record.stopped_by}" if t.record.stopped_by else ""
        device = "device not read" if observed is None else f"device {one_line(str(observed))!r}"
        infra = f"; infra: {one_line(str(t.record.infra_error))}" if t.record.infra_error else ""
        lines.append(f"- **{t.record.task}** r{t.record.repeat}, {s.setting.label}: {what}; said {said}; "
                     f"{device}{infra} ({_evidence(base, t)})")
    return lines + [""]


# --- the CI step summary ----------------------------------------------------------------------------------------

#: GitHub's limit on one step's summary ($GITHUB_STEP_SUMMARY): 1 MiB; a larger one is not shown at all.
STEP_SUMMARY_LIMIT = 1024 * 1024
#: The longest list (blockers, controls not graded as declared) shown whole; past it, the first ones and a count.
STEP_SUMMARY_ITEMS = 40


def render_step_summary(run_: Run, summaries: list[SettingSummary], against: Optional[list[str]] = None,
                        limit: int = STEP_SUMMARY_LIMIT) -> str:
    """What a reviewer reads in the CI job's summary, from the view report.md renders: each setting's rate with its
    interval, the blockers, the controls' line, the before/after table (`against`: --baseline's, or the surface
    variants'), the injection rates. Links to the run folder are left out (the summary is read where the folder is
    not). Kept under `limit` bytes: lists are cut shorter, saying how many were left out, until it fits."""
    items = STEP_SUMMARY_ITEMS
    while True:
        text = _step_summary(run_, summaries, against, items)
        if len(text.encode("utf-8")) <= limit:
            return text
        if items > 1:
            items //= 2
            continue
        cut = text.encode("utf-8")[:limit - 200].decode("utf-8", "ignore")
        return cut[:cut.rfind("\n") + 1] + f"\n_(cut here: the summary reached GitHub's 1 MiB limit; see {REPORT})_\n"


def _listed(rows: list[str], items: int) -> list[str]:
    shown = [f"- {r}" for r in rows[:items]]
    if len(rows) > items:
        shown.append(f"- … and {len(rows) - items} more ({REPORT} lists them all)")
    return shown


def _step_summary(run_: Run, summaries: list[SettingSummary], against: Optional[list[str]], items: int) -> str:
    lines = [f"## mobium-evals: run {run_.name}", ""]
    lines += [f"- {name}: {value}" for name, value in run_facts(run_)]
    lines.append("")
    lines += [("#" + line) if line.startswith("## ") else line for line in _settings_table(summaries)]
    gating, declared = blocker_rows(summaries)
    lines += ["### Blockers", ""]
    lines += _listed([r.text(bold=True) for r in gating], items) or ["None gating." if declared else "None."]
    if declared:
        lines.append(f"- {len(declared)} more on controls that got their declared verdict: not gating.")
    lines.append("")
    controls = [s for s in summaries if s.setting.is_control]
    if controls:
        trials = [t for s in controls for t in s.trials]
        off = [t for t in trials if not t.record.as_declared]
        lines += ["### Controls", ""]
        if not off:
            lines.append(f"Every control graded as declared: {len(trials)} of {len(trials)} control trials.")
        else:
            lines.append(f"**{len(off)} of {len(trials)} control trial(s) did not grade as declared**: the grader is "
                         "not validated for those tasks.")
            lines += [""] + _listed([f"{t.record.task} r{t.record.repeat}, {t.record.setting.label}: got "
                                     f"**{t.record.verdict}**, declared {t.record.expected}"
                                     + (f" ({one_line(str(t.record.infra_error), 200)})"
                                        if t.record.infra_error else "")
                                     for t in off], items)
        lines.append("")
    if against:
        lines += against
    lines += injection_rates.markdown(injection_rates.of_summaries(summaries))
    return "\n".join(lines).rstrip() + "\n"
