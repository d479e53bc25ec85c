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

The modules: `format` (the format's keys and the tool schemas), `parsing` (checking a file against them), `running`
(one call at a time over the tools), `results` (what a run found), `command` (`mobium-evals test`).
"""

from .command import add_arguments, run
from .format import EXIT_BAD_FILE, EXIT_FAILED, EXIT_NO_DEVICE, EXIT_PASSED, ToolSchema, schemas_from
from .parsing import TestCase, TestFile, check_file, parse_file
from .results import StepFailure, TestFileResult, TestOutcome
from .running import decode, run_file, same_value

__all__ = ["EXIT_BAD_FILE", "EXIT_FAILED", "EXIT_NO_DEVICE", "EXIT_PASSED", "StepFailure", "TestCase", "TestFile",
           "TestFileResult", "TestOutcome", "ToolSchema", "add_arguments", "check_file", "decode", "parse_file",
           "run", "run_file", "same_value", "schemas_from"]
