"""`mobium-evals report RUN [--regrade]`: report.md (report/markdown.py) and pass-rate.png (report/chart.py) for a
complete run folder, both rendered from its computed view (report/view.py).

Per setting: the pass rate with a 95% interval bootstrapped over tasks (three repeats of one task are not three
independent samples), the verdict counts, what was scheduled, graded and lost to infrastructure, each blocker on its
own line (blockers are never averaged away), a per-task table across repeats, tokens and cost. A controls run also
gets each control's declared verdict beside the one it got. `--regrade` grades the stored trials again through the
grader the trials used (grading.grade_trial, analysis/regrade.py), with the current rules, and says which verdicts
changed."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from pytest_mobium_evals.analysis.regrade import regrade_run, render_regrade, verdicts_changed
from pytest_mobium_evals.report.chart import draw_chart
from pytest_mobium_evals.report.markdown import render_report
from pytest_mobium_evals.report.view import summarize_run
from pytest_mobium_evals.runfolder.files import atomic_write_bytes, atomic_write_text
from pytest_mobium_evals.runfolder.layout import CHART, REGRADE, REPORT
from pytest_mobium_evals.runfolder.reading import load_run
from pytest_mobium_evals.suites.catalog import default_task_paths, load_task_definitions


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run", metavar="RUN", help="the run folder (runs/<run>)")
    parser.add_argument("--regrade", action="store_true",
                        help="grade the stored trials again, by the grader the trials used, with the current "
                             f"rules; writes {REGRADE}")
    parser.add_argument("--out", metavar="DIR", help=f"where to write {REPORT} and the chart (default: the run)")
    parser.add_argument("--tasks-path", metavar="PATH", action="append",
                        help="a task suite folder or file whose tasks --regrade grades by (default: tasks/)")


def run(args: argparse.Namespace) -> int:
    run_ = load_run(args.run)
    out = Path(args.out) if args.out else run_.path
    changes: list = []
    if args.regrade:
        paths = [Path(p) for p in args.tasks_path] if args.tasks_path else default_task_paths()
        changes = regrade_run(run_, load_task_definitions(paths), progress=_progress)
        atomic_write_text(out / REGRADE, render_regrade(run_, changes))
        print(f"regraded {len(run_.trials)} trials: {verdicts_changed(changes)} verdict(s) changed; "
              f"see {out / REGRADE}", file=sys.stderr)
    summaries = summarize_run(run_)
    atomic_write_bytes(out / CHART, draw_chart(summaries, title=f"Run {run_.name} · bars: rate · whiskers: 95% "
                                                                  "interval bootstrapped over tasks",
                                               controls=run_.is_controls_run()))
    text = render_report(run_, summaries, regraded=changes if args.regrade else None, out=out)
    atomic_write_text(out / REPORT, text)
    print(f"wrote {out / REPORT} and {out / CHART}", file=sys.stderr)
    return 0


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)
