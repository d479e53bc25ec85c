"""The manual's code blocks that are meant to run do run: each block marked `runs: PATH` is written at PATH (in a copy
of its suite) and its task's controls must all grade as declared, as the page says they do."""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from docs_pages import ROOT, marked_blocks

SUITES = {"tasks/mobiumapp_tasks": ROOT / "tasks" / "mobiumapp_tasks"}


def task_files():
    return [pytest.param(block, id=block.what) for block in marked_blocks("runs")]


def test_the_adding_a_task_tutorial_has_a_file_that_runs():
    assert [b.what for b in marked_blocks("runs")] == ["tasks/mobiumapp_tasks/test_t90_plan_team.py"]


@pytest.mark.parametrize("block", task_files())
def test_a_task_file_on_a_page_grades_its_controls_as_declared(block, pytester: pytest.Pytester):
    path = Path(block.what)
    suite = str(path.parent)
    assert suite in SUITES, f"{block}: a task file the test knows no suite for"
    shutil.copytree(SUITES[suite], pytester.path / path.parent.name)
    (pytester.path / path.parent.name / path.name).write_text(block.text)
    task_id = re.search(r'id="(t\d+)"', block.text).group(1)
    result = pytester.runpytest_subprocess(path.parent.name, "-k", task_id, "--driver=controls", "--clock-speed=5",
                                           "--run-dir", "run", "-p", "no:cacheprovider")
    outcomes = result.parseoutcomes()
    # the tutorial says five controls run (reference, null, wrong, reference+wait, reference+home) and all pass
    assert outcomes.get("passed") == 5 and set(outcomes) <= {"passed", "deselected"}, result.stdout.str()[-3000:]
    result.stdout.fnmatch_lines(["*null: as declared 100%*", "*reference: as declared 100%*",
                                 "*wrong: as declared 100%*"])
