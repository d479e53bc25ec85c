"""`mobium-evals export --inspect`: a run as an Inspect AI log, read back with inspect-ai's own reader."""

from __future__ import annotations

import json
import sys

import pytest

from pytest_mobium_evals.commands.cli import main

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


def t(seconds: float) -> str:
    """An agent recorder's timestamp, `seconds` after 10:00:00 on the run's day."""
    return f"2026-11-29T10:00:{seconds:06.3f}+00:00"


AGENT_TRANSCRIPT = [
    {"kind": "prompt", "text": "Turn Wi-Fi off and say its name", "system": "You drive an Android app."},
    # the first reply: it thought, then asked for two calls at once (run one after the other by the loop)
    {"kind": "model", "tokens": {"input": 100, "output": 20}, "seconds": 1.5, "ts": t(2.5)},
    {"kind": "assistant", "thinking": "Open the settings first.", "ts": t(2.5)},
    {"kind": "tool_call", "id": "a", "tool": "app_launch", "arguments": {"app": "settings"}, "ts": t(2.5)},
    {"kind": "tool_result", "id": "a", "tool": "app_launch", "text": "launched", "is_error": False, "ts": t(3.0)},
    {"kind": "tool_call", "id": "b", "tool": "app_tap", "arguments": {"target": "Wi-Fi"}, "ts": t(3.0)},
    {"kind": "tool_result", "id": "b", "tool": "app_tap", "text": "no such element", "is_error": True, "ts": t(3.25)},
    # the second reply: one call
    {"kind": "model", "tokens": {"input": 150, "output": 10}, "seconds": 0.75, "ts": t(4.0)},
    {"kind": "tool_call", "id": "c", "tool": "app_tap", "arguments": {"target": "label=Wi-Fi"}, "ts": t(4.0)},
    {"kind": "tool_result", "id": "c", "tool": "app_tap", "text": "tapped", "is_error": False, "ts": t(4.5)},
    {"kind": "model", "tokens": {"input": 170, "output": 15}, "seconds": 1.0, "ts": t(5.5)},
    {"kind": "assistant", "text": "Wi-Fi is off.", "ts": t(5.5)},
    {"kind": "final", "status": "done", "answer": "HomeNet", "reason": None, "ts": t(5.6)},
]

# The harness's client, as a control's transcript has it: each call answered before the next is made.
SCRIPT_TRANSCRIPT = [
    {"kind": "prompt", "driver": "reference", "text": "Sign in"},
    {"kind": "call", "name": "app_tap", "arguments": {"target": "A"}, "t": 1796119201.0},
    {"kind": "answer", "name": "app_tap", "text": "tapped A", "is_error": False, "t": 1796119201.25},
    {"kind": "call", "name": "app_tap", "arguments": {"target": "B"}, "t": 1796119201.5},
    {"kind": "answer", "name": "app_tap", "text": "tapped B", "is_error": False, "t": 1796119202.0},
    {"kind": "final", "status": "done", "answer": None, "reason": None},
]


def write_transcript(trial, events) -> None:
    trial.joinpath("transcript.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))


def export(run, **read):
    inspect_log = pytest.importorskip("inspect_ai.log", reason="inspect-ai is the [inspect] extra")
    assert main(["export", "--inspect", str(run), "--out", str(run / "log.eval")]) == 0
    return inspect_log.read_eval_log(str(run / "log.eval"), **read)


def test_each_step_is_a_model_event_and_a_tool_event_in_order_with_times_and_tokens(make_run):
    run = make_run("r1", {"t01": ["pass"]})
    trial = run / "trials" / "t01-agent-claude-haiku-5-5-r1"
    write_transcript(trial, AGENT_TRANSCRIPT)
    record = json.loads((trial / "verdict.json").read_text())
    record["started_at"] = "2026-11-29T10:00:00.000+00:00"
    record["timings"]["reset_s"], record["timings"]["total_s"] = 1.0, 6.0
    (trial / "verdict.json").write_text(json.dumps(record))
    sample = export(run).samples[0]
    kinds = [(e.event, getattr(e, "function", None)) for e in sample.events]
    assert kinds == [("model", None), ("tool", "app_launch"), ("tool", "app_tap"), ("model", None),
                     ("tool", "app_tap"), ("model", None), ("score", None)]
    first, launch, tap = sample.events[:3]
    # the two calls one reply made are one assistant turn, answered in turn
    assert [c.function for c in first.output.message.tool_calls] == ["app_launch", "app_tap"]
    assert first.output.usage.input_tokens == 100 and first.output.usage.output_tokens == 20
    assert first.model == "claude-haiku-5-5" and first.working_time == 1.5 and first.working_start == 1.0
    assert first.output.message.content[0].reasoning == "Open the settings first."
    assert launch.result == "launched" and launch.working_time == 0.5 and launch.working_start == 2.5
    assert tap.error is not None and tap.error.message == "no such element" and tap.working_time == 0.25
    times = [e.timestamp for e in sample.events]
    assert times == sorted(times)
    # the second model event was given everything so far: prompt, first reply, both answers
    assert [m.role for m in sample.events[3].input] == ["system", "user", "assistant", "tool", "tool"]
    assert sample.events[5].output.message.text == "Wi-Fi is off."
    # the sample's own times: the viewer shows real durations
    assert sample.started_at.startswith("2026-11-29T10:00:00") and sample.completed_at.startswith("2026-11-29T10:00:06")
    assert sample.total_time == 6.0 and sample.working_time == pytest.approx(1.5 + 0.5 + 0.25 + 0.75 + 0.5 + 1.0)
    assert sample.model_usage["claude-haiku-5-5"].input_tokens == 1000  # the record's total


def test_calls_made_one_after_the_other_are_turns_of_their_own(make_run):
    run = make_run("r1", {"t01": ["pass"]}, driver="reference")
    write_transcript(run / "trials" / "t01-reference-none-r1", SCRIPT_TRANSCRIPT)
    sample = export(run).samples[0]
    assert [e.event for e in sample.events] == ["model", "tool", "model", "tool", "score"]
    assert [m.role for m in sample.messages] == ["user", "assistant", "tool", "assistant", "tool", "assistant"]
    assert all(len(m.tool_calls) == 1 for m in sample.messages if m.role == "assistant" and m.tool_calls)
    # a script is not a model: named as the script, no tokens
    model = sample.events[2]
    assert model.model == "mobium-evals/reference" and model.output.usage.total_tokens == 0
    assert model.working_time == 0.25 and sample.events[3].working_time == 0.5


def test_metrics_are_per_setting_and_the_dataset_ids_are_the_samples(make_run):
    from runbuilder import verdict_json

    controls = [verdict_json(task, verdict, driver=driver)
                for task in ("t01", "t02")
                for driver, verdict in (("reference", "pass"), ("null", "false_success"), ("wrong", "pass"))]
    run = make_run("r1", {"t01": ["pass", "pass"], "t02": ["false_success", "pass"]}, extra=tuple(controls))
    log = export(run)
    metrics = {name: m.value for name, m in log.results.scores[0].metrics.items()}
    assert metrics == {"claude-haiku-5-5, low effort: pass rate": 0.75, "reference (control): as declared": 1.0,
                       "null (control): as declared": 1.0, "wrong (control): as declared": 0.0}
    ids = {s.id for s in log.samples}
    assert set(log.eval.dataset.sample_ids) == ids and log.eval.dataset.samples == len(ids) == 8  # 2 tasks x 4
    assert {s.id for s in log.samples if s.epoch == 3} == {"t01-agent-claude-haiku-5-5", "t02-agent-claude-haiku-5-5"}
    assert log.stats.started_at.startswith("2026-11-29T10:00:00")


def test_the_final_screen_is_an_attachment(make_run):
    import io

    from PIL import Image

    run = make_run("r1", {"t01": ["pass"]})
    trial = run / "trials" / "t01-agent-claude-haiku-5-5-r1"
    buf = io.BytesIO()
    Image.new("RGB", (108, 240), (10, 200, 30)).save(buf, "PNG")
    (trial / "screen.png").write_bytes(buf.getvalue())
    sample = export(run, resolve_attachments=False).samples[0]
    image = sample.messages[-1].content[1]
    assert image.type == "image" and image.image.startswith("attachment://")
    assert sample.attachments[image.image.removeprefix("attachment://")].startswith("data:image/png;base64,")
