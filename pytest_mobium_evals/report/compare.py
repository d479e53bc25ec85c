"""`mobium-evals compare OLD NEW`: two runs of the same tasks with the same seed, trial by trial.

Only runs with the same seed and task set are compared: with another seed the tasks ask for other values, so a
changed verdict would say nothing about the change under test. Whatever else differs (model, Mobium commit, device,
repeats) is stated at the top, since that is what the comparison is about — or what spoils it.

Each setting's difference is called by the exact paired test over tasks that the surface table, the hillclimb and
`plan` use (`analysis.paired`: sign flips of each task's difference, its repeats averaged), "clearly" at one-sided
p ≤ 2.5%, so a change that does nothing is called clear at most that often each way, whatever the tasks and repeats;
with 5 tasks or fewer nothing can be clear, and the reading says so. The bootstrap interval beside it describes the
difference; it never makes the call. Dev and held-out tasks are shown apart, never merged."""

from __future__ import annotations

import argparse
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from pytest_mobium_evals.analysis import paired
from pytest_mobium_evals.analysis.intervals import Rate, bootstrap_over_tasks
from pytest_mobium_evals.core.errors import UsageError
from pytest_mobium_evals.core.setting import Setting
from pytest_mobium_evals.core.split import SPLITS
from pytest_mobium_evals.report.facts import describe_device, describe_mobium, fmt_pct, join
from pytest_mobium_evals.report.surfaces import section_markdown
from pytest_mobium_evals.report.view import one_line
from pytest_mobium_evals.runfolder.files import atomic_write_text
from pytest_mobium_evals.runfolder.layout import COMPARE
from pytest_mobium_evals.runfolder.reading import Run, Trial, load_run
from pytest_mobium_evals.suites.catalog import default_task_paths, load_task_definitions


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("old", metavar="OLD", help="the earlier run folder")
    parser.add_argument("new", metavar="NEW", help="the later run folder")
    parser.add_argument("--out", metavar="FILE", help=f"where to write the comparison (default: NEW/{COMPARE})")


def run(args: argparse.Namespace) -> int:
    old, new = load_run(args.old), load_run(args.new)
    comparison = compare_runs(old, new)
    text = render(comparison)
    text += "".join(f"\n{section}" for section in map(section_markdown, (old, new)) if section)
    out = Path(args.out) if args.out else new.path / COMPARE
    atomic_write_text(out, text)
    sys.stdout.write(text)
    print(f"wrote {out}", file=sys.stderr)
    return 0


@dataclass
class Pair:
    old: Trial
    new: Trial

    @property
    def changed(self) -> bool:
        return self.old.record.verdict != self.new.record.verdict


@dataclass
class RunComparison:
    """Two runs of the same tasks and seed, trial by trial (`compare_runs`): what differs between them, the settings
    matched across them, each trial paired with its counterpart, and what only one run has."""

    old: Run
    new: Run
    differences: list[str]
    setting_pairs: list[tuple[Setting, Setting]]
    pairs: list[Pair]
    only_old: list[Trial] = field(default_factory=list)
    only_new: list[Trial] = field(default_factory=list)
    found: dict[str, str] = field(default_factory=dict)  # task -> the defect it found (regression tasks)
    labels: tuple[str, str] = ("old", "new")
    title: Optional[str] = None

    @property
    def changed(self) -> list[Pair]:
        return [p for p in self.pairs if p.changed]


def check_comparable(old: Run, new: Run) -> None:
    if old.seed != new.seed:
        raise UsageError(f"the runs have different seeds ({old.name}: {old.seed}, {new.name}: {new.seed}): "
                       "their tasks asked for different values, so trials cannot be compared")
    old_tasks, new_tasks = set(old.task_ids), set(new.task_ids)
    if old_tasks != new_tasks:
        parts = []
        if old_tasks - new_tasks:
            parts.append(f"only in {old.name}: {join(sorted(old_tasks - new_tasks))}")
        if new_tasks - old_tasks:
            parts.append(f"only in {new.name}: {join(sorted(new_tasks - old_tasks))}")
        raise UsageError("the runs have different task sets (" + "; ".join(parts) + ")")


def differences(old: Run, new: Run) -> list[str]:
    """What differs between two comparable runs, one line each, in the terms a reader checks first."""
    out = []

    def note(what: str, a: object, b: object) -> None:
        if a != b:
            out.append(f"{what}: {a} → {b}")

    note("Mobium commit", describe_mobium(old.record), describe_mobium(new.record))
    note("device", describe_device(old.record), describe_device(new.record))
    note("settings", join(s.label for s in old.settings()), join(s.label for s in new.settings()))
    note("repeats", old.record.repeats, new.record.repeats)
    note("MobiumApp", old.record.mobiumapp, new.record.mobiumapp)
    note("harness", old.record.harness, new.record.harness)
    return out


def pair_settings(old: Run, new: Run) -> list[tuple[Setting, Setting]]:
    """Match settings across runs: the same setting where both have it, and otherwise, per driver, the one setting
    each run has (a model swapped for another is the comparison people ask for)."""
    old_s, new_s = old.settings(), new.settings()
    pairs = [(s, s) for s in old_s if s in new_s]
    rest_old = [s for s in old_s if s not in new_s]
    rest_new = [s for s in new_s if s not in old_s]
    for driver in dict.fromkeys(s.driver for s in rest_old):
        a = [s for s in rest_old if s.driver == driver]
        b = [s for s in rest_new if s.driver == driver]
        if len(a) == 1 and len(b) == 1:
            pairs.append((a[0], b[0]))
    return pairs


def compare_runs(old: Run, new: Run, labels: tuple[str, str] = ("old", "new"),
                 task_paths: Optional[list[Path]] = None) -> RunComparison:
    check_comparable(old, new)
    setting_pairs = pair_settings(old, new)
    paired_old = {a for a, _ in setting_pairs}
    paired_new = {b for _, b in setting_pairs}
    to_new = dict(setting_pairs)
    new_index = {(t.record.setting, t.record.task, t.record.repeat): t for t in new.trials}
    pairs, only_old, matched_new = [], [], set()
    for trial in old.trials:
        other = new_index.get((to_new.get(trial.record.setting), trial.record.task, trial.record.repeat))
        if other is None:
            only_old.append(trial)
        else:
            pairs.append(Pair(trial, other))
            matched_new.add(other.name)
    only_new = [t for t in new.trials if t.name not in matched_new]
    order = {t: i for i, t in enumerate(old.task_ids)}
    pairs.sort(key=lambda p: (p.old.record.is_control, p.old.record.driver, order.get(p.old.record.task, 1 << 30),
                              p.old.record.task, p.old.record.repeat))
    diffs = differences(old, new)
    unpaired = [s.label for s in old.settings() if s not in paired_old] + \
               [s.label for s in new.settings() if s not in paired_new]
    if unpaired:
        diffs.append(f"not compared (in one run only): {join(unpaired)}")
    return RunComparison(old, new, diffs, setting_pairs, pairs, only_old, only_new,
                      found_defects(old, new, task_paths=task_paths), labels)


def found_defects(*runs: Run, task_paths: Optional[list[Path]] = None) -> dict[str, str]:
    """The tasks that found a defect in Mobium, with what they found: from the runs themselves (each verdict.json
    carries its task's `found`), else from the task definitions in the suites."""
    found: dict[str, str] = {}
    for run_ in runs:
        for entry in run_.record.tasks or []:
            if isinstance(entry, dict) and entry.get("found"):
                found.setdefault(str(entry.get("id")), str(entry["found"]))
        for trial in run_.trials:  # each verdict.json carries its task's found=
            if trial.record.found:
                found.setdefault(trial.record.task, str(trial.record.found))
    # a run whose records have the field at all (written since it was added), even if no task found anything
    if found or any("found" in t.record.model_fields_set for r in runs for t in r.trials):
        return found
    try:
        tasks = load_task_definitions(task_paths if task_paths is not None else default_task_paths())
    except UsageError as exc:  # the comparison stands without the table; say why it is missing
        print(f"compare: no table of the tasks that found a defect: {exc}", file=sys.stderr)
        return {}
    ids = set().union(*(set(r.task_ids) for r in runs))
    return {tid: str(t.found) for tid, t in tasks.items() if tid in ids and t.found}


# --- compare.md -------------------------------------------------------------------------------------------------

def render(c: RunComparison) -> str:
    a, b = c.labels
    lines = [f"# {c.title or f'Compare {c.old.name} → {c.new.name}'}", "",
             f"- {a}: `{c.old.path}`", f"- {b}: `{c.new.path}`",
             f"- Same seed ({c.old.seed}) and task set ({len(c.old.task_ids)} tasks)."]
    if c.differences:
        lines += ["- What differs:"] + [f"  - {d}" for d in c.differences]
    else:
        lines.append("- Nothing else differs in the records.")
    lines += ["", "## Per setting", ""] + per_setting_table(c)
    if c.found and any(not a.is_control for a, _ in c.setting_pairs):  # only the agent's passes are findings
        lines += found_table(c)
    lines += [f"## Trials that changed verdict ({len(c.changed)} of {len(c.pairs)} compared)", ""]
    if c.changed:
        lines += [f"| Task | Repeat | Setting | {a} | {b} | {a} answer | {b} answer |",
                  "| --- | --- | --- | --- | --- | --- | --- |"]
        for p in c.changed:
            lines.append(f"| {p.old.record.task} | r{p.old.record.repeat} | {p.old.record.setting.label} "
                         f"| {_verdict(p.old)} | {_verdict(p.new)} | {_answer(p.old)} | {_answer(p.new)} |")
    else:
        lines.append("None: every compared trial got the same verdict.")
    lines.append("")
    if c.only_old or c.only_new:
        lines += ["## Trials in one run only", ""]
        if c.only_old:
            lines.append(f"- only in {a}: " + join(t.name for t in c.only_old))
        if c.only_new:
            lines.append(f"- only in {b}: " + join(t.name for t in c.only_new))
        lines.append("")
    return "\n".join(lines).rstrip() + "\n"


def per_setting_table(c: RunComparison) -> list[str]:
    """Each setting's rate in both runs and the paired difference, per split: compare.md's table, and the step
    summary's."""
    a, b = c.labels
    lines = [f"The difference is {b} minus {a} over the tasks both ran (each task's pass rate over its repeats), with "
             "a 95% interval from resampling those tasks (a paired bootstrap) as a description. The reading is the "
             "exact paired test over tasks, as in the surface table and the hillclimb: \"clearly\" at one-sided "
             "p ≤ 2.5% (the \"exact p\" shown is two-sided), so a change that does nothing is called clear at most "
             "2.5% of the time each way; with 5 tasks or fewer nothing can be clear. Dev and held-out tasks are apart, "
             "never merged.", "",
             f"| Setting ({a} → {b}) | Tasks | {a} rate [95%] | {b} rate [95%] | Difference [95%] | Exact p "
             "| Reading | Blockers |", "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    for s_old, s_new in c.setting_pairs:
        for row in setting_rows(c, s_old, s_new):
            lines.append(f"| {row.label} | {row.test.tasks} | {_rate(row.old)} | {_rate(row.new)} | {row.points()} "
                         f"| {row.p()} | {row.reading(a, b)} | {row.blockers[0]} → {row.blockers[1]} |")
    return lines + [""]


@dataclass
class SettingRow:
    """One setting's comparison over one split's tasks (or over all of them, when the runs ran one split)."""

    label: str
    split: str
    old: Rate
    new: Rate
    test: paired.PairedComparison  # the exact paired test of new against old, with the bootstrap interval beside it
    blockers: tuple[int, int]

    def points(self) -> str:
        t = self.test
        if t.delta is None:
            return "–"
        return f"{100 * t.delta:+.0f} points [{100 * t.low:+.0f} to {100 * t.high:+.0f}]"

    def p(self) -> str:
        return "–" if self.test.p is None else f"{self.test.p:.3g}"

    def reading(self, a: str = "old", b: str = "new") -> str:
        """The exact test's call in a sentence: the same words as the surface table's, with who is better."""
        call = self.test.call
        if call == "no common tasks":
            return "no task in common"
        if call == "not clear":
            return "not clear: could be noise"
        if call in ("clearly better", "clearly worse"):
            return f"{call}: {b} is {call.split()[1]} than {a}"
        return call  # "cannot be clear with 4 held-out tasks", "better on dev (tuning only)"

    @property
    def clearly(self) -> Optional[str]:
        """"worse" when the exact test calls a clear drop on any split, "better" a clear gain on held-out tasks,
        else None."""
        return self.test.call.split()[1] if self.test.call.startswith("clearly ") else None


def setting_rows(c: RunComparison, s_old: Setting, s_new: Setting) -> list[SettingRow]:
    """The setting's rows: one per split the two runs ran (dev and held out never merged into one figure), or one
    row, under the setting's own label, when every task is in one split."""
    old = [t for t in c.old.trials if t.record.setting == s_old]
    new = [t for t in c.new.trials if t.record.setting == s_new]
    label = s_old.label if s_old == s_new else f"{s_old.label} → {s_new.label}"
    splits = [sp for sp in SPLITS if any(paired.task_split(t) == sp for t in [*old, *new])]
    rows = []
    for split in splits:
        mine_old = [t for t in old if paired.task_split(t) == split]
        mine_new = [t for t in new if paired.task_split(t) == split]
        before, after = _by_task(mine_old), _by_task(mine_new)
        test = paired.compare_outcomes(label, s_new.label, split, before, after)
        named = label if len(splits) == 1 else f"{label} ({paired.SPLIT_WORDS[split]} tasks)"
        rows.append(SettingRow(named, split, bootstrap_over_tasks(before), bootstrap_over_tasks(after), test,
                               (sum(bool(t.record.gating_blockers) for t in mine_old),
                                sum(bool(t.record.gating_blockers) for t in mine_new))))
    return rows


def _by_task(trials: list[Trial]) -> dict[str, list[bool]]:
    """Task → whether each repeat succeeded (passed; for a control, graded as declared), in repeat order."""
    out: dict[str, list[bool]] = {}
    for t in sorted(trials, key=lambda t: (t.record.task, t.record.repeat)):
        out.setdefault(t.record.task, []).append(t.record.success)
    return out


def found_table(c: RunComparison) -> list[str]:
    """The regression tasks, before and after: whether each still passes once the change is in."""
    a, b = c.labels
    lines = ["## Tasks that found a defect", "",
             f"| Task | Found | Setting | {a} | {b} |", "| --- | --- | --- | --- | --- |"]
    lines += ["| " + " | ".join(row) + " |" for row in found_rows(c)]
    return lines + [""]


def found_rows(c: RunComparison) -> list[tuple[str, str, str, str, str]]:
    """(task, what it found, setting, old tally, new tally) for each regression task and agent setting."""
    rows = []
    order = {t: i for i, t in enumerate(c.old.task_ids)}
    for task in sorted(c.found, key=lambda t: (order.get(t, 1 << 30), t)):
        for s_old, s_new in c.setting_pairs:
            if s_old.is_control:
                continue
            before = [p.old for p in c.pairs if p.old.record.task == task and p.old.record.setting == s_old]
            after = [p.new for p in c.pairs if p.new.record.task == task and p.new.record.setting == s_new]
            if not before and not after:
                continue
            label = s_old.label if s_old == s_new else f"{s_old.label} → {s_new.label}"
            rows.append((task, c.found[task], label, _tally(before), _tally(after)))
    return rows


def _tally(trials: list[Trial]) -> str:
    if not trials:
        return "–"
    passed = sum(t.record.passed for t in trials)
    others = sorted({t.record.verdict for t in trials if not t.record.passed})
    return f"{passed}/{len(trials)} passed" + (f" ({', '.join(others)})" if others else "")


def _rate(r: Rate) -> str:
    return "–" if not r.total else f"{fmt_pct(r.rate)} [{round(100 * r.low)}–{round(100 * r.high)}%]"


def _verdict(t: Trial) -> str:
    return t.record.verdict + (f" ({t.record.severity})" if t.record.severity else "")


def _answer(t: Trial) -> str:
    answer: Optional[str] = t.record.answer
    return "–" if answer is None else one_line(repr(answer), 120).replace("|", "\\|")
