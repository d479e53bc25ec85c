"""The run's Markdown summary where CI shows it: `--md-summary=FILE`, or `$GITHUB_STEP_SUMMARY` when GitHub Actions
sets it (appended there, as every step of a job appends to the one page). Written on the controller when the run
ends, rendered by report/markdown.py's render_step_summary from the same view as report.md, under GitHub's 1 MiB."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Optional

from pytest_mobium_evals.core.errors import UsageError
from pytest_mobium_evals.runfolder.reading import load_run

ENV = "GITHUB_STEP_SUMMARY"


def destination(config) -> tuple[Optional[Path], bool]:
    """(where the summary goes, whether it is appended): --md-summary's file (written whole), else GitHub's."""
    chosen = getattr(config.option, "mobium_md_summary", None)
    if chosen:
        return Path(chosen), False
    github = os.environ.get(ENV)
    return (Path(github), True) if github else (None, False)


def against_lines(config, run_) -> list[str]:
    """The before/after table: --baseline's per-setting comparison, and the surface variants' table."""
    from pytest_mobium_evals.report.surfaces import section_markdown  # noqa: PLC0415  the summary's figures and renderers: only where it is written, at the run's end

    lines: list[str] = []
    baseline = getattr(config.option, "mobium_baseline", None)
    if baseline:
        from pytest_mobium_evals.report.compare import compare_runs, per_setting_table  # noqa: PLC0415  the summary's figures and renderers: only where it is written, at the run's end

        lines += ["### Against the baseline", ""]
        try:
            comparison = compare_runs(load_run(baseline), run_, labels=("baseline", "this run"))
        except UsageError as exc:
            lines += [f"Not compared with {baseline}: {exc}", ""]
        else:
            lines += per_setting_table(comparison)
    surfaces = section_markdown(run_)
    if surfaces:
        lines += surfaces.replace("## Surface variants", "### Surface variants", 1).splitlines() + [""]
    return lines


def pytest_mobium_run_finished(config, run_dir, status) -> None:
    path, append = destination(config)
    if path is None:
        return
    from pytest_mobium_evals.report.markdown import render_step_summary  # noqa: PLC0415  report.md's renderer (the records' pydantic models): only where the summary is written, at the run's end
    from pytest_mobium_evals.report.view import summarize_run  # noqa: PLC0415  the summary's figures and renderers: only where it is written, at the run's end

    run_ = load_run(run_dir, require_complete=False)
    text = render_step_summary(run_, summarize_run(run_), against_lines(config, run_))
    try:
        with open(path, "a" if append else "w", encoding="utf-8") as out:
            out.write(text)
    except OSError as exc:
        print(f"mobium-evals: the Markdown summary was not written to {path}: {exc.strerror or exc}", file=sys.stderr)
