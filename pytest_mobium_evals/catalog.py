"""The task catalog outside pytest: finding the task suites and importing their definitions, so that the
commands that work on a stored run (report --regrade, compare, judge) grade it with the tasks' own rules and
questions. Importing a suite only defines its tasks; nothing runs and no device is touched."""

from __future__ import annotations

import sys
from pathlib import Path

from .cli import CliError


def default_task_paths() -> list[Path]:
    """Where the Python task suites live: ./tasks, else the tasks/ beside this package (an editable install)."""
    here = Path("tasks")
    if here.is_dir():
        return [here]
    beside = Path(__file__).resolve().parents[1] / "tasks"
    return [beside] if beside.is_dir() else []


def load_task_definitions(paths: list[Path]) -> dict:
    """task id -> Task, from the `test_*.py` suites under `paths` (Ghost Bench's JSON tasks have no answer rules,
    so they are not needed to regrade). Importing a suite only defines its tasks; nothing runs. A suite that does
    not import is reported on stderr and skipped: the others' rules still apply."""
    import importlib.util

    from .tasks import task_of

    found: dict = {}
    for root in paths:
        if not root.exists():
            raise CliError(f"{root}: no such task suite")
        files = [root] if root.is_file() else sorted(root.rglob("test_*.py"))
        for path in files:
            name = "_mobium_suite_" + "_".join(path.with_suffix("").parts[-3:]).replace("-", "_")
            spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(spec)
            # registered before it runs, as an import would: dataclasses in a suite look their module up
            sys.modules[name] = module
            sys.path.insert(0, str(path.parent))  # a suite may import its neighbours, as under pytest
            try:
                spec.loader.exec_module(module)
            except Exception as exc:
                sys.modules.pop(name, None)
                print(f"{path}: skipped, it does not import: {type(exc).__name__}: {exc}", file=sys.stderr)
                continue
            finally:
                sys.path.remove(str(path.parent))
            for value in vars(module).values():
                task = task_of(value)
                if task is not None:
                    found[task.id] = task
    return found
