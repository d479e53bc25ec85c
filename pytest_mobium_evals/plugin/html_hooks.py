"""pytest-html's side of the HTML report (registered only when pytest-html writes one): its hooks, each thin, call
report/html_report.py and report/html_trial.py, which render, and place what they return: the run's story above the
trials table, the table's verdict columns, each trial's extras (`trial_extras`, attached where the trial ran), the
Environment table and the title. The story is built from the run folder on disk, not from the order in which hooks
ran: under xdist the controller writes the HTML from what the workers wrote."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Optional

import pytest
from pytest_html import extras

from pytest_mobium_evals import __version__
from pytest_mobium_evals.core.errors import UsageError
from pytest_mobium_evals.core.setting import includes_agent
from pytest_mobium_evals.report.html_report import story_html
from pytest_mobium_evals.report.html_trial import column_cells, column_headers, trial_view
from pytest_mobium_evals.runfolder.reading import Run, load_run, load_trials

from .session import eval_session

if TYPE_CHECKING:
    from pytest_mobium_evals.core.trial_record import TrialRecord

    from .session import EvalSession


def trial_extras(run_dir: Path, name: str, record: TrialRecord, screen_b64: Optional[str], *, whole: bool = False,
                 self_contained: bool = True, report_dir: Optional[Path] = None) -> list:
    """pytest-html's extras for one trial: the trial as report/html_trial.py shows it."""
    return [extras.html(trial_view(run_dir, name, record, screen_b64, whole=whole, self_contained=self_contained,
                                   report_dir=report_dir))]


def current_run(evals: EvalSession, finished: bool = True):
    """The session's run folder as it is on disk now: its trials' verdict.json files, and the record as the session
    builds it (`RunBooks.run_record`, told which trials are loaded, so no verdict is read twice). pytest-html
    renders at the session's finish, before the record's last write: a session that was not interrupted, with every
    scheduled trial graded, has ended (as the record will say); otherwise it stopped unfinished."""
    folder = Path(evals.options.run_dir)
    trials, _ = load_trials(folder)
    return Run(folder, evals.books.run_record(finished, graded={t.name for t in trials}), trials)


def load_baseline(path: Optional[str]):
    """(run, problem): the baseline run folder, or the one line saying why it cannot be used."""
    if not path:
        return None, None

    try:
        return load_run(path), None
    except UsageError as exc:
        return None, f"--baseline: {exc}"


class HtmlHooks:
    """pytest-html's hooks, registered only with --html: the Environment table and title, the story above the trials
    table, the table's own columns."""

    def __init__(self, config: pytest.Config):
        self.config = config

    @pytest.hookimpl(tryfirst=True)
    def pytest_sessionstart(self, session) -> None:
        """The Environment table (pytest-metadata's, read by pytest-html later in this hook): the run's facts first,
        then pytest's own entries."""
        try:
            from pytest_metadata.plugin import metadata_key  # noqa: PLC0415  pytest-metadata is optional to pytest-html
        except ImportError:
            return
        evals = eval_session(self.config)
        if evals.is_worker:
            return
        options = evals.options
        ours = {"mobium-evals seed": str(options.seed), "Run folder": options.run_dir, "Driver": options.driver,
                "Models": options.models or ("opus:medium" if includes_agent(options.drivers) else "none (controls)"),
                "Repeats": str(options.repeats), "Device option": options.device,
                "Tool server": (f"mobium mcp ({options.mobium_bin})" if options.mobium_bin
                                else "mobium-evals mcp (built-in Mobium-compatible server)")}
        if getattr(self.config.option, "mobium_baseline", None):
            ours["Baseline"] = self.config.option.mobium_baseline

        ours["pytest-mobium-evals"] = __version__
        metadata = self.config.stash.get(metadata_key, {})
        merged = {**ours, **{k: v for k, v in metadata.items() if k not in ours}}
        metadata.clear()
        metadata.update(merged)
        self.config.stash[metadata_key] = metadata

    @pytest.hookimpl(optionalhook=True)
    def pytest_html_report_title(self, report) -> None:
        options = eval_session(self.config).options
        report.title = f"mobium-evals: {Path(options.run_dir).name} (driver {options.driver}, seed {options.seed})"

    @pytest.hookimpl(optionalhook=True)
    def pytest_html_results_summary(self, prefix, summary, postfix, session) -> None:
        evals = eval_session(session.config)
        if evals.is_worker:
            return
        baseline, problem = load_baseline(getattr(session.config.option, "mobium_baseline", None))
        # the same test the record's last write makes (EvalSession.pytest_sessionfinish)
        finished = session.exitstatus != pytest.ExitCode.INTERRUPTED
        prefix.append(story_html(current_run(evals, finished), baseline, problem))

    @pytest.hookimpl(optionalhook=True)
    def pytest_html_results_table_header(self, cells):
        cells[2:2] = column_headers()

    @pytest.hookimpl(optionalhook=True)
    def pytest_html_results_table_row(self, report, cells):
        cells[2:2] = column_cells(getattr(report, "mobium", None))
