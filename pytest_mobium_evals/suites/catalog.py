"""The task catalog outside pytest: the task suites' definitions for the commands that work on a stored run
(report --regrade, compare, judge), so that they grade it with the tasks' own rules and questions. The tasks are
found as pytest collection finds them, through the task registry (registry.py): task packages imported by their
package names, JSON suites read by their loaders. Importing a suite only defines its tasks; nothing runs and no
device is touched."""

from __future__ import annotations

import sys
from pathlib import Path

from pytest_mobium_evals.core.errors import UsageError

from .registry import discover


def default_task_paths() -> list[Path]:
    """Where the task suites live: ./tasks, else the tasks/ beside this package (an editable install)."""
    here = Path("tasks")
    if here.is_dir():
        return [here]
    beside = Path(__file__).resolve().parents[2] / "tasks"
    return [beside] if beside.is_dir() else []


def load_task_definitions(paths: list[Path]) -> dict:
    """task id -> Task, from the task files under `paths` (folders or files). A file that does not import, a JSON
    object that is not a task and an id declared twice are each one line on stderr, and skipped: the others' rules
    still apply."""
    for root in paths:
        if not Path(root).exists():
            raise UsageError(f"{root}: no such task suite")
    return discover([Path(p) for p in paths], on_error=lambda line: print(line, file=sys.stderr)).by_id()
