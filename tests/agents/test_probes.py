"""The probes: where the password goes (from stored transcripts), and the leakage guard with its control."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

import pytest
from standins import solve_t01

from pytest_mobium_evals.drivers.agents import Limits, parse_models, run_agent

PROBES = Path(__file__).resolve().parents[2] / "probes"


def load_probe(name: str):
    spec = importlib.util.spec_from_file_location(f"probe_{name}", PROBES / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # dataclasses look their module up while the class is made
    spec.loader.exec_module(module)
    return module


secret_exposure = load_probe("secret_exposure")


def write_trial(run_dir: Path, name: str, events: list[dict], model="opus:medium", driver="agent",
                claim=None) -> None:
    folder = run_dir / "trials" / name
    folder.mkdir(parents=True)
    (folder / "verdict.json").write_text(json.dumps({"task": "t01", "driver": driver, "model": model,
                                                     "claim": claim or {"status": "done"}}))
    (folder / "transcript.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))


def test_secret_exposure_on_a_real_transcript(ollama_api, tool_server, tmp_path, capsys):
    """A driver's own transcript of t01: the password in the prompt and the arguments, nowhere else."""
    ollama_api.script(solve_t01())
    events: list[dict] = []
    prompt = "In MobiumApp, open the Login Demo and sign in: username mobium, password hunter2."
    run = run_agent(parse_models("ollama/qwen2.5:7b")[0], prompt, tool_server.spec, Limits(), events.append,
                    tmp_path / "work")
    write_trial(tmp_path / "run", "t01-agent-ollama-qwen2.5-7b-r0", events, model="ollama/qwen2.5:7b",
                claim=run.claim.to_json())

    assert secret_exposure.main([str(tmp_path / "run")]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("ollama/qwen2.5:7b"))
    # trials, prompt, arguments, responses, hint only, model text, final answer
    assert row.split()[1:] == ["1", "1", "1", "0", "0", "0", "0"]
    assert "No tool response carries the password" in out


def test_secret_exposure_counts_per_place_and_blocks_on_a_response(tmp_path, capsys):
    run = tmp_path / "run"
    write_trial(run, "t01-agent-opus-medium-r0", [
        {"kind": "prompt", "text": "sign in with password hunter2"},
        {"kind": "tool_call", "tool": "app_fill", "arguments": {"target": "testid=password", "text": "hunter2"}},
        {"kind": "tool_result", "tool": "app_map", "text": "@e7 Password: hunter2 (text)"},  # the app's hint
        {"kind": "assistant", "text": "I typed hunter2."},
    ], claim={"status": "done", "answer": None, "reason": "signed in with hunter2"})
    write_trial(run, "t01-agent-sonnet-r0", [
        {"kind": "tool_result", "tool": "app_fill", "text": "typed \"hunter2\" into testid=password"},
    ], model="sonnet")
    write_trial(run, "t01-reference-none-r0", [
        {"kind": "call", "name": "app_fill", "arguments": {"text": "hunter2"}},
        {"kind": "answer", "name": "app_fill", "text": "typed 7 characters into testid=password"},
    ], model="none", driver="reference")

    assert secret_exposure.main([str(run)]) == 1
    out = capsys.readouterr().out
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()
            if line.startswith(("opus", "sonnet", "reference"))}
    assert rows["opus:medium"] == ["1", "1", "1", "0", "1", "1", "1"]
    assert rows["sonnet"] == ["1", "0", "0", "1", "0", "0", "0"]
    assert rows["reference"] == ["(control)", "1", "0", "1", "0", "0", "0", "0"]
    assert "BLOCKER" in out and "t01-agent-sonnet-r0: app_fill (event 0)" in out


@pytest.mark.parametrize("make, message", [
    (lambda run: None, "no such run folder"),
    (lambda run: run.mkdir(), "no trials/*/ folders"),
    (lambda run: (run / "trials" / "t01-agent-opus-r0").mkdir(parents=True), "verdict.json: missing"),
    (lambda run: write_trial(run, "t01-agent-opus-r0", []) or
     (run / "trials" / "t01-agent-opus-r0" / "transcript.jsonl").write_text("{not json\n"), "transcript.jsonl:1"),
])
def test_secret_exposure_rejects_a_bad_run_folder_in_one_line(tmp_path, capsys, make, message):
    run = tmp_path / "run"
    make(run)
    assert secret_exposure.main([str(run)]) == 2
    err = capsys.readouterr().err
    assert message in err and len(err.strip().splitlines()) == 1


def test_context_leak_verdict_needs_a_clean_guard_and_a_leaking_control(capsys):
    leak = load_probe("context_leak")
    clean = {"name": "guard", "requests": 2, "found": {leak.RULE_MARKER: [], leak.SKILL_MARKER: []}, "tools": []}
    leaking = {"name": "control", "requests": 2,
               "found": {leak.RULE_MARKER: ["messages"], leak.SKILL_MARKER: ["messages"]}, "tools": []}
    half = {**leaking, "found": {leak.RULE_MARKER: ["messages"], leak.SKILL_MARKER: []}}
    assert leak.verdict(clean, leaking) == 0
    assert leak.verdict(leaking, leaking) == 1  # the guard leaks
    assert leak.verdict(clean, clean) == 1  # the control shows nothing: the guard's silence proves nothing
    assert leak.verdict(clean, half) == 1
    assert leak.verdict({**clean, "requests": 0}, leaking) == 1
    out = capsys.readouterr().out
    assert "FAIL: the agent's requests carry planted user context" in out
    assert "did not leak" in out


@pytest.mark.slow
def test_context_leak_probe_holds(capsys):
    leak = load_probe("context_leak")
    assert leak.main([]) == 0
    out = capsys.readouterr().out
    assert "CLAUDE.md rule  absent" in out and "CLAUDE.md rule  LEAKED" in out


def test_local_model_probe_checks_the_server_and_reads_a_trials_cache_figures(tmp_path):
    """probes/local_model.py's own parts: the up-check against llama.cpp's stand-in and a closed port, and one
    trial's figures from its transcript's model steps (the whole probe runs three real trials: see the manual)."""
    from standins import LlamaCppStandin

    local_model = load_probe("local_model")
    with LlamaCppStandin() as server:
        problem, models, said = local_model.up_check(server.base_url)
    assert problem is None and models == LlamaCppStandin.models and "health ok" in said and "65,536" in said
    problem, _, _ = local_model.up_check(server.base_url)  # closed now
    assert "does not answer" in problem
    folder = tmp_path / "trials" / "t22-agent-m-r0"
    folder.mkdir(parents=True)
    (folder / "verdict.json").write_text(json.dumps({"task": "t22", "verdict": "pass", "stop_reason": "final_answer",
                                                     "tool_calls": 1, "timings": {"total_s": 9.5}}))
    steps = [{"kind": "model", "tokens": {"input": 18000, "output": 9, "cached": 17990}, "seconds": 2.0},
             {"kind": "tool_call", "tool": "app_devices"},
             {"kind": "model", "tokens": {"input": 18100, "output": 30, "cached": 18000}, "seconds": 4.0}]
    (folder / "transcript.jsonl").write_text("".join(json.dumps(e) + "\n" for e in steps))
    figures = local_model.trial_figures(folder)
    assert (figures["first"], figures["reused"], figures["reread"], figures["read"]) == (18000, 35990, 110, 36100)
    assert (figures["turns"], figures["per_turn_s"], figures["stop"]) == (2, 3.0, "final_answer")


def _trial_folder(root: Path, record: dict, events: list[dict]) -> Path:
    folder = root / "trials" / f"{record['task']}-agent-m-r0"
    folder.mkdir(parents=True)
    (folder / "verdict.json").write_text(json.dumps(record))
    (folder / "transcript.jsonl").write_text("".join(json.dumps(e) + "\n" for e in events))
    return folder


def test_local_model_probe_counts_a_text_that_says_cannot_before_a_final_answer_of_done(tmp_path):
    """The first real-model run's t01: the model wrote `status "cannot"` as text, and the forced final answer said
    "done". The probe counts that from the transcript where the record keeps only the JSON's claim, from the
    record's stated_status where it keeps the text's claim too; a text that agrees, or states nothing, is no
    contradiction."""
    local_model = load_probe("local_model")
    said_cannot = [{"kind": "model", "tokens": {"input": 2665, "output": 40, "cached": 0}, "seconds": 30.0},
                   {"kind": "assistant", "text": 'status "cannot"\nanswer: null\nreason: no access to the app'},
                   {"kind": "model", "tokens": {"input": 2720, "output": 30, "cached": 2700}, "seconds": 5.0},
                   {"kind": "assistant", "structured_output": '{"status": "done", "answer": null, "reason": "x"}'}]
    older = _trial_folder(tmp_path / "a", {"task": "t01", "claim": {"status": "done"}}, said_cannot)
    found = local_model.contradiction(older)
    assert (found["text_status"], found["final_status"], found["from"]) == ("cannot", "done", "transcript")
    newer = _trial_folder(tmp_path / "b", {"task": "t01", "claim": {"status": "done"}, "stated_status": "cannot",
                                           "stop_text": "I cannot complete the task."}, said_cannot)
    assert local_model.contradiction(newer)["from"] == "record"
    agrees = _trial_folder(tmp_path / "c", {"task": "t21", "claim": {"status": "done"}},
                           [dict(said_cannot[1], text='{"status": "done", "answer": null}'), *said_cannot[2:]])
    silent = _trial_folder(tmp_path / "d", {"task": "t22", "claim": {"status": "done"}},
                           [dict(said_cannot[1], text="The version is 14."), *said_cannot[2:]])
    assert local_model.contradiction(agrees) is None and local_model.contradiction(silent) is None
    steps = local_model.turns(older)
    assert [(s["input"], s["cached"], s["reread"]) for s in steps] == [(2665, 0, 2665), (2720, 2700, 20)]
    assert steps[0]["did"][0].startswith('text "status \\"cannot\\"') and steps[1]["did"][0].startswith("final ")


def test_claude_cli_cpu_compares_what_the_model_reads():
    """Two first requests differ only where the model reads a difference: the trial's scratch folder and the date
    are read alike, the metadata's ids aside; a changed system prompt, tool or message is named."""
    cpu = load_probe("claude_cli_cpu")

    def request(cwd: str, date: str, system="You operate an Android phone", tools=("mcp__mobium__app_map",)):
        return {"system": [{"type": "text", "text": system}], "tools": [{"name": name} for name in tools],
                "metadata": {"user_id": cwd},
                "messages": [{"role": "user", "content": "sign in"}, {"role": "system", "content": [
                    {"type": "text", "text": f"Primary working directory: {cwd}\nToday's date is {date}."}]}]}

    base = request("/tmp/run/work/claude-ab12cd_3/cwd", "2026-12-06")
    assert cpu.differences(base, request("/var/x/claude-zz9/cwd", "2026-12-07")) == []
    assert cpu.differences(base, request("/tmp/run/work/claude-ab12cd_3/cwd", "2026-12-06",
                                         system="You are a Claude agent")) == ["system"]
    assert cpu.differences(base, request("/var/x/claude-zz9/cwd", "2026-12-06", tools=())) == ["tools"]
    assert cpu.differences(base, {**base, "messages": base["messages"][:1]}) == ["messages"]


@pytest.mark.slow
def test_claude_cli_cpu_reads_the_cli_and_tells_a_flag_that_changes_the_request(capsys):
    """The real CLI through the probe's launcher: its CPU read at its exit, and --bare (which drops the environment
    message and the MCP server's instructions) reported as changing what the model reads, where a variable that
    changes nothing the model is sent is reported as the same."""
    cpu = load_probe("claude_cli_cpu")
    assert cpu.main(["--trials", "1", "--answer-at-once", "--with-flag=--bare",
                     "--with", "CLAUDE_CODE_DISABLE_TERMINAL_TITLE=1"]) == 1
    assert "DIFFERS in messages, tools" in capsys.readouterr().out
    assert cpu.main(["--trials", "1", "--answer-at-once", "--with", "CLAUDE_CODE_DISABLE_TERMINAL_TITLE=1"]) == 0
    out = capsys.readouterr().out
    row = next(line for line in out.splitlines() if line.startswith("+ CLAUDE_CODE_DISABLE_TERMINAL_TITLE=1"))
    assert row.endswith("the same")
    baseline = next(line for line in out.splitlines() if line.startswith("the harness's options"))
    trials, requests, seconds = baseline.split()[3:6]
    assert (trials, requests) == ("1", "1") and 0.05 < float(seconds) < 30


@pytest.mark.parametrize("args, message", [
    (["--with", "NOVALUE"], "--with NOVALUE: expected NAME=VALUE"),
    (["--turn-seconds", "soon"], "--turn-seconds soon: expected seconds, or LOW-HIGH"),
    (["--turn-seconds", "4-2"], "--turn-seconds 4-2: expected 0 <= LOW <= HIGH"),
    (["--trials", "0"], "--trials must be at least 1")])
def test_claude_cli_cpu_rejects_bad_input_in_one_line(args, message, capsys):
    assert load_probe("claude_cli_cpu").main(args) == 2
    assert capsys.readouterr().err == f"claude_cli_cpu: {message}\n"
