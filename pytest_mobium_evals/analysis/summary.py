"""The figures of a run, computed once for every place that shows them (the terminal summary, report.md, the HTML
report, compare and verify), so they always agree: per setting the rate with its interval over tasks, pass^k when
there are repeats, the scheduled/graded/infra counts, false successes and blockers; and for two settings side by
side, the paired difference with whether it is clear of zero.

The input is a list of `TrialScore`s, one per trial, which the terminal builds from its reports and the after-run
commands from the verdict.json files; nothing here reads pytest or a run folder."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Iterable, Optional, Sequence

from pytest_mobium_evals.core.split import SPLITS, split_of
from pytest_mobium_evals.core.verdicts import INFRA_ERROR

from .intervals import Difference, PassK, Rate, bootstrap_over_tasks, paired_difference, pass_k_over_tasks


@dataclass(frozen=True)
class TrialScore:
    """One trial as the figures see it. `success` is a pass for the agent and "graded as declared" for a control."""

    task: str
    repeat: int
    verdict: str
    success: bool
    name: str = ""
    gating_blockers: tuple[str, ...] = ()
    obeyed: Optional[bool] = None  # an injection task: whether the device shows the injected text was obeyed
    split: str = ""  # "dev" or "held_out" (split.py): a difference is never taken over both at once


def trial_score(record, name: str) -> TrialScore:
    """A trial's record (trial_record.TrialRecord) as the figures see it."""
    return TrialScore(task=record.task, repeat=record.repeat, verdict=record.verdict, success=record.success,
                   name=name, gating_blockers=tuple(record.gating_blockers), obeyed=record.injection_obeyed,
                   split=record.split or split_of(record.task))


@dataclass
class Figures:
    label: str
    control: bool
    scheduled: int
    scores: list[TrialScore]
    rate: Rate
    pass_k: Optional[PassK]
    verdicts: Counter = field(default_factory=Counter)

    @property
    def trials(self) -> int:
        return len(self.scores)

    @property
    def successes(self) -> int:
        return sum(o.success for o in self.scores)

    @property
    def infra_errors(self) -> int:
        return self.verdicts.get(INFRA_ERROR, 0)

    @property
    def graded(self) -> int:
        return self.trials - self.infra_errors

    @property
    def injection(self) -> Optional[tuple[int, int]]:
        """(trials that obeyed the injected text, injection trials graded), or None when there were none."""
        seen = [o.obeyed for o in self.scores if o.obeyed is not None]
        return (sum(seen), len(seen)) if seen else None

    def injection_text(self) -> str:
        if self.injection is None:
            return "–"
        obeyed, n = self.injection
        return f"{obeyed} of {n}"

    @property
    def false_successes(self) -> int:
        return self.verdicts.get("false_success", 0)

    @property
    def blockers(self) -> list[tuple[str, str]]:
        """(trial, blocker) for every gating blocker: they hold the decision whatever the rate."""
        return [(o.name, b) for o in self.scores for b in o.gating_blockers]

    def per_task(self) -> dict[str, list[bool]]:
        return per_task(self.scores)

    # the words every view prints, so the terminal, report.md and the HTML say the same thing
    @property
    def what(self) -> str:
        return "as declared" if self.control else "pass rate"

    def rate_text(self) -> str:
        return f"{self.rate.percent()} ({self.successes}/{self.trials})" if self.trials else "n/a"

    def pass_k_text(self) -> str:
        return f"pass^{self.pass_k.k} {self.pass_k.percent()}" if self.pass_k else ""

    def counts_text(self) -> str:
        return f"scheduled {self.scheduled}, graded {self.graded}, infra errors {self.infra_errors}"


def per_task(scores: Iterable[TrialScore]) -> dict[str, list[bool]]:
    tasks: dict[str, list[bool]] = defaultdict(list)
    for o in sorted(scores, key=lambda o: (o.task, o.repeat)):
        tasks[o.task].append(o.success)
    return dict(tasks)


def figures(label: str, scores: Sequence[TrialScore], *, control: bool, scheduled: Optional[int] = None,
            with_interval: bool = True) -> Figures:
    """A setting's figures. pass^k is given when every task has k ≥ 2 trials (k = the fewest any task has), the
    chance all k repeats of a task pass; infra errors count as non-passes there too."""
    scores = list(scores)
    tasks = per_task(scores)
    rate = bootstrap_over_tasks(tasks) if with_interval else _plain_rate(tasks)
    k = min((len(v) for v in tasks.values()), default=0)
    pass_k = pass_k_over_tasks(tasks, k) if k >= 2 and with_interval else None
    return Figures(label=label, control=control, scheduled=len(scores) if scheduled is None else scheduled,
                   scores=scores, rate=rate, pass_k=pass_k, verdicts=Counter(o.verdict for o in scores))


def _plain_rate(tasks: dict[str, list[bool]]) -> Rate:
    passed = sum(sum(v) for v in tasks.values())
    total = sum(len(v) for v in tasks.values())
    rate = passed / total if total else 0.0
    return Rate(passed, total, rate, rate, rate, len(tasks))


def difference(a: Figures, b: Figures) -> Optional[Difference]:
    """b − a, paired over the tasks both ran (the same seed gives them the same parameters)."""
    return paired_difference(a.per_task(), b.per_task())


def difference_line(a: Figures, b: Figures, a_name: Optional[str] = None, b_name: Optional[str] = None) -> str:
    """"opus vs haiku: +21 points [+8 to +35] over 38 tasks, clear of zero: opus is better than haiku"."""
    a_name, b_name = a_name or a.label, b_name or b.label
    diff = difference(a, b)
    if diff is None:
        return f"{b_name} vs {a_name}: no task in common"
    return f"{b_name} vs {a_name}: {diff.describe(a_name, b_name)}"


def by_split(a: Figures, b: Figures) -> list[tuple[Figures, Figures]]:
    """The two settings as they are, or, when they ran dev and held-out tasks, apart per split and named so ("haiku
    (held-out tasks)"): a variant tuned on dev is judged on held out, and the two are never merged into one figure."""
    splits = [s for s in SPLITS if any(o.split == s for o in [*a.scores, *b.scores])]
    if len(splits) < 2:
        return [(a, b)]
    out = []
    for split in splits:
        words = "held-out" if split == "held_out" else split
        out.append(tuple(figures(f"{f.label} ({words} tasks)", [o for o in f.scores if o.split == split],
                                 control=False, with_interval=False) for f in (a, b)))
    return out


def difference_lines(a: Figures, b: Figures) -> list[str]:
    """difference_line for each split the settings ran (by_split)."""
    return [difference_line(x, y) for x, y in by_split(a, b)]


def agent_pairs(all_figures: Sequence[Figures]) -> list[tuple[Figures, Figures]]:
    """Every pair of agent settings, the earlier-listed first (controls are not compared with each other: each has
    its own declared verdicts)."""
    agents = [f for f in all_figures if not f.control]
    return [(agents[i], agents[j]) for i in range(len(agents)) for j in range(i + 1, len(agents))]


#: The order stop reasons are shown in (trial_record.StopReason's), then records written before the field.
NOT_RECORDED = "not recorded"


def stop_reasons(records: Iterable) -> Counter:
    """Why each trial's driver stopped (a record's stop_reason), counted; a record from before the field counts as
    "not recorded"."""
    return Counter(getattr(r, "stop_reason", None) or NOT_RECORDED for r in records)


def stop_reasons_text(counts: Counter) -> str:
    """"final_answer 3, time_limit 1": the counts in StopReason's order."""
    from pytest_mobium_evals.core.trial_record import STOP_REASONS  # noqa: PLC0415  core.trial_record loads pydantic; the plugin's terminal reads this module

    return ", ".join(f"{k} {counts[k]}" for k in (*STOP_REASONS, NOT_RECORDED) if counts.get(k))
