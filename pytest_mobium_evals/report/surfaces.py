"""The surface variants against baseline as report.md, compare, the step summary and the HTML report show them: the
before/after table (per model setting and variant, dev and held out apart, with the flipped tasks linked to their
transcripts) from analysis/paired.py's comparisons."""

from __future__ import annotations

import html
from typing import Optional

from pytest_mobium_evals.analysis.paired import PairedComparison, compare_run
from pytest_mobium_evals.runfolder.layout import TRANSCRIPT, trial_link


def _linked(c: PairedComparison, tasks: list[str]) -> str:
    """Flipped tasks, each with links to the variant's trials: relative to the run folder, where the tables go, or
    (a name with a "/") to wherever the table is written."""
    if not tasks:
        return "–"
    out = []
    for task in tasks:
        links = [f"[r{i}]({f'{name}/{TRANSCRIPT}' if '/' in name else trial_link(name, TRANSCRIPT)})"
                 for i, name in enumerate(c.trials.get(task, []))]
        out.append(f"{task} ({', '.join(links)})" if links else task)
    return ", ".join(out)


def pct(x: Optional[float]) -> str:
    """A rate as a whole percentage ("–" when there is none)."""
    return "–" if x is None else f"{100 * x:.0f}%"


def pts(x: Optional[float]) -> str:
    """A difference in rate as signed points ("+12"; "–" when there is none)."""
    return "–" if x is None else f"{100 * x:+.0f}"


def p_value(x: Optional[float]) -> str:
    """A p to three figures ("–" when there is none)."""
    return "–" if x is None else f"{x:.3g}"


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
            f"| {c.model} | {c.variant} | {c.split} | {c.tasks} | {pct(c.base_rate)} | {pct(c.rate)} "
            f"({pct(c.rate_low)}–{pct(c.rate_high)}) | {pts(c.delta)} ({pts(c.low)} to {pts(c.high)}) | "
            f"{c.call} | {p_value(c.p_better if one_sided else c.p)} | {_linked(c, c.better)} | "
            f"{_linked(c, c.worse)} | {c.cost.tool_calls:.1f} vs {c.base_cost.tool_calls:.1f} calls, "
            f"{c.cost.tokens:,.0f} vs {c.base_cost.tokens:,.0f} tokens, ${c.cost.cost_usd:.4f} vs "
            f"${c.base_cost.cost_usd:.4f} |")
    return "\n".join(lines)


def table_html(comparisons: list[PairedComparison]) -> str:
    if not comparisons:
        return ""
    rows = []
    for c in comparisons:
        cells = [c.model, c.variant, c.split, str(c.tasks), pct(c.base_rate),
                 f"{pct(c.rate)} ({pct(c.rate_low)}–{pct(c.rate_high)})",
                 f"{pts(c.delta)} ({pts(c.low)} to {pts(c.high)})", c.call,
                 "–" if c.p is None else f"{c.p:.3g}", ", ".join(c.better) or "–",
                 ", ".join(c.worse) or "–", f"{c.cost.tool_calls:.1f} vs {c.base_cost.tool_calls:.1f}",
                 ", ".join(c.surface_hashes)]
        rows.append("<tr>" + "".join(f"<td>{html.escape(x)}</td>" for x in cells) + "</tr>")
    head = ["model", "variant", "split", "tasks", "baseline", "variant (95% CI)", "paired Δ pts (95% CI)", "call",
            "exact p", "better on", "worse on", "tool calls a trial", "surface seen (hash)"]
    return ("<h2>Surface variants against baseline</h2><p>Dev tasks tune a variant; only held-out tasks call it "
            "better. The two are never merged.</p><table class=\"surface-table\"><tr>"
            + "".join(f"<th>{html.escape(h)}</th>" for h in head) + "</tr>" + "".join(rows) + "</table>")


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
