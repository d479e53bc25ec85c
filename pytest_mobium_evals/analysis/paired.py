"""Surface variants judged against `baseline`, per model setting: the paired statistics and the before/after table a
Mobium PR can carry.

Every variant ran the same tasks with the same seeds (so the same parameters) as baseline, so a task is its own
control. The call is an exact paired randomisation test over tasks: each task's difference in pass rate (its
repeats averaged), and the share of the 2^n ways of flipping those differences' signs that give a total at least
as far out as the one observed. "Clearly better" needs that one-sided p at most 2.5% (so two-sided 5%); by
construction a variant no different from baseline is called clearly better at most 2.5% of the time, whatever the
number of tasks or repeats (tests/analysis/test_paired.py simulates it). With n tasks the smallest p there is is
2^-n, so with 5 tasks or fewer nothing can be clear, and the call says so. Beside it, descriptively: the paired
difference with a task-clustered bootstrap 95% interval (`intervals.paired_difference`), the tasks that moved each
way, and what a trial cost (tool calls, tokens, dollars), since a richer description can cost steps. Dev and held-out
tasks are computed and shown apart, never merged: a variant is called better only on held out.

What a number of held-out tasks and repeats can decide is analysis/planning.py's; the before/after table the reports
show is report/surfaces.py's."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any, Optional, Sequence

from pytest_mobium_evals.core.split import SPLITS, split_of

from .intervals import bootstrap_over_tasks, paired_difference
from .sequential import LEVEL

BASELINE = "baseline"
SPLIT_WORDS = {"dev": "dev", "held_out": "held-out"}


# --- the exact paired randomisation test ----------------------------------------------------------------------------

@dataclass(frozen=True)
class SignFlip:
    """The exact sign-flip test of per-task differences: `better` is the share of the 2^n sign flips whose total is at
    least the observed one, `worse` at most; `smallest` is 2^-n, the least either can be with n tasks."""

    tasks: int
    better: float
    worse: float

    @property
    def smallest(self) -> float:
        return 2.0 ** -self.tasks

    @property
    def decidable(self) -> bool:
        """Whether any outcome over this many tasks could be clear at LEVEL."""
        return self.smallest <= LEVEL

    @property
    def two_sided(self) -> float:
        return min(1.0, 2 * min(self.better, self.worse))


def min_tasks_to_decide(level: float = LEVEL) -> int:
    """The fewest tasks with which the exact test can reach `level` on one side: 2^-n <= level."""
    return math.ceil(math.log2(1 / level))


@lru_cache(maxsize=4096)
def _flip_counts(magnitudes: tuple[int, ...]) -> tuple[tuple[int, ...], tuple[int, ...], int]:
    """The null distribution of sum(±m) over every sign flip of `magnitudes` (sorted non-negative integers): the
    sums in order, how many flips give each, and the lowest sum. Counted exactly, one task at a time."""
    counts = {0: 1}
    for m in magnitudes:
        nxt: dict[int, int] = {}
        for total, ways in counts.items():
            for signed in ((m, -m) if m else (0, 0)):
                nxt[total + signed] = nxt.get(total + signed, 0) + ways
        counts = nxt
    sums = tuple(sorted(counts))
    return sums, tuple(counts[x] for x in sums), sums[0]


def sign_flip_test(differences: Sequence[Fraction | int]) -> Optional[SignFlip]:
    """The exact test of per-task differences (exact fractions, such as a difference of two pass rates over repeats).
    None without tasks."""
    if not differences:
        return None
    if all(isinstance(d, int) for d in differences):
        ints = list(differences)  # already on one scale (a simulation's counts): the test is the same
    else:
        fractions = [Fraction(d) for d in differences]
        scale = math.lcm(*(f.denominator for f in fractions))
        ints = [int(f * scale) for f in fractions]
    observed = sum(ints)
    sums, ways, _ = _flip_counts(tuple(sorted(abs(i) for i in ints)))
    total = 2 ** len(ints)
    at_least = sum(w for x, w in zip(sums, ways) if x >= observed)
    at_most = sum(w for x, w in zip(sums, ways) if x <= observed)
    return SignFlip(len(ints), at_least / total, at_most / total)


def task_differences(base: dict[str, list[bool]], mine: dict[str, list[bool]]) -> list[Fraction]:
    """Per task both sides ran: the variant's pass rate over its repeats minus baseline's, exactly."""
    return [Fraction(sum(mine[t]), len(mine[t])) - Fraction(sum(base[t]), len(base[t]))
            for t in sorted(set(base) & set(mine)) if base[t] and mine[t]]


@dataclass
class SideCost:
    trials: int = 0
    tool_calls: float = 0.0
    tokens: float = 0.0
    cost_usd: float = 0.0

    def line(self) -> str:
        return f"{self.tool_calls:.1f} calls, {self.tokens:,.0f} tokens, ${self.cost_usd:.4f} a trial"


@dataclass
class PairedComparison:
    """One side's trials against another's, paired by task, for one model setting and one split (a variant against
    baseline, a hillclimb candidate against its start, a setting of one run against the other's): both rates, the
    exact paired test and the bootstrap interval of the difference, the cost a trial."""

    model: str
    variant: str
    split: str
    tasks: int
    rate: float
    rate_low: float
    rate_high: float
    base_rate: float
    delta: Optional[float]
    low: Optional[float]
    high: Optional[float]
    better: list[str] = field(default_factory=list)  # tasks whose pass rate rose
    worse: list[str] = field(default_factory=list)
    test: Optional[SignFlip] = None  # the exact paired randomisation test over the tasks
    cost: SideCost = field(default_factory=SideCost)
    base_cost: SideCost = field(default_factory=SideCost)
    surface_hashes: list[str] = field(default_factory=list)
    trials: dict[str, list[str]] = field(default_factory=dict)  # task → the variant's trial folders, by repeat
    # sequential.SequentialTest: the hillclimb's held-out test, run in looks; when set, it makes the call (one-sided:
    # clearly better or not), since the fixed test's p over data gathered in looks would not hold its level
    sequential: Optional[Any] = None

    @property
    def clear(self) -> bool:
        """The exact test's call, one side at LEVEL; the bootstrap interval is description, never the call."""
        if self.sequential is not None:
            return self.sequential.decision == "clearly better"
        return self.test is not None and (self.test.better <= LEVEL or self.test.worse <= LEVEL)

    @property
    def p(self) -> Optional[float]:
        """The exact test's two-sided p."""
        return None if self.test is None else self.test.two_sided

    @property
    def p_better(self) -> Optional[float]:
        """The one-sided p that the variant is better: the sequential test's stage-wise p when the comparison was
        made in looks, else the exact test's. The hillclimb says this one p, and says it is one-sided."""
        if self.sequential is not None:
            return self.sequential.p
        return None if self.test is None else self.test.better

    @property
    def call(self) -> str:
        """The verdict in words. Only held-out tasks may call a side better: on dev, a variant was tuned on the
        tasks that judge it, so a gain there is partly the tuning's. A clear drop is called on any split: tuning
        does not make a side look worse, and a build that breaks dev tasks is a regression a reviewer must see."""
        if self.delta is None or self.test is None:
            return "no common tasks"
        if not self.test.decidable:
            which = f"{SPLIT_WORDS[self.split]} " if self.split in SPLIT_WORDS else ""
            return f"cannot be clear with {self.tasks} {which}task{'s' if self.tasks != 1 else ''}"
        if self.sequential is not None:
            return "clearly better" if self.clear else "not clear"
        if not self.clear:
            return "not clear"
        if self.test.better > LEVEL:
            return "clearly worse"
        return "better on dev (tuning only)" if self.split == "dev" else "clearly better"


def _outcomes(trials) -> dict[str, list[bool]]:
    out: dict[str, list[bool]] = {}
    for t in sorted(trials, key=lambda t: (t.record.task, t.record.repeat)):
        out.setdefault(t.record.task, []).append(t.record.passed)
    return out


def _cost(trials) -> SideCost:
    trials = list(trials)
    if not trials:
        return SideCost()
    n = len(trials)
    tokens = sum(t.record.tokens.total for t in trials if t.record.tokens is not None)
    return SideCost(n, sum(t.record.tool_calls or 0 for t in trials) / n, tokens / n,
                    sum(t.record.cost_usd or 0.0 for t in trials) / n)


def task_split(trial) -> str:
    return trial.record.split or split_of(trial.record.task)


def compare_run(run) -> list[PairedComparison]:
    """Every variant against baseline, per model setting and split, from one run folder (runfolder.reading.Run)."""
    by_model: dict[str, dict[str, list]] = {}
    for t in run.trials:
        surface = t.record.surface
        if t.record.is_control or not surface:
            continue
        effort = t.record.effort
        model = f"{t.record.model_name}:{effort}" if effort else t.record.model_name
        by_model.setdefault(model, {}).setdefault(surface, []).append(t)
    out = []
    for model, variants in by_model.items():
        base = variants.get(BASELINE)
        if base is None:
            continue
        for variant, trials in variants.items():
            if variant == BASELINE:
                continue
            for split in SPLITS:
                mine = [t for t in trials if task_split(t) == split]
                theirs = [t for t in base if task_split(t) == split]
                if mine or theirs:
                    out.append(_compare(model, variant, split, theirs, mine))
    return out


def compare_outcomes(model: str, variant: str, split: str, base: dict[str, list[bool]],
                     mine: dict[str, list[bool]]) -> PairedComparison:
    """The statistics alone, from outcomes by task (the controls of the comparison build these directly)."""
    rate = bootstrap_over_tasks(mine)
    base_rate = bootstrap_over_tasks(base)
    diff = paired_difference(base, mine)
    better, worse = [], []
    for task in sorted(set(base) & set(mine)):
        if not base[task] or not mine[task]:
            continue
        moved = sum(mine[task]) / len(mine[task]) - sum(base[task]) / len(base[task])
        (better if moved > 0 else worse if moved < 0 else []).append(task)
    return PairedComparison(model=model, variant=variant, split=split, tasks=len(set(base) & set(mine)),
                      rate=rate.rate, rate_low=rate.low, rate_high=rate.high, base_rate=base_rate.rate,
                      delta=None if diff is None else diff.delta, low=None if diff is None else diff.low,
                      high=None if diff is None else diff.high, better=better, worse=worse,
                      test=sign_flip_test(task_differences(base, mine)))


def compare_trials(model: str, variant: str, split: str, base: list, mine: list) -> PairedComparison:
    """One variant's trials against another's (runfolder.reading.Trial lists of one split): what compare_run
    computes for each variant against baseline, for any two (the hillclimb compares its candidates with the variant it
    began from)."""
    return _compare(model, variant, split, base, mine)


def _compare(model: str, variant: str, split: str, base: list, mine: list) -> PairedComparison:
    c = compare_outcomes(model, variant, split, _outcomes(base), _outcomes(mine))
    c.cost, c.base_cost = _cost(mine), _cost(base)
    c.surface_hashes = sorted({(t.record.surface_seen.hash if t.record.surface_seen else None) or "?" for t in mine})
    for t in sorted(mine, key=lambda t: (t.record.task, t.record.repeat)):
        c.trials.setdefault(t.record.task, []).append(t.name)
    return c
