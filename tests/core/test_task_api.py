"""A task file imports the task-author API from one place, the package root, whichever folder holds each part."""

import subprocess
import sys

import pytest


def test_the_task_api_is_importable_from_the_package_root():
    import pytest_mobium_evals
    from pytest_mobium_evals import Claim, Outcome, Task, Tools, answers, scripting, task
    from pytest_mobium_evals.core import answers as core_answers
    from pytest_mobium_evals.core import tasks as core_tasks
    from pytest_mobium_evals.drivers import scripting as driver_scripting
    from pytest_mobium_evals.reach import toolserver

    assert (task, Task, Claim, Outcome) == (core_tasks.task, core_tasks.Task, core_tasks.Claim, core_tasks.Outcome)
    assert (Tools, answers, scripting) == (toolserver.Tools, core_answers, driver_scripting)
    assert set(pytest_mobium_evals.TASK_API) == set(pytest_mobium_evals.__all__) - {"__version__"}
    with pytest.raises(AttributeError, match="no attribute 'Taks'"):
        pytest_mobium_evals.Taks  # noqa: B018


def test_importing_the_package_root_loads_none_of_it():
    probe = ("import sys, pytest_mobium_evals; "
             "print(sorted(m for m in sys.modules if m.startswith('pytest_mobium_evals')))")
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120, check=True)
    assert done.stdout.strip() == "['pytest_mobium_evals']"
