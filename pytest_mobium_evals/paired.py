"""Surface variants judged against `baseline`, per model setting: the paired statistics and the before/after table a
Mobium PR can carry.

Every variant ran the same tasks with the same seeds (so the same parameters) as baseline, so a task is its own
control: the paired difference in pass rate, with a task-clustered paired bootstrap 95% interval
(`intervals.paired_difference`); an exact sign test (McNemar's, exact) on the tasks whose pass rate moved; "clear"
when the interval excludes 0; the tasks that flipped each way; and what a trial cost (tool calls, tokens, dollars),
since a richer description can cost steps. Dev and held-out tasks are computed and shown apart, never merged: a
variant is called better only on held out."""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from statistics import NormalDist
from typing import Optional

from .intervals import bootstrap_over_tasks, paired_difference
from .split import SPLITS, split_of

BASELINE = "baseline"


@dataclass
class SideCost:
    trials: int = 0
    tool_calls: float = 0.0
    tokens: float = 0.0
    cost_usd: float = 0.0

    def line(self) -> str:
        return f"{self.tool_calls:.1f} calls, {self.tokens:,.0f} tokens, ${self.cost_usd:.4f} a trial"


@dataclass
class Comparison:
    """One variant against baseline, for one model setting and one split."""

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
    sign_p: Optional[float] = None
    cost: SideCost = field(default_factory=SideCost)
    base_cost: SideCost = field(default_factory=SideCost)
    surface_hashes: list[str] = field(default_factory=list)
    trials: dict[str, list[str]] = field(default_factory=dict)  # task → the variant's trial folders, by repeat

    @property
    def clear(self) -> bool:
        return self.low is not None and (self.low > 0 or self.high < 0)

    @property
    def call(self) -> str:
        """The verdict in words: only held-out tasks may call a variant better or worse."""
        if self.delta is None:
            return "no common tasks"
        if not self.clear:
            return "not clear"
        direction = "better" if self.delta > 0 else "worse"
        return f"{direction} on dev (tuning only)" if self.split == "dev" else f"clearly {direction}"


def sign_test(up: int, down: int) -> Optional[float]:
    """Two-sided exact sign test (McNemar's exact test) on the discordant tasks: P(at least this lopsided | no
    effect). None when no task moved."""
    n = up + down
    if n == 0:
        return None
    k = min(up, down)
    tail = sum(math.comb(n, i) for i in range(k + 1)) / 2 ** n
    return min(1.0, 2 * tail)


def _outcomes(trials) -> dict[str, list[bool]]:
    out: dict[str, list[bool]] = {}
    for t in sorted(trials, key=lambda t: (t.task, t.repeat)):
        out.setdefault(t.task, []).append(t.passed)
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
    return trial.record.split or split_of(trial.task)


def compare_run(run) -> list[Comparison]:
    """Every variant against baseline, per model setting and split, from one run folder (runfolder.Run)."""
    by_model: dict[str, dict[str, list]] = {}
    for t in run.trials:
        surface = t.record.surface
        if t.setting.is_control or not surface:
            continue
        model = f"{t.model}:{t.setting.effort}" if t.setting.effort else t.model
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
                     mine: dict[str, list[bool]]) -> Comparison:
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
    return Comparison(model=model, variant=variant, split=split, tasks=len(set(base) & set(mine)),
                      rate=rate.rate, rate_low=rate.low, rate_high=rate.high, base_rate=base_rate.rate,
                      delta=None if diff is None else diff.delta, low=None if diff is None else diff.low,
                      high=None if diff is None else diff.high, better=better, worse=worse,
                      sign_p=sign_test(len(better), len(worse)))


def compare_trials(model: str, variant: str, split: str, base: list, mine: list) -> Comparison:
    """One variant's trials against another's (runfolder.Trial lists of one split): what compare_run computes for
    each variant against baseline, for any two (the hillclimb compares its candidates with the variant it began
    from)."""
    return _compare(model, variant, split, base, mine)


def _compare(model: str, variant: str, split: str, base: list, mine: list) -> Comparison:
    c = compare_outcomes(model, variant, split, _outcomes(base), _outcomes(mine))
    c.cost, c.base_cost = _cost(mine), _cost(base)
    c.surface_hashes = sorted({(t.record.surface_seen or {}).get("hash") or "?" for t in mine})
    for t in sorted(mine, key=lambda t: (t.task, t.repeat)):
        c.trials.setdefault(t.task, []).append(t.name)
    return c


def _linked(c: Comparison, tasks: list[str]) -> str:
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


def _pts(x: Optional[float]) -> str:
    return "–" if x is None else f"{100 * x:+.0f}"


def table_markdown(comparisons: list[Comparison]) -> str:
    """The before/after table: per variant, dev and held out apart."""
    if not comparisons:
        return ""
    lines = ["| model | variant | split | tasks | baseline | variant (95% CI) | paired Δ pts (95% CI) | call | "
             "sign p | better | worse | cost a trial (variant vs baseline) |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for c in comparisons:
        lines.append(
            f"| {c.model} | {c.variant} | {c.split} | {c.tasks} | {_pct(c.base_rate)} | {_pct(c.rate)} "
            f"({_pct(c.rate_low)}–{_pct(c.rate_high)}) | {_pts(c.delta)} ({_pts(c.low)} to {_pts(c.high)}) | "
            f"{c.call} | {'–' if c.sign_p is None else f'{c.sign_p:.3g}'} | {_linked(c, c.better)} | "
            f"{_linked(c, c.worse)} | {c.cost.tool_calls:.1f} vs {c.base_cost.tool_calls:.1f} calls, "
            f"{c.cost.tokens:,.0f} vs {c.base_cost.tokens:,.0f} tokens, ${c.cost.cost_usd:.4f} vs "
            f"${c.base_cost.cost_usd:.4f} |")
    return "\n".join(lines)


def table_html(comparisons: list[Comparison]) -> str:
    import html

    if not comparisons:
        return ""
    rows = []
    for c in comparisons:
        cells = [c.model, c.variant, c.split, str(c.tasks), _pct(c.base_rate),
                 f"{_pct(c.rate)} ({_pct(c.rate_low)}–{_pct(c.rate_high)})",
                 f"{_pts(c.delta)} ({_pts(c.low)} to {_pts(c.high)})", c.call,
                 "–" if c.sign_p is None else f"{c.sign_p:.3g}", ", ".join(c.better) or "–",
                 ", ".join(c.worse) or "–", f"{c.cost.tool_calls:.1f} vs {c.base_cost.tool_calls:.1f}",
                 ", ".join(c.surface_hashes)]
        rows.append("<tr>" + "".join(f"<td>{html.escape(x)}</td>" for x in cells) + "</tr>")
    head = ["model", "variant", "split", "tasks", "baseline", "variant (95% CI)", "paired Δ pts (95% CI)", "call",
            "sign p", "better on", "worse on", "tool calls a trial", "surface seen (hash)"]
    return ("<h2>Surface variants against baseline</h2><p>Dev tasks tune a variant; only held-out tasks call it "
            "better. The two are never merged.</p><table class=\"surface-table\"><tr>"
            + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>" + "".join(rows) + "</table>")


# --- planning -------------------------------------------------------------------------------------------------------

Z_POWER = NormalDist().inv_cdf(0.80)
Z_ALPHA = NormalDist().inv_cdf(0.975)


def detectable_difference(tasks: int, repeats: int, discordance: float) -> float:
    """The smallest paired difference in pass rate a run detects at 80% power (two-sided 5%): each trial pair
    differs by −1, 0 or +1, discordant with probability `discordance`, so a pair's variance is at most that rate.
    It counts every trial pair as independent: where a task's repeats flip together (a fact the task needs, missing
    every time) they count nearer to one, and the task-clustered interval of the run itself comes out wider."""
    if tasks < 1 or repeats < 1 or not 0 < discordance <= 1:
        raise ValueError("tasks and repeats must be at least 1, and the discordance a rate in (0, 1]")
    return (Z_ALPHA + Z_POWER) * math.sqrt(discordance / (tasks * repeats))


def repeats_needed(tasks: int, difference: float, discordance: float) -> int:
    if tasks < 1 or not 0 < difference <= 1 or not 0 < discordance <= 1:
        raise ValueError("tasks must be at least 1, the difference in (0, 1] and the discordance in (0, 1]")
    return max(1, math.ceil(discordance * (Z_ALPHA + Z_POWER) ** 2 / (tasks * difference ** 2)))


def observed_discordance(run) -> Optional[float]:
    """The share of paired trials (same task, repeat and model) whose outcomes differ: between each variant and
    baseline when the run has variants, else between consecutive repeats of one setting (test–retest)."""
    pairs = discordant = 0
    cells: dict[tuple, dict] = {}
    for t in run.trials:
        if t.setting.is_control:
            continue
        cells.setdefault((t.model, t.setting.effort, t.task, t.repeat), {})[t.record.surface or ""] = t.passed
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


def add_arguments(parser) -> None:
    parser.add_argument("--tasks", type=int, help="how many tasks (held out, if that is what will be judged)")
    parser.add_argument("--repeats", type=int, help="repeats a task and variant; omit with --difference to "
                        "get the repeats needed")
    parser.add_argument("--discordance", type=float, help="the share of paired trials whose outcomes differ")
    parser.add_argument("--from", dest="from_run", metavar="RUN", help="an earlier run: its discordance (and, "
                        "without --tasks, its task count)")
    parser.add_argument("--difference", type=float, help="a difference in pass rate to detect (0.1 = 10 points)")


def run(args) -> int:
    from .cli import CliError

    tasks, discordance = args.tasks, args.discordance
    if args.from_run:
        from .runfolder import load_run

        earlier = load_run(args.from_run, require_complete=False)
        if discordance is None:
            discordance = observed_discordance(earlier)
            if discordance is None:
                raise CliError(f"{args.from_run}: no paired trials (needs variants or --repeats of 2 or more)")
            print(f"discordance in {args.from_run}: {100 * discordance:.1f}% of paired trials")
        tasks = tasks or len({t.task for t in earlier.trials if not t.setting.is_control})
    if not tasks or discordance is None:
        raise CliError("give --tasks and --discordance, or --from RUN")
    if discordance == 0:
        raise CliError("a discordance of 0: no trial pair differed, so no difference is measurable; state a rate")
    try:
        if args.difference is not None and args.repeats is None:
            need = repeats_needed(tasks, args.difference, discordance)
            print(f"{tasks} tasks, discordance {100 * discordance:.1f}%: {need} repeats a task detect a "
                  f"{100 * args.difference:.0f}-point difference at 80% power (two-sided 5%)")
        else:
            repeats = args.repeats or 1
            mde = detectable_difference(tasks, repeats, discordance)
            print(f"{tasks} tasks x {repeats} repeats, discordance {100 * discordance:.1f}%: the smallest "
                  f"difference detectable at 80% power (two-sided 5%) is {100 * mde:.1f} points")
    except ValueError as exc:
        raise CliError(str(exc)) from None
    return 0


# --- in the reports -------------------------------------------------------------------------------------------------

SURFACES_MD = "surfaces.md"


def section_markdown(run) -> str:
    table = table_markdown(compare_run(run))
    if not table:
        return ""
    return ("## Surface variants against baseline\n\nThe same tasks and seeds under each variant, per model setting. "
            "Dev tasks tune a variant; only held-out tasks call it better, and the two are never merged. Δ is "
            "variant − baseline in points, with a task-clustered paired bootstrap 95% interval; \"sign p\" is the "
            "exact sign (McNemar) test on the tasks that moved.\n\n" + table + "\n")


def section_html(run) -> str:
    return table_html(compare_run(run))
