"""Mobium's `*.test.json` format, run over the MCP tools: `mobium-evals test FILE`.

A test file is `{"description"?, "app", "beforeEach"?: [step…], "tests": [{"name", "description"?, "steps"}]}`.
A step is what `app_batch` takes (`{"name": "app_tap", "arguments": {…}}`), the shorthand (`{"tap": "label=OK"}`,
`{"check": {"target": …, "checked": false}}`), or an `expect` on a tool that only reads; `description` and, on an
assertion, `soft` may sit beside any of them. Every test starts from a fresh app (`app_terminate` then `app_launch`
of `app`), then `beforeEach`, then its steps, one tool call at a time.

The whole file is checked against the tool server's own `tools/list` before anything runs, so a file written for
another Mobium version is judged by the tools it will really meet: an unknown tool, an argument the tool does not
take or of the wrong type, a missing required argument, a key the format does not have, the string shorthand on a
tool with no one main argument, a soft action, an `expect` on a tool that changes something, a wait for a condition
there is not (or for text with no text). Any of these is a bad file: exit 2, every problem listed, nothing run.
Wording follows `app_batch`'s own pre-checks.

Steps run one call at a time rather than as one `app_batch` per test (as Mobium's untraced runner does), so that an
`expect` and a soft assertion sit between calls; a failure line reads as Mobium's does, without the batch's own
"step N of M failed" in the middle: `step 4 (app_wait_for): [timeout] timed out after … — its text is "…"; steps
1-3 ran before it, and nothing after`.

Exit status: 0 every test passed, 1 any failed, 2 a bad file (or bad options), 3 the run could not reach a device or
its tool server. Options beyond Mobium's: `--max-failures N`, `--assertion-timeout MS` (the wait of an assertion that
names none), `--allow-tools` (a run of somebody else's file on a shared device: t25's grader), `--json PATH`.

Python API: `check_file(data, tool_schemas) -> list[str]` and `run_file(path_or_data, tools) -> TestFileResult`,
where `tool_schemas` is a `tools/list` answer and `tools` is the harness's `Tools` (its `tool_defs` are that answer).
"""

from __future__ import annotations

import argparse
import difflib
import json
import math
import os
import re
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterable, Optional

# Arguments every device tool takes; a test file runs on one device, so steps may not name them.
COMMON_ARGUMENTS = ("device", "driver")

FILE_KEYS = ("description", "app", "beforeEach", "tests")
TEST_KEYS = ("name", "description", "steps")
LONG_STEP_KEYS = ("name", "arguments", "description", "soft")
STEP_EXTRA_KEYS = ("description", "soft")  # what may sit beside a shorthand or an expect
EXPECT_KEYS = ("tool", "arguments", "field", "equals", "timeout_ms")

# A tool whose arguments are alternatives (a direction, four coordinates, or a target *and* a direction) has no one
# argument a bare string could mean, even when one of them is called `target`. Mobium's runner refuses
# `{"swipe": "up"}`; newer servers give app_swipe a `target`, which the rule below would otherwise pick.
NO_MAIN_ARGUMENT = frozenset({"app_swipe", "app_drag", "app_press_drag", "app_press_tap"})

# Tools that read unless one of these arguments is given (Mobium's IsReadCall; their tools/list entry says
# readOnlyHint false because the hint is per tool, not per call). An expect on them is accepted without those.
READ_UNLESS: dict[str, frozenset[str]] = {
    "app_accessibility": frozenset({"value"}),
    "app_alert": frozenset({"action", "text"}),
    "app_appearance": frozenset({"appearance"}),
    "app_clipboard": frozenset({"text"}),
    "app_context": frozenset({"context"}),
    "app_dialogs": frozenset({"clear", "press", "when"}),
    "app_keyboard": frozenset({"hide", "key", "text"}),
    "app_locale": frozenset({"locale"}),
    "app_location": frozenset({"clear", "gpx", "gpx_data", "latitude", "longitude", "speed", "waypoints"}),
    "app_network": frozenset({"download_kbps", "latency_ms", "offline", "reset", "upload_kbps"}),
    "app_notifications": frozenset({"shade", "tag", "text", "title"}),
    "app_orientation": frozenset({"orientation"}),
    "app_timezone": frozenset({"timezone"}),
}

ASSERTION_TOOL = "app_wait_for"
# app_wait_for's conditions as the format documents them, for a server whose schema leaves `condition` a plain
# string; the argument each needs beside the target.
WAIT_CONDITIONS = ("visible", "hidden", "text", "value", "enabled", "disabled", "checked", "unchecked", "focused",
                   "count")
CONDITION_NEEDS = {"text": "text", "value": "text", "count": "count"}
DEFAULT_EXPECT_TIMEOUT_MS = 10_000
EXPECT_POLL_S = 0.25

EXIT_PASSED, EXIT_FAILED, EXIT_BAD_FILE, EXIT_NO_DEVICE = 0, 1, 2, 3


# ---- the tools a file is checked against ------------------------------------------------------------------------

@dataclass(frozen=True)
class ToolSchema:
    """One `tools/list` entry, reduced to what the checks need."""

    name: str
    properties: dict
    required: tuple[str, ...]
    read_only: bool

    @classmethod
    def from_listing(cls, entry: dict) -> "ToolSchema":
        schema = entry.get("inputSchema") or entry.get("input_schema") or {}
        annotations = entry.get("annotations") or {}
        return cls(name=entry["name"], properties=dict(schema.get("properties") or {}),
                   required=tuple(schema.get("required") or ()),
                   read_only=bool(annotations.get("readOnlyHint", False)))

    @property
    def own_arguments(self) -> list[str]:
        """The arguments a step may give (every device tool also takes device and driver, which a file may not)."""
        return sorted(p for p in self.properties if p not in COMMON_ARGUMENTS)

    def main_argument(self) -> Optional[str]:
        """Where the string shorthand goes: `target` when the tool has one, else its one required string, else its
        only argument; None when it has no one main argument."""
        if self.name in NO_MAIN_ARGUMENT:
            return None
        own = self.own_arguments
        if "target" in own:
            return "target"
        required_strings = [p for p in self.required if p in own and _types(self.properties[p]) & {"string"}]
        if len(required_strings) == 1:
            return required_strings[0]
        if len(own) == 1:
            return own[0]
        return None

    def reads_only(self, arguments: dict) -> bool:
        if self.read_only:
            return True
        acting = READ_UNLESS.get(self.name)
        return acting is not None and not (set(arguments) & acting)


def schemas_from(tool_schemas: Any) -> dict[str, ToolSchema]:
    """Accepts `tools/list`'s answer (`{"tools": [...]}`), its list of entries, a name -> entry mapping, or
    ToolSchema values."""
    if isinstance(tool_schemas, dict) and "tools" in tool_schemas and isinstance(tool_schemas["tools"], list):
        tool_schemas = tool_schemas["tools"]
    if isinstance(tool_schemas, dict):
        tool_schemas = [dict(v, name=k) if isinstance(v, dict) else v for k, v in tool_schemas.items()]
    out: dict[str, ToolSchema] = {}
    for entry in tool_schemas:
        schema = entry if isinstance(entry, ToolSchema) else ToolSchema.from_listing(_as_dict(entry))
        out[schema.name] = schema
    return out


def _as_dict(entry: Any) -> dict:
    if isinstance(entry, dict):
        return entry
    # an MCP SDK Tool object
    dump = getattr(entry, "model_dump", None)
    if callable(dump):
        data = dump(by_alias=True, exclude_none=True)
        if "inputSchema" not in data and "input_schema" in data:
            data["inputSchema"] = data["input_schema"]
        return data
    return {"name": entry.name, "inputSchema": getattr(entry, "inputSchema", {}),
            "annotations": getattr(entry, "annotations", None) or {}}


def _types(prop: dict) -> set[str]:
    t = prop.get("type")
    if t is None:
        return set()
    return {t} if isinstance(t, str) else set(t)


# ---- the parsed file --------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Expect:
    tool: str
    arguments: dict
    field: str
    equals: Any
    timeout_ms: Optional[int]  # None: the run's default for assertions


@dataclass(frozen=True)
class Step:
    number: int  # 1-based within its list (beforeEach or the test's steps)
    tool: str  # the tool called; for an expect, the tool it reads
    arguments: dict
    description: str = ""
    soft: bool = False
    expect: Optional[Expect] = None

    @property
    def label(self) -> str:
        return f"expect {self.tool}" if self.expect else self.tool

    @property
    def is_assertion(self) -> bool:
        return self.expect is not None or self.tool == ASSERTION_TOOL

    def long_form(self) -> dict:
        """The step as the long form writes it (what `--debug` prints in Mobium)."""
        if self.expect:
            e = self.expect
            body: dict = {"expect": {"tool": e.tool, "arguments": e.arguments, "field": e.field, "equals": e.equals,
                                     **({"timeout_ms": e.timeout_ms} if e.timeout_ms is not None else {})}}
        else:
            body = {"name": self.tool, "arguments": self.arguments}
        if self.soft:
            body["soft"] = True
        if self.description:
            body["description"] = self.description
        return body


@dataclass(frozen=True)
class TestCase:
    name: str
    steps: tuple[Step, ...]
    description: str = ""


@dataclass(frozen=True)
class TestFile:
    app: str
    before_each: tuple[Step, ...]
    tests: tuple[TestCase, ...]
    description: str = ""

    def step_count(self) -> int:
        return len(self.before_each) + sum(len(t.steps) for t in self.tests)


class _Problems:
    def __init__(self):
        self.items: list[str] = []
        self.allowed: Optional[frozenset[str]] = None

    def disallowed(self, where: str, tool: str) -> bool:
        """True (and a problem recorded) when this run does not allow the tool."""
        if self.allowed is None or tool in self.allowed:
            return False
        self.add(where, f"uses {tool}, which this run does not allow (it allows: {', '.join(sorted(self.allowed))})")
        return True

    def add(self, where: str, what: str) -> None:
        self.items.append(f"{where}: {what}" if where else what)


def _quote_list(names: Iterable[str]) -> str:
    names = list(names)
    quoted = [f'"{n}"' for n in names]
    if len(quoted) <= 1:
        return "".join(quoted)
    return ", ".join(quoted[:-1]) + " and " + quoted[-1]


def _show(value: Any, limit: int = 60) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def parse_file(data: Any, tool_schemas: Any,
               allowed_tools: Optional[Iterable[str]] = None) -> tuple[Optional[TestFile], list[str]]:
    """Reads a test file (already JSON-decoded) into the long form, checking it against the tools. Returns the file
    and no problems, or None and every problem found (each one line: where, then what).

    `allowed_tools` narrows the tools a step may use below what the server has: a run of somebody else's file on a
    shared device (t25's grader) keeps it inside the app."""
    schemas = schemas_from(tool_schemas)
    problems = _Problems()
    problems.allowed = frozenset(allowed_tools) if allowed_tools is not None else None
    if not isinstance(data, dict):
        problems.add("", f"a test file is one JSON object with \"app\" and \"tests\", got {type(data).__name__}")
        return None, problems.items
    for key in data:
        if key not in FILE_KEYS:
            problems.add("", f"the file has \"{key}\"; a test file has only {_quote_list(FILE_KEYS)}")
    app = data.get("app")
    if not isinstance(app, str) or not app.strip():
        problems.add("", "\"app\" must be the app's package name, the app each test starts fresh "
                         f"(got {_show(app) if 'app' in data else 'nothing'})")
    description = data.get("description", "")
    if not isinstance(description, str):
        problems.add("", "\"description\" must be a string")
    before_each: list[Step] = []
    if "beforeEach" in data:
        raw = data["beforeEach"]
        if not isinstance(raw, list):
            problems.add("beforeEach", "must be a list of steps")
        else:
            before_each = _parse_steps(raw, "beforeEach", schemas, problems)
    tests: list[TestCase] = []
    raw_tests = data.get("tests")
    if not isinstance(raw_tests, list) or not raw_tests:
        problems.add("", "\"tests\" must be a non-empty list of {\"name\": …, \"steps\": [...]}")
    else:
        for i, raw in enumerate(raw_tests, 1):
            where = f"test {i}"
            if not isinstance(raw, dict):
                problems.add(where, "is not an object with \"name\" and \"steps\"")
                continue
            name = raw.get("name")
            if isinstance(name, str) and name.strip():
                where = f"test {i} ({_show(name, 50)})"
            else:
                problems.add(where, "has no name: a test is {\"name\": \"…\", \"steps\": [...]}")
            for key in raw:
                if key not in TEST_KEYS:
                    problems.add(where, f"has \"{key}\"; a test has only {_quote_list(TEST_KEYS)}")
            if not isinstance(raw.get("description", ""), str):
                problems.add(where, "\"description\" must be a string")
            steps_raw = raw.get("steps")
            if not isinstance(steps_raw, list) or not steps_raw:
                problems.add(where, "must have \"steps\", a non-empty list of steps")
                continue
            steps = _parse_steps(steps_raw, where, schemas, problems)
            tests.append(TestCase(name=name if isinstance(name, str) else "", steps=tuple(steps),
                                  description=raw.get("description", "") if isinstance(raw.get("description"),
                                                                                         str) else ""))
    if problems.items:
        return None, problems.items
    return TestFile(app=app, before_each=tuple(before_each), tests=tuple(tests),
                    description=description), []


def check_file(data: Any, tool_schemas: Any, allowed_tools: Optional[Iterable[str]] = None) -> list[str]:
    """Every problem with a test file, checked against the tools a server lists; [] means it can run."""
    return parse_file(data, tool_schemas, allowed_tools)[1]


def _parse_steps(raw_steps: list, where: str, schemas: dict[str, ToolSchema], problems: _Problems) -> list[Step]:
    steps = []
    for n, raw in enumerate(raw_steps, 1):
        step = _parse_step(raw, n, f"{where} step {n}" if where != "beforeEach" else f"beforeEach step {n}",
                           schemas, problems)
        if step is not None:
            steps.append(step)
    return steps


def _parse_step(raw: Any, n: int, where: str, schemas: dict[str, ToolSchema],
                problems: _Problems) -> Optional[Step]:
    if not isinstance(raw, dict) or not raw:
        problems.add(where, 'is not a step: a step is {"name": tool, "arguments": {...}}, a shorthand such as '
                            '{"tap": "label=OK"}, or {"expect": {...}}')
        return None
    description = raw.get("description", "")
    if not isinstance(description, str):
        problems.add(where, "\"description\" must be a string")
        description = ""
    soft = raw.get("soft", False)
    if not isinstance(soft, bool):
        problems.add(where, f"\"soft\" must be true or false, got {_show(soft)}")
        soft = False

    if "expect" in raw:
        return _parse_expect(raw, n, where, schemas, problems, description, soft)

    if "name" in raw:  # the long form, exactly app_batch's step
        for key in raw:
            if key not in LONG_STEP_KEYS:
                problems.add(where, f"has \"{key}\"; a step has only {_quote_list(LONG_STEP_KEYS)}")
        tool = raw["name"]
        if not isinstance(tool, str) or not tool:
            problems.add(where, "has no tool name")
            return None
        arguments = raw.get("arguments", {})
        if not isinstance(arguments, dict):
            problems.add(f"{where} ({tool})", "arguments must be an object")
            return None
        shown = tool
    elif "arguments" in raw:
        problems.add(where, "has \"arguments\" but no \"name\": the long form is {\"name\": tool, "
                            "\"arguments\": {...}}")
        return None
    else:  # the shorthand: one key, a tool's name without app_
        keys = [k for k in raw if k not in STEP_EXTRA_KEYS]
        if not keys:
            problems.add(where, "names no tool: give {\"name\": tool, \"arguments\": {...}} or a shorthand such "
                                "as {\"tap\": \"label=OK\"}")
            return None
        if len(keys) > 1:
            tools_named = [k for k in keys if f"app_{k}" in schemas]
            if len(tools_named) > 1:
                problems.add(where, f"has {_quote_list(keys)}; a shorthand step names one tool — make each its "
                                    "own step")
            else:
                others = [k for k in keys if k not in tools_named]
                problems.add(where, f"has {_quote_list(others)}, which a step does not have; beside a shorthand "
                                    f"a step has only {_quote_list(STEP_EXTRA_KEYS)}")
            return None
        key = keys[0]
        tool = key if key.startswith("app_") else f"app_{key}"
        if tool not in schemas:
            hint = _nearest(tool, schemas)
            problems.add(where, f"has \"{key}\", which is neither a key a step has nor a tool ({tool} is not a "
                                f"tool{hint})")
            return None
        value = raw[key]
        schema = schemas[tool]
        if isinstance(value, str):
            main = schema.main_argument()
            if main is None:
                problems.add(f"{where} ({tool})",
                             f"{_show({key: value})}: {tool} has no one main argument, so a string cannot say "
                             f"which it is — name them: {{\"{key}\": {{…}}}} with any of "
                             f"{', '.join(schema.own_arguments)}")
                return None
            arguments = {main: value}
        elif isinstance(value, dict):
            arguments = value
        else:
            problems.add(f"{where} ({tool})", f"\"{key}\" must be the tool's main argument (a string) or an object "
                                              f"of its arguments, got {_show(value)}")
            return None
        shown = tool

    if tool not in schemas:
        problems.add(where, f"names \"{tool}\", which is not a tool{_nearest(tool, schemas)}")
        return None
    if tool == "app_batch":
        problems.add(where, "is app_batch; a test's steps already run in order — list its steps in the test")
        return None
    if problems.disallowed(f"{where} ({shown})", tool):
        return None
    _check_arguments(schemas[tool], arguments, f"{where} ({shown})", problems)
    if tool == ASSERTION_TOOL:
        _check_condition(schemas[tool], arguments, f"{where} ({shown})", problems)
    if soft and tool != ASSERTION_TOOL:
        problems.add(f"{where} ({shown})", "is soft, but only an assertion (app_wait_for or expect) can be: an action "
                                           "that failed leaves nothing after it worth checking")
    return Step(number=n, tool=tool, arguments=dict(arguments), description=description, soft=soft)


def _parse_expect(raw: dict, n: int, where: str, schemas: dict[str, ToolSchema], problems: _Problems,
                  description: str, soft: bool) -> Optional[Step]:
    for key in raw:
        if key != "expect" and key not in STEP_EXTRA_KEYS:
            problems.add(where, f"has \"{key}\"; beside \"expect\" a step has only {_quote_list(STEP_EXTRA_KEYS)}")
    body = raw["expect"]
    if not isinstance(body, dict):
        problems.add(where, "\"expect\" must be {\"tool\": …, \"arguments\": {…}, \"field\": …, \"equals\": …}")
        return None
    for key in body:
        if key not in EXPECT_KEYS:
            problems.add(f"{where} (expect)", f"has \"{key}\"; an expect has only {_quote_list(EXPECT_KEYS)}")
    tool = body.get("tool")
    if not isinstance(tool, str) or not tool:
        problems.add(f"{where} (expect)", "names no tool: \"tool\" is the read-only tool it calls, e.g. \"app_state\"")
        return None
    if not tool.startswith("app_") and f"app_{tool}" in schemas:
        tool = f"app_{tool}"
    label = f"{where} (expect {tool})"
    if tool not in schemas:
        problems.add(label, f"\"{tool}\" is not a tool{_nearest(tool, schemas)}")
        return None
    if problems.disallowed(label, tool):
        return None
    arguments = body.get("arguments", {})
    if not isinstance(arguments, dict):
        problems.add(label, "arguments must be an object")
        return None
    schema = schemas[tool]
    _check_arguments(schema, arguments, label, problems)
    if not schema.reads_only(arguments):
        readers = sorted(s.name for s in schemas.values() if s.read_only)[:6]
        problems.add(label, f"{tool} changes something, and an expect repeats its call until it matches — an "
                            f"expect takes a tool that only reads ({', '.join(readers)}, …)")
    fld = body.get("field")
    if not isinstance(fld, str) or not fld:
        problems.add(label, "has no \"field\": the field of the tool's answer to compare, e.g. \"state\"")
    if "equals" not in body:
        problems.add(label, "has no \"equals\": the value the field must reach")
    timeout = body.get("timeout_ms")
    if timeout is not None and (isinstance(timeout, bool) or not isinstance(timeout, int)
                                or not 0 < timeout <= 120_000):
        problems.add(label, f"timeout_ms must be a whole number of milliseconds from 1 to 120000, got {_show(timeout)}")
        timeout = None
    return Step(number=n, tool=tool, arguments=dict(arguments), description=description, soft=soft,
                expect=Expect(tool=tool, arguments=dict(arguments), field=fld if isinstance(fld, str) else "",
                              equals=body.get("equals"), timeout_ms=timeout))


def _check_arguments(schema: ToolSchema, arguments: dict, where: str, problems: _Problems) -> None:
    own = schema.own_arguments
    for name, value in arguments.items():
        if name == "device":
            problems.add(where, "names a device; a test file runs on one device, so give it to the run (--device)")
            continue
        if name in COMMON_ARGUMENTS:
            problems.add(where, f"names a {name}; the run's tool server chooses it, not a step")
            continue
        if name not in schema.properties:
            problems.add(where, f"has an argument \"{name}\" that {schema.name} does not take (it takes: "
                                f"{', '.join(own) if own else 'no arguments'})")
            continue
        wrong = _type_problem(schema.properties[name], value)
        if wrong:
            problems.add(where, f"argument \"{name}\" {wrong}")
    for name in schema.required:
        if name not in arguments and name not in COMMON_ARGUMENTS:
            problems.add(where, f"is missing \"{name}\"")


def _check_condition(schema: ToolSchema, arguments: dict, where: str, problems: _Problems) -> None:
    """A wait whose condition cannot hold as written is a mistake in the file, not a failing test."""
    condition = arguments.get("condition", "visible")
    if not isinstance(condition, str):
        return  # the type check has said so
    declared = (schema.properties.get("condition") or {}).get("enum")
    if not declared and condition not in WAIT_CONDITIONS:
        problems.add(where, f"argument \"condition\" must be one of {', '.join(WAIT_CONDITIONS)}, got "
                            f"{_show(condition)}")
        return
    needs = CONDITION_NEEDS.get(condition)
    if needs and needs in schema.properties and needs not in arguments:
        problems.add(where, f"waits for condition \"{condition}\" but gives no \"{needs}\" to wait for")


_JSON_TYPE_WORDS = {"string": "a string", "integer": "a whole number", "number": "a number", "boolean": "true or false",
                    "array": "a list", "object": "an object", "null": "null"}


def _type_problem(prop: dict, value: Any) -> Optional[str]:
    types = _types(prop)
    if types and not any(_is_type(value, t) for t in types):
        want = " or ".join(_JSON_TYPE_WORDS.get(t, t) for t in sorted(types))
        return f"must be {want}, got {_show(value)}"
    enum = prop.get("enum")
    if enum is not None and value not in enum:
        return f"must be one of {', '.join(json.dumps(v) for v in enum)}, got {_show(value)}"
    items = prop.get("items")
    if isinstance(value, list) and isinstance(items, dict):
        for i, item in enumerate(value):
            wrong = _type_problem(items, item)
            if wrong:
                return f"item {i + 1} {wrong}"
    return None


def _is_type(value: Any, t: str) -> bool:
    if t == "string":
        return isinstance(value, str)
    if t == "integer":
        return (isinstance(value, int) and not isinstance(value, bool)) or (
            isinstance(value, float) and value.is_integer())
    if t == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value)
    if t == "boolean":
        return isinstance(value, bool)
    if t == "array":
        return isinstance(value, list)
    if t == "object":
        return isinstance(value, dict)
    if t == "null":
        return value is None
    return True


def _nearest(name: str, schemas: dict[str, ToolSchema]) -> str:
    close = difflib.get_close_matches(name, list(schemas), n=1, cutoff=0.7)
    return f"; the nearest is {close[0]}" if close else ""


# ---- results ----------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class StepFailure:
    """A step that failed: where (beforeEach, the test's steps, or the fresh-app launch), which, and why."""

    phase: str  # "setup" | "beforeEach" | "steps"
    step: int
    tool: str  # "app_wait_for", "expect app_state", …
    code: str
    message: str
    description: str = ""
    soft: bool = False

    def line(self) -> str:
        prefix = {"setup": "starting the app fresh, ", "beforeEach": "beforeEach ", "steps": ""}[self.phase]
        head = f"{prefix}step {self.step} ({self.tool}): [{self.code}] {self.message}"
        if self.soft:
            return f"soft, carried on: {self.description} — {head}" if self.description else \
                f"soft, carried on: {head}"
        if self.step == 1:
            return f"{head}; nothing ran after it"
        ran = "step 1" if self.step == 2 else f"steps 1-{self.step - 1}"
        return f"{head}; {ran} ran before it, and nothing after"

    def to_json(self) -> dict:
        return {"phase": self.phase, "step": self.step, "tool": self.tool, "code": self.code,
                "message": self.message, "description": self.description, "soft": self.soft, "line": self.line()}


@dataclass
class TestOutcome:
    name: str
    failure: Optional[StepFailure] = None
    soft_failures: list[StepFailure] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        return self.failure is None and not self.soft_failures

    @property
    def status(self) -> str:
        return "passed" if self.passed else "failed"

    def detail_lines(self) -> list[str]:
        lines = [f.line() for f in self.soft_failures]
        if self.failure is not None:
            lines.append(self.failure.line())
        return lines

    def to_json(self) -> dict:
        return {"name": self.name, "status": self.status, "seconds": round(self.seconds, 3),
                "failure": self.failure.to_json() if self.failure else None,
                "soft_failures": [f.to_json() for f in self.soft_failures]}


@dataclass
class TestFileResult:
    """What a run of one file came to. `problems` non-empty: a bad file, nothing ran. `infra_error`: the device or
    tool server failed, and the tests from that one on did not run."""

    file: str
    problems: list[str] = field(default_factory=list)
    tests: list[TestOutcome] = field(default_factory=list)
    infra_error: Optional[str] = None
    seconds: float = 0.0
    stopped_early: int = 0  # tests left unrun by max_failures

    @property
    def status(self) -> str:
        if self.problems:
            return "bad_file"
        if self.infra_error:
            return "infra_error"
        return "passed" if all(t.passed for t in self.tests) else "failed"

    @property
    def exit_code(self) -> int:
        return {"bad_file": EXIT_BAD_FILE, "infra_error": EXIT_NO_DEVICE, "passed": EXIT_PASSED,
                "failed": EXIT_FAILED}[self.status]

    @property
    def failed(self) -> list[TestOutcome]:
        return [t for t in self.tests if not t.passed]

    def summary(self) -> str:
        """One line: what the run came to, as the list reporter ends."""
        if self.problems:
            return f"bad file {self.file}: {self.problems[0]}" + (
                f" (and {len(self.problems) - 1} more)" if len(self.problems) > 1 else "")
        passed = len(self.tests) - len(self.failed)
        parts = [f"{passed} passed"]
        if self.failed:
            parts.append(f"{len(self.failed)} failed")
        if self.stopped_early:
            parts.append(f"{self.stopped_early} not run")
        line = f"{', '.join(parts)} ({self.seconds:.1f}s)"
        if self.infra_error:
            line += f"; the run stopped: {self.infra_error}"
        return line

    def to_json(self) -> dict:
        return {"file": self.file, "status": self.status, "exit_code": self.exit_code, "problems": self.problems,
                "infra_error": self.infra_error, "seconds": round(self.seconds, 3), "not_run": self.stopped_early,
                "tests": [t.to_json() for t in self.tests]}


# ---- running ----------------------------------------------------------------------------------------------------

class _ToolFailed(Exception):
    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


class ToolsAdapter:
    """The two things the runner needs from an MCP client: the tool list and a call that returns (data, text) or
    raises _ToolFailed with the tool's error code. Wraps the harness's `Tools` (whose `tool_defs` is the server's
    tools/list answer, read at the handshake), or any object with `tool_defs` and `call(name, check=, **args)`.

    `Tools` answers any unknown attribute with a tool caller (`tools.foo()` calls app_foo), so only its real
    attributes are touched here."""

    # Keyword names Tools.call keeps for itself: an argument so named cannot travel through it.
    _RESERVED = ("name", "check", "timeout")

    def __init__(self, tools: Any):
        self.tools = tools

    def list_tools(self) -> Any:
        defs = vars(self.tools).get("tool_defs") if hasattr(self.tools, "__dict__") else None
        if defs is None:
            raise TypeError(f"{type(self.tools).__name__} has no tool_defs: it cannot say which tools it has")
        return defs

    def call(self, name: str, arguments: dict) -> tuple[Any, str]:
        from .toolserver import ToolError  # imported late: the checks alone need no tool server

        clash = [a for a in arguments if a in self._RESERVED]
        if clash:
            raise _ToolFailed("invalid_argument", f"the runner's MCP client cannot pass an argument named "
                                                  f"\"{clash[0]}\" to {name}")
        try:
            result = self.tools.call(name, check=False, **arguments)
        except ToolError as exc:
            raise _ToolFailed(exc.code, exc.message) from None
        if result.is_error:
            code, message = _error_of(result.data, result.text)
            raise _ToolFailed(code, message)
        return result.data, result.text or ""


def _error_of(data: Any, text: str) -> tuple[str, str]:
    if isinstance(data, dict):
        return str(data.get("code") or "error"), str(data.get("message") or text or "")
    return "error", text or ""


Reporter = Callable[[str], None]


def run_file(path_or_data: Any, tools: Any, *, device_label: str = "", grep: Optional[str] = None,
             test_timeout_s: Optional[float] = None, report: Optional[Reporter] = None,
             allowed_tools: Optional[Iterable[str]] = None, max_failures: Optional[int] = None,
             assertion_timeout_ms: Optional[int] = None) -> TestFileResult:
    """Checks the file against the tools' own list, then runs every test from a fresh app. `report` receives the
    list reporter's lines as they happen (the CLI prints them). Never raises for a bad file or a failing test; a
    dead tool server ends the run with `infra_error`.

    `max_failures`: stop after this many failed tests (Playwright's --max-failures); the tests not run are left
    out of the result. `assertion_timeout_ms`: how long an assertion that names no timeout_ms waits (default
    app_wait_for's own 10 s), as Playwright's expect timeout in a config."""
    from .toolserver import InfraError

    started = time.monotonic()
    emit = report or (lambda line: None)
    name, data, problem = _load(path_or_data)
    result = TestFileResult(file=name)
    if problem:
        result.problems = [problem]
        return result
    adapter = ToolsAdapter(tools)
    try:
        listing = adapter.list_tools()
    except InfraError as exc:
        result.infra_error = f"the tool server did not list its tools: {exc}"
        return result
    parsed, problems = parse_file(data, listing, allowed_tools)
    if problems:
        result.problems = problems
        return result
    assert parsed is not None
    pattern = re.compile(grep) if grep else None
    tag = f"[{device_label}] " if device_label else ""
    for case in parsed.tests:
        if pattern and not pattern.search(f"{name} › {case.name}"):
            continue
        try:
            outcome = _run_test(parsed, case, adapter, test_timeout_s, assertion_timeout_ms)
        except InfraError as exc:
            result.infra_error = str(exc)
            emit(f"  ERROR {tag}{name} › {case.name}: {exc}")
            break
        result.tests.append(outcome)
        word = "ok   " if outcome.passed else "FAIL "
        emit(f"  {word} {tag}{name} › {case.name} ({outcome.seconds:.1f}s)")
        for line in outcome.detail_lines():
            emit(f"        {line}")
        if max_failures and len(result.failed) >= max_failures:
            left = len(parsed.tests) - len(result.tests)
            if left:
                emit(f"  stopped after {len(result.failed)} failed test{'s' if len(result.failed) != 1 else ''} "
                     f"(--max-failures); {left} not run")
            result.stopped_early = left
            break
    result.seconds = time.monotonic() - started
    return result


def _load(path_or_data: Any) -> tuple[str, Any, Optional[str]]:
    """(display name, decoded JSON, problem). A path is read and decoded; anything else is taken as decoded."""
    if isinstance(path_or_data, (str, os.PathLike)) and not (isinstance(path_or_data, str) and
                                                               path_or_data.lstrip().startswith("{")):
        path = Path(path_or_data)
        try:
            text = path.read_text(encoding="utf-8")
        except OSError as exc:
            return path.name, None, f"cannot read {path}: {exc.strerror or exc}"
        data, problem = decode(text)
        return path.name, data, problem
    if isinstance(path_or_data, str):
        data, problem = decode(path_or_data)
        return "<answer>", data, problem
    return "<data>", path_or_data, None


def decode(text: str) -> tuple[Any, Optional[str]]:
    """JSON text -> (data, None), or (None, "not JSON: … at line L column C")."""
    try:
        return json.loads(text), None
    except json.JSONDecodeError as exc:
        return None, f"not JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"


def _run_test(parsed: TestFile, case: TestCase, tools: ToolsAdapter, timeout_s: Optional[float],
              assertion_timeout_ms: Optional[int] = None) -> TestOutcome:
    started = time.monotonic()
    outcome = TestOutcome(name=case.name)
    deadline = started + timeout_s if timeout_s else None

    # A fresh app: stopped, then launched; the data is kept, as in Mobium's runner.
    for number, tool in enumerate(("app_terminate", "app_launch"), 1):
        try:
            tools.call(tool, {"app": parsed.app})
        except _ToolFailed as exc:
            outcome.failure = StepFailure("setup", number, tool, exc.code, exc.message)
            outcome.seconds = time.monotonic() - started
            return outcome

    for phase, steps in (("beforeEach", parsed.before_each), ("steps", case.steps)):
        for step in steps:
            if deadline is not None and time.monotonic() > deadline:
                outcome.failure = StepFailure(phase, step.number, step.label, "timeout",
                                              f"the test ran past its {timeout_s:g}s before this step")
                outcome.seconds = time.monotonic() - started
                return outcome
            failure = _run_step(step, phase, tools, assertion_timeout_ms)
            if failure is None:
                continue
            if failure.soft:
                outcome.soft_failures.append(failure)
                continue
            outcome.failure = failure
            outcome.seconds = time.monotonic() - started
            return outcome
    outcome.seconds = time.monotonic() - started
    return outcome


def _run_step(step: Step, phase: str, tools: ToolsAdapter,
              assertion_timeout_ms: Optional[int] = None) -> Optional[StepFailure]:
    if step.expect is not None:
        return _run_expect(step, phase, tools, assertion_timeout_ms)
    arguments = step.arguments
    if step.tool == ASSERTION_TOOL and assertion_timeout_ms and "timeout_ms" not in arguments:
        arguments = {**arguments, "timeout_ms": assertion_timeout_ms}
    try:
        tools.call(step.tool, arguments)
    except _ToolFailed as exc:
        return StepFailure(phase, step.number, step.label, exc.code, exc.message, step.description, step.soft)
    return None


_MISSING = object()


def _run_expect(step: Step, phase: str, tools: ToolsAdapter,
                assertion_timeout_ms: Optional[int] = None) -> Optional[StepFailure]:
    """Calls the read-only tool until its field equals the value or the timeout passes, by app_wait_for's rule
    (every 250 ms); a failure says the value last seen."""
    e = step.expect
    assert e is not None
    started = time.monotonic()
    timeout_ms = e.timeout_ms or assertion_timeout_ms or DEFAULT_EXPECT_TIMEOUT_MS
    deadline = started + timeout_ms / 1000
    while True:
        try:
            data, _text = tools.call(e.tool, e.arguments)
            seen: Any = _field(data, e.field)
            error = None
        except _ToolFailed as exc:
            seen, error = _MISSING, exc
            data = None
        if seen is not _MISSING and same_value(seen, e.equals):
            return None
        now = time.monotonic()
        if now >= deadline:
            waited = now - started
            want = f"expected {e.tool}'s {e.field} to be {json.dumps(e.equals, ensure_ascii=False)}"
            if error is not None:
                said = f"{e.tool} still fails: [{error.code}] {error.message}"
            elif seen is _MISSING:
                has = ", ".join(sorted(data)) if isinstance(data, dict) else "no fields"
                said = f"its answer has no {e.field} (it has: {has})"
            else:
                said = f"{e.field} is {json.dumps(seen, ensure_ascii=False)}"
            return StepFailure(phase, step.number, step.label, "timeout", f"{want}, and after {waited:.1f}s {said}",
                               step.description, step.soft)
        time.sleep(min(EXPECT_POLL_S, max(0.0, deadline - now)))


def _field(data: Any, path: str) -> Any:
    """`state`, `settings.bold_text`, `elements.0.label` — a dotted path into the structured answer."""
    value = data
    for part in path.split("."):
        if isinstance(value, dict) and part in value:
            value = value[part]
        elif isinstance(value, list) and part.isdigit() and int(part) < len(value):
            value = value[int(part)]
        else:
            return _MISSING
    return value


def same_value(a: Any, b: Any) -> bool:
    """JSON equality: true is not 1, 2 equals 2.0, objects and lists compare element by element."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same_value(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


# ---- the command ------------------------------------------------------------------------------------------------

def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("file", metavar="FILE", help="a Mobium *.test.json file")
    parser.add_argument("--device", metavar="SERIAL", help="the device to run on (default: the only one the ADB "
                                                           "server has)")
    parser.add_argument("--adb", metavar="HOST:PORT", default="127.0.0.1:5037",
                        help="the ADB server that has the device (default 127.0.0.1:5037)")
    parser.add_argument("--mobium", metavar="PATH", help="run the real Mobium binary's `mobium mcp` as the tool "
                                                         "server (default: $MOBIUM_BIN if set, else the built-in "
                                                         "server)")
    parser.add_argument("-g", "--grep", metavar="REGEX", help="run only the tests whose title (file › name) matches")
    parser.add_argument("--timeout", metavar="SECONDS", type=float, default=90.0,
                        help="the time each test may take: one still running after it fails at its next step "
                             "(default 90)")
    parser.add_argument("--json", metavar="PATH", help="also write the result as JSON to PATH")
    parser.add_argument("--max-failures", metavar="N", type=int,
                        help="stop after N failed tests; the rest are not run")
    parser.add_argument("--assertion-timeout", metavar="MS", type=int,
                        help="how long an assertion that gives no timeout_ms waits (default 10000)")
    parser.add_argument("--allow-tools", metavar="TOOL,TOOL", help="refuse the file (as a bad file) if a step uses a "
                                                                  "tool not listed here")


def run(args: argparse.Namespace) -> int:
    from .cli import CliError

    name, data, problem = _load(args.file)
    if problem:
        _write_json(args.json, TestFileResult(file=name, problems=[problem]))
        print(f"bad file {name}: {problem}", file=sys.stderr)
        return EXIT_BAD_FILE
    host, port = _host_port(args.adb)
    if args.timeout <= 0:
        raise CliError(f"--timeout must be more than 0 seconds, got {args.timeout:g}")
    if args.max_failures is not None and args.max_failures < 1:
        raise CliError(f"--max-failures must be 1 or more, got {args.max_failures}")
    if args.assertion_timeout is not None and not 0 < args.assertion_timeout <= 120_000:
        raise CliError(f"--assertion-timeout must be from 1 to 120000 ms, got {args.assertion_timeout}")
    if args.grep:
        try:
            re.compile(args.grep)
        except re.error as exc:
            raise CliError(f"--grep {args.grep!r} is not a regular expression: {exc}") from None
    allowed = [t.strip() for t in args.allow_tools.split(",") if t.strip()] if args.allow_tools else None
    serial = args.device or _only_device(host, port)
    if serial is None:
        return EXIT_NO_DEVICE

    from .toolserver import InfraError, Tools, ToolServerSpec

    mobium = args.mobium or os.environ.get("MOBIUM_BIN")
    spec = ToolServerSpec.mobium(mobium, serial) if mobium else ToolServerSpec.builtin(serial, host, port)
    try:
        tools = Tools(spec)
    except InfraError as exc:
        print(f"mobium-evals test: the tool server did not start: {exc}", file=sys.stderr)
        return EXIT_NO_DEVICE
    try:
        result = run_file(Path(args.file), tools, device_label=serial, grep=args.grep, test_timeout_s=args.timeout,
                          report=lambda line: print(line, flush=True), allowed_tools=allowed,
                          max_failures=args.max_failures, assertion_timeout_ms=args.assertion_timeout)
    finally:
        _close(tools)
    _write_json(args.json, result)
    if result.problems:
        for p in result.problems:
            print(f"bad file {result.file}: {p}", file=sys.stderr)
        print(f"error: {result.file} is a bad file ({len(result.problems)} problem"
              f"{'s' if len(result.problems) != 1 else ''}); nothing ran", file=sys.stderr)
        return EXIT_BAD_FILE
    print(result.summary())
    if result.infra_error:
        print(f"error: the run could not go on: {result.infra_error}", file=sys.stderr)
    elif result.failed:
        print(f"error: {len(result.failed)} of {len(result.tests)} tests failed", file=sys.stderr)
    elif not result.tests:
        print("error: no test matched", file=sys.stderr)
        return EXIT_BAD_FILE
    return result.exit_code


def _write_json(path: Optional[str], result: TestFileResult) -> None:
    if path:
        tmp = Path(f"{path}.tmp")
        tmp.write_text(json.dumps(result.to_json(), indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
        os.replace(tmp, path)


def _close(tools: Any) -> None:
    for attr in ("close", "stop"):
        fn = getattr(tools, attr, None)
        if callable(fn):
            fn()
            return


def _host_port(value: str) -> tuple[str, int]:
    from .cli import CliError

    host, sep, port = value.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise CliError(f"--adb must be HOST:PORT, got {value!r}")
    return host, int(port)


def _only_device(host: str, port: int) -> Optional[str]:
    """The one device the ADB server has; None (with a message) when it has none, CliError when several."""
    import adbutils

    from .cli import CliError

    try:
        devices = [d.serial for d in adbutils.AdbClient(host=host, port=port, socket_timeout=10).device_list()]
    except Exception as exc:  # the ADB server is not there: the run cannot start
        print(f"mobium-evals test: no ADB server at {host}:{port}: {exc}", file=sys.stderr)
        return None
    if not devices:
        print(f"mobium-evals test: no device on the ADB server at {host}:{port}", file=sys.stderr)
        return None
    if len(devices) > 1:
        raise CliError(f"{len(devices)} devices on {host}:{port} ({', '.join(devices)}); name one with --device")
    return devices[0]
