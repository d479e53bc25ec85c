"""What the task-suite tests share."""

from __future__ import annotations

import pytest


@pytest.fixture
def run_broken():
    """Run a copied suite's broken task file alone: it is one error item (not a collection error), its report the
    declaration's one line."""

    def run(pytester: pytest.Pytester) -> pytest.RunResult:
        result = pytester.runpytest("mobiumapp_tasks", "--driver=reference", "-k", "broken_task_file", "-n", "0",
                                    "--run-dir", "run", "-p", "no:cacheprovider")
        result.assert_outcomes(errors=1)
        out = result.stdout.str()
        assert "Traceback" not in out and "error during collection" not in out
        return result

    return run
