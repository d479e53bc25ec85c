"""Collection of JSON task suites: a task file is a test module whose tests are its tasks, each marked with its
suite and any marks of its own (a Ghost Bench task's category: `-m "ghost_bench and settings"`).

Ghost Bench's files (`tasks/ghost_bench/*.json`) are collected here; another JSON suite (AndroidWorld's) gives its
own loader to `task_file_class` and reuses the rest."""

from __future__ import annotations

import types
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ..tasks import TASK_ATTR, Outcome, Task, mark
from .adapter import SUITE, to_task
from .loading import TaskFileError, load_file

#: How a suite's name reads in a task's docstring.
SUITE_TITLES = {SUITE: "Ghost Bench", "androidworld": "AndroidWorld"}


@dataclass(frozen=True)
class Entry:
    """One task of a JSON suite file as collected: the Task, marks of its own beyond its suite's (with what each
    means, for `--markers`), and why it is skipped here, if it is. An object that is not a usable task is an
    Entry with its one-line `error` instead, under `name`, in `suite`: it fails alone and the file's other tasks
    still run."""

    task: Task | None
    marks: tuple[tuple[str, str], ...] = ()
    skip: str | None = None
    error: str | None = None
    name: str = ""
    suite: str = ""


def is_task_file(path: Path, folder: str = SUITE) -> bool:
    """A JSON file directly in the suite's folder (`ghost_bench`): how a suite's files are recognised under
    `tasks/`."""
    return path.suffix == ".json" and path.parent.name == folder


def ghost_bench_entries(path: Path, config: Any = None) -> list[Entry]:
    entries = []
    for gt in load_file(path):
        entries.append(Entry(to_task(gt), marks=((gt.category, f"Ghost Bench tasks of category {gt.category}"),),
                             skip=None if gt.runs_here else gt.skip_reason))
    return entries


def task_file_class(name: str, load: Callable[[Path, Any], list[Entry]]) -> type:
    """A pytest.Module subclass that builds its module from a JSON file with `load(path, config)`. A TaskFileError
    from it fails the file's collection with its one line; the other files still run."""

    def _getobj(self):
        try:
            return build_module(load(self.path, self.config), self.path, self.config)
        except TaskFileError as err:
            raise self.CollectError(str(err)) from None

    def _no_fixture(self) -> None:  # a JSON file has no setup_module or setup_function
        return None

    return type(name, (pytest.Module,), {
        "__doc__": "A JSON task file as a pytest module of task functions.", "_getobj": _getobj,
        "_register_setup_module_fixture": _no_fixture, "_register_setup_function_fixture": _no_fixture})


GhostBenchFile = task_file_class("GhostBenchFile", ghost_bench_entries)


def collect_ghost_bench(parent: Any, file_path: Path) -> Any | None:
    """For `pytest_collect_file`: a collector for a Ghost Bench task file, or None for any other file.

    The file is collected as a test module built from the JSON: one test function per task, carrying the task as
    MobiumApp's tests do (`tasks.task_of`) and the same marks (`ghost_bench`, the `mobium_trial` fixture). So the
    plugin parametrizes and runs it through the very trial protocol of a MobiumApp task. A malformed file fails
    collection with its one-line error; a task for another platform is collected and skipped with the reason."""
    if not is_task_file(Path(file_path)):
        return None
    return GhostBenchFile.from_parent(parent, path=Path(file_path))


def build_module(entries: Iterable[Entry], path: Path, config: Any | None = None):
    """A module object holding one test function per task, each marked and carrying its Task."""
    module = types.ModuleType(f"{Path(path).parent.name}_{Path(path).stem}")
    module.__file__ = str(path)
    for entry in entries:
        if entry.task is None:
            setattr(module, entry.name, _broken_function(entry))
            continue
        value = entry.task
        fn = mark(_task_function(value), value)
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


def _broken_function(entry: Entry) -> Callable:
    message = entry.error or "not a task"

    def broken() -> None:
        pytest.fail(message, pytrace=False)

    broken.__name__ = broken.__qualname__ = entry.name
    broken.__test__ = True
    return getattr(pytest.mark, entry.suite)(broken) if entry.suite else broken


def _task_function(value: Task) -> Callable:
    outcome = value.outcome

    # The signature is what MobiumApp's task functions take: pytest injects the plugin's `device` and `params`.
    def check(device, params) -> Outcome:
        return outcome(device, params)

    check.__name__ = value.id
    check.__qualname__ = value.id
    check.__doc__ = f"{SUITE_TITLES.get(value.suite, value.suite)} {value.id}: {value.prompt}"
    check.__test__ = True  # collected by name whatever `python_functions` says: these names are task ids
    return check
