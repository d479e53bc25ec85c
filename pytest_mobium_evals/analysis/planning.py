"""What held-out tasks and repeats can decide with the exact paired test (analysis/paired.py): the chance a run calls
a difference clear (its power, by simulation), the smallest held-out sets that would, the smallest difference a
set decides, and a run's own discordance (how often paired trials' outcomes differ) and held-out shape to plan from.
`mobium-evals plan` (commands/plan.py) prints it."""

from __future__ import annotations

import math
import random
from typing import Optional

from .paired import BASELINE, LEVEL, min_tasks_to_decide, sign_flip_test, task_split
from .sequential import Schedule
from .sequential import power as sequential_power

POWER = 0.80
PLAN_DRAWS = 400  # simulated runs a power figure rests on: its error is about ±2 points
PLAN_SEED = 20261202  # fixed: the same question always prints the same plan
PLAN_REPEATS = (1, 2, 3, 5)
PLAN_MAX_TASKS = 80


def power(tasks: int, repeats: int, difference: float, discordance: float, draws: int = PLAN_DRAWS,
          seed: int = PLAN_SEED) -> float:
    """How often the exact test calls a variant clearly better when it truly is `difference` better: simulated, each
    trial pair discordant with probability `discordance`, the discordant pairs leaning the variant's way by
    `difference`. Every task shares the one effect and its repeats are independent; where a task's repeats fail
    together the run has less to go on than this says."""
    if tasks < 1 or repeats < 1 or not 0 < discordance <= 1 or not 0 < difference <= 1:
        raise ValueError("tasks and repeats must be at least 1, the difference and discordance rates in (0, 1]")
    if difference > discordance:
        raise ValueError(f"a {100 * difference:.0f}-point difference needs at least that share of paired trials to "
                         f"differ; the discordance is {100 * discordance:.1f}%")
    if 2.0 ** -tasks > LEVEL:
        return 0.0
    up = (discordance + difference) / 2
    either = discordance
    rng = random.Random(seed)
    hits = 0
    for _ in range(draws):
        moved = []
        for _ in range(tasks):
            k = 0
            for _ in range(repeats):
                u = rng.random()
                k += 1 if u < up else -1 if u < either else 0
            moved.append(k)  # the task's difference times its repeats: the same test
        test = sign_flip_test(moved)
        hits += test is not None and test.better <= LEVEL
    return hits / draws


def smallest_tasks(repeats: int, difference: float, discordance: float) -> Optional[int]:
    """The fewest held-out tasks with which `repeats` a task call `difference` clear at 80% power (None: not
    within PLAN_MAX_TASKS)."""
    low, high = min_tasks_to_decide(), PLAN_MAX_TASKS
    if power(high, repeats, difference, discordance) < POWER:
        return None
    while low < high:
        mid = (low + high) // 2
        if power(mid, repeats, difference, discordance) >= POWER:
            high = mid
        else:
            low = mid + 1
    return low


def detectable_difference(tasks: int, repeats: int, discordance: float) -> Optional[float]:
    """The smallest difference, to the point, the exact test calls clear at 80% power over `tasks` x `repeats`; None
    when none can be (too few tasks, or not even a difference as large as the discordance)."""
    if tasks < 1 or repeats < 1 or not 0 < discordance <= 1:
        raise ValueError("tasks and repeats must be at least 1, and the discordance a rate in (0, 1]")
    top = math.floor(100 * discordance)
    if top < 1 or power(tasks, repeats, top / 100, discordance) < POWER:
        return None
    low, high = 1, top
    while low < high:
        mid = (low + high) // 2
        if power(tasks, repeats, mid / 100, discordance) >= POWER:
            high = mid
        else:
            low = mid + 1
    return low / 100


def observed_discordance(run, split: Optional[str] = None) -> Optional[float]:
    """The share of paired trials (same task, repeat and model) whose outcomes differ: between each variant and
    baseline when the run has variants, else between consecutive repeats of one setting (test–retest). Only the
    tasks of `split` when given."""
    pairs = discordant = 0
    cells: dict[tuple, dict] = {}
    for t in run.trials:
        if t.record.is_control or (split is not None and task_split(t) != split):
            continue
        key = (t.record.model_name, t.record.effort or None, t.record.task, t.record.repeat)
        cells.setdefault(key, {})[t.record.surface or ""] = t.record.passed
    variants = any(len(v) > 1 for v in cells.values())
    if variants:
        for sides in cells.values():
            if BASELINE in sides:
                for name, passed in sides.items():
                    if name != BASELINE:
                        pairs += 1
                        discordant += passed != sides[BASELINE]
    else:
        runs: dict[tuple, list[tuple[int, bool]]] = {}
        for (model, effort, task, repeat), sides in cells.items():
            runs.setdefault((model, effort, task), []).extend((repeat, p) for p in sides.values())
        for series in runs.values():
            series.sort()
            for (_, a), (_, b) in zip(series, series[1:]):
                pairs += 1
                discordant += a != b
    return discordant / pairs if pairs else None


def held_out_shape(run) -> tuple[int, int]:
    """A run's held-out tasks and its repeats a task (the most any held-out task ran)."""
    by_task: dict[str, set[int]] = {}
    for t in run.trials:
        if not t.record.is_control and task_split(t) == "held_out":
            by_task.setdefault(t.record.task, set()).add(t.record.repeat)
    return len(by_task), max((len(r) for r in by_task.values()), default=0)


def plan_lines(tasks: Optional[int], repeats: int, discordance: float, difference: Optional[float],
               looks: Optional[int] = None) -> list[str]:
    """What `plan` prints: the exact test's reach at these held-out tasks and repeats, and (for a difference) the
    smallest held-out sets and repeats that decide it; with `looks`, the same for the hillclimb's held-out test in
    looks (sequential.py)."""
    fewest = min_tasks_to_decide()
    lines = []
    shape = f"{tasks} held-out tasks x {repeats} repeats, discordance {100 * discordance:.1f}%"
    if tasks is not None and tasks < fewest:
        lines.append(f"{shape}: cannot be clear with {tasks} held-out tasks (the exact test's smallest p is "
                     f"1/{2 ** tasks}, over the {100 * LEVEL:g}% a side it needs; {fewest} tasks at least)")
        # One line, and nothing after it for these tasks: no repeats or looks can reach the level.
        if looks:
            return lines + sequential_lines(None, repeats, looks, discordance, difference)
    elif tasks is not None and difference is None:
        mde = detectable_difference(tasks, repeats, discordance)
        lines.append(f"{shape}: no difference is decided at 80% power" if mde is None else
                     f"{shape}: the smallest difference the exact test calls clear at 80% power is "
                     f"{100 * mde:.0f} points")
    elif tasks is not None:
        chance = power(tasks, repeats, difference, discordance)
        lines.append(f"{shape}: a {100 * difference:.0f}-point difference is called clearly better "
                     f"{100 * chance:.0f}% of the time")
    if difference is not None:
        sets = []
        for r in PLAN_REPEATS:
            n = smallest_tasks(r, difference, discordance)
            sets.append(f"{n} tasks x {r} repeat{'s' if r > 1 else ''}" if n is not None
                        else f"over {PLAN_MAX_TASKS} tasks x {r} repeat{'s' if r > 1 else ''}")
        lines.append(f"to decide a {100 * difference:.0f}-point difference at 80% power (discordance "
                     f"{100 * discordance:.1f}%), the smallest held-out sets: {'; '.join(sets)}")
    if looks:
        lines += sequential_lines(tasks, repeats, looks, discordance, difference)
    return lines


def sequential_lines(tasks: Optional[int], repeats: int, looks: int, discordance: float,
                     difference: Optional[float]) -> list[str]:
    """`plan --looks`: the hillclimb's held-out test (a look after every `repeats`, at most `looks`): its power at
    `difference` over `tasks`, and the fewest held-out tasks that give it 80%."""
    schedule = Schedule(repeats, looks)
    lines = []
    if difference is None:
        return [f"the hillclimb's held-out test ({schedule.words()}): give --difference for its power"]
    if tasks is not None:
        chance, trials = sequential_power(tasks, schedule, difference, discordance)
        lines.append(f"the hillclimb's held-out test over {tasks} tasks ({schedule.words()}): a "
                     f"{100 * difference:.0f}-point difference is called clearly better {100 * chance:.0f}% of the "
                     f"time, in {trials:.0f} trials on average (at most {2 * tasks * schedule.max_repeats})")
    low, high = min_tasks_to_decide(), PLAN_MAX_TASKS
    if sequential_power(high, schedule, difference, discordance)[0] < POWER:
        return lines + [f"the hillclimb's held-out test: over {PLAN_MAX_TASKS} held-out tasks to decide a "
                        f"{100 * difference:.0f}-point difference at 80% power"]
    while low < high:
        mid = (low + high) // 2
        if sequential_power(mid, schedule, difference, discordance)[0] >= POWER:
            high = mid
        else:
            low = mid + 1
    return lines + [f"the hillclimb's held-out test decides a {100 * difference:.0f}-point difference at 80% power "
                    f"with {low} held-out tasks or more"]
