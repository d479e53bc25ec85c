"""A task file that cannot be used becomes one error item, not a collection error: pytest stops a run in one process
(`-n 0`, the default agent run) at its first collection error, so one typo in one file would run no trial at all.
Here the file's collector yields a `BrokenTask` in place of its tests: it errors in setup with the file's one line
(naming the file and the task), and every other file's trials run, in one process as under xdist. A JSON suite's
file gets one such item per unusable object, beside its usable tasks.

What counts as a bad declaration is the task layer's `TaskDefinitionError` (a JSON suite's collector raises it for
its `TaskFileError`); any other exception while importing a file (a SyntaxError in a plain test module) stays
pytest's own collection error."""

from __future__ import annotations

from typing import Any

import pytest

from pytest_mobium_evals.core.tasks import TaskDefinitionError

#: On a module object built by a JSON suite: [(name, one-line error, suite)] of the objects that are not usable
#: tasks (the suite is the item's mark, so `-m androidworld` selects it too).
BROKEN_ATTR = "__mobium_broken__"


class BrokenTask(pytest.Item):
    """What stands for a task (or a whole task file) that cannot be collected: an error with one line."""

    def __init__(self, *, message: str, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.message = message

    def setup(self) -> None:
        # failing in setup makes it an error, not a failed test; without pytrace the report is the line alone
        pytest.fail(self.message, pytrace=False)

    def runtest(self) -> None:  # never reached: setup fails
        pytest.fail(self.message, pytrace=False)

    def reportinfo(self):
        return self.path, None, f"{self.path.name}: {self.name}"


class TaskModule(pytest.Module):
    """A test module whose bad task declaration is an error item of its own (see the module's docstring)."""

    def collect(self):
        try:
            items = list(super().collect())
        except TaskDefinitionError as err:
            return [BrokenTask.from_parent(self, name="broken_task_file", message=_one_line(err))]
        broken = getattr(self.obj, BROKEN_ATTR, ())
        out = []
        for name, message, suite in broken:
            item = BrokenTask.from_parent(self, name=name, message=message)
            if suite:
                item.add_marker(suite)
            out.append(item)
        return items + out


def _one_line(err: BaseException) -> str:
    # a CollectError built with a message carries it as its first argument
    return str(err.args[0]) if err.args else str(err)


def pytest_pycollect_makemodule(module_path, parent):
    """Every Python test module is a TaskModule: one that declares no task, or declares its tasks well, collects
    exactly as pytest's own Module. (Registered after pytest's own plugins, this is asked before pytest's
    default; a conftest's own makemodule, registered later still, is asked first.)"""
    return TaskModule.from_parent(parent, path=module_path)
