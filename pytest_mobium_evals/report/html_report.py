"""The HTML report as a reviewer reads it: the run's story above pytest-html's table of trials, rendered from the run
folder (each trial's own view, and its cells in the table, are html_trial.py's; plugin/html_hooks.py is pytest-html's
side: its hooks call these and place what they return).

It opens with the run's story: each setting's rate with its 95% interval over tasks, pass^k with repeats, the
scheduled/graded/infra counts, false successes, the blockers by name, the differences between agent settings with
whether they are clear of zero, and for controls the declared-vs-got table; then the run's facts (seed, folder,
device and which kind, Mobium, models, plugin, tasks); with `--baseline RUN`, the comparison with that run. Below
it, pytest-html's table of trials gains verdict, severity and claim columns with a filter of its own, and each
trial's extras carry its claim, the outcome read from the device, the side effects and the transcript, with the
final screen beside them, whole, opening at its own size on a click.

The story is built from the run folder on disk (each trial's verdict.json, the record), not from the order in which
hooks ran: under xdist the controller writes the HTML from what the workers wrote. The figures come from
analysis/summary.py, as the terminal's and report.md's do."""

from __future__ import annotations

from typing import Optional

from pytest_mobium_evals.analysis import injection_rates
from pytest_mobium_evals.analysis.summary import NOT_RECORDED, agent_pairs, by_split, difference
from pytest_mobium_evals.core.errors import UsageError
from pytest_mobium_evals.core.trial_record import STOP_REASONS
from pytest_mobium_evals.core.verdicts import ALL_VERDICTS
from pytest_mobium_evals.core.verdicts import SEVERITIES as SEVERITY_WORDS
from pytest_mobium_evals.report.compare import compare_runs, found_rows, setting_rows
from pytest_mobium_evals.report.facts import fmt_pct, run_facts
from pytest_mobium_evals.report.html_trial import SCREEN_WIDTH, THUMB_WIDTH, esc
from pytest_mobium_evals.report.surfaces import section_html
from pytest_mobium_evals.report.view import (
    CLAIM_CONFLICTS,
    DECLARED_BLOCKERS,
    blocker_rows,
    claim_conflicts,
    controls_matrix,
    summarize_run,
)

SEVERITIES = SEVERITY_WORDS + ("none",)  # "none": the filter for trials without a severity


# --- the story --------------------------------------------------------------------------------------------------

#: The page's style, for the story and each trial's view (html_trial.py's classes), written once above the table.
STYLE = """<style>
body{display:flex;flex-direction:column}
#title{order:-3}body>p:first-of-type{order:-2}.summary{order:-1;display:block}
.mv-story{font-size:14px;max-width:1300px}.mv-story table{border-collapse:collapse;margin:4px 0 12px}
.mv-story td,.mv-story th{border:1px solid #ccc;padding:3px 7px;text-align:left;vertical-align:top}
.mv-story h3{margin:14px 0 4px}.mv-bad{color:#b00020}.mv-good{color:#1b5e20}
.mv-trial pre{white-space:pre-wrap;max-height:14em;overflow:auto;background:#f6f6f6;margin:2px 0;padding:3px}
.mv-steps{margin:4px 0;padding-left:22px}.mv-filter label{margin-right:10px;white-space:nowrap}
.mv-trial{display:flex;gap:16px;align-items:flex-start}.mv-text{flex:1;min-width:0}
.mv-screen{flex:none;width:{SCREEN_WIDTH}px;cursor:zoom-in;text-align:center}.mv-screen input{display:none}
.mv-screen img{width:100%;height:auto;border:1px solid #999;display:block}.mv-screen small{color:#555}
.mv-screen input:checked+span{position:fixed;inset:0;z-index:10000;overflow:auto;background:rgba(0,0,0,.85);
cursor:zoom-out;padding:12px 0}
.mv-screen input:checked+span img{width:auto;max-width:none;margin:0 auto;border:0}
.mv-thumb{flex:none;width:{THUMB_WIDTH}px;text-align:center}
.mv-thumb img{width:100%;border:1px solid #999;display:block}.mv-thumb small{color:#555}
</style>""".replace("{SCREEN_WIDTH}", str(SCREEN_WIDTH)).replace("{THUMB_WIDTH}", str(THUMB_WIDTH))


def filter_html() -> str:
    """Checkboxes hiding trials by verdict and severity, in CSS alone (:has), so they keep working when pytest-html
    re-renders its table for its own filters and sorting."""
    boxes, rules = [], []
    for kind, values, prefix in (("verdict", ALL_VERDICTS, "v"), ("severity", SEVERITIES, "s")):
        boxes.append(f"<div class=mv-filter><b>{kind.capitalize()}:</b> ")
        for value in values:
            box = f"mv-{prefix}-{value}"
            boxes.append(f'<label><input type="checkbox" id="{box}" checked> {esc(value)}</label>')
            rules.append(f"body:has(#{box}:not(:checked)) #results-table tbody:has(td.{prefix}-{value})"
                         "{display:none}")
        boxes.append("</div>")
    return "<style>" + "".join(rules) + "</style>" + "".join(boxes)


def _table(head: list[str], rows: list[list[str]]) -> str:
    return ("<table><tr>" + "".join(f"<th>{h}</th>" for h in head) + "</tr>"
            + "".join("<tr>" + "".join(f"<td>{c}</td>" for c in row) + "</tr>" for row in rows) + "</table>")


def story_html(run_, baseline=None, baseline_problem: Optional[str] = None) -> str:
    """The summary for a run folder (runfolder.reading.Run, complete or not), and the comparison with a baseline run."""

    summaries = summarize_run(run_)
    parts = [STYLE, '<div class="mv-story" id="mobium-evals-summary">', "<h3>The run</h3>"]
    if not summaries:
        parts.append("<p>No trial has a verdict yet.</p>")
    rows = []
    for s in summaries:
        f = s.figures
        rows.append([esc(s.setting.label), esc(f.what), esc(f.rate_text()), esc(f"{f.rate.tasks}"),
                     esc(f.pass_k_text() or "–"), str(f.scheduled), str(f.graded), str(f.infra_errors),
                     f"<span class={'mv-bad' if f.false_successes and not f.control else ''}>"
                     f"{f.false_successes}</span>", str(len(f.blockers)),
                     f"<span class={'mv-bad' if f.injection and f.injection[0] and not f.control else ''}>"
                     f"{esc(f.injection_text())}</span>"])
    if rows:
        parts.append(_table(["Setting", "Rate of", "Rate [95% interval over tasks]", "Tasks", "pass^k",
                             "Scheduled", "Graded", "Infra errors", "False successes", "Blockers",
                             "Obeyed injected text"], rows))
    parts.append(_stops_html(summaries))
    parts.append(_claim_conflicts_html(summaries))

    parts.append(injection_rates.html(injection_rates.of_summaries(summaries)))
    parts.append(_blockers_html(summaries))
    pairs = agent_pairs([s.figures for s in summaries])
    if pairs:
        parts.append("<h3>Differences between settings</h3><p>Paired over the same tasks and seed; the interval "
                     "resamples tasks for both settings at once.</p>")
        parts.append(_table(["B vs A", "Difference in pass rate [95%]", "Reading"],
                            [_difference_row(x.label, y.label, difference(x, y)) for a, b in pairs
                             for x, y in by_split(a, b)]))

    parts.append(section_html(run_))
    if any(s.setting.is_control for s in summaries):
        parts.append(_controls_html(run_, summaries))
    parts.append(_facts_html(run_))
    if baseline is not None or baseline_problem:
        parts.append(_baseline_html(run_, baseline, baseline_problem))
    parts.append("<h3>Trials</h3><p>Filter the table below by verdict and severity (and by pytest's outcome "
                 "with the boxes after this summary).</p>" + filter_html())
    parts.append("</div>")
    return "".join(parts)


def _stops_html(summaries) -> str:
    """Why the agent's trials stopped, per setting (report.md's table of the same name)."""

    agents = [s for s in summaries if not s.setting.is_control]
    reasons = [r for r in (*STOP_REASONS, NOT_RECORDED) if any(s.stop_reasons.get(r) for s in agents)]
    if not agents or not reasons:
        return ""
    return "<h3>Why agent trials stopped</h3>" + _table(
        ["Setting", *reasons], [[esc(s.setting.label), *(str(s.stop_reasons.get(r, 0)) for r in reasons)]
                                for s in agents])


def _claim_conflicts_html(summaries) -> str:
    """The trials whose text and final answer stated different claims (report.md's section of the same name)."""
    conflicts = claim_conflicts(summaries)
    if not conflicts:
        return ""
    return (f"<h3>Claims that disagree ({len(conflicts)})</h3><p>{esc(CLAIM_CONFLICTS)}</p><ul>"
            + "".join(f"<li class=mv-bad>{esc(c.text())}" for c in conflicts) + "</ul>")


def _blockers_html(summaries) -> str:

    gating, declared = blocker_rows(summaries)
    if gating:
        out = (f"<p class=mv-bad><b>Blockers ({len(gating)})</b>, which hold the decision whatever the rate:</p><ul>"
               + "".join(f"<li class=mv-bad>{esc(r.text())}" for r in gating) + "</ul>")
    else:
        out = f"<p class=mv-good><b>Blockers:</b> none{' gating' if declared else ''}.</p>"
    if declared:
        out += (f"<details><summary>{esc(DECLARED_BLOCKERS.split(':')[0])} ({len(declared)}): "
                f"{esc(DECLARED_BLOCKERS.split(': ', 1)[1])}</summary><ul>"
                + "".join(f"<li>{esc(r.text())}" for r in declared) + "</ul></details>")
    return out


def _difference_row(a: str, b: str, diff) -> list[str]:
    if diff is None:
        return [esc(f"{b} vs {a}"), "–", "no task in common"]
    cls = "mv-good" if diff.clear_of_zero and diff.delta > 0 else "mv-bad" if diff.clear_of_zero else ""
    return [esc(f"{b} vs {a}"), esc(diff.points()) + f" over {diff.tasks} tasks",
            f"<span class={cls or 'mv-plain'}>{esc(diff.verdict(a, b))}</span>"]


def _controls_html(run_, summaries) -> str:

    columns, matrix, wrong = controls_matrix(run_, summaries)
    rows = []
    for task, repeat, cells in matrix:
        row = [esc(task), f"r{repeat}"]
        for cell in cells:
            parts = []
            for c in cell:
                name = f"{esc(c.near_miss)}: " if c.near_miss else ""
                parts.append(f"{name}{esc(c.verdict)} ✓" if c.ok else
                             f"<span class=mv-bad>{name}<b>{esc(c.verdict)}</b> ✗ declared {esc(c.expected)}</span>")
            row.append("<br>".join(parts) or "–")
        rows.append(row)
    verdict = ("<p class=mv-good>Every control graded as declared.</p>" if not wrong else
               f"<p class=mv-bad><b>{wrong} control trial(s) did not grade as declared</b>: the grader is not "
               "validated for those tasks.</p>")
    return ("<h3>Controls: declared vs got</h3>" + verdict + "<details><summary>The table, task by task"
            "</summary>" + _table(["Task", "Repeat"] + [esc(c) for c in columns], rows)
            + "</details>")


def _facts_html(run_) -> str:
    return "<h3>Facts</h3>" + _table(["", ""], [[esc(k), esc(v)] for k, v in run_facts(run_)])


def _baseline_html(run_, baseline, problem: Optional[str]) -> str:

    head = "<h3>Against the baseline</h3>"
    if problem:
        return head + f"<p class=mv-bad>{esc(problem)}</p>"

    try:
        c = compare_runs(baseline, run_, labels=("baseline", "this run"))
    except UsageError as exc:
        return head + f"<p class=mv-bad>Not compared with {esc(baseline.path)}: {esc(exc)}</p>"
    parts = [head, f"<p>Baseline {esc(c.old.path)}; same seed ({esc(c.old.seed)}) and task set "
                   f"({len(c.old.task_ids)} tasks).</p>"]
    if c.differences:
        parts.append("<p>What differs: " + "; ".join(esc(d) for d in c.differences) + "</p>")
    rows = []
    for s_old, s_new in c.setting_pairs:
        for row in setting_rows(c, s_old, s_new):
            cls = {"better": "mv-good", "worse": "mv-bad"}.get(row.clearly or "", "mv-plain")
            rows.append([esc(row.label), str(row.test.tasks), esc(fmt_pct(row.old.rate if row.old.total else None)),
                         esc(fmt_pct(row.new.rate if row.new.total else None)), esc(row.points()), esc(row.p()),
                         f"<span class={cls}>{esc(row.reading('baseline', 'this run'))}</span>",
                         f"{row.blockers[0]} → {row.blockers[1]}"])
    parts.append("<p>The reading is the exact paired test over tasks (clearly at one-sided p ≤ 2.5%; with 5 tasks "
                 "or fewer nothing can be clear); the interval describes the difference. Dev and held-out tasks "
                 "apart.</p>")
    parts.append(_table(["Setting", "Tasks", "Baseline", "This run", "Difference [95%, paired over tasks]",
                         "Exact p", "Reading", "Blockers"], rows))
    if c.found and any(not a.is_control for a, _ in c.setting_pairs):

        parts.append("<h3>Tasks that found a defect</h3>" + _table(
            ["Task", "Found", "Setting", "Baseline", "This run"], [[esc(x) for x in r] for r in found_rows(c)]))
    changed = c.changed
    parts.append(f"<h3>Trials that changed verdict ({len(changed)} of {len(c.pairs)} compared)</h3>")
    if changed:
        parts.append(_table(["Task", "Repeat", "Setting", "Baseline", "This run"],
                            [[esc(p.old.record.task), f"r{p.old.record.repeat}", esc(p.old.record.setting.label),
                              esc(p.old.record.verdict), esc(p.new.record.verdict)] for p in changed]))
    else:
        parts.append("<p>None: every compared trial got the same verdict.</p>")
    return "".join(parts)
