"""A task file that declares a task wrongly is one error, and every other task still runs: in one process (`-n 0`,
where pytest stops at a collection error), as under xdist. Tested by running, not by collecting."""

from __future__ import annotations

import pytest
from plugin_fakes import CONFTEST, TASKS

pytest_plugins = ["pytester"]

BROKEN = '''
from pytest_mobium_evals.core.tasks import Outcome, task

@task(id="f09", slug="no-controls", prompt="p")
def test_f09(device, params):
    return Outcome(True)
'''


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(CONFTEST)
    pytester.makepyfile(test_tasks=TASKS, test_broken=BROKEN)
    return pytester


@pytest.mark.parametrize("processes", ["0", "2"])
def test_the_other_tasks_run_and_the_broken_file_is_one_error(suite, processes):
    result = suite.runpytest_subprocess("-p", "no:cacheprovider", "--run-dir", "run", "--driver=controls",
                                        "-n", processes, "-rE")
    result.assert_outcomes(passed=5, errors=1)
    assert result.ret == pytest.ExitCode.TESTS_FAILED
    out = result.stdout.str()
    assert "Interrupted" not in out and "error during collection" not in out
    (error,) = [line for line in out.splitlines() if line.startswith("ERROR ")]
    assert error.startswith("ERROR test_broken.py::broken_task_file - "), out
    # the error's report is the declaration's one line, naming the file and the task
    assert "\ntest_broken.py: task f09: no reference, wrong\n" in out
    assert "Traceback" not in out
    trials = sorted(p.name for p in (suite.path / "run" / "trials").iterdir())
    assert trials == sorted(["f01-reference-none-r0", "f01-null-none-r0", "f01-wrong-none-r0",
                             "f01-reference+wait-none-r0", "f01-reference+home-none-r0"])


def test_a_module_without_a_bad_declaration_collects_as_pytest_would(pytester):
    pytester.makepyfile(test_plain="def test_one():\n    assert True\n", test_syntax="def test_two(:\n    pass\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-n", "0")
    # an error that is not a task declaration's stays pytest's own collection error
    result.stdout.fnmatch_lines(["*ERROR collecting test_syntax.py*", "*Interrupted: 1 error during collection*"])
