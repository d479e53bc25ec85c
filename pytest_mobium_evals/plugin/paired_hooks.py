"""The surface comparison's two pytest hooks: the before/after table left beside record.json when a run ends, and
its lines in the terminal summary. They live apart from analysis/paired.py and report/surfaces.py, which the
after-run commands (report, compare) read and which therefore import no pytest. Every process of a run registers
this module, and only the controller of a run with surface variants uses them: the statistics are imported there."""

from __future__ import annotations

from pathlib import Path

from pytest_mobium_evals.runfolder.files import atomic_write_text
from pytest_mobium_evals.runfolder.layout import SURFACES
from pytest_mobium_evals.runfolder.reading import is_run, load_run

from .session import eval_session


def pytest_mobium_run_finished(config, run_dir, status) -> None:
    """A run with variants leaves its before/after table beside record.json."""
    if not eval_session(config).agents.surface_variants():
        return
    from pytest_mobium_evals.report.surfaces import section_markdown  # noqa: PLC0415  the paired statistics: only a run with variants, at its end (every worker registers this module)

    text = section_markdown(load_run(run_dir, require_complete=False))
    if text:
        atomic_write_text(Path(run_dir) / SURFACES, text)


def pytest_terminal_summary(terminalreporter, exitstatus, config) -> None:
    """The variants against baseline, one line each, dev and held out apart (the table is in surfaces.md)."""
    # the session's variants, as the record holds them: --surface and --tools, restored by --resume
    if getattr(config, "workerinput", None) is not None or not eval_session(config).agents.surface_variants():
        return

    run_dir = Path(eval_session(config).options.run_dir)
    if not is_run(run_dir):
        return
    from pytest_mobium_evals.analysis.paired import compare_run  # noqa: PLC0415  the paired statistics: only a run with variants, at its end (every worker registers this module)
    from pytest_mobium_evals.report.surfaces import pts  # noqa: PLC0415  with them

    comparisons = compare_run(load_run(run_dir, require_complete=False))
    if not comparisons:
        return
    terminalreporter.section("surface variants against baseline (the call: exact paired test over tasks; "
                             "task-clustered 95% interval)")
    for c in comparisons:
        interval = "" if c.low is None else f" [{pts(c.low)} to {pts(c.high)}]"
        terminalreporter.write_line(
            f"{c.variant} vs baseline, {c.model}, {c.split}: {pts(c.delta)} points{interval} over {c.tasks} "
            f"task{'s' if c.tasks != 1 else ''}: {c.call}; better on {', '.join(c.better) or 'none'}, worse on "
            f"{', '.join(c.worse) or 'none'}")
    terminalreporter.write_line(f"the table: {run_dir / SURFACES}")
