"""The kept evidence still regenerates: `mobium-evals report` on a copy of each kept run (record.json and trials/)
writes the very report.md that is committed beside them, byte for byte. A change to the loader, the grading view or
the renderer that moves one character of a kept report fails here, with the diff, rather than going unseen until
someone reruns the evidence by hand.

Only the kept runs' report.md is checked this way. The hillclimbs kept in evidence/ (hillclimb-offline,
cli-hillclimb, hillclimb-recall) have no such command: their hillclimb.md and result.json are written once, at the
end of a hillclimb, from the search's own objects (commands/hillclimb/evidence.write), and cli-hillclimb's and
hillclimb-recall's *.out files are a probe's printed output of live trials; regenerating either means running the
hillclimb again."""

from __future__ import annotations

import difflib
import shutil
from pathlib import Path

import pytest

from pytest_mobium_evals.commands.cli import main

EVIDENCE = Path(__file__).resolve().parents[2] / "evidence"
#: Every kept run with a report: a folder of evidence/ (or of a folder in it: local-model/small-default) holding
#: record.json and report.md.
KEPT_RUNS = sorted(p.parent.relative_to(EVIDENCE).as_posix() for p in EVIDENCE.rglob("report.md")
                   if (p.parent / "record.json").is_file())


def test_the_first_kept_run_is_among_those_checked():
    assert "20261130-002719-controls" in KEPT_RUNS and "local-model/small-default" in KEPT_RUNS


@pytest.mark.parametrize("name", KEPT_RUNS)
def test_a_kept_runs_report_regenerates_byte_for_byte(name, tmp_path, monkeypatch):
    kept = EVIDENCE / name
    # the same relative path as the command that made it (report.md names its run folder as it was given)
    copy = tmp_path / "evidence" / name
    copy.mkdir(parents=True)
    shutil.copy2(kept / "record.json", copy / "record.json")
    shutil.copytree(kept / "trials", copy / "trials")
    monkeypatch.chdir(tmp_path)

    assert main(["report", f"evidence/{name}"]) == 0

    committed, regenerated = (kept / "report.md").read_bytes(), (copy / "report.md").read_bytes()
    if regenerated != committed:
        diff = "".join(difflib.unified_diff(
            committed.decode("utf-8").splitlines(keepends=True), regenerated.decode("utf-8").splitlines(keepends=True),
            f"evidence/{name}/report.md (committed)", f"evidence/{name}/report.md (regenerated)"))
        pytest.fail(f"mobium-evals report no longer writes the committed evidence/{name}/report.md:\n{diff}\n"
                    f"If the change is meant (the report's format grew, not a verdict moved), refresh it from the "
                    f"repository's root with `mobium-evals report evidence/{name}` and commit the new report.md "
                    f"(and pass-rate.png) with a message saying what changed in it and why.", pytrace=False)
