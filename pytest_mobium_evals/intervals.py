"""Pass rates with a 95% interval bootstrapped over tasks, not trials.

Three repeats of one task are not three independent samples: a task that is hard stays hard on every repeat. So the
bootstrap draws *tasks* with replacement and keeps each drawn task's trials together (a cluster bootstrap), as the
seed's baseline did. Infrastructure errors stay in the denominator as non-passes: dropping them would flatter a
setting whose trials crash."""

from __future__ import annotations

import random
from dataclasses import dataclass
from typing import Mapping, Sequence

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


def bootstrap_over_tasks(outcomes: Mapping[str, Sequence[bool]], *, resamples: int = RESAMPLES,
                         seed: int = SEED, level: float = 0.95) -> Rate:
    """`outcomes`: task id -> one bool per trial (True = passed). Returns the pooled rate and the percentile
    interval of the pooled rate over `resamples` draws of tasks with replacement."""
    clusters = [(sum(map(bool, trials)), len(trials)) for _, trials in sorted(outcomes.items()) if len(trials)]
    passed = sum(p for p, _ in clusters)
    total = sum(n for _, n in clusters)
    if not total:
        return Rate(0, 0, 0.0, 0.0, 0.0, 0)
    rate = passed / total
    if len(clusters) == 1:
        # One task: nothing to resample over, and a trial-level interval would claim a precision the data lacks.
        return Rate(passed, total, rate, rate, rate, 1)
    rng = random.Random(seed)
    k = len(clusters)
    draws = []
    for _ in range(resamples):
        p = n = 0
        for _ in range(k):
            cp, cn = clusters[rng.randrange(k)]
            p += cp
            n += cn
        draws.append(p / n)
    draws.sort()
    tail = (1 - level) / 2
    low = draws[int(tail * (resamples - 1))]
    high = draws[int((1 - tail) * (resamples - 1) + 0.5)]
    return Rate(passed, total, rate, min(low, rate), max(high, rate), k)
