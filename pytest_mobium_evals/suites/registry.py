"""The one task registry: which files hold tasks, how each is read, and every task found, by id. pytest's collection,
the catalog of the commands over a stored run (report --regrade, compare, judge) and the JSON suites' loaders all go
through it, so a task is found one way whoever asks, as Inspect's `@task` registry is the one place its tasks are
looked up.

- A Python task file (`test_*.py`) is a module of a package. Outside pytest it is imported by the dotted name its
  `__init__.py` files give it (the name pytest gives it too), with nothing put on sys.path; its tasks are the
  functions carrying a `Task` (`tasks.task_of`).
- A JSON suite's file (a `.json` directly in a folder named after a suite of `JSON_SUITES`) is read by that suite's
  loader into `Entry` values: a task, or the one-line error of an object that is not one.
- `TaskRegistry.add` refuses a second task with an id already taken, in one line naming both files.

No pytest here: the after-run commands read it (pytest's side is collection.py and ghost_bench/collection.py)."""

from __future__ import annotations

import importlib
import importlib.util
import re
import sys
import threading
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from types import ModuleType
from typing import Any, Optional

from pytest_mobium_evals.core.tasks import Task, TaskDefinitionError, task_of

#: The JSON suites: the folder name their files sit in (also the suite's name and marker) -> (how the suite is
#: titled, its loader as "module:function", `loader(path, config) -> list[Entry]`). A loader is imported when a file
#: of its suite is first read, so naming one here costs nothing until then.
JSON_SUITES: dict[str, tuple[str, str]] = {
    "ghost_bench": ("Ghost Bench", "pytest_mobium_evals.suites.ghost_bench.adapter:entries"),
    "androidworld": ("AndroidWorld", "pytest_mobium_evals.suites.androidworld.adapter:entries"),
}

#: How a Python task file is named (pytest's default `python_files`, which this repository keeps).
PYTHON_TASK_FILES = "test_*.py"


@dataclass(frozen=True)
class Entry:
    """One task of a JSON suite file as read: the Task, marks of its own beyond its suite's (with what each means,
    for `--markers`), and why it is skipped here, if it is. An object that is not a usable task is an Entry with its
    one-line `error` instead, under `name`, in `suite`: it fails alone and the file's other tasks still run."""

    task: Optional[Task]
    marks: tuple[tuple[str, str], ...] = ()
    skip: Optional[str] = None
    error: Optional[str] = None
    name: str = ""
    suite: str = ""


def object_name(error: Exception, index: int) -> str:
    """What an unusable JSON object's error item is called: its id, read from the message ("<file>: task <id>:
    ..."), or its place in the file when it has no usable id."""
    match = re.search(r": task ([A-Za-z][A-Za-z0-9_.]*): ", str(error))
    return match.group(1) if match else f"object_{index}"


def json_suite_of(path: Path) -> Optional[str]:
    """The JSON suite a file belongs to (a `.json` directly in the suite's folder), or None."""
    path = Path(path)
    if path.suffix == ".json" and path.parent.name in JSON_SUITES:
        return path.parent.name
    return None


def suite_title(suite: str) -> str:
    return JSON_SUITES[suite][0] if suite in JSON_SUITES else suite


def json_loader(suite: str) -> Callable[[Path, Any], list[Entry]]:
    """The loader of a JSON suite, imported on first use."""
    module, _, function = JSON_SUITES[suite][1].partition(":")
    return getattr(importlib.import_module(module), function)


def read_json_suite_file(path: Path, config: Any = None) -> list[Entry]:
    """The entries of one JSON suite file (its loader raises its suite's TaskFileError for a file that is not
    usable at all)."""
    suite = json_suite_of(path)
    if suite is None:
        raise ValueError(f"{path}: not a file of any JSON suite ({', '.join(JSON_SUITES)})")
    return json_loader(suite)(Path(path), config)


# --- Python task files ------------------------------------------------------------------------------------------

def module_name(path: Path) -> tuple[Path, str]:
    """(the folder to import from, the dotted name) of a Python file: its name in its package, found from the
    `__init__.py` files above it, as pytest's rootdir-independent naming does (`tasks.mobiumapp_tasks.test_t01_x`);
    a file in no package is a module of its own name."""
    path = Path(path).resolve()
    parts = [path.stem]
    folder = path.parent
    while (folder / "__init__.py").is_file():
        parts.insert(0, folder.name)
        folder = folder.parent
    return folder, ".".join(parts)


def import_task_module(path: Path) -> ModuleType:
    """Import a task file by its package name, with no entry put on sys.path: each package above it is imported
    from its own `__init__.py` (so the file's relative imports resolve), then the file. A module already imported
    from this very file (under pytest, say) is returned as it is; one of the same name from another file is
    replaced, as a fresh import would."""
    path = Path(path).resolve()
    root, name = module_name(path)
    parts = name.split(".")
    # One import at a time in a process: a module is in sys.modules before it has run, so another thread loading
    # the same file (two hillclimbs in one process, say) would take it half-defined, with no tasks yet.
    with _IMPORTING:
        for depth in range(1, len(parts)):
            package = ".".join(parts[:depth])
            init = root.joinpath(*parts[:depth], "__init__.py")
            _load(package, init, is_package=True)
        return _load(name, path, is_package=False)


_IMPORTING = threading.RLock()


def _load(name: str, path: Path, *, is_package: bool) -> ModuleType:
    loaded = sys.modules.get(name)
    if loaded is not None and getattr(loaded, "__file__", None) and Path(loaded.__file__).resolve() == path:
        return loaded
    if loaded is not None:
        # another file of this name (a second copy of a suite): what was imported under it goes too, or the new
        # package's relative imports would find the old package's modules
        for stale in [m for m in sys.modules if m.startswith(f"{name}.")]:
            del sys.modules[stale]
    locations = [str(path.parent)] if is_package else None
    spec = importlib.util.spec_from_file_location(name, path, submodule_search_locations=locations)
    module = importlib.util.module_from_spec(spec)
    # registered before it runs, as an import would: a dataclass in a task file looks its module up
    sys.modules[name] = module
    try:
        spec.loader.exec_module(module)
    except BaseException:
        sys.modules.pop(name, None)
        raise
    return module


def tasks_in(module: ModuleType) -> list[Task]:
    """The tasks a module declares: its attributes carrying a Task, once each."""
    found = [task_of(value) for value in vars(module).values()]
    return list({id(t): t for t in found if t is not None}.values())


# --- the registry -----------------------------------------------------------------------------------------------

class TaskRegistry:
    """Every task found, by id, with the file that declared it. One per pytest session (collection.py) and one per
    command that reads task definitions (catalog.py)."""

    def __init__(self) -> None:
        self._tasks: dict[str, Task] = {}

    def add(self, task: Task) -> Task:
        """Register a task. Two tasks with one id would share trial folders and be graded as one: the second is
        refused with one line naming both files (the same task met again, as under pytest a function imported by
        two modules is, is no conflict)."""
        seen = self._tasks.setdefault(task.id, task)
        if seen.source != task.source:
            raise TaskDefinitionError(
                f"{task.source.split('::')[0]}: task {task.id}: the id is already taken by {seen.source}")
        return seen

    def get(self, task_id: str) -> Optional[Task]:
        return self._tasks.get(task_id)

    def __contains__(self, task_id: object) -> bool:
        return task_id in self._tasks

    def __iter__(self) -> Iterator[Task]:
        return iter(self._tasks.values())

    def __len__(self) -> int:
        return len(self._tasks)

    def by_id(self) -> dict[str, Task]:
        return dict(self._tasks)


def task_files(root: Path) -> list[Path]:
    """The task files under a folder (or the file itself): Python task files and JSON suites' files, in order."""
    root = Path(root)
    if root.is_file():
        return [root]
    found = set(root.rglob(PYTHON_TASK_FILES)) | {p for p in root.rglob("*.json") if json_suite_of(p)}
    return sorted(found)


def discover(paths: Iterable[Path], on_error: Callable[[str], None], config: Any = None) -> TaskRegistry:
    """Every task under `paths`, registered; a file that does not import, a JSON object that is not a task and a
    second task with a taken id are each one line to `on_error`, and the rest still load. Importing a task file
    only defines its tasks: nothing runs and no device is touched."""
    registry = TaskRegistry()
    for path in (f for root in paths for f in task_files(root)):
        if json_suite_of(path):
            try:
                entries = read_json_suite_file(path, config)
            except ValueError as exc:  # the suites' TaskFileError is a ValueError, as TaskDefinitionError is
                on_error(f"{path}: skipped: {exc}")
                continue
            found = []
            for entry in entries:
                if entry.task is None:
                    on_error(f"{entry.error}")
                else:
                    found.append(entry.task)
        else:
            try:
                found = tasks_in(import_task_module(path))
            except Exception as exc:
                on_error(f"{path}: skipped, it does not import: {type(exc).__name__}: {exc}")
                continue
        for task in found:
            try:
                registry.add(task)
            except TaskDefinitionError as exc:
                on_error(str(exc))
    return registry
