"""What every JSON suite's loader shares (Ghost Bench's in `ghost_bench/loading.py`, AndroidWorld's in
`androidworld/loading.py`): reading a task file (a JSON array of task objects, or one object), opening an object
(only known keys, the required ones there), the ids unique in a file, and the parts both formats write alike: a shell
command `{cmd, desc}`, an eval `{cmd, expect|expect_in|expect_contains}` (a `Check`, eval_check.py), `controls` (the
verdict each control driver must get), `changed` (where a task differs from its suite's original, with the original
and the reason) and `ui` (where the derived controls find the setting or the app).

Errors are one line naming the file, the task and what is wrong (each suite's `TaskFileError`), never a traceback: a
suite is edited by hand, and a stack trace tells its author nothing about their JSON.
"""

from __future__ import annotations

import json
import shlex
from collections.abc import Callable, Collection
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pytest_mobium_evals.core.errors import MobiumEvalsError
from pytest_mobium_evals.core.tasks import CONTROL_DRIVERS, VERDICTS, Controls

from .eval_check import EXPECTATIONS, Check

COMMAND_KEYS = ("cmd", "desc")
CONTROL_KEYS = CONTROL_DRIVERS + ("reasons",)
CHANGE_KEYS = ("field", "original", "reason")
UI_KEYS = ("path", "label", "range")


class TaskFileError(MobiumEvalsError, ValueError):
    """A JSON task file (of any suite read here) that cannot be used as written. The message is the whole report:
    file, task, what is wrong."""



@dataclass(frozen=True)
class UI:
    """Our `ui` key: the Settings rows to tap from the app's main list (`path`), the label of the switch, slider or
    launcher icon (`label`), and a slider's value range (`range`, [low, high])."""

    path: tuple[str, ...] = ()
    label: str = ""
    range: tuple[int, int] | None = None



def read_objects(path: Path | str, error: type[TaskFileError]) -> list[Any]:
    """The JSON values of a task file: an array of task objects, or one object. Raises `error` (one line naming the
    file) when the file cannot be read or is not such JSON; the objects themselves are the caller's to check."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise error(f"{path}: cannot read it: {err.strerror or err}") from None
    except UnicodeDecodeError as err:
        raise error(f"{path}: not UTF-8 text (byte {err.start}): {err.reason}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise error(f"{path}:{err.lineno}:{err.colno}: not valid JSON: {err.msg}") from None
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        raise error(f"{path}: a task file holds a JSON array of task objects (or one object), got {json_type(data)}")
    return data


def unique_ids(path: Path, tasks: list, error: type[TaskFileError]) -> None:
    """An id used twice in one file is an error naming both objects."""
    seen: dict[str, int] = {}
    for index, task in enumerate(tasks, start=1):
        if task.id in seen:
            raise error(f"{path}: task {task.id}: the id is used twice in this file "
                        f"(objects #{seen[task.id]} and #{index})")
        seen[task.id] = index


def json_type(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "an array",
            dict: "an object"}.get(type(value), type(value).__name__)


def refuse_unknown(value: dict, allowed: Collection[str], where: str, fail: Callable[[str], TaskFileError],
                   keys_text: str = "") -> None:
    """An unknown key is a typo until proven otherwise ("expected" for "expect"): refused, naming every unknown key,
    where it is (`where`: " in ui", or "" for the task itself) and the keys that are known (`keys_text`, else
    "its keys are" and the allowed ones)."""
    unknown = [k for k in value if k not in allowed]
    if unknown:
        keys_text = keys_text or f"its keys are {', '.join(allowed)}"
        raise fail(f"unknown key {', '.join(repr(k) for k in unknown)}{where}; {keys_text}")


def open_object(path: Path, index: int, raw: Any, error: type[TaskFileError], keys: tuple[str, ...],
                required: tuple[str, ...], hints: dict[str, str] | None = None
                ) -> tuple[Any, str, Callable[[str], TaskFileError]]:
    """The first checks of a task object, the same in every JSON suite: an object, only known keys, the required
    ones there. Returns its id (as written), its "<file>: task <id>" prefix, and `fail`, which makes an `error`
    with that prefix. `hints` adds a word to the message for a missing key."""
    if not isinstance(raw, dict):
        raise error(f"{path}: task #{index}: a task is a JSON object, got {json_type(raw)}")
    task_id = raw.get("id")
    label = f"task {task_id}" if isinstance(task_id, str) and task_id else f"task #{index} (no id)"
    where = f"{path}: {label}"

    def fail(message: str) -> TaskFileError:
        return error(f"{where}: {message}")

    refuse_unknown(raw, keys, "", fail, f"a task's keys are {', '.join(keys)}")
    missing = [key for key in required if key not in raw]
    if missing:
        raise fail(f"no {', '.join(missing)}" + "".join((hints or {}).get(key, "") for key in missing))
    return task_id, where, fail



def parse_command(raw: dict, key: str, fail: Callable[[str], TaskFileError]) -> dict | None:
    if key not in raw or raw[key] is None:
        return None
    value = raw[key]
    if not isinstance(value, dict):
        raise fail(f"{key} must be an object {{cmd, desc}}, got {json_type(value)}")
    refuse_unknown(value, COMMAND_KEYS, f" in {key}", fail)
    cmd = value.get("cmd")
    if not isinstance(cmd, str) or not cmd.strip():
        raise fail(f"{key} has no cmd (a non-empty shell command)")
    if "desc" in value and not isinstance(value["desc"], str):
        raise fail(f"{key}.desc must be a string, got {json_type(value['desc'])}")
    check_shell_syntax(cmd, f"{key}.cmd", fail)
    return {"cmd": cmd, "desc": value.get("desc", cmd)}


def check_shell_syntax(cmd: str, where: str, fail: Callable[[str], TaskFileError]) -> None:
    try:
        shlex.split(cmd)
    except ValueError as err:
        raise fail(f"{where} is not a well-formed shell command ({err}): {cmd}") from None


def parse_eval(value: Any, fail: Callable[[str], TaskFileError], expectations: tuple[str, ...] = EXPECTATIONS,
               where: str = "eval", extra: tuple[str, ...] = ()) -> Check:
    """An eval object {cmd, one expectation}: the expectations a suite allows (Ghost Bench's three by default),
    `extra` keys its caller reads itself."""
    if not isinstance(value, dict):
        raise fail(f"{where} must be an object {{cmd, {'|'.join(expectations)}}}, got {json_type(value)}")
    refuse_unknown(value, ("cmd",) + expectations + extra, f" in {where}", fail,
                   f"its keys are cmd and one of {', '.join(expectations)}"
                   + (f" (and {', '.join(extra)})" if extra else ""))
    cmd = value.get("cmd")
    if not isinstance(cmd, str) or not cmd.strip():
        raise fail(f"{where} has no cmd (the shell command whose output is checked)")
    check_shell_syntax(cmd, f"{where}.cmd", fail)
    kinds = [k for k in expectations if k in value]
    if not kinds:
        raise fail(f"{where} has no expectation; give one of {', '.join(expectations)}")
    if len(kinds) > 1:
        raise fail(f"{where} has two kinds of expectation ({' and '.join(kinds)}); give exactly one of "
                   f"{', '.join(expectations)}")
    kind = kinds[0]
    expected = value[kind]
    if kind == "expect":
        # Ghost Bench compares str(expect): a bare number in JSON means its decimal text.
        if isinstance(expected, bool) or not isinstance(expected, (str, int, float)):
            raise fail(f"{where}.expect must be a string (or a number), got {json_type(expected)}")
        return Check(cmd, kind, str(expected))
    if kind == "expect_in":
        if (not isinstance(expected, list) or not expected
                or not all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in expected)):
            raise fail(f"{where}.expect_in must be a non-empty array of strings, got {json.dumps(expected)}")
        return Check(cmd, kind, tuple(str(v) for v in expected))
    if not isinstance(expected, str) or not expected:
        raise fail(f"{where}.{kind} must be a non-empty string, got {json.dumps(expected)}")
    return Check(cmd, kind, expected)


def parse_controls(value: Any, fail: Callable[[str], TaskFileError]) -> Controls:
    if value is None:
        return Controls()
    if not isinstance(value, dict):
        raise fail(f"controls must be an object {{reference, null, wrong, reasons}}, got {json_type(value)}")
    refuse_unknown(value, CONTROL_KEYS, " in controls", fail)
    verdicts = {}
    for driver in CONTROL_DRIVERS:
        if driver in value:
            if value[driver] not in VERDICTS:
                raise fail(f"controls.{driver} must be a verdict ({', '.join(VERDICTS)}), got "
                           f"{json.dumps(value[driver])}")
            verdicts[driver] = value[driver]
    reasons = value.get("reasons", {})
    if not isinstance(reasons, dict) or not all(k in CONTROL_DRIVERS and isinstance(v, str) for k, v in
                                                 reasons.items()):
        raise fail("controls.reasons maps a control driver (reference, null, wrong) to why its verdict is what "
                   f"it is, got {json.dumps(reasons)}")
    return Controls(reasons=dict(reasons), **verdicts)


def parse_changed(value: Any, raw: dict, fail: Callable[[str], TaskFileError],
                  original: str) -> tuple[dict, ...]:
    if value is None:
        return ()
    if not isinstance(value, list) or not value:
        raise fail("changed must be a non-empty array of {field, original, reason}")
    changes = []
    for number, change in enumerate(value, start=1):
        if not isinstance(change, dict):
            raise fail(f"changed #{number} must be an object {{field, original, reason}}")
        keys = set(change)
        if keys != set(CHANGE_KEYS):
            extra, missing = sorted(keys - set(CHANGE_KEYS)), [k for k in CHANGE_KEYS if k not in keys]
            problem = "; ".join(filter(None, [f"unknown key {', '.join(map(repr, extra))}" if extra else "",
                                              f"no {', '.join(missing)}" if missing else ""]))
            raise fail(f"changed #{number}: {problem}; its keys are field, original, reason")
        where = change["field"]
        if not isinstance(where, str) or lookup(raw, where) is _MISSING:
            raise fail(f"changed #{number}: field {json.dumps(where)} is not a key of this task "
                       f"(a dotted path such as \"eval.cmd\")")
        if not isinstance(change["reason"], str) or not change["reason"].strip():
            raise fail(f"changed #{number}: reason must say why the task differs from {original}")
        if change["original"] == lookup(raw, where):
            raise fail(f"changed #{number}: {where} still holds the original value, so nothing was changed")
        changes.append(dict(change))
    return tuple(changes)


def parse_ui(value: Any, fail: Callable[[str], TaskFileError]) -> UI | None:
    if value is None:
        return None
    shape = 'ui must be an object {"path": [rows to tap in the app], "label": "the switch, slider or icon", ' \
            '"range": [low, high] for a slider}'
    if not isinstance(value, dict):
        raise fail(f"{shape}, got {json_type(value)}")
    refuse_unknown(value, UI_KEYS, " in ui", fail)
    label = value.get("label")
    if not isinstance(label, str) or not label.strip():
        raise fail(f"ui.label must be a non-empty string (what the control taps), got {json.dumps(label)}")
    path = value.get("path", [])
    if not isinstance(path, list) or not all(isinstance(row, str) and row.strip() for row in path):
        raise fail(f"ui.path must be an array of row labels, got {json.dumps(path)}")
    span = value.get("range")
    if span is not None:
        if (not isinstance(span, list) or len(span) != 2
                or not all(isinstance(v, int) and not isinstance(v, bool) for v in span) or not span[0] < span[1]):
            raise fail(f"ui.range must be [low, high], two whole numbers with low < high, got {json.dumps(span)}")
        span = (span[0], span[1])
    return UI(path=tuple(path), label=label, range=span)


_MISSING = object()


def lookup(raw: dict, dotted: str) -> Any:
    value: Any = raw
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            return _MISSING
        value = value[part]
    return value


