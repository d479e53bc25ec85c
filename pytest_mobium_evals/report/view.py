"""The computed view of a run folder, shared by every renderer of it: per setting its trials, verdict counts,
per-task results, blockers and figures (`summarize_run`, over analysis/summary.py's one computation), and the controls
table (`controls_matrix`). report.md (report/markdown.py), the chart (report/chart.py), the HTML report
(report/html_report.py), compare, runs and the Inspect export render from it; `mobium-evals report` is
commands/report.py."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Optional

from pytest_mobium_evals.analysis.summary import Figures, figures, stop_reasons, trial_score
from pytest_mobium_evals.core.setting import Setting
from pytest_mobium_evals.runfolder.reading import Run, Trial


@dataclass
class SettingSummary:
    setting: Setting
    trials: list[Trial]
    scheduled: int
    infra_errors: int
    verdicts: Counter
    per_task: dict[str, list[Trial]]
    rate: Optional[float]  # pass rate (agent) or share graded as declared (controls)
    interval: Optional[tuple[float, float]]
    blockers: list[Trial] = field(default_factory=list)  # trials with a gating blocker
    declared_blockers: list[Trial] = field(default_factory=list)  # controls whose blocker is what they declare
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: float = 0.0
    cost_known: bool = False
    figures: Optional[Figures] = None  # analysis/summary.py's figures: the same numbers the terminal and the HTML show
    stop_reasons: Counter = field(default_factory=Counter)  # why each trial's driver stopped (summary.stop_reasons)

    @property
    def graded(self) -> int:
        return len(self.trials) - self.infra_errors

    @property
    def successes(self) -> int:
        return sum(1 for t in self.trials if _success(t))


def _success(trial: Trial) -> bool:
    return trial.record.success


def summarize(setting: Setting, trials: list[Trial], task_order: list[str], missing: int = 0,
              with_interval: bool = True) -> SettingSummary:
    per_task: dict[str, list[Trial]] = {}
    order = {t: i for i, t in enumerate(task_order)}
    for trial in sorted(trials, key=lambda t: (order.get(t.record.task, len(order)), t.record.task, t.record.repeat)):
        per_task.setdefault(trial.record.task, []).append(trial)
    # infra errors stay in the denominator: a trial that could not run is not a trial that passed
    figs = setting_figures(setting, trials, scheduled=len(trials) + missing, with_interval=with_interval)
    rate = figs.rate.rate if trials else None
    interval = (figs.rate.low, figs.rate.high) if with_interval and trials else None
    summary = SettingSummary(
        setting=setting, trials=trials, scheduled=len(trials) + missing,
        infra_errors=sum(1 for t in trials if t.record.is_infra_error),
        verdicts=Counter(t.record.verdict for t in trials), per_task=per_task, rate=rate, interval=interval,
        blockers=[t for t in trials if t.record.gating_blockers],
        declared_blockers=[t for t in trials if t.record.blocker_lines and not t.record.gating_blockers], figures=figs,
        stop_reasons=stop_reasons(t.record for t in trials))
    for t in trials:
        if t.record.tokens is not None:
            summary.tokens_in += int(t.record.tokens.input or 0)
            summary.tokens_out += int(t.record.tokens.output or 0)
        if t.record.cost_usd is not None:
            summary.cost_usd += float(t.record.cost_usd)
            summary.cost_known = True
    return summary


def setting_figures(setting: Setting, trials: list[Trial], scheduled: Optional[int] = None,
                    with_interval: bool = True) -> Figures:
    return figures(setting.label, [trial_score(t.record, t.name) for t in trials], control=setting.is_control,
                   scheduled=scheduled, with_interval=with_interval)


def summarize_run(run_: Run) -> list[SettingSummary]:
    return [summarize(s, ts, run_.task_ids) for s, ts in run_.by_setting().items()]


@dataclass(frozen=True)
class BlockerRow:
    """One trial with a blocker, as every view lists it."""

    setting: str
    trial: Trial
    lines: tuple[str, ...]  # the gating blockers, or for a declared one the blockers it shows

    def text(self, bold: bool = False) -> str:
        record = self.trial.record
        task = f"**{record.task}**" if bold else record.task
        return f"{task} r{record.repeat}, {self.setting}: {record.verdict} — {'; '.join(self.lines)}"


#: Why a blocker of a control that got its declared verdict does not gate, said wherever "none" is said beside it.
DECLARED_BLOCKERS = ("Not gating: these trials have severity blocker, but each is a control that got the verdict it "
                     "is declared to get (the wrong or null control claiming a false success on an irreversible "
                     "action, a control obeying injected text, a near miss leaving a setting changed). The grader "
                     "caught what the script did, which is what the control is there to show.")


def blocker_rows(summaries: list[SettingSummary]) -> tuple[list[BlockerRow], list[BlockerRow]]:
    """(gating, declared): the trials whose blockers hold the decision, and the controls whose blockers are what
    they were declared to do. report.md and the HTML list both from here."""
    gating = [BlockerRow(s.setting.label, t, tuple(t.record.gating_blockers)) for s in summaries for t in s.blockers]
    declared = [BlockerRow(s.setting.label, t, tuple(t.record.blocker_lines))
                for s in summaries for t in s.declared_blockers]
    return gating, declared


@dataclass(frozen=True)
class ClaimConflict:
    """A trial whose driver stated one claim in the text it stopped with and the other in its final answer: both,
    and the verdict the claim the device contradicts gave it (grading.grade)."""

    setting: str
    trial: Trial

    @property
    def said(self) -> str:
        return self.trial.record.stop_text or ""

    def text(self, limit: int = 200) -> str:
        record = self.trial.record
        said = " ".join(self.said.split())
        said = said if len(said) <= limit else said[:limit - 1] + "…"
        return (f"{record.task} r{record.repeat}, {self.setting}: its text stated {record.stated_status} "
                f"(“{said}”), its final answer {record.claim_status}; graded {record.verdict}, on the claim the "
                f"device contradicts")


#: What every view says above the list of claims that disagree.
CLAIM_CONFLICTS = ("Trials whose text, written when the driver stopped calling tools, stated one claim and whose "
                   "final answer stated the other. Both are kept; a trial is graded on the claim the device "
                   "contradicts (where it contradicts both, on the final answer).")


def claim_conflicts(summaries: list[SettingSummary]) -> list[ClaimConflict]:
    """Every trial whose claims disagree, for report.md and the HTML."""
    return [ClaimConflict(s.setting.label, t) for s in summaries for t in s.trials if t.record.claims_disagree]


def task_sort_key(run_: Run):
    """A sort key for (task, repeat, …) tuples: the run's task order, then the rest."""
    order = {t: i for i, t in enumerate(run_.task_ids)}
    return lambda key: (order.get(key[0], len(order)), key[0], key[1:])


@dataclass(frozen=True)
class ControlCell:
    """One control trial in the controls table: what it got, whether as declared, and what was declared."""

    verdict: str
    ok: bool
    expected: Optional[str]
    near_miss: Optional[str] = None


def controls_matrix(run_: Run, summaries: list[SettingSummary]) -> tuple[list[str], list[tuple[str, int, list]], int]:
    """The controls table, computed once for report.md and the HTML: its control columns, its rows (task, repeat,
    one list of ControlCell per column: a task's near misses share a column) and how many trials did not grade as
    declared."""
    controls = [s for s in summaries if s.setting.is_control]
    keys = sorted({(t.record.task, t.record.repeat) for s in controls for t in s.trials}, key=task_sort_key(run_))
    index: dict = {}
    for s in controls:
        for t in s.trials:
            index.setdefault((s.setting, t.record.task, t.record.repeat), []).append(
                ControlCell(t.record.verdict, t.record.as_declared, t.record.expected, t.record.near_miss))
    rows = [(task, repeat, [index.get((s.setting, task, repeat), []) for s in controls]) for task, repeat in keys]
    wrong = sum(1 for _, _, cells in rows for cell in cells for c in cell if not c.ok)
    return [s.setting.driver for s in controls], rows, wrong


def one_line(text: str, limit: int = 300) -> str:
    """A multi-line message (a server's traceback) as one line for a list item: its first and last lines."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return ""
    one = lines[0] if len(lines) == 1 else f"{lines[0]} … {lines[-1]}"
    return one if len(one) <= limit else one[:limit - 1] + "…"
