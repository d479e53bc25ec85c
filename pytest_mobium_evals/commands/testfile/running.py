"""Running a checked test file over the MCP tools, one call at a time."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path
from typing import Any, Callable, Iterable, Optional

from pytest_mobium_evals.reach.toolserver import InfraError, ToolError

from .format import ASSERTION_TOOL, DEFAULT_EXPECT_TIMEOUT_MS, EXPECT_POLL_S
from .parsing import Step, TestCase, TestFile, parse_file
from .results import StepFailure, TestFileResult, TestOutcome

# ---- running ----------------------------------------------------------------------------------------------------

class _ToolFailed(Exception):
    def __init__(self, code: str, message: str):
        super().__init__(message)
        self.code = code
        self.message = message


class ToolsAdapter:
    """The two things the runner needs from an MCP client: the tool list and a call that returns (data, text) or
    raises _ToolFailed with the tool's error code. Wraps the harness's `Tools` (whose `tool_defs` is the server's
    tools/list answer, listed at the handshake), or any object with `tool_defs` and `call(name, check=, **args)`.

    `Tools` answers any unknown attribute with a tool caller (`tools.foo()` calls app_foo), so a callable found for
    `tool_defs` is such a caller, not a tool list."""

    # Keyword names Tools.call keeps for itself: an argument so named cannot travel through it.
    _RESERVED = ("name", "check", "timeout")

    def __init__(self, tools: Any):
        self.tools = tools

    def list_tools(self) -> Any:
        defs = getattr(self.tools, "tool_defs", None)
        if defs is None or callable(defs):  # callable: what Tools' __getattr__ makes of a name it does not have
            raise TypeError(f"{type(self.tools).__name__} has no tool_defs: it cannot say which tools it has")
        return defs

    def call(self, name: str, arguments: dict) -> tuple[Any, str]:
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
    started = time.monotonic()
    emit = report or (lambda line: None)
    name, data, problem = read_test_file(path_or_data)
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


def read_test_file(path_or_data: Any) -> tuple[str, Any, Optional[str]]:
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
