"""Surface variants judged against `baseline`, per model setting: the paired statistics and the before/after table a
Mobium PR can carry.

Every variant ran the same tasks with the same seeds (so the same parameters) as baseline, so a task is its own
control. The call is an exact paired randomisation test over tasks: each task's difference in pass rate (its
repeats averaged), and the share of the 2^n ways of flipping those differences' signs that give a total at least
as far out as the one observed. "Clearly better" needs that one-sided p at most 2.5% (so two-sided 5%); by
construction a variant no different from baseline is called clearly better at most 2.5% of the time, whatever the
number of tasks or repeats (tests/surfaces/test_paired.py simulates it). With n tasks the smallest p there is is
2^-n, so with 5 tasks or fewer nothing can be clear, and the call says so. Beside it, descriptively: the paired
difference with a task-clustered bootstrap 95% interval (`intervals.paired_difference`), the tasks that moved each
way, and what a trial cost (tool calls, tokens, dollars), since a richer description can cost steps. Dev and held-out
tasks are computed and shown apart, never merged: a variant is called better only on held out."""

from __future__ import annotations

import html
import math
import random
from dataclasses import dataclass, field
from fractions import Fraction
from functools import lru_cache
from typing import Any, Optional, Sequence

from pytest_mobium_evals.core.errors import UsageError
from pytest_mobium_evals.core.split import SPLITS, split_of

from .intervals import bootstrap_over_tasks, paired_difference
from .sequential import LEVEL, Schedule
from .sequential import power as sequential_power

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
    tokens = sum(((t.record.tokens or {}).get("input") or 0) + ((t.record.tokens or {}).get("output") or 0)
                 for t in trials)
    return SideCost(n, sum(t.record.tool_calls or 0 for t in trials) / n, tokens / n,
                    sum(t.record.cost_usd or 0.0 for t in trials) / n)


def task_split(trial) -> str:
    return trial.record.split or split_of(trial.record.task)


def compare_run(run) -> list[PairedComparison]:
    """Every variant against baseline, per model setting and split, from one run folder (runfolder.Run)."""
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
    """One variant's trials against another's (runfolder.Trial lists of one split): what compare_run computes for
    each variant against baseline, for any two (the hillclimb compares its candidates with the variant it began
    from)."""
    return _compare(model, variant, split, base, mine)


def _compare(model: str, variant: str, split: str, base: list, mine: list) -> PairedComparison:
    c = compare_outcomes(model, variant, split, _outcomes(base), _outcomes(mine))
    c.cost, c.base_cost = _cost(mine), _cost(base)
    c.surface_hashes = sorted({(t.record.surface_seen or {}).get("hash") or "?" for t in mine})
    for t in sorted(mine, key=lambda t: (t.record.task, t.record.repeat)):
        c.trials.setdefault(t.record.task, []).append(t.name)
    return c


def _linked(c: PairedComparison, tasks: list[str]) -> str:
    """Flipped tasks, each with links to the variant's trials: relative to the run folder, where the tables go, or
    (a name with a "/") to wherever the table is written."""
    if not tasks:
        return "–"
    out = []
    for task in tasks:
        links = [f"[r{i}]({name if '/' in name else f'trials/{name}'}/transcript.jsonl)"
                 for i, name in enumerate(c.trials.get(task, []))]
        out.append(f"{task} ({', '.join(links)})" if links else task)
    return ", ".join(out)


def _pct(x: Optional[float]) -> str:
    return "–" if x is None else f"{100 * x:.0f}%"


def _p(x: Optional[float]) -> str:
    return "–" if x is None else f"{x:.3g}"


def _pts(x: Optional[float]) -> str:
    return "–" if x is None else f"{100 * x:+.0f}"


def table_markdown(comparisons: list[PairedComparison], one_sided: bool = False) -> str:
    """The before/after table: per variant, dev and held out apart. Its p is the exact test's two-sided p, or with
    `one_sided` the one-sided p that the variant is better (`p_better`), as the hillclimb says it; the header says
    which."""
    if not comparisons:
        return ""
    lines = ["| model | variant | split | tasks | baseline | variant (95% CI) | paired Δ pts (95% CI) | call | "
             f"{'one-sided p (better)' if one_sided else 'exact p'} | better | worse | cost a trial (variant vs "
             "baseline) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for c in comparisons:
        lines.append(
            f"| {c.model} | {c.variant} | {c.split} | {c.tasks} | {_pct(c.base_rate)} | {_pct(c.rate)} "
            f"({_pct(c.rate_low)}–{_pct(c.rate_high)}) | {_pts(c.delta)} ({_pts(c.low)} to {_pts(c.high)}) | "
            f"{c.call} | {_p(c.p_better if one_sided else c.p)} | {_linked(c, c.better)} | "
            f"{_linked(c, c.worse)} | {c.cost.tool_calls:.1f} vs {c.base_cost.tool_calls:.1f} calls, "
            f"{c.cost.tokens:,.0f} vs {c.base_cost.tokens:,.0f} tokens, ${c.cost.cost_usd:.4f} vs "
            f"${c.base_cost.cost_usd:.4f} |")
    return "\n".join(lines)


def table_html(comparisons: list[PairedComparison]) -> str:
    if not comparisons:
        return ""
    rows = []
    for c in comparisons:
        cells = [c.model, c.variant, c.split, str(c.tasks), _pct(c.base_rate),
                 f"{_pct(c.rate)} ({_pct(c.rate_low)}–{_pct(c.rate_high)})",
                 f"{_pts(c.delta)} ({_pts(c.low)} to {_pts(c.high)})", c.call,
                 "–" if c.p is None else f"{c.p:.3g}", ", ".join(c.better) or "–",
                 ", ".join(c.worse) or "–", f"{c.cost.tool_calls:.1f} vs {c.base_cost.tool_calls:.1f}",
                 ", ".join(c.surface_hashes)]
        rows.append("<tr>" + "".join(f"<td>{html.escape(x)}</td>" for x in cells) + "</tr>")
    head = ["model", "variant", "split", "tasks", "baseline", "variant (95% CI)", "paired Δ pts (95% CI)", "call",
            "exact p", "better on", "worse on", "tool calls a trial", "surface seen (hash)"]
    return ("<h2>Surface variants against baseline</h2><p>Dev tasks tune a variant; only held-out tasks call it "
            "better. The two are never merged.</p><table class=\"surface-table\"><tr>"
            + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>" + "".join(rows) + "</table>")


# --- planning -------------------------------------------------------------------------------------------------------

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


def add_arguments(parser) -> None:
    parser.add_argument("--tasks", type=int, help="how many held-out tasks will judge the variant")
    parser.add_argument("--repeats", type=int, help="repeats a task and variant")
    parser.add_argument("--discordance", type=float, help="the share of paired trials whose outcomes differ")
    parser.add_argument("--from", dest="from_run", metavar="RUN", help="an earlier run: its discordance, and "
                        "(unless given) its held-out task count and its repeats")
    parser.add_argument("--difference", type=float, help="a difference in pass rate to decide (0.1 = 10 points): "
                        "the chance this run calls it clear, and the smallest held-out sets that would")
    parser.add_argument("--looks", type=int, metavar="N", help="as the hillclimb's held-out test: a look after "
                        "every --repeats repeats, at most N; its power, its trials on average, and the smallest "
                        "held-out sets for it")


def plan_lines(tasks: Optional[int], repeats: int, discordance: float, difference: Optional[float],
               looks: Optional[int] = None) -> list[str]:
    """What `plan` prints: the exact test's reach at these held-out tasks and repeats, and (for a difference) the
    smallest held-out sets and repeats that decide it; with `looks`, the same for the hillclimb's held-out test in
    looks (sequential.py)."""
    fewest = min_tasks_to_decide()
    lines = []
    shape = f"{tasks} held-out tasks x {repeats} repeats, discordance {100 * discordance:.1f}%"
    if tasks is not None and tasks < fewest:
        # One line, and nothing after it for these tasks: no repeats or looks can reach the level.
        lines.append(f"{shape}: cannot be clear with {tasks} held-out tasks (the exact test's smallest p is "
                     f"1/{2 ** tasks}, over the {100 * LEVEL:g}% a side it needs; {fewest} tasks at least)")
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


def run(args) -> int:
    tasks, repeats, discordance = args.tasks, args.repeats, args.discordance
    if args.from_run:
        from pytest_mobium_evals.runfolder.reading import load_run  # noqa: PLC0415  loads pydantic (the record), only for --from-run

        earlier = load_run(args.from_run, require_complete=False)
        held, ran = held_out_shape(earlier)
        if discordance is None:
            discordance = observed_discordance(earlier)
            if discordance is None:
                raise UsageError(f"{args.from_run}: no paired trials (needs variants or --repeats of 2 or more)")
            print(f"discordance in {args.from_run}: {100 * discordance:.1f}% of paired trials")
        if tasks is None:
            if not held:
                raise UsageError(f"{args.from_run}: no held-out trials; give --tasks")
            tasks = held
        repeats = repeats or ran or None
    if discordance is None or (tasks is None and args.difference is None):
        raise UsageError("give --tasks and --discordance, or --from RUN")
    if discordance == 0:
        raise UsageError("a discordance of 0: no trial pair differed, so no difference is measurable; state a rate")
    try:
        if args.looks is not None and args.looks < 1:
            raise ValueError(f"--looks {args.looks}: must be at least 1")
        for line in plan_lines(tasks, repeats or 1, discordance, args.difference, args.looks):
            print(line)
    except ValueError as exc:
        raise UsageError(str(exc)) from None
    return 0


# --- in the reports -------------------------------------------------------------------------------------------------

SURFACES_MD = "surfaces.md"


def section_markdown(run) -> str:
    table = table_markdown(compare_run(run))
    if not table:
        return ""
    return ("## Surface variants against baseline\n\nThe same tasks and seeds under each variant, per model setting. "
            "Dev tasks tune a variant; only held-out tasks call it better, and the two are never merged. Δ is "
            "variant − baseline in points, with a task-clustered paired bootstrap 95% interval (a description); the "
            "call is the exact paired randomisation test over tasks (sign flips of each task's difference, its "
            "repeats averaged), \"clearly\" at one-sided p ≤ 2.5%; \"exact p\" is its two-sided p. With 5 tasks "
            "or fewer no result can be clear.\n\n" + table + "\n")


def section_html(run) -> str:
    return table_html(compare_run(run))
