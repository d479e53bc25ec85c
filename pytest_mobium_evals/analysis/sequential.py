"""The hillclimb's held-out test in looks: the exact sign-flip test over tasks (`paired.sign_flip_test`), made
group-sequential, so that a clear gain stops it early and an undecided one buys more repeats.

The schedule is fixed before the first held-out trial: a look after every `block` repeats of every held-out task
under both sides, at most `looks` of them. At look k each task's difference is its variant passes minus its start
passes over its first k x block repeats, and the statistic is their total. Under the null (on every held-out task the
variant and its start are the same agent: each task's whole sequence of differences is as likely with its sign
flipped), every one of the 2^n flips of whole tasks is as likely as the data. The level is spent over the looks by
the Lan-DeMets Pocock-type function alpha(t) = level x ln(1 + (e - 1) t), t = k / looks: 1.13% by the first of three
looks, 1.91% by the second, 2.5% by the last. At look k the boundary c_k is the least total such that the share of
flips that would have crossed an earlier look's boundary, or reach c_k here without having crossed, is at most
alpha(k/looks); the variant is called clearly better the first time its total reaches the boundary. The p said is the
stage-wise one: that share at the observed total, so "clearly better" is exactly p <= alpha at the look reached.

Why it holds the level, for any tasks, repeats and effect sizes: given the flips' orbit of the data through look k,
the data is any one of its flips with equal chance, so the chance the first crossing falls at look k is the share of
flips that first cross there, at most alpha(k) minus what earlier looks spent (the earlier boundaries are the same
for every flip: they were computed from the orbit). Summed over the looks, at most the level. A look at which the
variant is not ahead (its total at most 0) stops the test for futility before the last look; stopping without a call
can only lower the chance of one, so the boundaries are computed as if it never stopped (non-binding).
tests/analysis/test_sequential.py simulates it: A/A, fixed and sequential, across task counts and repeats.

What it tests: flips of whole tasks, so it asks whether the variant is better across tasks, as the fixed test does;
a task that moved on every repeat counts once. A test that flipped each pair of trials alone would be exact for the
sharp null on these very tasks and have more power, but it would call a variant that helps one held-out task
"clearly better"; this one needs the gain on enough tasks (six at the least: 2^-6 <= 2.5% < 2^-5)."""

from __future__ import annotations

import math
import random
from collections import defaultdict
from dataclasses import dataclass
from functools import lru_cache
from typing import Optional, Sequence

LEVEL = 0.025  # one side's level: "clearly better" (and, in paired.py, "clearly worse") at most this often by chance
BETTER, NO_GAIN, NOT_CLEAR = "clearly better", "no gain", "not clear"


@dataclass(frozen=True)
class Schedule:
    """Looks after every `block` repeats, at most `looks` of them, spending `level` (one side) over them."""

    block: int
    looks: int
    level: float = LEVEL

    def __post_init__(self):
        if self.block < 1 or self.looks < 1:
            raise ValueError("a schedule needs at least one look of at least one repeat")

    @property
    def max_repeats(self) -> int:
        return self.block * self.looks

    def repeats(self, look: int) -> int:
        return self.block * look

    def spent(self, look: int) -> float:
        """The one-sided level spent by look `look` (1-based): Pocock-type, all of it by the last."""
        if look >= self.looks:
            return self.level
        return self.level * math.log(1 + (math.e - 1) * look / self.looks)

    def words(self) -> str:
        if self.looks == 1:
            return f"{self.block} repeats, one look at one-sided {100 * self.level:g}%"
        levels = ", ".join(f"{100 * self.spent(k):.2f}%" for k in range(1, self.looks + 1))
        return (f"a look after every {self.block} repeats, at most {self.looks} ({self.max_repeats} repeats), "
                f"spending one-sided {levels}")


@dataclass(frozen=True)
class Look:
    look: int
    repeats: int
    total: int  # the variant's passes minus its start's, over every task and these repeats
    boundary: float  # the least total called clearly better at this look (inf: none can be)
    spent: float  # the one-sided level spent by this look
    p: float  # the stage-wise one-sided p: the share of flips as far out as the data, by this look

    @property
    def better(self) -> bool:
        return self.p <= self.spent


@dataclass(frozen=True)
class SequentialTest:
    tasks: int
    schedule: Schedule
    looks: tuple[Look, ...]

    @property
    def last(self) -> Optional[Look]:
        return self.looks[-1] if self.looks else None

    @property
    def decision(self) -> Optional[str]:
        """BETTER, NO_GAIN (the variant not ahead: stopped for futility, or at the last look), NOT_CLEAR (ahead at
        the last look, not enough), or None: the next look is needed."""
        last = self.last
        if last is None:
            return None
        if last.better:
            return BETTER
        if last.total <= 0:
            return NO_GAIN
        return NOT_CLEAR if last.look >= self.schedule.looks else None

    @property
    def p(self) -> Optional[float]:
        return None if self.last is None else self.last.p

    @property
    def repeats(self) -> int:
        return 0 if self.last is None else self.last.repeats

    @property
    def next_repeats(self) -> Optional[int]:
        """The repeats the next look needs, or None when the test has decided."""
        if self.decision is not None:
            return None
        return self.schedule.repeats(len(self.looks) + 1)

    def words(self) -> str:
        """What the looks found, for hillclimb.md and the log."""
        parts = []
        for look in self.looks:
            bound = ("no total could be clear here" if math.isinf(look.boundary)
                     else f"clear from {look.boundary:+.0f}")
            parts.append(f"look {look.look} ({look.repeats} repeats): {look.total:+d} passes, one-sided p "
                         f"{look.p:.3g} against {100 * look.spent:.2f}% ({bound})")
        return "; ".join(parts)


def _canonical(vectors: Sequence[Sequence[int]]) -> tuple:
    """Each task's vector up to its sign (a flip maps one onto the other), sorted: the orbit's shape."""
    out = []
    for v in vectors:
        first = next((x for x in v if x), 0)
        out.append(tuple(v) if first >= 0 else tuple(-x for x in v))
    return tuple(sorted(out))


@lru_cache(maxsize=2048)
def _joint(vectors: tuple) -> tuple[dict, int]:
    """How many of the 2^n flips give each vector of look totals: the joint null distribution, counted exactly, one
    group of equal vectors at a time (m equal tasks of which i are flipped add (m - 2i) v, in C(m, i) ways)."""
    groups: dict[tuple, int] = defaultdict(int)
    zeros = 0
    for v in vectors:
        if any(v):
            groups[v] += 1
        else:
            zeros += 1
    size = len(vectors[0]) if vectors else 0
    counts: dict[tuple, int] = {(0,) * size: 1 << zeros}
    for v, m in groups.items():
        shifts = [(math.comb(m, i), tuple((m - 2 * i) * x for x in v)) for i in range(m + 1)]
        grown: dict[tuple, int] = defaultdict(int)
        for state, ways in counts.items():
            for w, shift in shifts:
                grown[tuple(a + b for a, b in zip(state, shift))] += ways * w
        counts = dict(grown)
    return counts, 1 << len(vectors)


def _look(vectors: tuple, bounds: tuple, spent: float, observed: int) -> tuple[float, float]:
    """(the boundary at this look, the stage-wise p of `observed`), given the earlier looks' boundaries."""
    counts, flips = _joint(_canonical(vectors))
    crossed = 0
    here: dict[int, int] = defaultdict(int)
    for state, ways in counts.items():
        if any(state[j] >= bounds[j] for j in range(len(bounds))):
            crossed += ways
        else:
            here[state[-1]] += ways
    room = spent * flips - crossed  # flips that may still cross here
    boundary, tail = math.inf, 0
    for total in sorted(here, reverse=True):
        if tail + here[total] > room + 1e-9 * flips:
            break
        tail += here[total]
        boundary = total
    p = (crossed + sum(w for x, w in here.items() if x >= observed)) / flips
    return boundary, p


def run_looks(differences: Sequence[Sequence[int]], schedule: Schedule) -> SequentialTest:
    """The test over each task's per-repeat differences (variant passed minus start passed: -1, 0 or 1, in repeat
    order), every look the repeats allow, in order, until one decides."""
    looks: list[Look] = []
    bounds: list[float] = []
    have = min((len(d) for d in differences), default=0)
    for k in range(1, schedule.looks + 1):
        r = schedule.repeats(k)
        if not differences or have < r:
            break
        vectors = tuple(tuple(sum(d[:schedule.repeats(j)]) for j in range(1, k + 1)) for d in differences)
        observed = sum(v[-1] for v in vectors)
        boundary, p = _look(vectors, tuple(bounds), schedule.spent(k), observed)
        looks.append(Look(k, r, observed, boundary, schedule.spent(k), p))
        bounds.append(boundary)
        if looks[-1].better or observed <= 0:
            break
    return SequentialTest(len(differences), schedule, tuple(looks))


def sequential_test(base: dict[str, list[bool]], mine: dict[str, list[bool]], schedule: Schedule) -> SequentialTest:
    """The test from outcomes by task, each list in repeat order (repeat r of the variant paired with repeat r of
    the start: the same seed, so the same parameters)."""
    tasks = sorted(set(base) & set(mine))
    return run_looks([[int(b) - int(a) for a, b in zip(base[t], mine[t])] for t in tasks], schedule)


# --- power ----------------------------------------------------------------------------------------------------------

POWER_DRAWS = 400
POWER_SEED = 20261205


def power(tasks: int, schedule: Schedule, difference: float, discordance: float, draws: int = POWER_DRAWS,
          seed: int = POWER_SEED) -> tuple[float, float]:
    """(how often the test calls a variant clearly better when it is `difference` better, the trials it runs on
    average, both sides counted), simulated as `planning.power` does: each trial pair discordant with probability
    `discordance`, leaning the variant's way by `difference`, every task alike."""
    if tasks < 1 or not 0 < discordance <= 1 or not 0 <= difference <= discordance:
        raise ValueError("tasks must be at least 1, the discordance in (0, 1] and the difference in [0, discordance]")
    up, either = (discordance + difference) / 2, discordance
    rng = random.Random(seed)
    hits, trials = 0, 0
    for _ in range(draws):
        diffs = [[1 if u < up else -1 if u < either else 0 for u in (rng.random() for _ in
                                                                       range(schedule.max_repeats))]
                 for _ in range(tasks)]
        test = run_looks(diffs, schedule)
        hits += test.decision == BETTER
        trials += 2 * tasks * test.repeats
    return hits / draws, trials / draws
