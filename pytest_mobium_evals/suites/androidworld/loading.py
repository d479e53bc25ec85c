"""Reading and validating AndroidWorld task files (`tasks/androidworld/*.json`, each a JSON array of task objects,
or one object), in this project's own format for AndroidWorld's task classes:

    {"id": "SystemWifiTurnOn", "class": "SystemWifiTurnOn", "template": "Turn wifi {on_or_off}.",
     "params": {"on_or_off": "on"}, "app_names": ["settings"], "complexity": 1,
     "setup": [{"cmd": "svc wifi disable", "desc": "adb_utils.toggle_wifi(off)"}],
     "eval": {"cmd": "settings get global wifi_on", "expect_in": ["1", "2"]}}

- `class`: the AndroidWorld TaskEval class the object expresses; `template` and `params` are its goal template and
  parameters (a parameter given as an array is drawn per trial, seeded, as the class's generate_random_params
  draws it); `app_names` are the apps its start-up restores (here: stopped); `complexity` sets the step budget.
- `setup`: what the class's initialize_task sends after AndroidWorld's shared start-up (which every task gets).
- `eval`: what its is_successful reads, as Ghost Bench's eval (`expect`, `expect_in`, or `expect_top_package`: the
  package of the app in front, from `am stack list` as android_env reads it), with an optional `ui` for the derived
  controls. A composite has `parts` instead: the ids of the tasks it is made of (a part id may name a parameter,
  `OpenAppTaskEval.{app_name}`); their setups run in order and its score is the mean of their evals'.
- `starts`: "unmet" (the default: the setup puts the device in the opposite state) or "met" (a Verify task: the
  goal already holds). Checked on the device before every trial.
- `controls` and `changed` as in Ghost Bench's files.

Errors are one line naming the file, the task and what is wrong (`AndroidWorldError`).
"""

from __future__ import annotations

import dataclasses
import re
import string
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from pytest_mobium_evals.core.tasks import Controls
from pytest_mobium_evals.core.verdicts import NULL

from ..eval_check import TOP_PACKAGE, Check
from ..json_loading import (
    UI,
    TaskFileError,
    json_type,
    open_object,
    parse_changed,
    parse_command,
    parse_controls,
    parse_eval,
    parse_ui,
    read_objects,
    unique_ids,
)

TASK_KEYS = ("id", "class", "template", "params", "app_names", "complexity", "setup", "eval", "parts", "starts",
             "controls", "changed")
REQUIRED_KEYS = ("id", "class", "template", "app_names")
#: What an AndroidWorld is_successful reads, in our terms: a setting's exact value, one of several, or the app in
#: front.
EXPECTATIONS = ("expect", "expect_in", TOP_PACKAGE)
STARTS = ("unmet", "met")
#: AndroidWorld's app names and the packages they stand for (its adb_utils and OpenAppTaskEval tables).
APP_PACKAGES = {
    "settings": "com.android.settings",
    "camera": "com.android.camera2",
    "clock": "com.google.android.deskclock",
    "contacts": "com.google.android.contacts",
    "dialer": "com.google.android.dialer",
}
_ID = re.compile(r"^[A-Za-z][A-Za-z0-9_.]*$")
_PARAM = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class AndroidWorldError(TaskFileError):
    """An AndroidWorld task file that cannot be used as written."""


@dataclass(frozen=True)
class AWTask:
    """One task object, validated. `source` is "<file>: task <id>", the prefix of every message about it.
    `check` and `ui` are set for a single task, `parts` for a composite."""

    id: str
    cls: str
    template: str
    params: dict[str, Any]
    app_names: tuple[str, ...]
    complexity: float = 1.0
    setup: tuple[dict, ...] = ()
    check: Check | None = None
    ui: UI | None = None
    parts: tuple[str, ...] = ()
    starts: str = "unmet"
    controls: Controls = field(default_factory=Controls)
    changed: tuple[dict, ...] = ()
    source: str = ""

    @property
    def composite(self) -> bool:
        return bool(self.parts)

    @property
    def packages(self) -> tuple[str, ...]:
        return tuple(APP_PACKAGES[name] for name in self.app_names)

    @property
    def max_steps(self) -> int:
        # AndroidWorld's step budget: int(10 * complexity)
        return int(round(self.complexity * 10, 6))

    def choices(self) -> list[dict[str, str]]:
        """Every parameter assignment a trial may draw (one, unless a parameter is an array)."""
        combos: list[dict[str, str]] = [{}]
        for name, value in self.params.items():
            options = value if isinstance(value, list) else [value]
            combos = [dict(c, **{name: str(option)}) for c in combos for option in options]
        return combos


def load_file(path: Path | str) -> list[AWTask]:
    """Read and validate one task file, composites' parts included (they must name tasks of the same file).
    Raises AndroidWorldError, the first mistake's one line."""
    loaded = load_objects(path)
    for item in loaded:
        if isinstance(item, AndroidWorldError):
            raise item
    return [item for item in loaded if isinstance(item, AWTask)]


def load_objects(path: Path | str) -> list[AWTask | AndroidWorldError]:
    """Each object of a task file, validated on its own: an AWTask, or the AndroidWorldError (one line naming the
    file and the task) that makes it unusable. A file that is not a JSON array of objects raises."""
    path = Path(path)
    loaded: list[AWTask | AndroidWorldError] = []
    for index, raw in enumerate(read_objects(path, AndroidWorldError), start=1):
        try:
            loaded.append(_parse_task(path, index, raw))
        except AndroidWorldError as err:
            loaded.append(err)
    tasks = [t for t in loaded if isinstance(t, AWTask)]
    unique_ids(path, tasks, AndroidWorldError)
    by_id = {t.id: t for t in tasks}
    return [_check_parts(item, by_id) if isinstance(item, AWTask) else item for item in loaded]


def _check_parts(task: AWTask, by_id: dict[str, AWTask]) -> AWTask | AndroidWorldError:
    try:
        for choice in task.choices():
            for part in parts_of(task, choice, by_id):
                if part is task:
                    continue
                if part.composite:
                    return AndroidWorldError(f"{task.source}: part {part.id} is itself a composite; a composite "
                                             f"is made of single tasks")
                if len(part.choices()) > 1:
                    return AndroidWorldError(f"{task.source}: part {part.id} draws its parameters; a part's "
                                             f"parameters are fixed")
    except AndroidWorldError as err:
        return err
    return task


def parts_of(task: AWTask, params: dict[str, str], by_id: dict[str, AWTask]) -> list[AWTask]:
    """A composite's parts for one parameter assignment (a single task is its own one part)."""
    if not task.composite:
        return [task]
    parts = []
    for ref in task.parts:
        name = ref.format(**params)
        if name not in by_id:
            raise AndroidWorldError(f"{task.source}: part {name!r} is not a usable task of this file")
        parts.append(by_id[name])
    return parts


def _parse_task(path: Path, index: int, raw: Any) -> AWTask:
    task_id, where, fail = open_object(path, index, raw, AndroidWorldError, TASK_KEYS, REQUIRED_KEYS)
    if not isinstance(task_id, str) or not _ID.match(task_id):
        raise fail(f"id must be a letter, then letters, digits, '_' or '.', got {task_id!r}")
    for key in ("class", "template"):
        if not isinstance(raw[key], str) or not raw[key].strip():
            raise fail(f"{key} must be a non-empty string, got {raw[key]!r}")
    params = _parse_params(raw.get("params", {}), fail)
    _check_template(raw["template"], params, fail)
    app_names = raw["app_names"]
    if (not isinstance(app_names, list) or not app_names
            or not all(isinstance(a, str) and a in APP_PACKAGES for a in app_names)):
        raise fail(f"app_names must be a non-empty array of AndroidWorld app names ({', '.join(APP_PACKAGES)}), "
                   f"got {app_names!r}")
    complexity = raw.get("complexity", 1)
    if isinstance(complexity, bool) or not isinstance(complexity, (int, float)) or not complexity > 0:
        raise fail(f"complexity must be a number > 0, got {complexity!r}")
    setup = _parse_setup(raw.get("setup", []), fail)

    has_eval, has_parts = "eval" in raw, "parts" in raw
    if has_eval == has_parts:
        raise fail("give an eval (what is_successful reads) or parts (the tasks a composite is made of), "
                   "exactly one")
    check, ui, parts = None, None, ()
    if has_eval:
        check = parse_eval(raw["eval"], fail, EXPECTATIONS, extra=("ui",))
        ui = parse_ui(raw["eval"].get("ui"), fail)
    else:
        parts = _parse_parts(raw["parts"], params, fail)
    starts = raw.get("starts", "unmet")
    if starts not in STARTS:
        raise fail(f"starts must be one of {', '.join(STARTS)}, got {starts!r}")
    controls = parse_controls(raw.get("controls"), fail)
    if starts == "met" and NULL not in (raw.get("controls") or {}):
        # A Verify task's goal holds from the start: doing nothing and saying done is right
        controls = dataclasses.replace(controls, null="pass")
    return AWTask(id=task_id, cls=raw["class"], template=raw["template"], params=params,
                  app_names=tuple(app_names), complexity=float(complexity), setup=setup, check=check, ui=ui,
                  parts=parts, starts=starts, controls=controls,
                  changed=parse_changed(raw.get("changed"), raw, fail, original="AndroidWorld's"), source=where)


def _parse_params(value: Any, fail: Callable[[str], AndroidWorldError]) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise fail(f"params must be an object of parameter -> value (or array of values), got {json_type(value)}")
    for name, v in value.items():
        if not _PARAM.match(name):
            raise fail(f"parameter {name!r} is not a name")
        options = v if isinstance(v, list) else [v]
        if not options or not all(isinstance(o, str) and o for o in options):
            raise fail(f"parameter {name} must be a non-empty string or array of them, got {v!r}")
    return dict(value)


def _check_template(template: str, params: dict, fail: Callable[[str], AndroidWorldError]) -> None:
    try:
        names = {f for _, f, _, _ in string.Formatter().parse(template) if f is not None}
    except ValueError as err:
        raise fail(f"template is not a format string ({err}): {template!r}") from None
    missing = sorted(names - set(params))
    if missing:
        raise fail(f"template names {', '.join(missing)}, not in params")


def _parse_setup(value: Any, fail: Callable[[str], AndroidWorldError]) -> tuple[dict, ...]:
    if not isinstance(value, list):
        raise fail(f"setup must be an array of {{cmd, desc}}, got {json_type(value)}")
    return tuple(parse_command({"setup": step}, "setup", fail) for step in value)


def _parse_parts(value: Any, params: dict, fail: Callable[[str], AndroidWorldError]) -> tuple[str, ...]:
    if not isinstance(value, list) or len(value) < 2 or not all(isinstance(v, str) and v for v in value):
        raise fail(f"parts must be an array of two or more task ids, got {value!r}")
    for ref in value:
        try:
            ref.format(**{name: "x" for name in params})
        except (KeyError, IndexError, ValueError):
            raise fail(f"part {ref!r} names a parameter that is not in params") from None
    return tuple(value)
