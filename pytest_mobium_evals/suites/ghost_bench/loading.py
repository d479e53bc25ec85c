"""Reading and validating Ghost Bench task files (`tasks/ghost_bench/*.json`, each a JSON array of task objects, or
one object), in Ghost Bench's own format:

    {"id": "SystemWifiTurnOn", "goal": "Turn wifi on.", "app": "com.android.settings", "category": "settings",
     "complexity": 1, "init": {"cmd": "svc wifi disable", "desc": "Disable WiFi"},
     "eval": {"cmd": "settings get global wifi_on", "expect_in": ["1", "2"]}}

Three keys are ours, all optional: `controls` (the verdict each control driver must get), `changed` (where a task
differs from Ghost Bench's, with the original and the reason) and `ui` (where the derived controls find the setting
or the app, when Settings' search or the goal's words would not).

Errors are one line naming the file, the task and what is wrong (`GhostBenchError`), never a traceback: a suite is
edited by hand, and a stack trace tells its author nothing about their JSON.

Only what is Ghost Bench's own is here (its keys, ids, categories, platforms, the task object); what every JSON
suite's loader shares (reading a file, opening an object, commands, evals, controls, `changed`, `ui`) is
`suites/json_loading.py`.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_mobium_evals.core.tasks import Controls

from ..eval_check import Check
from ..json_loading import (
    UI,
    TaskFileError,
    open_object,
    parse_changed,
    parse_command,
    parse_controls,
    parse_eval,
    parse_ui,
    read_objects,
    unique_ids,
)

#: Ghost Bench's own keys, then ours. Anything else is a typo until proven otherwise: an unknown key is an error, so
#: "expected" for "expect" or "tear_down" for "teardown" cannot silently make a task check nothing.
GHOST_KEYS = ("id", "goal", "app", "category", "complexity", "init", "eval", "teardown", "platforms")
OUR_KEYS = ("controls", "changed", "ui")
TASK_KEYS = GHOST_KEYS + OUR_KEYS
REQUIRED_KEYS = ("id", "goal", "app", "category", "eval")
DEFAULT_PLATFORMS = ("android",)
#: This harness reaches devices over ADB only, so a task for another platform cannot run here. Ghost Bench's
#: "all" covers it.
HARNESS_PLATFORMS = ("android", "all")

# Task ids become test ids and trial folder names (`<task>-<driver>-<model>-r<repeat>`): keep them to characters
# that survive both unquoted.
_ID = re.compile(r"^[A-Za-z0-9_.]+$")
# The category is a pytest mark (`-m "ghost_bench and settings"`), so it must be a marker name.
_MARKER_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
#: Marks that already mean something to pytest or to this harness: a category named so would skip, parametrize or
#: mislabel its tasks.
RESERVED_MARKS = ("skip", "skipif", "xfail", "parametrize", "usefixtures", "filterwarnings", "tryfirst", "trylast",
                  "mobiumapp", "ghost_bench", "regression", "mobium_trial")


class GhostBenchError(TaskFileError):
    """A Ghost Bench task file that cannot be used as written."""


@dataclass(frozen=True)
class GhostTask:
    """One JSON task object, validated. `source` is "<file>: task <id>", the prefix of every message about it."""

    id: str
    goal: str
    app: str
    category: str
    check: Check
    complexity: float = 1.0
    init: dict | None = None
    teardown: dict | None = None
    platforms: tuple[str, ...] = DEFAULT_PLATFORMS
    controls: Controls = field(default_factory=Controls)
    changed: tuple[dict, ...] = ()
    ui: UI | None = None
    source: str = ""
    raw: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def max_steps(self) -> int:
        # Ghost Bench: int(complexity * 10). round() first, so 1.1 * 10 = 11.000000000000002 and 0.7 * 10 =
        # 7.000000000000001 stay 11 and 7 rather than drifting with float error.
        return int(round(self.complexity * 10, 6))

    @property
    def runs_here(self) -> bool:
        return any(p in HARNESS_PLATFORMS for p in self.platforms)

    @property
    def skip_reason(self) -> str:
        return (f"Ghost Bench task {self.id} is for {', '.join(self.platforms)}; this harness drives "
                f"android devices over ADB")


def load_file(path: Path | str) -> list[GhostTask]:
    """Read and validate one task file. Raises GhostBenchError (file, task, what is wrong) on any problem."""
    path = Path(path)
    tasks = [_parse_task(path, index, raw) for index, raw in enumerate(read_objects(path, GhostBenchError), start=1)]
    unique_ids(path, tasks, GhostBenchError)
    return tasks


def load_objects(path: Path | str) -> list[GhostTask | GhostBenchError]:
    """Each object of a task file, validated on its own: a GhostTask, or the GhostBenchError (one line naming the
    file and the task) that makes it unusable, so one typo costs one task, not the file's others. A file that is
    not a JSON array of objects, or that uses an id twice, raises."""
    path = Path(path)
    loaded: list[GhostTask | GhostBenchError] = []
    for index, raw in enumerate(read_objects(path, GhostBenchError), start=1):
        try:
            loaded.append(_parse_task(path, index, raw))
        except GhostBenchError as err:
            loaded.append(err)
    unique_ids(path, [t for t in loaded if isinstance(t, GhostTask)], GhostBenchError)
    return loaded


def load_dir(directory: Path | str) -> list[GhostTask]:
    """Every `*.json` in a directory, in file-name order; an id used in two files is an error."""
    directory = Path(directory)
    if not directory.is_dir():
        raise GhostBenchError(f"{directory}: not a directory of Ghost Bench task files")
    tasks: list[GhostTask] = []
    where: dict[str, str] = {}
    for path in sorted(directory.glob("*.json")):
        for task in load_file(path):
            if task.id in where:
                raise GhostBenchError(f"{path}: task {task.id}: the id is also used in {where[task.id]}")
            where[task.id] = str(path)
            tasks.append(task)
    return tasks


def _parse_task(path: Path, index: int, raw: Any) -> GhostTask:
    task_id, where, fail = open_object(
        path, index, raw, GhostBenchError, TASK_KEYS, REQUIRED_KEYS,
        hints={"eval": "; every task needs an eval {cmd, expect|expect_in|expect_contains}"})
    if not isinstance(task_id, str) or not _ID.match(task_id):
        raise fail(f"id must be letters, digits, '_' or '.', got {json.dumps(task_id)}")
    for key in ("goal", "app", "category"):
        if not isinstance(raw[key], str) or not raw[key].strip():
            raise fail(f"{key} must be a non-empty string, got {json.dumps(raw[key])}")
    if not _MARKER_NAME.match(raw["category"]):
        raise fail(f"category {raw['category']!r} is not a pytest marker name (letters, digits and '_', not "
                   f"starting with a digit): it becomes the task's mark")
    if raw["category"] in RESERVED_MARKS:
        raise fail(f"category {raw['category']!r} is a mark pytest or this harness already uses; name it otherwise")

    complexity = raw.get("complexity", 1.0)
    if isinstance(complexity, bool) or not isinstance(complexity, (int, float)) or not complexity > 0:
        raise fail(f"complexity must be a number > 0, got {json.dumps(complexity)}")

    init = parse_command(raw, "init", fail)
    teardown = parse_command(raw, "teardown", fail)
    check = parse_eval(raw["eval"], fail)

    platforms = raw.get("platforms", list(DEFAULT_PLATFORMS))
    if (not isinstance(platforms, list) or not platforms
            or not all(isinstance(p, str) and p.strip() for p in platforms)):
        raise fail(f"platforms must be a non-empty array of names, got {json.dumps(platforms)}")

    controls = parse_controls(raw.get("controls"), fail)
    changed = parse_changed(raw.get("changed"), raw, fail, original="Ghost Bench's")
    ui = parse_ui(raw.get("ui"), fail)

    task = GhostTask(id=task_id, goal=raw["goal"], app=raw["app"], category=raw["category"], check=check,
                     complexity=float(complexity), init=init, teardown=teardown,
                     platforms=tuple(p.strip().lower() for p in platforms), controls=controls, changed=changed,
                     ui=ui, source=where, raw=raw)
    return task

