"""t25 end to end on the virtual device: the long test on each build, and answers graded as the task grades them
(each build a `mobium-evals test` process of its own with its own tool server)."""

from __future__ import annotations

import json

import pytest

from pytest_mobium_evals.commands.testfile import run_file
from pytest_mobium_evals.reach.toolserver import Tools, ToolServerSpec

# Assertions that must time out (on a bug build) wait this long: the app answers at once, and its one timer (the
# checkout's 1.5 s) runs at the device clock's speed.
FAST_MS = 1500


def grade(t25, answer, device):
    return t25.grade_answer(answer, device, assertion_timeout_ms=FAST_MS)


@pytest.fixture(scope="module")
def tools(sim_server, market_device):
    with Tools(ToolServerSpec.builtin(sim_server.serials[0], "127.0.0.1", sim_server.port)) as client:
        yield client


def failed_tests(result) -> list[str]:
    return [t.name for t in result.failed]


@pytest.mark.parametrize("build, failing", [
    ("correct", []),
    ("total_ignores_quantity", ["the cart's total counts each product's quantity",
                                "checkout places the order and confirms what was paid"]),
    ("back_drops_item", ["the cart keeps every product after going back"]),
])
def test_the_long_test_passes_on_the_correct_build_and_catches_each_bug(t25, tools, market_device, build, failing):
    t25.use_build(market_device, build)
    try:
        result = run_file(t25.LONG_TEST, tools, assertion_timeout_ms=FAST_MS)
    finally:
        t25.use_build(market_device, t25.CORRECT)
    assert result.problems == [] and result.infra_error is None
    assert failed_tests(result) == failing, [t.detail_lines() for t in result.failed]
    assert len(result.tests) == 5


def test_the_reference_answer_passes_the_correct_build_and_fails_on_each_bug(t25, market_device):
    outcome = grade(t25, t25.REFERENCE_TEST.read_text(), market_device)
    assert outcome.reached, outcome.observed
    assert "passes on the correct build (5 tests)" in outcome.observed
    assert 'total_ignores_quantity: caught by "the total counts quantities"' in outcome.observed
    assert 'back_drops_item: caught by "going back keeps the cart"' in outcome.observed
    assert market_device.getprop(t25.VARIANT_PROPERTY) == t25.CORRECT  # put back after grading


def test_the_wrong_fold_passes_under_the_back_bug(t25, tools, market_device):
    t25.use_build(market_device, "back_drops_item")
    try:
        result = run_file(t25.WRONG_TEST, tools, assertion_timeout_ms=FAST_MS)
    finally:
        t25.use_build(market_device, t25.CORRECT)
    assert result.status == "passed", [t.detail_lines() for t in result.failed]


def fake_runs(t25, monkeypatch, exits: dict):
    """run_on_build answering from a table of exit codes (no process): the grade's own logic, alone."""
    def run_on_build(path, build, device, **kwargs):
        code = exits[build]
        tests = [{"name": "a test", "status": "failed" if code else "passed", "soft_failures": [],
                  "failure": {"line": "step 2 (app_wait_for): [timeout] it said otherwise"} if code else None}]
        return t25.BuildRun(build, code, {"exit_code": code, "tests": tests}, "")
    monkeypatch.setattr(t25, "run_on_build", run_on_build)
    monkeypatch.setattr(t25, "use_build", lambda device, build: None)


def test_an_answer_that_passes_under_a_bug_is_a_failure_naming_the_bug(t25, monkeypatch):
    fake_runs(t25, monkeypatch, {"correct": 0, "total_ignores_quantity": 1, "back_drops_item": 0})
    outcome = t25.grade_answer(t25.WRONG_TEST.read_text(), device=None)
    assert not outcome.reached
    assert outcome.observed.endswith('total_ignores_quantity: caught by "a test"; '
                                     "back_drops_item: missed, every test passed")


def test_an_answer_that_fails_the_correct_build_is_a_failure_with_its_first_failure(t25, monkeypatch):
    fake_runs(t25, monkeypatch, {"correct": 1, "total_ignores_quantity": 1, "back_drops_item": 1})
    outcome = t25.grade_answer(t25.REFERENCE_TEST.read_text(), device=None)
    assert not outcome.reached
    assert outcome.observed == 'fails on the correct build: a test: step 2 (app_wait_for): [timeout] it said otherwise'


def test_the_long_test_unchanged_is_not_shorter(t25, market_device):
    outcome = grade(t25, t25.LONG_TEST.read_text(), market_device)
    assert not outcome.reached and outcome.observed.startswith("not shorter: the long test unchanged")


def test_reformatting_alone_does_not_make_it_shorter(t25, market_device):
    squeezed = json.dumps(json.loads(t25.LONG_TEST.read_text()), separators=(",", ":"))
    outcome = grade(t25, squeezed, market_device)
    assert not outcome.reached and outcome.observed.startswith("not shorter")


def test_no_answer_is_a_failure(t25, market_device):
    assert grade(t25, None, market_device).observed == "no answer: the final answer held no test file"


def reference_with(t25, change) -> str:
    data = json.loads(t25.REFERENCE_TEST.read_text())
    change(data)
    return json.dumps(data)


def test_a_malformed_answer_is_graded_a_failure_with_the_runners_message(t25, market_device):
    outcome = grade(t25, t25.REFERENCE_TEST.read_text()[:-40], market_device)
    assert not outcome.reached and outcome.observed.startswith("bad file <answer>: not JSON: ")

    def break_it(data):
        data["tests"][0]["steps"].insert(0, {"name": "app_click", "arguments": {"target": "testid=product-mug"}})
        data["tests"][1]["steps"].append({"name": "app_tap", "args": {"target": "testid=cartBtn"}})
        data["beforeEach"].append({"clear_data": "dev.mobium.morphomarket"})

    outcome = grade(t25, reference_with(t25, break_it), market_device)
    assert not outcome.reached
    for words in ("bad file: ",
                  'test 1 ("a product\'s page") step 1: names "app_click", which is not a tool',  # an unknown tool
                  'has "args"; a step has only "name", "arguments", "description" and "soft"',  # a key it lacks
                  "beforeEach step 3 (app_clear_data): uses app_clear_data, which this run does not allow"):
        assert words in outcome.observed, outcome.observed


def test_a_fenced_answer_is_read_as_its_json(t25):
    data, problem = t25.read_answer("```json\n" + t25.REFERENCE_TEST.read_text() + "\n```")
    assert problem is None and data == json.loads(t25.REFERENCE_TEST.read_text())


def test_the_controls_look_at_the_app_through_the_tools_before_answering(t25, tools, market_device):
    market_device.reset_app(t25.PACKAGE, ready_testid="productList")  # as a trial's reset leaves it
    before = tools.calls
    claim = t25.reference_t25(tools, {})
    assert tools.calls - before >= 4
    assert claim.status == "done" and json.loads(claim.answer) == json.loads(t25.REFERENCE_TEST.read_text())
    claim = t25.wrong_t25(tools, {})
    assert json.loads(claim.answer) == json.loads(t25.WRONG_TEST.read_text())


def test_the_precondition_puts_the_correct_build_back(t25, market_device):
    t25.use_build(market_device, "back_drops_item")
    t25.use_correct_build(market_device, {})
    assert market_device.getprop(t25.VARIANT_PROPERTY) == t25.CORRECT
    assert market_device.foreground_package() == t25.PACKAGE


@pytest.mark.parametrize("start", ["interpreter", "prepared server"])
def test_a_run_that_crashes_is_an_infrastructure_error_not_a_caught_bug(t25, market_device, tmp_path, monkeypatch,
                                                                        start):
    # A runner that dies with a traceback exits 1, as a failed test does; the grader must not count it as a catch,
    # whether the run was started from nothing or forked from the session's prepared server.
    crasher = tmp_path / "python-that-crashes"
    crasher.write_text("#!/bin/sh\necho 'Traceback: boom' >&2\nexit 1\n")
    crasher.chmod(0o755)
    monkeypatch.setattr(t25.sys, "executable", str(crasher))
    monkeypatch.setattr(t25, "offered_attach_command", lambda: [str(crasher)] if start == "prepared server" else None)
    path = tmp_path / "answer.test.json"
    path.write_text(t25.REFERENCE_TEST.read_text())
    with pytest.raises(t25.InfraError, match="no result.*Traceback: boom"):
        t25.run_on_build(path, "back_drops_item", market_device)
    assert market_device.getprop(t25.VARIANT_PROPERTY) == "back_drops_item"
    t25.use_build(market_device, t25.CORRECT)
