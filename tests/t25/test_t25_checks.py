"""The test-file checks that run before anything does: each refusal, and what passes them.

The schemas are the built-in server's own `tools/list` answer (`server.tool_list()`, what `on_list_tools` sends), so
these checks meet the same tool surface a run does; no device is needed to check a file."""

from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from pytest_mobium_evals.commands.testfile.format import schemas_from
from pytest_mobium_evals.commands.testfile.parsing import check_file, parse_file
from pytest_mobium_evals.mobium_server.server import tool_list

T25 = Path(__file__).resolve().parents[2] / "tasks" / "t25"


@pytest.fixture(scope="module")
def tools():
    return tool_list()


def one_step(step, **extra) -> dict:
    return {"app": "dev.mobium.morphomarket", "tests": [{"name": "t", "steps": [step]}], **extra}


@pytest.mark.parametrize("name", ["market.test.json", "reference.test.json", "wrong.test.json"])
def test_the_t25_files_pass_the_checks(tools, name):
    assert check_file(json.loads((T25 / name).read_text()), tools) == []


def test_the_long_form_and_the_shorthand_read_the_same(tools):
    long = one_step({"name": "app_check", "arguments": {"target": "testid=termsCheck", "checked": False}})
    short = one_step({"check": {"target": "testid=termsCheck", "checked": False}})
    a, b = parse_file(long, tools)[0], parse_file(short, tools)[0]
    assert a is not None and b is not None
    assert a.tests[0].steps[0] == b.tests[0].steps[0]


@pytest.mark.parametrize("step, tool, arguments", [
    ({"tap": "label=Form Demo"}, "app_tap", {"target": "label=Form Demo"}),  # target when the tool has one
    ({"launch": "dev.mobium.mobiumapp"}, "app_launch", {"app": "dev.mobium.mobiumapp"}),  # its one required string
    ({"find": "role=button"}, "app_find", {"locator": "role=button"}),
    ({"press": "back"}, "app_press", {"button": "back"}),
    ({"swipe": {"direction": "up"}}, "app_swipe", {"direction": "up"}),  # named arguments are always fine
    ({"app_tap": "testid=x"}, "app_tap", {"target": "testid=x"}),  # a full tool name as the key
])
def test_the_shorthand_string_goes_to_the_main_argument(tools, step, tool, arguments):
    parsed, problems = parse_file(one_step(step), tools)
    assert problems == []
    assert (parsed.tests[0].steps[0].tool, parsed.tests[0].steps[0].arguments) == (tool, arguments)


# Each refusal: the step (or file) and the words its one-line problem must carry.
REFUSALS = [
    ("unknown tool", one_step({"name": "app_click", "arguments": {"target": "x"}}),
     ['step 1: names "app_click", which is not a tool']),
    ("unknown shorthand tool", one_step({"clik": "x"}), ['has "clik", which is neither a key a step has nor a tool']),
    ("argument the tool does not take", one_step({"name": "app_tap", "arguments": {"locator": "x"}}),
     ['has an argument "locator" that app_tap does not take (it takes: double, fingers, target, x, y)']),
    ("argument in the shorthand the tool does not take", one_step({"tap": {"target": "x", "where": "y"}}),
     ['has an argument "where" that app_tap does not take']),
    ("argument of the wrong type", one_step({"wait_for": {"target": "x", "timeout_ms": "3000"}}),
     ['argument "timeout_ms" must be a whole number, got "3000"']),
    ("argument outside its enum", one_step({"press": {"button": "power"}}), ['argument "button" must be one of']),
    ("missing required argument", one_step({"fill": {"target": "testid=x"}}), ['(app_fill): is missing "text"']),
    ("key the file does not have", one_step({"tap": "x"}, timeout=5),
     ['the file has "timeout"; a test file has only']),
    ("key a test does not have", {"app": "a", "tests": [{"name": "t", "steps": [{"tap": "x"}], "skip": True}]},
     ['test 1 ("t"): has "skip"; a test has only']),
    ("key a step does not have", one_step({"name": "app_tap", "args": {"target": "x"}}),
     ['has "args"; a step has only "name", "arguments", "description" and "soft"']),
    ("key beside a shorthand", one_step({"tap": "x", "retry": 2}),
     ['has "retry", which a step does not have']),
    ("key an expect does not have", one_step({"expect": {"tool": "app_current", "field": "app", "equals": "a",
                                                         "within": 3}}),
     ['has "within"; an expect has only']),
    ("string shorthand with no main argument", one_step({"swipe": "up"}),
     ['{"swipe": "up"}: app_swipe has no one main argument']),
    ("two tools in one shorthand step", one_step({"tap": "x", "fill": {"target": "y", "text": "z"}}),
     ['a shorthand step names one tool']),
    ("shorthand value neither string nor object", one_step({"tap": 5}),
     ['must be the tool\'s main argument (a string) or an object of its arguments, got 5']),
    ("a soft action", one_step({"tap": "x", "soft": True}), ['is soft, but only an assertion']),
    ("an expect on a tool that changes something",
     one_step({"expect": {"tool": "app_tap", "arguments": {"target": "x"}, "field": "action", "equals": "tap"}}),
     ['(expect app_tap): app_tap changes something, and an expect repeats its call']),
    ("an expect on a reading tool given an acting argument",
     one_step({"expect": {"tool": "app_appearance", "arguments": {"appearance": "dark"}, "field": "appearance",
                          "equals": "dark"}}),
     ['app_appearance changes something']),
    ("an expect with no equals", one_step({"expect": {"tool": "app_current", "field": "app"}}),
     ['has no "equals"']),
    ("a step naming the device", one_step({"tap": {"target": "x", "device": "emulator-5554"}}),
     ['names a device; a test file runs on one device']),
    ("a batch inside a test", one_step({"name": "app_batch", "arguments": {"steps": [{"name": "app_map"}]}}),
     ['is app_batch']),
    ("no tests", {"app": "a", "tests": []}, ['"tests" must be a non-empty list']),
    ("no app", {"tests": [{"name": "t", "steps": [{"tap": "x"}]}]}, ['"app" must be the app\'s package name']),
    ("a test with no steps", {"app": "a", "tests": [{"name": "t", "steps": []}]},
     ['must have "steps", a non-empty list']),
    ("not an object", ["tap"], ["a test file is one JSON object"]),
    ("a wait for a condition there is not", one_step({"wait_for": {"target": "x", "condition": "shown"}}),
     ['argument "condition" must be one of visible, hidden, text']),
    ("a wait for text with no text", one_step({"wait_for": {"target": "x", "condition": "text"}}),
     ['waits for condition "text" but gives no "text" to wait for']),
    ("a wait for a count with no count", one_step({"wait_for": {"target": "role=radio", "condition": "count"}}),
     ['waits for condition "count" but gives no "count"']),
    ("a problem in beforeEach", {"app": "a", "beforeEach": [{"tapp": "x"}], "tests": [{"name": "t", "steps": [
        {"tap": "x"}]}]}, ['beforeEach step 1: has "tapp"']),
]


@pytest.mark.parametrize("case, data, words", REFUSALS, ids=[r[0] for r in REFUSALS])
def test_each_refusal_names_the_problem_and_where(tools, case, data, words):
    problems = check_file(data, tools)
    assert problems, f"{case}: the file passed the checks"
    text = "\n".join(problems)
    for w in words:
        assert w in text, f"{case}: {w!r} not in {text!r}"
    assert all("\n" not in p for p in problems)  # one line each


def test_every_problem_is_listed_not_only_the_first(tools):
    data = one_step({"tap": "x"})
    data["tests"][0]["steps"] = [{"clik": "x"}, {"swipe": "up"}, {"tap": "y", "soft": True}]
    assert len(check_file(data, tools)) == 3


def test_an_expect_on_a_tool_read_unless_given_an_acting_argument_is_accepted(tools):
    # app_alert says readOnlyHint false (it answers dialogs when given an action), but with none it only reads.
    data = one_step({"expect": {"tool": "app_alert", "field": "present", "equals": False}})
    schemas = schemas_from(tools)
    if "app_alert" not in schemas:
        pytest.skip("this server has no app_alert")
    assert check_file(data, tools) == []


def test_the_long_test_refused_when_one_step_is_mistyped(tools):
    data = json.loads((T25 / "market.test.json").read_text())
    broken = copy.deepcopy(data)
    broken["tests"][2]["steps"][4]["name"] = "app_tapp"
    problems = check_file(broken, tools)
    assert len(problems) == 1 and problems[0].startswith('test 3 ("the cart keeps every product after going back") '
                                                         'step 5')
