"""What the terminal shows: each trial's verdict as a word and a letter (a control that got its declared verdict
counts as passed), and the summary per setting, with the controls that did not grade as declared, the agent's
misses, the blockers and the infrastructure errors."""

from __future__ import annotations

from collections import defaultdict
from typing import TYPE_CHECKING, Iterable

import pytest

from pytest_mobium_evals.core.verdicts import ALL_VERDICTS, INFRA_ERROR

from .session import eval_session

if TYPE_CHECKING:
    from pytest_mobium_evals.core.setting import Setting
    from pytest_mobium_evals.core.trial_record import TrialRecord

# verdict -> (terminal category, letter, word, colour). The letters avoid core's and rerunfailures'
# (. F E s x X R) and each other's. `pass` keeps pytest's own category, so "passed" counts stay familiar.
VERDICT_STATUS = {
    "pass": ("passed", ".", "PASS", "green"),
    "false_success": ("false_success", "!", "FALSE_SUCCESS", "red"),
    "false_refusal": ("false_refusal", "?", "FALSE_REFUSAL", "red"),
    "touched": ("touched", "T", "TOUCHED", "red"),
    "honest_failure": ("honest_failure", "h", "HONEST_FAILURE", "yellow"),
    "unreported": ("unreported", "u", "UNREPORTED", "yellow"),
    "wrong_reason": ("wrong_reason", "W", "WRONG_REASON", "yellow"),
    INFRA_ERROR: ("infra_error", "I", "INFRA_ERROR", "purple"),
}


#: The letters this session printed on the progress line (on the controller, where the line is drawn).
LETTERS_SHOWN = pytest.StashKey[set]()


def legend(letters) -> str:
    """The progress line's key, for the letters it showed, in VERDICT_STATUS's order: "progress letters: . pass,
    ! false_success, …". A control graded as declared shows its verdict's letter, and pytest's own F when not."""
    shown = set(letters)
    words = [f"{letter} {verdict}" for verdict, (_, letter, _, _) in VERDICT_STATUS.items() if letter in shown]
    if "F" in shown:
        words.append("F a control not graded as declared")
    note = (" (a control graded as declared shows its verdict's letter and counts as passed)"
            if shown - {".", "F"} else "")
    return "progress letters: " + ", ".join(words) + note


@pytest.hookimpl(tryfirst=True)
def pytest_report_teststatus(report, config):
    status = _teststatus(report)
    if status is not None:
        config.stash.setdefault(LETTERS_SHOWN, set()).add(status[1])
    return status


def _teststatus(report):
    record: TrialRecord | None = getattr(report, "mobium", None)
    if record is None or report.when != "call" and not (report.when == "setup" and report.failed):
        return None
    if report.outcome == "rerun" or hasattr(report, "wasxfail"):
        return None
    verdict = record.verdict
    category, letter, word, colour = VERDICT_STATUS.get(verdict, ("failed", "F", str(verdict).upper(), "red"))
    if record.is_control and verdict != INFRA_ERROR:
        # A control passes when it gets its declared verdict: counted as passed, shown with the verdict's letter.
        if record.ok:
            return "passed", letter, (f"{word} (as declared)", {"green": True})
        return "failed", "F", (f"{word}, expected {str(record.expected).upper()}", {"red": True, "bold": True})
    return category, letter, (word, {colour: True})


def group_figures(reports, scheduled: dict[Setting, int]) -> list:
    """analysis/summary.py's figures per setting (a control driver, or the agent under one model setting), labelled
    by its group, from the trials' records: the same function report.md and the HTML use on the verdict.json files."""
    from pytest_mobium_evals.analysis.summary import figures, trial_score  # noqa: PLC0415  the figures: only where the run's summary is drawn, at its end

    by_setting: dict[Setting, list] = defaultdict(list)
    for record in reports:
        by_setting[record.setting].append(record)
    out = []
    for setting in sorted(set(by_setting) | set(scheduled), key=lambda s: s.group):
        rows = by_setting.get(setting, [])
        scores = [trial_score(r, r.trial or "") for r in rows]
        out.append(figures(setting.group, scores, control=setting.is_control,
                           scheduled=scheduled.get(setting, len(rows))))
    return out


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    evals = eval_session(config)
    if evals.is_worker or not evals.books.reports:
        return
    from pytest_mobium_evals.analysis.summary import agent_pairs, difference_lines, stop_reasons, stop_reasons_text  # noqa: PLC0415  the figures: only where the run's summary is drawn, at its end

    tr = terminalreporter
    scheduled = evals.books.collection().settings
    all_figures = group_figures(evals.books.reports.values(), scheduled)
    tr.write_sep("=", "mobium-evals summary")
    tr.write_line(f"seed {evals.options.seed}, run dir {evals.options.run_dir}")
    letters = config.stash.get(LETTERS_SHOWN, set())
    if letters and config.get_verbosity() <= 0:
        tr.write_line(legend(letters))
    for figs in all_figures:
        tr.write_line(f"{figs.label}: {figs.what} {figs.rate_text()} over {figs.rate.tasks} tasks"
                      + (f"; {figs.pass_k_text()}" if figs.pass_k else "") + f"; {figs.counts_text()}")
        tr.write_line("  " + ", ".join(f"{v} {figs.verdicts[v]}" for v in ALL_VERDICTS if figs.verdicts.get(v)))
        if not figs.control:
            records = [r for r in evals.books.reports.values() if r.setting.group == figs.label]
            tr.write_line("  stopped: " + (stop_reasons_text(stop_reasons(records)) or "no trial yet"))
    _tier_lines(tr, evals.books.reports.values())
    _injection_lines(tr, evals.books.reports.values())
    pairs = agent_pairs(all_figures)
    if pairs:
        tr.write_sep("-", "differences between settings (paired over tasks, 95% interval)")
        for a, b in pairs:
            for line in difference_lines(a, b):
                tr.write_line(line)
    mismatched = [r for r in evals.books.reports.values()
                  if r.is_control and not r.ok and r.verdict != INFRA_ERROR]
    if mismatched:
        tr.write_sep("-", "controls that did not grade as declared")
        for r in sorted(mismatched, key=lambda r: (r.task, r.driver, r.repeat)):
            tr.write_line(f"{r.task} {r.slug:<14} {r.driver:<9} got {r.verdict:<15} expected "
                          f"{r.expected}  ({r.outcome_observed!r})", red=True)
    failing = [r for r in evals.books.reports.values() if not r.is_control and r.verdict not in ("pass", INFRA_ERROR)]
    if failing:
        # pytest's own "FAILED" lines do not list custom categories, so the agent's misses are listed here.
        tr.write_sep("-", "agent trials that did not pass")
        for r in sorted(failing, key=lambda r: (r.setting.group, r.task, r.repeat)):
            stopped = f", {r.stopped_by}" if r.stopped_by else ""
            tr.write_line(f"{r.trial}: {r.verdict} ({r.severity}){stopped}; claimed {r.claim_status}, device read "
                          f"{r.outcome_observed!r}", red=r.verdict in ("false_success", "touched"))
    blockers = [(r, b) for r in evals.books.reports.values() for b in r.gating_blockers]
    if blockers:
        tr.write_sep("-", f"BLOCKERS ({len(blockers)}): the session fails whatever the pass rate", red=True)
        for r, b in blockers:
            tr.write_line(f"{r.trial}: {b}", red=True)
    infra = [r for r in evals.books.reports.values() if r.verdict == INFRA_ERROR]
    if infra:
        tr.write_sep("-", "infrastructure errors (not charged to the driver; in the denominator)")
        for r in infra:
            tr.write_line(f"{r.trial}: {r.infra_error}")


def tier_rates(reports: Iterable[TrialRecord]) -> list[tuple[str, str, int, int]]:
    """From trial records, per group and tier (core, hard): (group, tier, successes, graded trials). A control's
    success is getting its declared verdict, an agent's is a pass; infrastructure errors are left out of both counts
    here (the per-group line above keeps them in its denominator)."""
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    for r in reports:
        if r.verdict == INFRA_ERROR:
            continue
        cell = counts[(r.setting.group, r.tier or "core")]
        cell[0] += r.success
        cell[1] += 1
    return [(g, t, ok, n) for (g, t), (ok, n) in sorted(counts.items())]


def _tier_lines(tr, reports) -> None:
    rows = tier_rates(list(reports))
    if not rows:
        return
    tr.write_sep("-", "per tier")
    for group, tier, ok, n in rows:
        tr.write_line(f"{group} {tier}: {100 * ok / n:.0f}% ({ok}/{n})")


def _injection_lines(tr, reports) -> None:
    from pytest_mobium_evals.analysis import injection_rates  # noqa: PLC0415  the figures: only where the run's summary is drawn, at its end

    reports = list(reports)
    settings = {r.setting.group: r.setting for r in reports}
    all_rates = injection_rates.by_setting((r.setting.group, r) for r in reports)
    if not all_rates:
        return
    tr.write_sep("-", injection_rates.HEADING)
    for r in all_rates:
        tr.write_line(r.line(), red=bool(r.asr_achieved.passed) and not settings[r.label].is_control)
