"""`mobium-evals report RUN [--regrade]`: report.md and pass-rate.png for a complete run folder.

Per setting: the pass rate with a 95% interval bootstrapped over tasks (three repeats of one task are not three
independent samples), the verdict counts, what was scheduled, graded and lost to infrastructure, each blocker on its
own line (blockers are never averaged away), a per-task table across repeats, tokens and cost. A controls run also
gets each control's declared verdict beside the one it got. `--regrade` grades the stored trials again with the
current answer rules and says which verdicts changed."""

from __future__ import annotations

import argparse
import os
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from . import injection_rates
from .catalog import default_task_paths, load_task_definitions
from .regrade import REGRADE, regrade_run, render_regrade, verdicts_changed
from .runfolder import Run, Setting, Trial, fmt_pct, load_run, run_facts, write_bytes_atomic, write_text_atomic
from .summary import Figures, Outcome, agent_pairs, difference_line, figures
from .summary import outcome_of as summary_outcome
from .verdicts import ALL_VERDICTS as KNOWN_VERDICTS

REPORT = "report.md"
CHART = "pass-rate.png"

SHORT = {"pass": "P", "false_success": "FS", "false_refusal": "FR", "honest_failure": "HF", "unreported": "U",
         "touched": "T", "wrong_reason": "WR", "infra_error": "IE"}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run", metavar="RUN", help="the run folder (runs/<run>)")
    parser.add_argument("--regrade", action="store_true",
                        help="grade the stored trials again with the current answer rules; writes regrade.md")
    parser.add_argument("--out", metavar="DIR", help="where to write report.md and the chart (default: the run)")
    parser.add_argument("--tasks-path", metavar="PATH", action="append",
                        help="a task suite folder or file whose answer rules --regrade uses (default: tasks/)")


def run(args: argparse.Namespace) -> int:
    run_ = load_run(args.run)
    out = Path(args.out) if args.out else run_.path
    changes: list = []
    if args.regrade:
        paths = [Path(p) for p in args.tasks_path] if args.tasks_path else default_task_paths()
        changes = regrade_run(run_, load_task_definitions(paths), progress=_progress)
        write_text_atomic(out / REGRADE, render_regrade(run_, changes))
        print(f"regraded {len(run_.trials)} trials: {verdicts_changed(changes)} verdict(s) changed; "
              f"see {out / REGRADE}", file=sys.stderr)
    summaries = summarize_run(run_)
    write_bytes_atomic(out / CHART, draw_chart(summaries, title=f"Run {run_.name} · bars: rate · whiskers: 95% "
                                                                  "interval bootstrapped over tasks",
                                               controls=run_.is_controls_run()))
    text = render_report(run_, summaries, regraded=changes if args.regrade else None, out=out)
    write_text_atomic(out / REPORT, text)
    print(f"wrote {out / REPORT} and {out / CHART}", file=sys.stderr)
    return 0


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# --- numbers ----------------------------------------------------------------------------------------------------

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
    figures: Optional[Figures] = None  # summary.py's figures: the same numbers the terminal and the HTML show

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
    for trial in sorted(trials, key=lambda t: (order.get(t.task, len(order)), t.task, t.repeat)):
        per_task.setdefault(trial.task, []).append(trial)
    # infra errors stay in the denominator: a trial that could not run is not a trial that passed
    figs = setting_figures(setting, trials, scheduled=len(trials) + missing, with_interval=with_interval)
    rate = figs.rate.rate if trials else None
    interval = (figs.rate.low, figs.rate.high) if with_interval and trials else None
    summary = SettingSummary(
        setting=setting, trials=trials, scheduled=len(trials) + missing,
        infra_errors=sum(1 for t in trials if t.is_infra_error),
        verdicts=Counter(t.verdict for t in trials), per_task=per_task, rate=rate, interval=interval,
        blockers=[t for t in trials if t.gating_blockers],
        declared_blockers=[t for t in trials if t.blockers and not t.gating_blockers], figures=figs)
    for t in trials:
        tokens = t.record.tokens or {}
        summary.tokens_in += int(tokens.get("input") or 0)
        summary.tokens_out += int(tokens.get("output") or 0)
        if t.record.cost_usd is not None:
            summary.cost_usd += float(t.record.cost_usd)
            summary.cost_known = True
    return summary


def outcome_of(trial: Trial) -> Outcome:
    return summary_outcome(trial.record, trial.name)


def setting_figures(setting: Setting, trials: list[Trial], scheduled: Optional[int] = None,
                    with_interval: bool = True) -> Figures:
    return figures(setting.label, [outcome_of(t) for t in trials], control=setting.is_control, scheduled=scheduled,
                   with_interval=with_interval)


def summarize_run(run_: Run) -> list[SettingSummary]:
    return [summarize(s, ts, run_.task_ids) for s, ts in run_.by_setting().items()]


# --- report.md --------------------------------------------------------------------------------------------------

def render_report(run_: Run, summaries: list[SettingSummary], regraded: Optional[list] = None,
                  out: Optional[Path] = None) -> str:
    """report.md's text; links to transcripts and screens are relative to `out`, where report.md is written."""
    base = out or run_.path
    lines = [f"# Run {run_.name}", ""]
    from .paired import section_markdown

    # The same facts, in the same words, as the HTML report's facts table: worked out once, in run_facts.
    lines += [f"- {name}: {value}" for name, value in run_facts(run_)]
    if regraded is not None:
        lines.append(f"- Regraded with the current answer rules: {verdicts_changed(regraded)} verdict(s) "
                     f"changed (see {REGRADE})")
    lines += ["", f"![pass rate per setting]({CHART})", ""]
    lines += _settings_table(summaries)
    lines += section_markdown(run_).splitlines()
    lines += _verdict_table(summaries)
    lines += _blockers(base, summaries)
    lines += injection_rates.markdown(injection_rates.of_summaries(summaries))
    if any(s.setting.is_control for s in summaries):
        lines += _controls_table(run_, summaries)
    lines += _per_task_table(run_, summaries)
    lines += _failed_trials(base, summaries)
    return "\n".join(lines).rstrip() + "\n"


def _interval(s: SettingSummary) -> str:
    return "–" if s.interval is None else f"{round(100 * s.interval[0])}–{round(100 * s.interval[1])}%"


def _settings_table(summaries: list[SettingSummary]) -> list[str]:
    lines = ["## Settings", "",
             "Pass rate for the agent; for a control, the share of its trials graded as the task declares. "
             "The 95% interval is bootstrapped over tasks, not trials. Infra errors count as not passed.", "",
             "| Setting | Rate | 95% interval | pass^k | Scheduled | Graded | Infra errors | False success "
             "| Blockers | Obeyed injected text | Tokens in | Tokens out | Cost |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for s in summaries:
        cost = f"${s.cost_usd:.2f}" if s.cost_known else "–"
        pass_k = s.figures.pass_k_text() if s.figures and s.figures.pass_k else "–"
        lines.append(f"| {s.setting.label} | {fmt_pct(s.rate)} ({s.successes}/{len(s.trials)}) | {_interval(s)} "
                     f"| {pass_k} | {s.scheduled} | {s.graded} | {s.infra_errors} "
                     f"| {s.verdicts.get('false_success', 0)} | {len(s.blockers)} "
                     f"| {s.figures.injection_text() if s.figures else '–'} | {s.tokens_in:,} "
                     f"| {s.tokens_out:,} | {cost} |")
    lines.append("")
    if any(s.figures and s.figures.pass_k for s in summaries):
        lines += ["pass^k: the chance that all k repeats of a task pass (C(c, k) / C(n, k) per task, averaged over "
                  "tasks), with its 95% interval over tasks.", ""]
    pairs = agent_pairs([s.figures for s in summaries if s.figures])
    if pairs:
        lines += ["### Differences between settings", "",
                  "Paired over the same tasks and seed: the 95% interval comes from resampling tasks for both "
                  "settings at once. A difference whose interval holds 0 could be noise.", ""]
        lines += [f"- {difference_line(a, b)}" for a, b in pairs] + [""]
    return lines


def _verdict_table(summaries: list[SettingSummary]) -> list[str]:
    used = [v for v in KNOWN_VERDICTS if any(s.verdicts.get(v) for s in summaries)]
    lines = ["## Verdicts", "", "| Setting | " + " | ".join(used) + " |",
             "| --- |" + " --- |" * len(used)]
    for s in summaries:
        lines.append(f"| {s.setting.label} | " + " | ".join(str(s.verdicts.get(v, 0)) for v in used) + " |")
    return lines + [""]


def _link(base: Path, trial: Trial, name: str) -> Optional[str]:
    path = trial.path / name
    if not path.exists():
        return None
    return f"[{name}]({Path(os.path.relpath(path, base)).as_posix()})"


def _evidence(base: Path, trial: Trial) -> str:
    links = [x for x in (_link(base, trial, "transcript.jsonl"), _link(base, trial, "screen.png")) if x]
    return " · ".join(links) if links else "no transcript or screen kept"


@dataclass(frozen=True)
class BlockerRow:
    """One trial with a blocker, as every view lists it."""

    setting: str
    trial: Trial
    lines: tuple[str, ...]  # the gating blockers, or for a declared one the blockers it shows

    def text(self) -> str:
        return f"{self.trial.task} r{self.trial.repeat}, {self.setting}: {self.trial.verdict} — {'; '.join(self.lines)}"


#: Why a blocker of a control that got its declared verdict does not gate, said wherever "none" is said beside it.
DECLARED_BLOCKERS = ("Not gating: these trials have severity blocker, but each is a control that got the verdict it "
                     "is declared to get (the wrong or null control claiming a false success on an irreversible "
                     "action, a control obeying injected text, a near miss leaving a setting changed). The grader "
                     "caught what the script did, which is what the control is there to show.")


def blocker_rows(summaries: list[SettingSummary]) -> tuple[list[BlockerRow], list[BlockerRow]]:
    """(gating, declared): the trials whose blockers hold the decision, and the controls whose blockers are what
    they were declared to do. report.md and the HTML list both from here."""
    gating = [BlockerRow(s.setting.label, t, tuple(t.gating_blockers)) for s in summaries for t in s.blockers]
    declared = [BlockerRow(s.setting.label, t, tuple(t.blockers)) for s in summaries for t in s.declared_blockers]
    return gating, declared


def _blockers(base: Path, summaries: list[SettingSummary]) -> list[str]:
    lines = ["## Blockers", "", "A blocker holds the decision whatever the pass rate.", ""]
    gating, declared = blocker_rows(summaries)
    lines += [f"- **{r.trial.task}** r{r.trial.repeat}, {r.setting}: {r.trial.verdict} — {'; '.join(r.lines)} "
              f"({_evidence(base, r.trial)})" for r in gating]
    if not gating:
        lines.append("None gating." if declared else "None.")
    if declared:
        lines += ["", DECLARED_BLOCKERS, ""] + [f"- {r.text()}" for r in declared]
    return lines + [""]


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
    keys = sorted({(t.task, t.repeat) for s in controls for t in s.trials}, key=_task_sort(run_))
    index: dict = {}
    for s in controls:
        for t in s.trials:
            index.setdefault((s.setting, t.task, t.repeat), []).append(
                ControlCell(t.verdict, t.as_declared, t.record.expected, t.record.near_miss))
    rows = [(task, repeat, [index.get((s.setting, task, repeat), []) for s in controls]) for task, repeat in keys]
    wrong = sum(1 for _, _, cells in rows for cell in cells for c in cell if not c.ok)
    return [s.setting.driver for s in controls], rows, wrong


def _cell_text(cells: list) -> str:
    if not cells:
        return "–"
    return "<br>".join((f"{c.near_miss}: " if c.near_miss else "") +
                       (f"{c.verdict} ✓" if c.ok else f"**{c.verdict}** ✗ (declared {c.expected})") for c in cells)


def _controls_table(run_: Run, summaries: list[SettingSummary]) -> list[str]:
    columns, rows, wrong = controls_matrix(run_, summaries)
    lines = ["## Controls: declared vs got", "",
             "Each control must grade as its task declares before the grader's numbers count. The reference+ "
             "columns are the reference followed by what a model might do besides (30 s of the app's time, HOME, "
             "back to the menu, its answer in other forms), each of which must get the reference's verdict; "
             "near-miss lists each nearly-right action the task declares.", "",
             "| Task | Repeat | " + " | ".join(columns) + " |",
             "| --- | --- |" + " --- |" * len(columns)]
    for task, repeat, cells in rows:
        lines.append(f"| {task} | r{repeat} | " + " | ".join(_cell_text(c) for c in cells) + " |")
    lines += ["", "Every control graded as declared." if not wrong else
              f"**{wrong} control trial(s) did not grade as declared**: the grader is not validated for those tasks."]
    return lines + [""]


def _task_sort(run_: Run):
    order = {t: i for i, t in enumerate(run_.task_ids)}
    return lambda key: (order.get(key[0], len(order)), key[0], key[1:])


def _per_task_table(run_: Run, summaries: list[SettingSummary]) -> list[str]:
    lines = ["## Per task, across repeats", "",
             "One code per repeat: " + ", ".join(f"{c} {v}" for v, c in SHORT.items()) +
             ". For a control, ✗ marks a verdict other than the declared one.", "",
             "| Task | " + " | ".join(s.setting.label for s in summaries) + " |",
             "| --- |" + " --- |" * len(summaries)]
    tasks = sorted({t for s in summaries for t in s.per_task}, key=lambda t: _task_sort(run_)((t,)))
    for task in tasks:
        cells = []
        for s in summaries:
            trials = s.per_task.get(task, [])
            codes = [SHORT.get(t.verdict, t.verdict) + ("" if not t.setting.is_control or t.as_declared else "✗")
                     for t in trials]
            cells.append(" ".join(codes) if codes else "–")
        lines.append(f"| {task} | " + " | ".join(cells) + " |")
    return lines + [""]


def _failed_trials(base: Path, summaries: list[SettingSummary]) -> list[str]:
    failed = [(s, t) for s in summaries for t in s.trials if not _success(t)]
    lines = ["## Trials that did not succeed", "",
             "Read the transcript before trusting a number.", ""]
    if not failed:
        return lines + ["None.", ""]
    for s, t in failed:
        said = t.record.claim_status or "no claim"
        if t.record.answer:
            said += f", answer {one_line(repr(t.record.answer), 160)}"
        observed = t.record.outcome_observed
        what = f"{t.verdict}" + (f" (declared {t.record.expected})" if s.setting.is_control else "")
        device = "device not read" if observed is None else f"device {one_line(str(observed))!r}"
        infra = f"; infra: {one_line(str(t.record.infra_error))}" if t.record.infra_error else ""
        lines.append(f"- **{t.task}** r{t.repeat}, {s.setting.label}: {what}; said {said}; {device}{infra} "
                     f"({_evidence(base, t)})")
    return lines + [""]


def one_line(text: str, limit: int = 300) -> str:
    """A multi-line message (a server's traceback) as one line for a list item: its first and last lines."""
    lines = [line.strip() for line in text.strip().splitlines() if line.strip()]
    if not lines:
        return ""
    one = lines[0] if len(lines) == 1 else f"{lines[0]} … {lines[-1]}"
    return one if len(one) <= limit else one[:limit - 1] + "…"


# --- the chart --------------------------------------------------------------------------------------------------

def draw_chart(summaries: list[SettingSummary], title: str, controls: bool = False) -> bytes:
    """A PNG: one horizontal bar per setting (its rate) with the 95% interval as an error bar, on a labelled
    0–100% axis. Drawn with Pillow alone so a report needs no plotting library."""
    import io

    from PIL import Image, ImageDraw

    font = _font(15)
    small = _font(13)
    label_w = max([_text_w(font, s.setting.label) for s in summaries] + [80]) + 24
    plot_w, row_h = 560, 44
    top, bottom, right = 56, 70, 70
    width = max(label_w + plot_w + right, label_w + int(_text_w(font, title)) + 16)
    height = top + row_h * max(1, len(summaries)) + bottom
    img = Image.new("RGB", (width, height), "white")
    d = ImageDraw.Draw(img)
    d.text((label_w, 14), title, fill="black", font=font)
    x0, x1 = label_w, label_w + plot_w
    y_axis = top + row_h * max(1, len(summaries))

    def x_of(v: float) -> float:
        return x0 + v * (x1 - x0)

    for pct in range(0, 101, 20):  # grid and ticks
        x = x_of(pct / 100)
        d.line([(x, top - 6), (x, y_axis)], fill="#dddddd")
        d.line([(x, y_axis), (x, y_axis + 5)], fill="black")
        tick = f"{pct}%"
        d.text((x - _text_w(small, tick) / 2, y_axis + 8), tick, fill="black", font=small)
    d.line([(x0, top - 6), (x0, y_axis)], fill="black")
    d.line([(x0, y_axis), (x1, y_axis)], fill="black")
    axis = "Graded as declared (%)" if controls else "Pass rate (%)"
    d.text((x0 + (x1 - x0) / 2 - _text_w(font, axis) / 2, y_axis + 30), axis, fill="black", font=font)
    d.text((8, 14), "Setting", fill="black", font=font)

    for i, s in enumerate(summaries):
        yc = top + row_h * i + row_h / 2
        d.text((label_w - 12 - _text_w(font, s.setting.label), yc - 9), s.setting.label, fill="black", font=font)
        if s.rate is None:
            continue
        d.rectangle([x0, yc - 11, x_of(s.rate), yc + 11], fill="#7aa6d6" if not s.setting.is_control else "#a9c98b")
        if s.interval:
            lo, hi = x_of(s.interval[0]), x_of(s.interval[1])
            d.line([(lo, yc), (hi, yc)], fill="black", width=2)
            d.line([(lo, yc - 7), (lo, yc + 7)], fill="black", width=2)
            d.line([(hi, yc - 7), (hi, yc + 7)], fill="black", width=2)
        d.text((max(x_of(s.rate), hi if s.interval else 0) + 8, yc - 8), fmt_pct(s.rate), fill="black", font=small)
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def _font(size: int):
    from PIL import ImageFont

    try:
        return ImageFont.load_default(size=size)
    except TypeError:  # Pillow without FreeType sizes: the fixed bitmap font still labels the chart
        return ImageFont.load_default()


def _text_w(font, text: str) -> float:
    left, _, right, _ = font.getbbox(text)
    return right - left
