"""`mobium-evals export --inspect`: a run as an Inspect AI log, read back with inspect-ai's own reader."""

from __future__ import annotations

import json
import sys

import pytest

from pytest_mobium_evals.cli import main

TRANSCRIPT = [
    {"kind": "prompt", "text": "Sign in as mobium", "system": "You drive an Android app."},
    {"kind": "tool_call", "id": "c1", "tool": "app_tap", "arguments": {"target": "Sign in"}},
    {"kind": "tool_result", "id": "c1", "tool": "app_tap", "text": "tapped Sign in", "is_error": False},
    {"kind": "assistant", "text": "Signed in."},
    {"kind": "final", "status": "done", "answer": None, "reason": None},
]


def test_a_run_exports_as_an_inspect_log_that_inspect_reads(make_run, capsys):
    read_eval_log = pytest.importorskip("inspect_ai.log", reason="inspect-ai is the [inspect] extra").read_eval_log
    run = make_run("r1", {"t01": ["pass", "false_success"], "t02": ["pass", "pass"]})
    trial = run / "trials" / "t01-agent-claude-haiku-5-5-r1"
    trial.joinpath("transcript.jsonl").write_text("".join(json.dumps(e) + "\n" for e in TRANSCRIPT))
    assert main(["export", "--inspect", str(run), "--out", str(run / "log.eval")]) == 0
    assert "4 samples" in capsys.readouterr().err
    log = read_eval_log(str(run / "log.eval"))
    assert log.status == "success" and log.eval.model == "claude-haiku-5-5"
    assert log.metadata["facts"]["Seed"] == "7"
    by_key = {(s.id, s.epoch): s for s in log.samples}
    assert set(by_key) == {("t01-agent-claude-haiku-5-5", 2), ("t01-agent-claude-haiku-5-5", 3),
                           ("t02-agent-claude-haiku-5-5", 2), ("t02-agent-claude-haiku-5-5", 3)}
    sample = by_key[("t01-agent-claude-haiku-5-5", 2)]
    assert sample.input == "Sign in as mobium" and sample.scores["verdict"].value == 1.0
    assert sample.scores["verdict"].answer == "pass" and sample.metadata["verdict"] == "pass"
    roles = [m.role for m in sample.messages]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "assistant"]
    call = sample.messages[2].tool_calls[0]
    assert call.function == "app_tap" and call.arguments == {"target": "Sign in"}
    assert sample.messages[3].content == "tapped Sign in" and sample.messages[-1].content == "Final claim: done"
    failed = by_key[("t01-agent-claude-haiku-5-5", 3)]
    assert failed.scores["verdict"].value == 0.0 and failed.scores["verdict"].answer == "false_success"


def test_without_inspect_ai_the_command_says_how_to_install_it(make_run, capsys, monkeypatch):
    run = make_run("r1", {"t01": ["pass"]})
    monkeypatch.setitem(sys.modules, "inspect_ai", None)  # import inspect_ai now raises ImportError
    assert main(["export", "--inspect", str(run)]) == 2
    err = capsys.readouterr().err.strip()
    assert err == ("mobium-evals export: inspect-ai is not installed: pip install "
                   "'pytest-mobium-evals[inspect]'")


def test_export_needs_a_format(make_run, capsys):
    assert main(["export", str(make_run("r1", {"t01": ["pass"]}))]) == 2
    assert "--inspect" in capsys.readouterr().err
