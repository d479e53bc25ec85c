"""The local path against a real server's own answers (issue 42): Qwen2.5-Coder-1.5B-Instruct (Q4_K_M) on
llama-server, built and served by probes/serve_local_model.py, ran MobiumApp tasks through probes/local_model.py
--record, which kept every request and every answer in tests/agents/recorded/. Here those answers are replayed
(standins.RecordedLlamaServer) to the same harness: it must send the requests it sent to the real server, and every
trial must come out as the real run's did (evidence/local-model/), without the model.

A change to what the harness asks (the system prompt, a tool's schema, the final-answer request, a tool result's
text) fails here as "not as recorded": record the runs again (evidence/local-model/README.md says how) rather than
edit a recording."""

from __future__ import annotations

import importlib.util
import json
import re
import sys
from pathlib import Path

import pytest
from standins import LlamaCppStandin, RecordedLlamaServer

ROOT = Path(__file__).resolve().parents[2]
RECORDED = Path(__file__).resolve().parent / "recorded"
EVIDENCE = ROOT / "evidence" / "local-model"
SMALL_TOOLS = "--tools=app_launch,app_map,app_tap,app_fill,app_text,app_scroll_to,app_press,app_devices"
VARIANT = [SMALL_TOOLS, "--max-tool-calls=20", "--surface=small-model-prompt"]
#: Each recorded run: the probe's arguments that made it (evidence/local-model/README.md has the commands), with the
#: tasks whose every request the real server answered. A trial that reached its time limit before the model's
#: first answer has none recorded (the recording proxy's 502 stands in its place): it is not replayed.
RUNS = {
    "small-default": ("t01,t21,t22,t02,t04,t07,t14,t37", [SMALL_TOOLS, "--max-tool-calls=20"]),
    "small-model-prompt": ("t02,t04", VARIANT),  # its t01 reached the time limit; stopped during t07
    "small-model-prompt-b": ("t22,t37", VARIANT),  # its t21 reached the time limit
    "small-model-prompt-c": ("t01,t21", VARIANT),  # t01 and t21 again, the prompt already in the server's cache
    # the call's syntax shown in the prompt; recorded with the reply's bound
    "small-model-tool-call": ("t01,t21", [SMALL_TOOLS, "--max-tool-calls=20", "--surface=small-model-tool-call",
                                          "--max-output-tokens=512"]),
    # the default prompt, its first request with tool_choice "required" (which this server did not hold it to)
    "small-default-required": ("t01,t21", [SMALL_TOOLS, "--max-tool-calls=20", "--require-first-call",
                                           "--max-output-tokens=256"]),
}
#: Verdicts the grading rules have changed since the run was recorded, each with why. The replay must give the
#: current rules' verdict; the run's own stays in its evidence.
REGRADED = {
    # Issue 41: the model's text said 'status "cannot"', its final answer "done" with the right answer. Two claims
    # that disagree are graded on the one the device contradicts: the goal holds, so "cannot" is the false one.
    ("small-default", "t04"): "false_refusal",
}
RECORDINGS = [name for name in RUNS if (RECORDED / f"llama-server-{name}.jsonl").is_file()]


def load_probe():
    spec = importlib.util.spec_from_file_location("probe_local_model", ROOT / "probes" / "local_model.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


def test_every_kept_run_has_its_recording():
    kept = sorted(p.name for p in EVIDENCE.iterdir() if (p / "record.json").is_file())
    assert kept and kept == sorted(RECORDINGS)


@pytest.mark.parametrize("name", RECORDINGS)
def test_a_recorded_real_run_replays_to_the_verdicts_it_got(name, tmp_path, capsys):
    probe = load_probe()
    tasks, options = RUNS[name]
    status = probe.main(["--replay", str(RECORDED / f"llama-server-{name}.jsonl"), "--seed", "1",
                         "--run-dir", str(tmp_path / "run"), "--tasks", tasks, "--trial-timeout", "1200", "--",
                         *options])
    out = capsys.readouterr().out
    assert status == 0, out
    assert "not as recorded" not in out, out  # the harness asked what it asked the real server
    kept = {json.loads(p.read_text())["task"]: json.loads(p.read_text())
            for p in (EVIDENCE / name / "trials").glob("*/verdict.json")}
    replayed = {json.loads(p.read_text())["task"]: json.loads(p.read_text())
                for p in (tmp_path / "run" / "trials").glob("*/verdict.json")}
    assert sorted(replayed) == sorted(tasks.split(","))
    for task, again in replayed.items():
        record = kept[task]
        assert again["verdict"] == REGRADED.get((name, task), record["verdict"]), task
        for key in ("stop_reason", "tool_calls", "claim", "tokens_in", "tokens_out", "surface"):
            assert again.get(key) == record.get(key), (task, key)
    # The probe's figures (per trial and per turn) are the real run's, but for the seconds; its sums too when the
    # replay is the whole run.
    real = [regraded(name, line) for line in figures((EVIDENCE / f"{name}.out").read_text())]
    whole = len(replayed) == len(kept)
    for line in figures(out):
        if whole or line.split(" ", 1)[0] in replayed:
            assert line in real, line


def regraded(run: str, line: str) -> str:
    """A trial table's line of the real run with the verdict the current rules give it (REGRADED)."""
    task, _, rest = line.partition(" ")
    if (run, task) in REGRADED and rest and not rest.split(" ")[0].isdigit():  # a turn's line starts with its number
        rest = " ".join([REGRADED[run, task], *rest.split(" ")[1:]])
    return f"{task} {rest}" if rest else line


def figures(output: str) -> list[str]:
    """The probe's lines that a replay must print as the real run did: the trial table without its two time columns,
    each turn without its seconds, the prompt cache's sum and the self-contradictions."""
    lines, part = [], None
    for line in output.splitlines():
        words = line.split()
        if not words:
            # a blank line ends the trial table; in the turns (an older probe printed one for a trial with none)
            # the contradictions' line ends them
            part = None if part == "trials" else part
        elif words[:2] == ["task", "verdict"]:
            part = "trials"
        elif line.startswith("per turn"):
            part = "turns"
        elif words[:2] == ["task", "turn"]:
            continue
        elif line.startswith(("prompt cache:", "self-contradictions:")) or ": text says " in line:
            # where the probe read the text (an older record kept it only in the transcript) is no figure
            lines.append(re.sub(r" \(from the (?:record|transcript)\)", "", line))
            part = None
        elif part == "trials":
            lines.append(" ".join(words[:-2]))
        elif part == "turns":
            cells = line.split(None, 8)
            lines.append(" ".join(cells[:7] + cells[8:]))
    return lines


def test_the_stand_in_answers_in_the_shapes_the_real_server_answered():
    """LlamaCppStandin (the scripted llama-server the other local-path tests use) gives a chat completion, /props
    and /v1/models with every field the harness reads where the real server had it, recorded."""
    exchanges = [e for name in RECORDINGS
                 for e in RecordedLlamaServer(RECORDED / f"llama-server-{name}.jsonl").exchanges]
    if not exchanges:
        pytest.skip("no recording")
    chats = [e["response"] for e in exchanges if e["path"] == RecordedLlamaServer.CHAT and e["status"] == 200]
    import urllib.request

    def ask(standin, path, body=None):
        request = urllib.request.Request(standin.url + path, method="GET" if body is None else "POST",
                                         data=None if body is None else json.dumps(body).encode(),
                                         headers={"content-type": "application/json"})
        with urllib.request.urlopen(request) as answer:
            return json.loads(answer.read())

    from standins import Text

    with LlamaCppStandin([Text("hello")]) as standin:
        chat = ask(standin, "/v1/chat/completions", {"model": "m", "messages": [{"role": "user", "content": "x"}]})
        props = ask(standin, "/props")
        models = ask(standin, "/v1/models")
    real = chats[0]
    assert set(real) <= set(chat) and set(real["usage"]) <= set(chat["usage"])
    assert set(real["timings"]) <= set(chat["timings"])
    assert set(real["choices"][0]) == set(chat["choices"][0])
    real_props = next(e["response"] for e in exchanges if e["path"] == "/props")
    assert set(real_props["default_generation_settings"]) <= set(props["default_generation_settings"])
    real_models = next(e["response"] for e in exchanges if e["path"] == "/v1/models")
    assert set(real_models) <= set(models) and set(real_models["data"][0]) <= set(models["data"][0])


def test_a_recording_without_max_tokens_answers_a_bounded_request_only_where_the_bound_changes_nothing():
    """The runs recorded before the harness sent max_tokens still replay: a request that adds only the bound gets
    the recorded answer when that answer ended on its own under it. One the bound would have cut (it wrote as many
    tokens, or stopped at the server's own bound), and a request that differs in anything else, do not."""
    (exchange, *_) = [e for e in RecordedLlamaServer(RECORDED / "llama-server-small-default.jsonl").exchanges
                      if e["path"] == RecordedLlamaServer.CHAT and e["status"] == 200]
    written = exchange["response"]["usage"]["completion_tokens"]
    asked = {**exchange["request"], "max_tokens": written + 1}
    fits = RecordedLlamaServer.unbound_answer_fits
    assert fits(exchange, asked)
    assert not fits(exchange, {**asked, "max_tokens": written})
    cut = json.loads(json.dumps(exchange))
    cut["response"]["choices"][0]["finish_reason"] = "length"
    assert not fits(cut, asked)
    assert not fits(exchange, {**asked, "temperature": 0})
    assert not fits(exchange, exchange["request"])  # no bound asked: that is the exact match's to answer
    bounded = {**exchange, "request": {**exchange["request"], "max_tokens": 4096}}
    assert not fits(bounded, {**bounded["request"], "max_tokens": 512})
