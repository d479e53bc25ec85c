"""Collection of JSON task suites: a task file is a test module whose tests are its tasks, each marked with its
suite and any marks of its own (a Ghost Bench task's category: `-m "ghost_bench and settings"`).

Which files are a JSON suite's and how each is read is the task registry's (registry.py: `JSON_SUITES`, each
suite's loader); this module is pytest's side of it for every JSON suite, Ghost Bench's and AndroidWorld's alike:
the module collector a file becomes, and its test functions."""

from __future__ import annotations

import types
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from pytest_mobium_evals.core.tasks import TASK_ATTR, Outcome, Task, TaskDefinitionError
from pytest_mobium_evals.plugin.broken_tasks import BROKEN_ATTR, TaskModule
from pytest_mobium_evals.suites.json_loading import TaskFileError
from pytest_mobium_evals.suites.registry import Entry, json_loader, json_suite_of, suite_title


def task_file_class(name: str, load: Callable[[Path, Any], list[Entry]]) -> type:
    """A module collector (broken_tasks.TaskModule) that builds its module from a JSON file with
    `load(path, config)`. A TaskFileError from it makes the file one error item with its one line, and an unusable
    object one error item of its own; every other task still runs."""

    def _getobj(self):
        try:
            return build_module(load(self.path, self.config), self.path, self.config)
        except TaskFileError as err:
            raise TaskDefinitionError(str(err)) from None

    def _no_fixture(self) -> None:  # a JSON file has no setup_module or setup_function
        return None

    return type(name, (TaskModule,), {
        "__doc__": "A JSON task file as a pytest module of task functions.", "_getobj": _getobj,
        "_register_setup_module_fixture": _no_fixture, "_register_setup_function_fixture": _no_fixture})


#: The collector class of each JSON suite (`GhostBenchFile`, `AndroidWorldFile`), made on first use.
_FILE_CLASSES: dict[str, type] = {}


def collect_json_suite_file(parent: Any, file_path: Path) -> Any | None:
    """For `pytest_collect_file`: a collector for a JSON suite's task file, or None for any other file.

    The file is collected as a test module built from the JSON: one test function per task, carrying the task as
    MobiumApp's tests do (`tasks.task_of`) and the same marks (the suite's, the `mobium_trial` fixture). So the
    plugin parametrizes and runs it through the very trial protocol of a MobiumApp task. A malformed file is one
    error item with its one line; a task for another platform is collected and skipped with the reason."""
    suite = json_suite_of(Path(file_path))
    if suite is None:
        return None
    if suite not in _FILE_CLASSES:
        _FILE_CLASSES[suite] = task_file_class(suite_title(suite).replace(" ", "") + "File", json_loader(suite))
    return _FILE_CLASSES[suite].from_parent(parent, path=Path(file_path))


def build_module(entries: Iterable[Entry], path: Path, config: Any | None = None):
    """A module object holding one test function per task, each marked and carrying its Task."""
    module = types.ModuleType(f"{Path(path).parent.name}_{Path(path).stem}")
    module.__file__ = str(path)
    broken = []
    setattr(module, BROKEN_ATTR, broken)
    for entry in entries:
        if entry.task is None:
            broken.append((entry.name, entry.error or "not a task", entry.suite))
            continue
        value = entry.task
        fn = _task_function(value)  # the plugin's collection marks it, as every task function
        for name, what in entry.marks:
            if config is not None and name not in _registered(config):
                config.addinivalue_line("markers", f"{name}: {what}")
            fn = getattr(pytest.mark, name)(fn)
        if entry.skip:
            fn = pytest.mark.skip(reason=entry.skip)(fn)
        setattr(fn, TASK_ATTR, value)
        setattr(module, value.id, fn)
    return module


def _registered(config: Any) -> set[str]:
    return {line.split(":")[0].split("(")[0].strip() for line in config.getini("markers")}


def _task_function(value: Task) -> Callable:
    outcome = value.outcome

    # The signature is what MobiumApp's task functions take: pytest injects the plugin's `device` and `params`.
    def check(device, params) -> Outcome:
        return outcome(device, params)

    check.__name__ = value.id
    check.__qualname__ = value.id
    check.__doc__ = f"{suite_title(value.suite)} {value.id}: {value.prompt}"
    check.__test__ = True  # collected by name whatever `python_functions` says: these names are task ids
    return check
