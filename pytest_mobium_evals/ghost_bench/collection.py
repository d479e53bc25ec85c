"""Collection: a Ghost Bench task file is a test module whose tests are its tasks, each marked `ghost_bench` and
with its category (`-m "ghost_bench and settings"`)."""

from __future__ import annotations

import types
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

import pytest

from ..tasks import TASK_ATTR, Outcome, Task, mark
from .adapter import SUITE, to_task
from .loading import GhostBenchError, GhostTask, load_file


def is_task_file(path: Path) -> bool:
    """A JSON file directly in a `ghost_bench` folder: how the suite's files are recognised under `tasks/`."""
    return path.suffix == ".json" and path.parent.name == SUITE


def collect_ghost_bench(parent: Any, file_path: Path) -> Any | None:
    """For `pytest_collect_file`: a collector for a Ghost Bench task file, or None for any other file.

    The file is collected as a test module built from the JSON: one test function per task, carrying the task as
    MobiumApp's tests do (`tasks.task_of`) and the same marks (`ghost_bench`, the `mobium_trial` fixture). So the
    plugin parametrizes and runs it through the very trial protocol of a MobiumApp task. A malformed file fails
    collection with its one-line error; a task for another platform is collected and skipped with the reason."""
    if not is_task_file(Path(file_path)):
        return None
    return GhostBenchFile.from_parent(parent, path=Path(file_path))


def _module_class():
    class GhostBenchFile(pytest.Module):
        """A Ghost Bench task file as a pytest module of task functions."""

        def _getobj(self):
            try:
                return build_module(load_file(self.path), self.path, self.config)
            except GhostBenchError as err:
                raise self.CollectError(str(err)) from None

        def _register_setup_module_fixture(self) -> None:  # a JSON file has no setup_module
            return None

        def _register_setup_function_fixture(self) -> None:
            return None

    return GhostBenchFile


def build_module(ghosts: Iterable[GhostTask], path: Path, config: Any | None = None):
    """A module object holding one test function per task, each marked and carrying its Task. Raises
    GhostBenchError for a task whose controls cannot be derived."""
    module = types.ModuleType(f"ghost_bench_{Path(path).stem}")
    module.__file__ = str(path)
    for gt in ghosts:
        value = to_task(gt)
        fn = _task_function(value)
        fn = mark(fn, value)
        if config is not None and gt.category not in _registered(config):
            config.addinivalue_line("markers", f"{gt.category}: Ghost Bench tasks of category {gt.category}")
        fn = getattr(pytest.mark, gt.category)(fn)
        if not gt.runs_here:
            fn = pytest.mark.skip(reason=gt.skip_reason)(fn)
        setattr(fn, TASK_ATTR, value)
        setattr(module, gt.id, fn)
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
    check.__doc__ = f"Ghost Bench {value.id}: {value.prompt}"
    check.__test__ = True  # collected by name whatever `python_functions` says: these names are task ids
    return check


GhostBenchFile = _module_class()


