"""Ghost Bench as a second suite: its JSON tasks, loaded, checked, collected, and graded our way.

A Ghost Bench task is data (`tasks/ghost_bench/*.json`, each file a JSON array of task objects, or one object):

    {"id": "SystemWifiTurnOn", "goal": "Turn wifi on.", "app": "com.android.settings", "category": "settings",
     "complexity": 1, "init": {"cmd": "svc wifi disable", "desc": "Disable WiFi"},
     "eval": {"cmd": "settings get global wifi_on", "expect_in": ["1", "2"]}}

Ghost Bench grades one thing: the eval command's output over ADB against `expect` (exact), `expect_in` (one of) or
`expect_contains` (case-insensitive substring). That check becomes the task's outcome; the agent's claim is set
against it by our grader like any other suite's. Two keys are ours: `controls` (the verdict each control driver must
get) and `changed` (where a task differs from Ghost Bench's own, with the original and the reason). Adding a task is
adding an object; its reference and wrong controls are derived from its category, app and eval, not written per task.

Errors in a task file are one line naming the file, the task and what is wrong (`GhostBenchError`), never a
traceback: a suite is edited by hand, and a stack trace tells its author nothing about their JSON.
"""

from __future__ import annotations

import json
import re
import shlex
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Optional

from .device import InfraError
from .tasks import CONTROL_DRIVERS, VERDICTS, Claim, Controls, Outcome, Task

if TYPE_CHECKING:  # pragma: no cover
    from .device import Device
    from .toolserver import Tools

SUITE = "ghost_bench"
MARKER = "ghost_bench"
SUMMARY_FILE = "ghost_bench.json"

#: Ghost Bench's own keys, then ours. Anything else is a typo until proven otherwise: an unknown key is an error, so
#: "expected" for "expect" or "tear_down" for "teardown" cannot silently make a task check nothing.
GHOST_KEYS = ("id", "goal", "app", "category", "complexity", "init", "eval", "teardown", "platforms")
OUR_KEYS = ("controls", "changed")
TASK_KEYS = GHOST_KEYS + OUR_KEYS
REQUIRED_KEYS = ("id", "goal", "app", "category", "eval")
EXPECTATIONS = ("expect", "expect_in", "expect_contains")
COMMAND_KEYS = ("cmd", "desc")
CONTROL_KEYS = CONTROL_DRIVERS + ("reasons",)
CHANGE_KEYS = ("field", "original", "reason")
CATEGORIES = ("navigation", "settings")
DEFAULT_PLATFORMS = ("android",)
#: This harness reaches devices over ADB only, so a task for another platform cannot run here.
HARNESS_PLATFORM = "android"

# Task ids become test ids and trial folder names (`<task>-<driver>-<model>-r<repeat>`): keep them to characters
# that survive both unquoted.
_ID = re.compile(r"^[A-Za-z0-9_.]+$")


class GhostBenchError(ValueError):
    """A task file that cannot be used as written. The message is the whole report: file, task, what is wrong."""


# --------------------------------------------------------------------------------------------------------------------
# The check: Ghost Bench's three kinds of expectation


@dataclass(frozen=True)
class Check:
    """An eval command and what its output must be. `kind` is one of EXPECTATIONS."""

    cmd: str
    kind: str
    expected: Any  # str for expect/expect_contains, tuple[str, ...] for expect_in

    def judge(self, output: str) -> tuple[bool, str]:
        """(passed, reason). The output is stripped first, as Ghost Bench's runner does. The reason carries
        "got X (expected Y)" so a failed trial says what the device really held."""
        got = output.strip()
        if self.kind == "expect":
            return got == self.expected, f"got {_quote(got)} (expected {_quote(self.expected)})"
        if self.kind == "expect_in":
            choices = " or ".join(_quote(value) for value in self.expected)
            return got in self.expected, f"got {_quote(got)} (expected {choices})"
        passed = self.expected.lower() in got.lower()
        return passed, f"got {_quote(_clip(got))} (expected it to contain {_quote(self.expected)})"

    def describe(self) -> str:
        if self.kind == "expect":
            return f"`{self.cmd}` prints {_quote(self.expected)}"
        if self.kind == "expect_in":
            return f"`{self.cmd}` prints one of {', '.join(_quote(v) for v in self.expected)}"
        return f"`{self.cmd}` output contains {_quote(self.expected)}"


def _quote(value: str) -> str:
    return "'" + str(value).replace("\n", "\\n") + "'"


def _clip(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


# --------------------------------------------------------------------------------------------------------------------
# A task as Ghost Bench writes it


@dataclass(frozen=True)
class GhostTask:
    """One JSON task object, validated. `source` is "<file>: task <id>", the prefix of every message about it."""

    id: str
    goal: str
    app: str
    category: str
    check: Check
    complexity: float = 1.0
    init: Optional[dict] = None
    teardown: Optional[dict] = None
    platforms: tuple[str, ...] = DEFAULT_PLATFORMS
    controls: Controls = field(default_factory=Controls)
    changed: tuple[dict, ...] = ()
    source: str = ""
    raw: dict = field(default_factory=dict, compare=False, repr=False)

    @property
    def max_steps(self) -> int:
        # Ghost Bench: int(complexity * 10). round() first, so 1.1 * 10 = 11.000000000000002 and 0.7 * 10 =
        # 7.000000000000001 stay 11 and 7 rather than drifting with float error.
        return int(round(self.complexity * 10, 6))

    @property
    def runs_here(self) -> bool:
        return HARNESS_PLATFORM in self.platforms

    @property
    def skip_reason(self) -> str:
        return (f"Ghost Bench task {self.id} is for {', '.join(self.platforms)}; this harness drives "
                f"{HARNESS_PLATFORM} devices over ADB")


def load_file(path: Path | str) -> list[GhostTask]:
    """Read and validate one task file. Raises GhostBenchError (file, task, what is wrong) on any problem."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as err:
        raise GhostBenchError(f"{path}: cannot read it: {err.strerror or err}") from None
    except UnicodeDecodeError as err:
        raise GhostBenchError(f"{path}: not UTF-8 text (byte {err.start}): {err.reason}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as err:
        raise GhostBenchError(f"{path}:{err.lineno}:{err.colno}: not valid JSON: {err.msg}") from None
    if isinstance(data, dict):
        data = [data]
    if not isinstance(data, list):
        raise GhostBenchError(f"{path}: a task file holds a JSON array of task objects (or one object), "
                              f"got {_json_type(data)}")
    tasks: list[GhostTask] = []
    seen: dict[str, int] = {}
    for index, raw in enumerate(data, start=1):
        task = _parse_task(path, index, raw)
        if task.id in seen:
            raise GhostBenchError(f"{path}: task {task.id}: the id is used twice in this file "
                                  f"(objects #{seen[task.id]} and #{index})")
        seen[task.id] = index
        tasks.append(task)
    return tasks


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


def _json_type(value: Any) -> str:
    if value is None:
        return "null"
    return {bool: "a boolean", int: "a number", float: "a number", str: "a string", list: "an array",
            dict: "an object"}.get(type(value), type(value).__name__)


def _parse_task(path: Path, index: int, raw: Any) -> GhostTask:
    if not isinstance(raw, dict):
        raise GhostBenchError(f"{path}: task #{index}: a task is a JSON object, got {_json_type(raw)}")
    task_id = raw.get("id")
    label = f"task {task_id}" if isinstance(task_id, str) and task_id else f"task #{index} (no id)"
    where = f"{path}: {label}"

    def fail(message: str) -> GhostBenchError:
        return GhostBenchError(f"{where}: {message}")

    unknown = [key for key in raw if key not in TASK_KEYS]
    if unknown:
        raise fail(f"unknown key {', '.join(repr(k) for k in unknown)}; a task's keys are {', '.join(TASK_KEYS)}")
    missing = [key for key in REQUIRED_KEYS if key not in raw]
    if missing:
        raise fail(f"no {', '.join(missing)}" + ("; every task needs an eval {cmd, expect|expect_in|expect_contains}"
                                                 if "eval" in missing else ""))
    if not isinstance(task_id, str) or not _ID.match(task_id):
        raise fail(f"id must be letters, digits, '_' or '.', got {json.dumps(task_id)}")
    for key in ("goal", "app", "category"):
        if not isinstance(raw[key], str) or not raw[key].strip():
            raise fail(f"{key} must be a non-empty string, got {json.dumps(raw[key])}")
    if raw["category"] not in CATEGORIES:
        raise fail(f"category {raw['category']!r} has no scripted controls; known categories: "
                   f"{', '.join(CATEGORIES)}")

    complexity = raw.get("complexity", 1.0)
    if isinstance(complexity, bool) or not isinstance(complexity, (int, float)) or not complexity > 0:
        raise fail(f"complexity must be a number > 0, got {json.dumps(complexity)}")

    init = _parse_command(raw, "init", fail)
    teardown = _parse_command(raw, "teardown", fail)
    check = _parse_eval(raw["eval"], fail)

    platforms = raw.get("platforms", list(DEFAULT_PLATFORMS))
    if (not isinstance(platforms, list) or not platforms
            or not all(isinstance(p, str) and p.strip() for p in platforms)):
        raise fail(f"platforms must be a non-empty array of names, got {json.dumps(platforms)}")

    controls = _parse_controls(raw.get("controls"), fail)
    changed = _parse_changed(raw.get("changed"), raw, fail)

    task = GhostTask(id=task_id, goal=raw["goal"], app=raw["app"], category=raw["category"], check=check,
                     complexity=float(complexity), init=init, teardown=teardown,
                     platforms=tuple(p.strip().lower() for p in platforms), controls=controls, changed=changed,
                     source=where, raw=raw)
    if task.runs_here:
        # Derive the controls now, so a task whose category/app/eval says nothing we can script fails collection
        # with its name rather than failing three trials later.
        try:
            control_plan(task)
        except GhostBenchError as err:
            raise fail(str(err)) from None
    return task


def _parse_command(raw: dict, key: str, fail: Callable[[str], GhostBenchError]) -> Optional[dict]:
    if key not in raw or raw[key] is None:
        return None
    value = raw[key]
    if not isinstance(value, dict):
        raise fail(f"{key} must be an object {{cmd, desc}}, got {_json_type(value)}")
    unknown = [k for k in value if k not in COMMAND_KEYS]
    if unknown:
        raise fail(f"unknown key {', '.join(repr(k) for k in unknown)} in {key}; its keys are cmd, desc")
    cmd = value.get("cmd")
    if not isinstance(cmd, str) or not cmd.strip():
        raise fail(f"{key} has no cmd (a non-empty shell command)")
    if "desc" in value and not isinstance(value["desc"], str):
        raise fail(f"{key}.desc must be a string, got {_json_type(value['desc'])}")
    _check_shell_syntax(cmd, f"{key}.cmd", fail)
    return {"cmd": cmd, "desc": value.get("desc", cmd)}


def _check_shell_syntax(cmd: str, where: str, fail: Callable[[str], GhostBenchError]) -> None:
    try:
        shlex.split(cmd)
    except ValueError as err:
        raise fail(f"{where} is not a well-formed shell command ({err}): {cmd}") from None


def _parse_eval(value: Any, fail: Callable[[str], GhostBenchError]) -> Check:
    if not isinstance(value, dict):
        raise fail(f"eval must be an object {{cmd, expect|expect_in|expect_contains}}, got {_json_type(value)}")
    unknown = [k for k in value if k not in ("cmd",) + EXPECTATIONS]
    if unknown:
        raise fail(f"unknown key {', '.join(repr(k) for k in unknown)} in eval; its keys are cmd and one of "
                   f"{', '.join(EXPECTATIONS)}")
    cmd = value.get("cmd")
    if not isinstance(cmd, str) or not cmd.strip():
        raise fail("eval has no cmd (the shell command whose output is checked)")
    _check_shell_syntax(cmd, "eval.cmd", fail)
    kinds = [k for k in EXPECTATIONS if k in value]
    if not kinds:
        raise fail(f"eval has no expectation; give one of {', '.join(EXPECTATIONS)}")
    if len(kinds) > 1:
        raise fail(f"eval has two kinds of expectation ({' and '.join(kinds)}); give exactly one of "
                   f"{', '.join(EXPECTATIONS)}")
    kind = kinds[0]
    expected = value[kind]
    if kind == "expect":
        # Ghost Bench compares str(expect): a bare number in JSON means its decimal text.
        if isinstance(expected, bool) or not isinstance(expected, (str, int, float)):
            raise fail(f"eval.expect must be a string (or a number), got {_json_type(expected)}")
        return Check(cmd, kind, str(expected))
    if kind == "expect_in":
        if (not isinstance(expected, list) or not expected
                or not all(isinstance(v, (str, int)) and not isinstance(v, bool) for v in expected)):
            raise fail(f"eval.expect_in must be a non-empty array of strings, got {json.dumps(expected)}")
        return Check(cmd, kind, tuple(str(v) for v in expected))
    if not isinstance(expected, str) or not expected:
        raise fail(f"eval.expect_contains must be a non-empty string, got {json.dumps(expected)}")
    return Check(cmd, kind, expected)


def _parse_controls(value: Any, fail: Callable[[str], GhostBenchError]) -> Controls:
    if value is None:
        return Controls()
    if not isinstance(value, dict):
        raise fail(f"controls must be an object {{reference, null, wrong, reasons}}, got {_json_type(value)}")
    unknown = [k for k in value if k not in CONTROL_KEYS]
    if unknown:
        raise fail(f"unknown key {', '.join(repr(k) for k in unknown)} in controls; its keys are "
                   f"{', '.join(CONTROL_KEYS)}")
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


def _parse_changed(value: Any, raw: dict, fail: Callable[[str], GhostBenchError]) -> tuple[dict, ...]:
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
        if not isinstance(where, str) or _lookup(raw, where) is _MISSING:
            raise fail(f"changed #{number}: field {json.dumps(where)} is not a key of this task "
                       f"(a dotted path such as \"eval.cmd\")")
        if not isinstance(change["reason"], str) or not change["reason"].strip():
            raise fail(f"changed #{number}: reason must say why the task differs from Ghost Bench's")
        if change["original"] == _lookup(raw, where):
            raise fail(f"changed #{number}: {where} still holds the original value, so nothing was changed")
        changes.append(dict(change))
    return tuple(changes)


_MISSING = object()


def _lookup(raw: dict, dotted: str) -> Any:
    value: Any = raw
    for part in dotted.split("."):
        if not isinstance(value, dict) or part not in value:
            return _MISSING
        value = value[part]
    return value


# --------------------------------------------------------------------------------------------------------------------
# Controls derived from the task: what the reference does, what the plausible wrong action is

#: Launcher labels of the apps Ghost Bench opens, by package. A package not listed here takes its label from an
#: "OpenApp<Label>" id or an "Open the <Label> app" goal. Packages differ between AOSP and Google builds
#: (com.android.deskclock vs com.google.android.deskclock), so both forms are known.
LAUNCHER_LABELS = {
    "com.android.settings": "Settings",
    "com.android.contacts": "Contacts",
    "com.google.android.contacts": "Contacts",
    "com.android.deskclock": "Clock",
    "com.google.android.deskclock": "Clock",
    "com.android.camera": "Camera",
    "com.android.camera2": "Camera",
    "com.google.android.GoogleCamera": "Camera",
    "com.android.chrome": "Chrome",
    "com.android.calculator2": "Calculator",
    "com.google.android.calculator": "Calculator",
}

#: The wrong app for an OpenApp task: its neighbour on the launcher, so the wrong driver does exactly what the
#: reference does (home, tap an icon) and only the target differs.
LAUNCHER_ORDER = ("Settings", "Contacts", "Clock", "Camera", "Chrome", "Calculator")


@dataclass(frozen=True)
class SettingUI:
    """Where a setting is changed in the Settings app: the rows tapped from its main list, then the control.
    `kind` is "switch" (values "0" off, anything else on) or "slider" (values `low`..`high`, filled as a 0..1
    position). `follows`: settings the system changes along with this one (airplane mode turns radios off), which
    are therefore not side effects of a trial that changes it."""

    path: tuple[str, ...]
    control: str
    kind: str
    low: int = 0
    high: int = 1
    follows: tuple[str, ...] = ()


#: The Settings screens of Android 15 (AOSP labels), keyed by "namespace/key" as `settings get` reads them.
SETTINGS_UI = {
    "global/wifi_on": SettingUI(("Network & internet", "Internet"), "Wi‑Fi", "switch"),
    "global/bluetooth_on": SettingUI(("Connected devices",), "Bluetooth", "switch"),
    "global/airplane_mode_on": SettingUI(("Network & internet",), "Airplane mode", "switch",
                                         follows=("global/wifi_on", "global/bluetooth_on")),
    # Android's brightness setting runs 1..255 (0 is "off" and never set by the slider); AndroidWorld's brightness
    # tasks check exactly 1 and 255.
    "system/screen_brightness": SettingUI(("Display",), "Brightness level", "slider", low=1, high=255,
                                          follows=("system/screen_brightness_float",)),
}

_SETTINGS_GET = re.compile(r"^\s*settings\s+get\s+(?:--user\s+\S+\s+)?(global|secure|system)\s+(\S+)\s*$")


@dataclass(frozen=True)
class ControlPlan:
    """The scripted controls of one task and what the trial may change without it being a side effect."""

    reference: Callable[["Tools", dict], Claim]
    wrong: Callable[["Tools", dict], Claim]
    reference_does: str
    wrong_does: str
    allowed_settings: tuple[str, ...] = ()


def control_plan(task: GhostTask) -> ControlPlan:
    """Derive the reference and wrong drivers from the task's category, app and eval. Raises GhostBenchError
    (without the file prefix) when they cannot be derived."""
    if task.category == "navigation":
        return _navigation_plan(task)
    return _settings_plan(task)


def _navigation_plan(task: GhostTask) -> ControlPlan:
    label = launcher_label(task)
    if label in LAUNCHER_ORDER:
        wrong_label = LAUNCHER_ORDER[(LAUNCHER_ORDER.index(label) + 1) % len(LAUNCHER_ORDER)]
    else:
        wrong_label = LAUNCHER_ORDER[0]

    def reference(tools: "Tools", params: dict) -> Claim:
        _open_from_launcher(tools, label)
        return Claim("done", reason=f"Opened {label} from the home screen.")

    def wrong(tools: "Tools", params: dict) -> Claim:
        _open_from_launcher(tools, wrong_label)
        return Claim("done", reason=f"Opened {label} from the home screen.")

    return ControlPlan(reference, wrong,
                       reference_does=f"presses home and taps the {label} icon on the launcher",
                       wrong_does=f"presses home and taps the {wrong_label} icon instead (the wrong app)")


def launcher_label(task: GhostTask) -> str:
    if task.app in LAUNCHER_LABELS:
        return LAUNCHER_LABELS[task.app]
    match = re.match(r"^OpenApp([A-Z]\w*)$", task.id) or re.match(r"^\s*open (?:the )?(.+?)(?: app)?\s*\.?\s*$",
                                                                   task.goal, re.IGNORECASE)
    if match:
        return match.group(1)
    raise GhostBenchError(f"cannot tell the launcher label of {task.app} (not a known app, and neither the id "
                          f"'OpenApp<Label>' nor the goal 'Open the <Label> app' names it)")


def setting_of(check: Check) -> Optional[str]:
    """The "namespace/key" an eval reads with `settings get`, or None when it reads something else."""
    match = _SETTINGS_GET.match(check.cmd)
    return f"{match.group(1)}/{match.group(2)}" if match else None


def _settings_plan(task: GhostTask) -> ControlPlan:
    name = setting_of(task.check)
    if name is None:
        raise GhostBenchError(f"a settings task's eval must read a setting (`settings get <namespace> <key>`), "
                              f"got `{task.check.cmd}`")
    ui = SETTINGS_UI.get(name)
    if ui is None:
        raise GhostBenchError(f"no Settings screen is known for {name}; known: {', '.join(SETTINGS_UI)}")
    if task.check.kind == "expect_contains":
        raise GhostBenchError("a settings task expects a value (expect or expect_in), not a substring")
    values = (task.check.expected,) if task.check.kind == "expect" else task.check.expected
    allowed = (name,) + ui.follows
    screen = " > ".join(("Settings",) + ui.path)

    if ui.kind == "switch":
        states = {value != "0" for value in values}
        if len(states) != 1:
            raise GhostBenchError(f"{name} is a switch, but the expected values {list(values)} mix off (\"0\") "
                                  f"and on")
        goal_on = states.pop()
        word, other = ("on", "off") if goal_on else ("off", "on")

        def reference(tools: "Tools", params: dict) -> Claim:
            _open_settings(tools, task.app, ui.path)
            switch = _switch(tools, ui.control)
            if _is_checked(switch) != goal_on:
                tools.tap(target=switch["ref"])
            if not _wait_switch(tools, ui.control, goal_on):
                return Claim("cannot", reason=f"{ui.control} still shows {other} after tapping it.")
            return Claim("done", reason=f"Turned {ui.control} {word} in {screen}.")

        def wrong(tools: "Tools", params: dict) -> Claim:
            # The opposite toggle: it reaches the goal, then taps again and leaves the switch where it started.
            # Nothing is left changed, so only the final-state check can tell it from the reference.
            _open_settings(tools, task.app, ui.path)
            for state in (goal_on, not goal_on):
                switch = _switch(tools, ui.control)
                if _is_checked(switch) != state:
                    tools.tap(target=switch["ref"])
                _wait_switch(tools, ui.control, state)
            return Claim("done", reason=f"Turned {ui.control} {word} in {screen}.")

        return ControlPlan(reference, wrong, allowed_settings=allowed,
                           reference_does=f"opens {screen} and turns {ui.control} {word}",
                           wrong_does=f"opens {screen}, turns {ui.control} {word}, then taps it back {other} "
                                      f"(the opposite toggle last)")

    # A slider: the goal is one end (or a point) of its range.
    if len(values) != 1 or not re.fullmatch(r"-?\d+", values[0]):
        raise GhostBenchError(f"{name} is a slider; expect one whole number in {ui.low}..{ui.high}, got "
                              f"{list(values)}")
    target = int(values[0])
    if not ui.low <= target <= ui.high:
        raise GhostBenchError(f"{name} runs {ui.low}..{ui.high}; the expected {target} cannot be reached")
    position = (target - ui.low) / (ui.high - ui.low)
    # The wrong value: for a goal at either end (all of Ghost Bench's), the middle, a move the right way from the
    # opposite end that stops short; for a goal inside the range, the end farther from it.
    wrong_position = 0.5 if position in (0.0, 1.0) else (0.0 if position > 0.5 else 1.0)

    def reference(tools: "Tools", params: dict) -> Claim:
        _open_settings(tools, task.app, ui.path)
        slider = _find(tools, ui.control)
        tools.call("app_fill", target=slider["ref"], text=_position_text(position))
        return Claim("done", reason=f"Set {ui.control} to {target} in {screen}.")

    def wrong(tools: "Tools", params: dict) -> Claim:
        _open_settings(tools, task.app, ui.path)
        slider = _find(tools, ui.control)
        tools.call("app_fill", target=slider["ref"], text=_position_text(wrong_position))
        return Claim("done", reason=f"Set {ui.control} to {target} in {screen}.")

    return ControlPlan(reference, wrong, allowed_settings=allowed,
                       reference_does=f"opens {screen} and drags {ui.control} to {_position_text(position)} "
                                      f"(value {target})",
                       wrong_does=f"opens {screen} and drags {ui.control} to {_position_text(wrong_position)} "
                                  f"(not {target})")


def _position_text(position: float) -> str:
    return f"{position:g}"


# ---- driving through the MCP tools (the only reach a control has into the device) --------------------------------

_FIND_TIMEOUT_S = 5.0
_POLL_S = 0.2


def _norm(label: str) -> str:
    # Android writes "Wi‑Fi" with a non-breaking hyphen (U+2011); agents and task authors type "Wi-Fi". Fold dashes
    # and case so a label is found however it was typed.
    return re.sub(r"[\u2010-\u2015\u2212-]", "-", " ".join(str(label).split())).casefold()


def _elements(tools: "Tools") -> list[dict]:
    result = tools.call("app_map")
    data = result.data if isinstance(result.data, dict) else {}
    return [e for e in data.get("elements", []) if isinstance(e, dict)]


def _find(tools: "Tools", label: str) -> dict:
    """The mapped element called `label` (exactly, else the shortest label starting with it), waiting for the screen
    to show it and scrolling to it once. Raises DriverError when it never shows."""
    return _find_with_screen(tools, label)[0]


def _find_with_screen(tools: "Tools", label: str) -> tuple[dict, list[dict]]:
    want = _norm(label)
    deadline = time.monotonic() + _FIND_TIMEOUT_S
    scrolled = False
    seen: list[str] = []
    while True:
        elements = _elements(tools)
        seen = [str(e.get("label", "")) for e in elements]
        exact = [e for e in elements if _norm(e.get("label", "")) == want and e.get("ref")]
        prefix = sorted((e for e in elements if _norm(e.get("label", "")).startswith(want) and e.get("ref")),
                        key=lambda e: len(str(e.get("label", ""))))
        candidates = exact or prefix
        if candidates:
            # A row's text and its own control can both carry the label: the control is the one to act on.
            controls = [e for e in candidates if "checked" in e or e.get("role") in ("switch", "slider")]
            return (controls or candidates)[0], elements
        if not scrolled:
            scrolled = True
            tools.call("app_scroll_to", target=f"text={label}", check=False)
            continue
        if time.monotonic() >= deadline:
            break
        time.sleep(_POLL_S)
    from .drivers import DriverError  # a control script that cannot go on: the trial fails with this message

    raise DriverError(f"no element labelled {label!r} on the screen; it shows: {', '.join(seen) or 'nothing'}")


def _switch(tools: "Tools", label: str) -> dict:
    """The switch of the row called `label`. On Android's Settings the row carries the title and its Switch widget
    has no text of its own (Mobium names it by its id, "switch_widget"), so the switch is found as the checkable
    element drawn inside the row."""
    row, elements = _find_with_screen(tools, label)
    if "checked" in row:
        return row
    box = _box(row)
    inside = [e for e in elements if "checked" in e and e.get("ref") and box and _inside(_box(e), box)]
    if inside:
        return inside[0]
    from .drivers import DriverError

    raise DriverError(f"the row {label!r} has no switch in it on this screen")


def _box(element: dict) -> Optional[tuple[int, int, int, int]]:
    b = element.get("bounds")
    if not isinstance(b, dict):
        return None
    try:
        return int(b["x1"]), int(b["y1"]), int(b["x2"]), int(b["y2"])
    except (KeyError, TypeError, ValueError):
        return None


def _inside(inner: Optional[tuple], outer: tuple) -> bool:
    if inner is None:
        return False
    cx, cy = (inner[0] + inner[2]) / 2, (inner[1] + inner[3]) / 2
    return outer[0] <= cx <= outer[2] and outer[1] <= cy <= outer[3]


def _is_checked(element: dict) -> bool:
    return bool(element.get("checked"))


def _wait_switch(tools: "Tools", label: str, state: bool) -> bool:
    deadline = time.monotonic() + _FIND_TIMEOUT_S
    while True:
        if _is_checked(_switch(tools, label)) == state:
            return True
        if time.monotonic() >= deadline:
            return False
        time.sleep(_POLL_S)


def _open_from_launcher(tools: "Tools", label: str) -> None:
    tools.call("app_press", button="home")
    tools.tap(target=_find(tools, label)["ref"])


def _open_settings(tools: "Tools", package: str, path: Iterable[str]) -> None:
    # Settings keeps its back stack: launched again, it resumes on whatever page it was left on. Stopping it first
    # makes the path from its main list valid whatever the trial before left open.
    tools.call("app_terminate", app=package, check=False)
    tools.call("app_launch", app=package)
    for row in path:
        tools.tap(target=_find(tools, row)["ref"])


# --------------------------------------------------------------------------------------------------------------------
# From a Ghost Bench task to our Task

#: Ghost Bench's reset (two HOME key events) is kept; we also stop the task's app first, so a trial never starts in
#: the page the previous trial left open (Settings resumes where it was) and results do not depend on test order.
HOME = "input keyevent KEYCODE_HOME"
#: How long a precondition may take to show on the device (`svc wifi disable` returns before wifi_on changes on a
#: real device). Ghost Bench waits a fixed second; we wait for the state instead, and fail loudly if it never comes.
PRECONDITION_TIMEOUT_S = 10.0


class PreconditionError(InfraError):
    """The task's init did not put the device in the opposite state, so the trial would measure nothing. The trial
    records it as an infrastructure error (the reset did not take), with this message, and never charges a driver."""


def _slug(task_id: str) -> str:
    words = re.findall(r"[A-Z]+(?=[A-Z][a-z]|\d|\b|_)|[A-Z]?[a-z]+|[A-Z]+|\d+", task_id)
    return "-".join(word.lower() for word in words) or task_id.lower()


def evaluate(task: GhostTask, device: "Device") -> tuple[bool, str]:
    """Ghost Bench's evaluate_task over our Device: (passed, "got X (expected Y)")."""
    return task.check.judge(device.shell(task.check.cmd))


def to_task(gt: GhostTask) -> Task:
    """Our Task for a Ghost Bench task: its eval is the outcome, its init the precondition, controls derived."""
    plan = control_plan(gt) if gt.runs_here else None

    def outcome(device: "Device", params: dict) -> Outcome:
        passed, reason = evaluate(gt, device)
        if gt.teardown:
            # Ghost Bench tears down right after evaluating; nothing reads the device between the two here either.
            device.shell(gt.teardown["cmd"])
        return Outcome(reached=passed, observed=reason)

    def precondition(device: "Device", params: dict) -> None:
        device.shell(f"am force-stop {shlex.quote(gt.app)}")
        device.shell(HOME)
        device.shell(HOME)
        if gt.init:
            device.shell(gt.init["cmd"])
        # Ghost Bench's promise: "the goal is never already satisfied". Checked, not assumed.
        deadline = time.monotonic() + PRECONDITION_TIMEOUT_S
        while True:
            passed, reason = evaluate(gt, device)
            if not passed:
                return
            if time.monotonic() >= deadline:
                init = gt.init["cmd"] if gt.init else "(no init)"
                raise PreconditionError(f"{gt.source}: after `{init}` the goal already holds ({reason}), so a "
                                        f"driver that does nothing would pass")
            time.sleep(_POLL_S)

    def not_here(tools: "Tools", params: dict) -> Claim:  # never runs: the item is skipped (see skip_reason)
        raise GhostBenchError(gt.skip_reason)

    reasons = {}
    if plan is not None:
        reasons = {"reference": f"{plan.reference_does}",
                   "null": "claims done and does nothing; the init put the device in the opposite state",
                   "wrong": f"{plan.wrong_does}"}
    reasons.update(gt.controls.reasons)
    controls = Controls(reference=gt.controls.reference, null=gt.controls.null, wrong=gt.controls.wrong,
                        reasons=reasons)
    return Task(
        id=gt.id,
        slug=_slug(gt.id),
        suite=SUITE,
        prompt=gt.goal.replace("{", "{{").replace("}", "}}"),  # a goal is plain text, never a template
        outcome=outcome,
        reference=plan.reference if plan else not_here,
        wrong=plan.wrong if plan else not_here,
        precondition=precondition,
        controls=controls,
        allowed_settings=plan.allowed_settings if plan else (),
        app="",  # Ghost Bench resets no app's data: clearing Settings or Chrome is not a reset
        max_steps=gt.max_steps,
        platforms=gt.platforms,
        source=gt.source,
    )


def load_tasks(path: Path | str) -> list[Task]:
    """Our Tasks from a task file or a directory of them. Raises GhostBenchError (one line) on a malformed file."""
    path = Path(path)
    ghost = load_dir(path) if path.is_dir() else load_file(path)
    return [to_task(gt) for gt in ghost]



# --------------------------------------------------------------------------------------------------------------------
# Ghost Bench's run summary, from our stored verdicts


def write_summary(run_dir: Path | str) -> Optional[Path]:
    """Write `<run_dir>/ghost_bench.json` from the run's stored `trials/*/verdict.json` of suite ghost_bench, in
    Ghost Bench's run shape, one run per setting (driver, model, effort) so a Sonnet run sits beside theirs.
    Returns the path, or None when the run holds no Ghost Bench trial (then nothing is written).

    Score is Ghost Bench's: 1.0 when the eval check held on the device, whatever the driver claimed (their runner
    never asks). Our verdict, which also weighs the claim, is kept beside it. An infrastructure error scores 0 with
    its error, as in Ghost Bench, and stays in the denominator."""
    from .records import TRIALS, VERDICT, atomic_write_json

    run_dir = Path(run_dir)
    verdicts = []
    for path in sorted((run_dir / TRIALS).glob(f"*/{VERDICT}")):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, json.JSONDecodeError):
            continue  # a half-written trial: records.py writes verdict.json last, so this one never finished
        if isinstance(data, dict) and data.get("suite") == SUITE:
            data["_folder"] = path.parent.name
            verdicts.append(data)
    if not verdicts:
        return None

    record: dict = {}
    try:
        record = json.loads((run_dir / "record.json").read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError):
        pass
    groups: dict[tuple, list[dict]] = {}
    for verdict in verdicts:
        key = (verdict.get("driver") or "agent", verdict.get("model") or "none", verdict.get("effort"))
        groups.setdefault(key, []).append(verdict)
    runs = [_ghost_run(run_dir, record, key, rows) for key, rows in sorted(groups.items(), key=_group_order)]
    summary = {
        "suite": SUITE,
        "run_dir": run_dir.name,
        "seed": record.get("seed"),
        "note": ("score is Ghost Bench's (the eval check on the device, 1.0 or 0.0); verdict is ours (the check "
                 "set against the driver's claim); a repeat is one more result row, as Ghost Bench would count it"),
        "runs": runs,
    }
    out = run_dir / SUMMARY_FILE
    atomic_write_json(out, summary)
    return out


def _group_order(item: tuple) -> tuple:
    # The agent's runs first, then the controls in their usual order (reference, null, wrong).
    (driver, model, effort), _ = item
    rank = ("agent",) + CONTROL_DRIVERS
    return (rank.index(driver) if driver in rank else len(rank), driver, model, effort or "")


def _ghost_run(run_dir: Path, record: dict, key: tuple, rows: list[dict]) -> dict:
    driver, model, effort = key
    rows = sorted(rows, key=lambda v: (str(v.get("task")), int(v.get("repeat") or 0)))
    results = [_ghost_result(v) for v in rows]
    passed = sum(1 for r in results if r["score"] > 0)
    total_time = sum(r["time_s"] for r in results)
    devices = sorted({_device_name(v.get("device")) for v in rows if v.get("device")})
    return {
        "id": f"{run_dir.name}-{driver}" + ("" if model in ("", "none") else f"-{model}"),
        "suite": SUITE,
        "model": model,
        "provider": _provider(driver, rows[0]),
        "driver": driver,
        "effort": effort,
        "device": devices[0] if len(devices) == 1 else devices,
        "status": "completed",
        "success_rate": round(passed / len(results), 3),
        "total_tasks": len(results),
        "passed": passed,
        "total_time_s": round(total_time, 1),
        "started_at": record.get("started"),
        "finished_at": record.get("ended"),
        "results": results,
    }


def _provider(driver: str, verdict: dict) -> str:
    """Ghost Bench's provider: the agent's backend as `--model` named it ("ollama/qwen2.5:7b" is ollama, a bare
    Claude name is claude); a control has none, so it is named by its driver."""
    if driver != "agent":
        return f"{driver} (control)"
    from .agents import AgentConfigError, parse_models

    try:
        (setting,) = parse_models(str(verdict.get("model_label") or verdict.get("model")))
    except (AgentConfigError, ValueError):  # a label from another version of the harness: say so, do not guess
        return "unknown"
    return setting.provider


def _device_name(device: Any) -> str:
    # verdict.json holds the device's properties (serial, release, model …); Ghost Bench names a device by serial.
    if isinstance(device, dict):
        return str(device.get("serial") or device.get("model") or "unknown")
    return str(device)


def _ghost_result(verdict: dict) -> dict:
    infra = verdict.get("infra_error")
    reached = bool(verdict.get("outcome_reached")) and not infra
    observed = str(verdict.get("outcome_observed") or "")
    if infra:
        reason = f"error: {infra}"
    else:
        reason = observed or ("goal state reached" if reached else "goal state not reached")
    timings = verdict.get("timings") or {}
    claim = verdict.get("claim") or {}
    return {
        "task_id": verdict.get("task"),
        "repeat": verdict.get("repeat"),
        "score": 1.0 if reached else 0.0,
        "reason": reason,
        "verdict": verdict.get("verdict"),
        "claim": claim.get("status"),
        "steps": int(verdict.get("tool_calls") or 0),
        "max_steps": verdict.get("max_steps"),  # complexity x 10; a cap only under --enforce-max-steps
        "hit_limit": verdict.get("hit_limit"),
        "time_s": round(float(timings.get("total_s") or 0.0), 1),
        "error": str(infra) if infra else "",
        "trial": verdict.get("_folder"),
    }


# --------------------------------------------------------------------------------------------------------------------
# Collection: a task file is a test module whose tests are its tasks


def is_task_file(path: Path) -> bool:
    """A JSON file directly in a `ghost_bench` folder: how the suite's files are recognised under `tasks/`."""
    return path.suffix == ".json" and path.parent.name == SUITE


def collect_ghost_bench(parent: Any, file_path: Path) -> Optional[Any]:
    """For `pytest_collect_file`: a collector for a Ghost Bench task file, or None for any other file.

    The file is collected as a test module built from the JSON: one test function per task, carrying the task as
    MobiumApp's tests do (`tasks.task_of`) and the same marks (`ghost_bench`, the `mobium_trial` fixture). So the
    plugin parametrizes and runs it through the very trial protocol of a MobiumApp task. A malformed file fails
    collection with its one-line error; a task for another platform is collected and skipped with the reason."""
    if not is_task_file(Path(file_path)):
        return None
    return GhostBenchFile.from_parent(parent, path=Path(file_path))


def _module_class():
    import pytest

    class GhostBenchFile(pytest.Module):
        """A Ghost Bench task file as a pytest module of task functions."""

        def _getobj(self):
            try:
                ghosts = load_file(self.path)
            except GhostBenchError as err:
                raise self.CollectError(str(err)) from None
            return build_module(ghosts, self.path)

        def _register_setup_module_fixture(self) -> None:  # a JSON file has no setup_module
            return None

        def _register_setup_function_fixture(self) -> None:
            return None

    return GhostBenchFile


def build_module(ghosts: Iterable[GhostTask], path: Path):
    """A module object holding one test function per task, each marked and carrying its Task."""
    import types

    import pytest

    from .tasks import TASK_ATTR, mark

    module = types.ModuleType(f"ghost_bench_{Path(path).stem}")
    module.__file__ = str(path)
    for gt in ghosts:
        value = to_task(gt)
        fn = _task_function(value)
        fn = mark(fn, value)
        if not gt.runs_here:
            fn = pytest.mark.skip(reason=gt.skip_reason)(fn)
        setattr(fn, TASK_ATTR, value)
        setattr(module, gt.id, fn)
    return module


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


# --------------------------------------------------------------------------------------------------------------------
# pytest hooks (plugin.py registers this module as a plugin because it defines them)


def pytest_collect_file(file_path: Path, parent: Any) -> Optional[Any]:
    return collect_ghost_bench(parent, file_path)


def pytest_mobium_run_finished(config: Any, run_dir: Path, status: str) -> None:
    path = write_summary(run_dir)
    reporter = config.pluginmanager.get_plugin("terminalreporter")
    if path is not None and reporter is not None:
        reporter.write_line(f"Ghost Bench summary: {path}")
