"""t25 refactor-test: shorten a Morpho Market test without changing what it checks.

The agent is handed a long Mobium test of Morpho Market (`t25/market.test.json`, 97 steps in the long form) and
returns, as its final answer, a shorter test file: the JSON text. The answer is graded by running it, each run in
its own process with a time limit and its own fresh tool server (`mobium-evals test`, forked from the session's
prepared tool server where there is one), against three builds of the app: the correct build (the answer must
pass) and two builds with a planted bug that the long test catches (the answer must fail on each). A test that
passes under a bug no longer checks what the long test checked.

"Shorter" is measured, not judged: the answer's compact JSON (`json.dumps` with no whitespace between tokens, so
reformatting alone does not count) must be at most 75% of the long test's. Returning the long test unchanged passes
on the correct build and fails on both bugs, so without this rule it would pass; with it, it is "not shorter".

The build is chosen over ADB before each run, with the system property `debug.morphomarket.variant` (empty or
`correct`, `total_ignores_quantity`, `back_drops_item`), which Morpho Market reads at each cold start; the runner
starts every test from a fresh app, so every test of a run meets the same build. The property is put back to
`correct` after grading, and the precondition puts it back if an interrupted grade left a bug build behind.

A malformed answer (not JSON, an unknown tool, a key the format does not have, a tool the grader does not run) is a
failed outcome carrying the runner's own message, never an error of the harness. A device or tool server that fails
during a run is an infrastructure error.

Controls: reference answers `t25/reference.test.json` (shorthand, the shared first steps in beforeEach, no
descriptions; catches both bugs) and passes. Wrong answers `t25/wrong.test.json`, the plausible fold that keeps one
of the three checks after going back (the mug is still in the cart) and so passes on the `back_drops_item` build:
false_success. Null claims done with no answer at all: there is no test to run, false_success. Both scripted
controls look at the app through the MCP tools before answering, as an agent would.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Optional

import pytest

from pytest_mobium_evals.commands.testfile import decode
from pytest_mobium_evals.core.errors import InfraError
from pytest_mobium_evals.core.tasks import Claim, Controls, NearMiss, Outcome, task
from pytest_mobium_evals.reach.device import Device
from pytest_mobium_evals.reach.toolserver import offered_attach_command

HERE = Path(__file__).resolve().parent  # the long test, the reference answer and the wrong fold sit beside it
LONG_TEST = HERE / "market.test.json"
REFERENCE_TEST = HERE / "reference.test.json"
WRONG_TEST = HERE / "wrong.test.json"

# Morpho Market's package and how a build is chosen: the app's own contract (sim/apps/market.py), repeated here
# because the harness reaches the device only over ADB and never imports the virtual apps.
PACKAGE = "dev.mobium.morphomarket"
VARIANT_PROPERTY = "debug.morphomarket.variant"
CORRECT = "correct"
BUGS = ("total_ignores_quantity", "back_drops_item")

MAX_SHARE = 0.75  # the answer's compact JSON, as a share of the long test's
# One run of the answer on one build, process start to exit. At an emulator's pace (a read takes a second) the
# long test's run on the correct build takes over two minutes.
RUN_TIMEOUT_S = 600.0
TEST_TIMEOUT_S = 60.0  # one test inside a run
# How long an assertion that names no timeout_ms waits. Nothing in Morpho Market takes longer than its 1.5 s
# checkout, so 4 s is ample, and a run on a bug build (where an assertion must time out) takes seconds, not tens.
ASSERTION_TIMEOUT_MS = 4000

# The tools an answer's steps may use: everything that acts inside the app or reads the screen. The answer runs on
# the device the next trials use, so tools that reach outside the app (uninstall, clear data, permissions, the
# device's appearance, sessions) are refused as a bad file before anything runs.
TEST_TOOLS = (
    "app_alert", "app_check", "app_current", "app_fill", "app_find", "app_keyboard", "app_launch", "app_long_press",
    "app_map", "app_press", "app_scroll_to", "app_source", "app_state", "app_swipe", "app_tap", "app_terminate",
    "app_text", "app_type", "app_wait_for",
)


def compact(data: Any) -> str:
    return json.dumps(data, separators=(",", ":"), ensure_ascii=False)


def long_test_text() -> str:
    return LONG_TEST.read_text(encoding="utf-8")


def length_limit() -> int:
    return int(len(compact(json.loads(long_test_text()))) * MAX_SHARE)


def _prompt() -> str:
    # The template is filled with str.format (tasks have no parameters here): the JSON's braces are doubled.
    body = f"""Morpho Market ({PACKAGE}), a small shop app, is open on the device. Below is a test file for it in \
the format of Mobium's test runner (`mobium test`). It is long: every step is written out in the long form, and the \
same steps repeat from test to test.

Write a shorter test file that checks the same things. It is graded by running it with the same runner: it must \
pass on the app as it is, and it must fail on each of two builds of the app that have a bug the long test catches. \
It must also be shorter: at most {int(MAX_SHARE * 100)}% of the long test's length ({length_limit()} characters \
or fewer), counted as the characters of its compact JSON (whitespace between tokens is not counted).

The format: {{"description"?, "app", "beforeEach"?: [steps], "tests": [{{"name", "steps": [steps]}}]}}. Every test \
starts from a freshly launched app, then beforeEach runs, then its steps. A step is {{"name": "app_tap", \
"arguments": {{...}}}} (a tool and its arguments), or the shorthand: one key, the tool's name without "app_", whose \
value is the tool's main argument as a string ({{"tap": "testid=cartBtn"}}; a string goes to target when the tool \
has one) or an object of its arguments ({{"wait_for": {{"target": "testid=cartTotal", "condition": "text", \
"text": "Total: $0.00", "exact": true}}}}). An assertion is an app_wait_for step or {{"expect": {{"tool": <a tool \
that only reads>, "arguments": {{...}}, "field": <a field of its answer>, "equals": <value>}}}}. "description" may \
sit beside any step, and "soft": true beside an assertion. An unknown tool, argument or key makes the whole file a \
bad file, and so does a tool outside this list: {", ".join(TEST_TOOLS)}.

You may use the tools to look at the app. Your final answer is the test file itself: the JSON text alone.

The long test:

{long_test_text()}"""
    return body.replace("{", "{{").replace("}", "}}")


# ---- grading ----------------------------------------------------------------------------------------------------

class RunTimedOut(Exception):
    def __init__(self, build: str):
        super().__init__(build)
        self.build = build


@dataclass(frozen=True)
class BuildRun:
    build: str
    exit_code: int
    result: dict  # testfile's TestFileResult.to_json(), or {} when the run wrote none
    output: str

    @property
    def problems(self) -> list[str]:
        return list(self.result.get("problems") or [])

    @property
    def failed_tests(self) -> list[dict]:
        return [t for t in self.result.get("tests") or [] if t.get("status") != "passed"]

    def first_failure(self) -> str:
        for t in self.failed_tests:
            lines = [f["line"] for f in t.get("soft_failures") or []]
            if t.get("failure"):
                lines.append(t["failure"]["line"])
            if lines:
                return f"{t['name']}: {lines[0]}"
        return ""

    def caught_by(self) -> str:
        names = [t["name"] for t in self.failed_tests]
        return ", ".join(f'"{n}"' for n in names) or "no test"


def read_answer(answer: Optional[str]) -> tuple[Any, Optional[str]]:
    """The answer's test file, or a one-line reason it has none. A single Markdown code fence around the JSON is
    taken off: the prompt asks for the JSON alone, but the fence is a wrapper, not a different answer."""
    if answer is None or not answer.strip():
        return None, "no answer: the final answer held no test file"
    text = answer.strip()
    if text.startswith("```"):
        first_newline = text.find("\n")
        if text.endswith("```") and first_newline > 0:
            text = text[first_newline + 1:-3].strip()
    data, problem = decode(text)
    if problem:
        return None, f"bad file <answer>: {problem}"
    return data, None


def grade_answer(answer: Optional[str], device: Device, *, timeout_s: float = RUN_TIMEOUT_S,
                 mobium: Optional[str] = None, assertion_timeout_ms: int = ASSERTION_TIMEOUT_MS) -> Outcome:
    """Runs the answer on the correct build and on each bug build; reached when it passes the first and fails each
    of the others, and is short enough. `observed` says what each run came to."""
    data, problem = read_answer(answer)
    if problem:
        return Outcome(False, observed=problem)
    size, limit = len(compact(data)), length_limit()
    if size > limit:
        original = len(compact(json.loads(long_test_text())))
        what = "the long test unchanged" if data == json.loads(long_test_text()) else f"{size} characters"
        return Outcome(False, observed=f"not shorter: {what} against the long test's {original}; an answer must "
                                       f"be {limit} characters of compact JSON or fewer")
    with tempfile.TemporaryDirectory(prefix="t25-") as folder:
        path = Path(folder) / "answer.test.json"
        path.write_text(json.dumps(data, indent=1, ensure_ascii=False), encoding="utf-8")
        runs: list[BuildRun] = []
        try:
            for build in (CORRECT, *BUGS):
                run = run_on_build(path, build, device, timeout_s=timeout_s, mobium=mobium,
                                   assertion_timeout_ms=assertion_timeout_ms)
                runs.append(run)
                if run.problems:
                    shown = "; ".join(run.problems[:3]) + (f" (and {len(run.problems) - 3} more)"
                                                            if len(run.problems) > 3 else "")
                    return Outcome(False, observed=f"bad file: {shown}")
                if build == CORRECT and run.exit_code != 0:
                    return Outcome(False, observed=f"fails on the correct build: {run.first_failure()}")
        except RunTimedOut as exc:
            return Outcome(False, observed=f"the run on the {exc.build} build took longer than {timeout_s:g}s "
                                           "and was stopped")
        finally:
            use_build(device, CORRECT)
    missed = [r.build for r in runs[1:] if r.exit_code == 0]
    parts = [f"passes on the correct build ({len(runs[0].result.get('tests') or [])} tests)"]
    for r in runs[1:]:
        parts.append(f"{r.build}: missed, every test passed" if r.exit_code == 0 else
                     f"{r.build}: caught by {r.caught_by()}")
    return Outcome(not missed, observed=f"{size} of {limit} characters; " + "; ".join(parts))


def run_on_build(path: Path, build: str, device: Device, *, timeout_s: float = RUN_TIMEOUT_S,
                 mobium: Optional[str] = None, assertion_timeout_ms: int = ASSERTION_TIMEOUT_MS) -> BuildRun:
    """One run of a test file on one build, in a process of its own with its own tool server. Exit 0 or 1 is a
    result; 2 is a bad file; anything else (the device or the tool server failed) is an infrastructure error."""
    use_build(device, build)
    out = path.with_suffix(f".{build}.json")
    # Forked from the session's prepared tool server where it offers one (its MCP SDK imported already), else
    # started from nothing: a process of its own either way, whose own tool servers are fresh.
    start = offered_attach_command() or [sys.executable, "-m", "pytest_mobium_evals.commands.cli"]
    command = [*start, "test", str(path), "--device", device.serial,
               "--adb", f"{device.adb_host}:{device.adb_port}", "--timeout", f"{TEST_TIMEOUT_S:g}",
               "--allow-tools", ",".join(TEST_TOOLS), "--json", str(out),
               # One failed test settles a run either way: the answer fails the correct build, or catches the bug.
               "--max-failures", "1", "--assertion-timeout", str(assertion_timeout_ms)]
    if mobium:
        command += ["--mobium", mobium]
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s,
                              env={**os.environ, "PYTHONUNBUFFERED": "1"})
    except subprocess.TimeoutExpired:
        raise RunTimedOut(build) from None
    output = (proc.stdout or "") + (proc.stderr or "")
    result = json.loads(out.read_text(encoding="utf-8")) if out.exists() else {}
    # Only the runner's own result counts: a run that crashed (Python exits 1 on a traceback) or refused its options
    # (exit 2 from argparse) must not read as a test that caught a bug or as a bad answer.
    if proc.returncode not in (0, 1, 2) or result.get("exit_code") != proc.returncode:
        raise InfraError(f"t25: the run on the {build} build could not go on (exit {proc.returncode}, "
                         f"{'result ' + str(result.get('status')) if result else 'no result'}): "
                         f"{output.strip()[-600:]}")
    return BuildRun(build, proc.returncode, result, output)


def use_build(device: Device, build: str) -> None:
    device.shell(f"setprop {VARIANT_PROPERTY} {build}")


def use_correct_build(device: Device, params: dict) -> None:
    """The precondition: a grade that was interrupted may have left a bug build chosen; the app the reset launched
    would then be that build. Put the correct one back and start the app again."""
    if device.getprop(VARIANT_PROPERTY) in ("", CORRECT):
        return
    use_build(device, CORRECT)
    device.stop(PACKAGE)
    device.launch(PACKAGE)
    device.wait_for("productList", timeout=20.0, scroll=False)


# ---- the scripted controls --------------------------------------------------------------------------------------

def _look_at_the_app(tools) -> None:
    """What a careful agent does first: map the list, open a product, read its price, come back."""
    tools.call("app_map")
    tools.call("app_tap", target="testid=product-mug")
    tools.call("app_wait_for", target="testid=productPrice", condition="text", text="$12.50", exact=True)
    tools.call("app_tap", target="testid=backBtn")
    tools.call("app_wait_for", target="testid=productList")


def reference_t25(tools, params: dict) -> Claim:
    _look_at_the_app(tools)
    return Claim("done", answer=REFERENCE_TEST.read_text(encoding="utf-8"),
                 reason="the same checks in the shorthand, with the shared first steps in beforeEach")


def wrong_t25(tools, params: dict) -> Claim:
    _look_at_the_app(tools)
    return Claim("done", answer=WRONG_TEST.read_text(encoding="utf-8"),
                 reason="folded the checks after going back into one")


def near_t25_reformatted(tools, params: dict) -> Claim:
    """Takes "shorter" for fewer characters on the page: the long test minified, one line with no whitespace, which
    checks everything it did and is as long as ever by the rule's count."""
    _look_at_the_app(tools)
    return Claim("done", answer=compact(json.loads(long_test_text())),
                 reason="the same test without its whitespace: far fewer characters")


@pytest.fixture
def claim():
    """The driver's claim, filled in by the plugin when the outcome is read (trial._read_outcome)."""
    return None


@task(id="t25", slug="refactor-test", suite="mobiumapp", prompt=_prompt(), precondition=use_correct_build,
      reference=reference_t25, wrong=wrong_t25, app=PACKAGE, ready_testid="productList", grade_runs_answer=True,
      near_misses=(NearMiss("reformatted", script=near_t25_reformatted, verdict="false_success",
                            why="minified, the long test is the same JSON: its compact length is the long test's, "
                                "so it is not shorter, though it reads as a fraction of the text"),),
      controls=Controls(null="false_success", wrong="false_success", reasons={
          "null": "claims done with no answer: there is no test file to run, so nothing is shown shorter or to "
                  "catch the bugs",
          "wrong": "its fold keeps one of the three checks after going back, so it passes on the back_drops_item "
                   "build"}))
def test_t25_refactor_test(device, params, claim) -> Outcome:
    return grade_answer(claim.answer if claim is not None else None, device)
