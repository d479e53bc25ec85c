"""The runner's behaviour over a scripted MCP client: the fresh app per test, beforeEach, failure lines, soft
assertions, expect's polling, a dead server, and a bad file that runs nothing. The device-backed runs are in
test_t25_market.py; these need no device and take well under a second."""

from __future__ import annotations

import pytest

from pytest_mobium_evals.commands.testfile.format import EXIT_BAD_FILE, EXIT_FAILED, EXIT_NO_DEVICE, EXIT_PASSED
from pytest_mobium_evals.commands.testfile.running import run_file
from pytest_mobium_evals.mobium_server.server import tool_list
from pytest_mobium_evals.reach.toolserver import InfraError, ToolResult

APP = "dev.mobium.morphomarket"


def error(code: str, message: str) -> ToolResult:
    return ToolResult(message, {"code": code, "message": message, "retryable": code == "timeout"}, is_error=True)


class ScriptedTools:
    """An MCP client stand-in with the built-in server's real tool list. `screen` is the set of test ids "on
    screen"; reads of `values[(tool, key)]` return successive values from a list (the last one repeats)."""

    def __init__(self, screen=(), values=None, dead_after=None):
        self.tool_defs = [t.model_dump(by_alias=True, exclude_none=True) for t in tool_list()]
        self.screen = set(screen)
        self.values = {k: list(v) for k, v in (values or {}).items()}
        self.calls: list[tuple[str, dict]] = []
        self.dead_after = dead_after

    def call(self, name, *, check=True, **arguments):
        self.calls.append((name, arguments))
        if self.dead_after is not None and len(self.calls) > self.dead_after:
            raise InfraError("the tool server died: EOF")
        target = arguments.get("target", "")
        key = target or arguments.get("app", "")
        if (name, key) in self.values:
            seq = self.values[(name, key)]
            value = seq.pop(0) if len(seq) > 1 else seq[0]
            if isinstance(value, ToolResult):
                return value
            return ToolResult(str(value), value)
        if name in ("app_terminate", "app_launch"):
            return ToolResult(f"{name} {arguments['app']}", {"app": arguments["app"]})
        if name in ("app_tap", "app_wait_for"):
            testid = target.removeprefix("testid=")
            if testid in self.screen:
                return ToolResult(f"{target} ok", {"target": target})
            if name == "app_wait_for":
                return error("timeout", f"timed out after 0.100s waiting for {target} to be visible — it is not "
                                        "on screen")
            return error("no_such_element", f"no element matches {target} on the current screen")
        raise AssertionError(f"the scripted client has no answer for {name} {arguments}")


def file_with(steps, before_each=None, tests=None):
    data = {"app": APP, "tests": tests or [{"name": "only", "steps": steps}]}
    if before_each is not None:
        data["beforeEach"] = before_each
    return data


def test_each_test_starts_from_a_fresh_app_then_before_each_then_its_steps():
    tools = ScriptedTools(screen={"list", "a", "b"})
    data = file_with(None, before_each=[{"wait_for": "testid=list"}], tests=[
        {"name": "one", "steps": [{"tap": "testid=a"}]},
        {"name": "two", "steps": [{"name": "app_tap", "arguments": {"target": "testid=b"}}]}])
    result = run_file(data, tools)
    assert result.exit_code == EXIT_PASSED and [t.status for t in result.tests] == ["passed", "passed"]
    assert [c[0] for c in tools.calls] == ["app_terminate", "app_launch", "app_wait_for", "app_tap",
                                           "app_terminate", "app_launch", "app_wait_for", "app_tap"]
    assert tools.calls[0][1] == {"app": APP} and tools.calls[1][1] == {"app": APP}


def test_a_failed_step_names_itself_its_code_and_what_ran_and_nothing_runs_after_it():
    tools = ScriptedTools(screen={"a"})
    result = run_file(file_with([{"tap": "testid=a"}, {"tap": "testid=a"}, {"wait_for": "testid=gone"},
                                 {"tap": "testid=a"}]), tools)
    assert result.exit_code == EXIT_FAILED
    line = result.tests[0].failure.line()
    assert line.startswith("step 3 (app_wait_for): [timeout] timed out after 0.100s waiting for testid=gone")
    assert line.endswith("; steps 1-2 ran before it, and nothing after")
    assert len(tools.calls) == 2 + 3  # the fresh app, then steps 1-3; step 4 never ran


@pytest.mark.parametrize("steps, ending", [
    ([{"tap": "testid=x"}], "; nothing ran after it"),
    ([{"tap": "testid=a"}, {"tap": "testid=x"}], "; step 1 ran before it, and nothing after"),
])
def test_what_ran_before_a_failure_is_said_in_words(steps, ending):
    result = run_file(file_with(steps), ScriptedTools(screen={"a"}))
    assert result.tests[0].failure.line().endswith(ending)


def test_a_failure_in_before_each_says_so():
    result = run_file(file_with([{"tap": "testid=a"}], before_each=[{"tap": "testid=menu"}]), ScriptedTools({"a"}))
    assert result.tests[0].failure.line().startswith("beforeEach step 1 (app_tap): [no_such_element]")


def test_an_app_that_does_not_start_fails_the_test_before_its_steps():
    tools = ScriptedTools(values={("app_launch", APP): [error("invalid_argument", "x is not installed")]})
    result = run_file(file_with([{"tap": "testid=a"}]), tools)
    assert result.tests[0].failure.line().startswith("starting the app fresh, step 2 (app_launch): "
                                                     "[invalid_argument] x is not installed")
    assert [c[0] for c in tools.calls] == ["app_terminate", "app_launch"]


def test_soft_assertions_are_recorded_and_the_test_carries_on_and_still_fails():
    tools = ScriptedTools(screen={"a", "last"}, values={("app_state", APP): [{"state": "foreground"}]})
    steps = [
        {"wait_for": {"target": "testid=nope", "timeout_ms": 100}, "soft": True, "description": "cannot hold"},
        {"tap": "testid=a"},
        {"expect": {"tool": "app_state", "arguments": {"app": APP}, "field": "state", "equals": "background",
                    "timeout_ms": 100}, "soft": True},
        {"wait_for": "testid=last", "description": "reached only if the test carried on"},
    ]
    result = run_file(file_with(steps), tools)
    outcome = result.tests[0]
    assert outcome.status == "failed" and outcome.failure is None and len(outcome.soft_failures) == 2
    lines = outcome.detail_lines()
    assert lines[0].startswith("soft, carried on: cannot hold — step 1 (app_wait_for): [timeout]")
    assert lines[1].startswith('soft, carried on: step 3 (expect app_state): [timeout] expected app_state\'s state '
                               'to be "background", and after ')
    assert lines[1].endswith('s state is "foreground"')
    assert tools.calls[-1] == ("app_wait_for", {"target": "testid=last"})


def test_expect_repeats_the_read_until_the_field_matches():
    tools = ScriptedTools(values={("app_text", "testid=cartCount"): [{"text": "3 items"}, {"text": "3 items"},
                                                                     {"text": "4 items"}]})
    steps = [{"expect": {"tool": "app_text", "arguments": {"target": "testid=cartCount"}, "field": "text",
                         "equals": "4 items", "timeout_ms": 5000}}]
    result = run_file(file_with(steps), tools)
    assert result.exit_code == EXIT_PASSED
    assert [c[0] for c in tools.calls].count("app_text") == 3


def test_expect_compares_as_json_true_is_not_one():
    tools = ScriptedTools(values={("app_state", APP): [{"state": 1}]})
    steps = [{"expect": {"tool": "app_state", "arguments": {"app": APP}, "field": "state", "equals": True,
                         "timeout_ms": 50}}]
    assert run_file(file_with(steps), tools).exit_code == EXIT_FAILED


def test_expect_on_a_missing_field_says_what_the_answer_has():
    tools = ScriptedTools(values={("app_state", APP): [{"app": APP, "state": "foreground"}]})
    steps = [{"expect": {"tool": "app_state", "arguments": {"app": APP}, "field": "covered_by", "equals": "x",
                         "timeout_ms": 50}}]
    line = run_file(file_with(steps), tools).tests[0].failure.line()
    assert "its answer has no covered_by (it has: app, state)" in line


def test_a_bad_file_runs_nothing_and_exits_2():
    tools = ScriptedTools(screen={"a"})
    result = run_file(file_with([{"tap": "testid=a"}, {"swipe": "up"}]), tools)
    assert result.exit_code == EXIT_BAD_FILE and result.tests == [] and tools.calls == []
    assert "app_swipe has no one main argument" in result.problems[0]


def test_a_tool_outside_the_allowed_ones_is_a_bad_file():
    result = run_file(file_with([{"name": "app_clear_data", "arguments": {"app": APP}}]), ScriptedTools(),
                      allowed_tools=["app_tap", "app_wait_for"])
    assert result.exit_code == EXIT_BAD_FILE
    assert "uses app_clear_data, which this run does not allow (it allows: app_tap, app_wait_for)" in \
        result.problems[0]


def test_text_that_is_not_json_is_a_bad_file():
    result = run_file('{"app": "x", "tests": [', ScriptedTools())
    assert result.exit_code == EXIT_BAD_FILE and result.problems[0].startswith("not JSON: ")


def test_a_dead_tool_server_stops_the_run_as_an_infrastructure_error():
    tools = ScriptedTools(screen={"a"}, dead_after=3)
    result = run_file(file_with(None, tests=[{"name": "one", "steps": [{"tap": "testid=a"}] * 3},
                                             {"name": "two", "steps": [{"tap": "testid=a"}]}]), tools)
    assert result.exit_code == EXIT_NO_DEVICE and "died" in result.infra_error and result.tests == []


def test_the_list_reporter_lines():
    lines: list[str] = []
    run_file(file_with(None, tests=[{"name": "good", "steps": [{"tap": "testid=a"}]},
                                    {"name": "bad", "steps": [{"tap": "testid=x"}]}]),
             ScriptedTools(screen={"a"}), device_label="emulator-5554", report=lines.append)
    assert lines[0].startswith("  ok    [emulator-5554] <data> › good (")
    assert lines[1].startswith("  FAIL  [emulator-5554] <data> › bad (")
    assert lines[2].startswith("        step 1 (app_tap): [no_such_element]")


def test_grep_runs_only_the_tests_whose_title_matches():
    tools = ScriptedTools(screen={"a"})
    result = run_file(file_with(None, tests=[{"name": "cart total", "steps": [{"tap": "testid=a"}]},
                                             {"name": "checkout", "steps": [{"tap": "testid=x"}]}]),
                      tools, grep="total")
    assert [t.name for t in result.tests] == ["cart total"] and result.exit_code == EXIT_PASSED


def test_max_failures_stops_the_run_and_says_how_many_did_not_run():
    lines: list[str] = []
    result = run_file(file_with(None, tests=[{"name": n, "steps": [{"tap": "testid=x"}]} for n in "abc"]),
                      ScriptedTools(), max_failures=1, report=lines.append)
    assert [t.name for t in result.tests] == ["a"] and result.stopped_early == 2
    assert lines[-1] == "  stopped after 1 failed test (--max-failures); 2 not run"
    assert result.summary().startswith("0 passed, 1 failed, 2 not run (")


def test_the_assertion_timeout_is_the_default_for_waits_that_name_none():
    tools = ScriptedTools(screen={"a"})
    run_file(file_with([{"wait_for": "testid=a"}, {"wait_for": {"target": "testid=a", "timeout_ms": 9000}}]),
             tools, assertion_timeout_ms=1234)
    waits = [args for name, args in tools.calls if name == "app_wait_for"]
    assert waits == [{"target": "testid=a", "timeout_ms": 1234}, {"target": "testid=a", "timeout_ms": 9000}]
