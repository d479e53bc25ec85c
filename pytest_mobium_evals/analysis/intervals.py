"""Pass rates with a 95% interval bootstrapped over tasks, not trials.

Three repeats of one task are not three independent samples: a task that is hard stays hard on every repeat. So the
bootstrap draws *tasks* with replacement and keeps each drawn task's trials together (a cluster bootstrap), as the
seed's baseline did. Infrastructure errors stay in the denominator as non-passes: dropping them would flatter a
setting whose trials crash.

Beside the rate: pass^k (all k repeats of a task pass, the reliability a user meets) and the paired difference of two
settings or two runs of the same tasks and seed, whose interval says whether the difference is clear of zero.
Every interval here is a 95% percentile interval with a fixed RNG seed, so a figure reprints identically."""

from __future__ import annotations

import functools
import math
import random
from dataclasses import dataclass
from typing import Mapping, Optional, Sequence

RESAMPLES = 2000
SEED = 20261011  # fixed: the same trials always print the same interval


@dataclass(frozen=True)
class Rate:
    passed: int
    total: int
    rate: float  # 0..1 (0 when there are no trials)
    low: float
    high: float
    tasks: int

    def percent(self) -> str:
        if not self.total:
            return "n/a"
        return f"{self.rate * 100:.0f}% [{self.low * 100:.0f}–{self.high * 100:.0f}%]"


def _draws(rng: random.Random, n: int):
    """`rng.randrange(n)`, again and again: the same numbers in the same order, without its argument checks (the
    bootstraps draw millions of them at a run's end, where they were most of the controller's last seconds)."""
    getrandbits, bits = rng.getrandbits, n.bit_length()
    while True:
        r = getrandbits(bits)
        while r >= n:
            r = getrandbits(bits)
        yield r


def bootstrap_over_tasks(outcomes: Mapping[str, Sequence[bool]], *, resamples: int = RESAMPLES,
                         seed: int = SEED, level: float = 0.95) -> Rate:
    """`outcomes`: task id -> one bool per trial (True = passed). Returns the pooled rate and the percentile
    interval of the pooled rate over `resamples` draws of tasks with replacement."""
    clusters = tuple((sum(map(bool, trials)), len(trials)) for _, trials in sorted(outcomes.items()) if len(trials))
    return _bootstrap_clusters(clusters, resamples, seed, level)


@functools.lru_cache(maxsize=256)
def _bootstrap_clusters(clusters: tuple[tuple[int, int], ...], resamples: int, seed: int, level: float) -> Rate:
    # Cached: a run's end asks for the same rates from the terminal, the HTML report and the step summary.
    passed = sum(p for p, _ in clusters)
    total = sum(n for _, n in clusters)
    if not total:
        return Rate(0, 0, 0.0, 0.0, 0.0, 0)
    rate = passed / total
    k = len(clusters)
    if k == 1:
        # One task: nothing to resample over, and a trial-level interval would claim a precision the data lacks.
        return Rate(passed, total, rate, rate, rate, 1)
    if all(p * total == passed * n for p, n in clusters):
        # Every task at the same rate: every draw is that rate exactly (integers summed, then one division), so
        # the interval is the rate itself, as the draws would say (every control graded as declared, for one).
        return Rate(passed, total, rate, rate, rate, k)
    pick = _draws(random.Random(seed), k)
    draws = []
    for _ in range(resamples):
        p = n = 0
        for _ in range(k):
            cp, cn = clusters[next(pick)]
            p += cp
            n += cn
        draws.append(p / n)
    draws.sort()
    tail = (1 - level) / 2
    low = draws[int(tail * (resamples - 1))]
    high = draws[int((1 - tail) * (resamples - 1) + 0.5)]
    return Rate(passed, total, rate, min(low, rate), max(high, rate), k)


def _percentile_interval(draws: list[float], level: float) -> tuple[float, float]:
    draws = sorted(draws)
    n = len(draws)
    tail = (1 - level) / 2
    return draws[int(tail * (n - 1))], draws[int((1 - tail) * (n - 1) + 0.5)]


@dataclass(frozen=True)
class PassK:
    """pass^k: the chance that all k trials of a task pass, averaged over tasks, with its interval over tasks."""

    k: int
    value: float
    low: float
    high: float
    tasks: int

    def percent(self) -> str:
        return f"{self.value * 100:.0f}% [{self.low * 100:.0f}–{self.high * 100:.0f}%]"


def pass_hat_k(passed: int, trials: int, k: int) -> float:
    """The unbiased estimate, from one task's `trials` repeats of which `passed` passed, of the chance that k fresh
    repeats all pass: C(passed, k) / C(trials, k). (passed/trials)**k would be biased upward on few repeats."""
    if not 1 <= k <= trials:
        raise ValueError(f"pass^k needs 1 <= k <= n, got k={k}, n={trials}")
    if not 0 <= passed <= trials:
        raise ValueError(f"passed={passed} is not within 0..{trials}")
    return math.comb(passed, k) / math.comb(trials, k)


def pass_k_over_tasks(outcomes: Mapping[str, Sequence[bool]], k: int, *, resamples: int = RESAMPLES,
                      seed: int = SEED, level: float = 0.95) -> Optional[PassK]:
    """pass^k averaged over the tasks that have at least k trials, with a percentile interval from drawing tasks
    with replacement. None when no task has k trials."""
    per_task = [pass_hat_k(sum(map(bool, trials)), len(trials), k)
                for _, trials in sorted(outcomes.items()) if len(trials) >= k]
    if not per_task:
        return None
    value = sum(per_task) / len(per_task)
    if len(per_task) == 1:
        return PassK(k, value, value, value, 1)
    n = len(per_task)
    pick = _draws(random.Random(seed), n)
    draws = [sum(per_task[next(pick)] for _ in range(n)) / n for _ in range(resamples)]
    low, high = _percentile_interval(draws, level)
    return PassK(k, value, min(low, value), max(high, value), n)


@dataclass(frozen=True)
class Difference:
    """B's pass rate minus A's over the tasks both ran, with a paired bootstrap interval over those tasks."""

    delta: float  # -1..1
    low: float
    high: float
    tasks: int

    @property
    def clear_of_zero(self) -> bool:
        """Whether the interval excludes 0: a difference the task sample cannot explain away."""
        return self.tasks > 1 and (self.low > 0 or self.high < 0)

    def points(self) -> str:
        return (f"{self.delta * 100:+.0f} points [{self.low * 100:+.0f} to {self.high * 100:+.0f}]")

    def verdict(self, a: str = "A", b: str = "B") -> str:
        """One plain sentence: is the difference real at this sample size?"""
        if self.tasks < 2:
            return "one task in common: too few to tell"
        if not self.clear_of_zero:
            return "not clear of zero: could be noise"
        return f"clear of zero: {b} is {'better' if self.delta > 0 else 'worse'} than {a}"

    def describe(self, a: str = "A", b: str = "B") -> str:
        return f"{self.points()} over {self.tasks} tasks, {self.verdict(a, b)}"


def paired_difference(a: Mapping[str, Sequence[bool]], b: Mapping[str, Sequence[bool]], *,
                      resamples: int = RESAMPLES, seed: int = SEED, level: float = 0.95) -> Optional[Difference]:
    """The paired bootstrap of B − A: the tasks both sides ran (same seed, so the same parameters) are drawn with
    replacement *jointly*, so a hard task is hard on both sides of every draw, and each draw's difference is the mean
    over the drawn tasks of (B's pass rate on the task − A's). None when the sides share no task with trials."""
    common = sorted(t for t in set(a) & set(b) if len(a[t]) and len(b[t]))
    if not common:
        return None
    diffs = [sum(map(bool, b[t])) / len(b[t]) - sum(map(bool, a[t])) / len(a[t]) for t in common]
    delta = sum(diffs) / len(diffs)
    if len(diffs) == 1:
        return Difference(delta, delta, delta, 1)
    n = len(diffs)
    pick = _draws(random.Random(seed), n)
    draws = [sum(diffs[next(pick)] for _ in range(n)) / n for _ in range(resamples)]
    low, high = _percentile_interval(draws, level)
    return Difference(delta, min(low, delta), max(high, delta), n)
