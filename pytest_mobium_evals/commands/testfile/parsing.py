"""Parsing and checking a test file against the tool server's schemas: every problem listed, one line each."""

from __future__ import annotations

import difflib
import json
import math
from dataclasses import dataclass
from typing import Any, Iterable, Optional

from .format import (
    ASSERTION_TOOL,
    COMMON_ARGUMENTS,
    CONDITION_NEEDS,
    EXPECT_KEYS,
    FILE_KEYS,
    LONG_STEP_KEYS,
    STEP_EXTRA_KEYS,
    TEST_KEYS,
    WAIT_CONDITIONS,
    ToolSchema,
    _types,
    schemas_from,
)

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
