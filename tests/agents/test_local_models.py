"""What a real local model needs from the tool loop (issue 36), against the stand-ins: the first request counted
before the run and refused when it cannot fit (Ollama's /api/show, llama.cpp's /props), Ollama's num_ctx set to
hold it, a prompt the server cut made an infra_error, the timeouts as options and in the record, and a final-answer
request that keeps the turns' prefix (and so the server's prompt cache).

The llama.cpp stand-in (standins.LlamaCppStandin) answers in the shapes a real llama-server answered in the runs of
issue 42, with scripted content; those runs' own answers are replayed in test_recorded_llama_server."""

from __future__ import annotations

import json
import math
import os
from pathlib import Path

import pytest
from standins import Answer, Call, Fail, LlamaCppStandin, Text, solve_t01

from pytest_mobium_evals.drivers import controls as drivers
from pytest_mobium_evals.drivers.agents import Limits, parse_models, run_agent
from pytest_mobium_evals.drivers.agents.base import MAX_OUTPUT_TOKENS
from pytest_mobium_evals.drivers.agents.context import (
    CONVERSATION_ROOM,
    ESTIMATE_CHARS_PER_TOKEN,
    first_messages,
    measure,
    request_chars,
    truncation,
)
from pytest_mobium_evals.drivers.agents.prompt import SYSTEM_PROMPT
from pytest_mobium_evals.plugin.agent_setup import offered_functions
from pytest_mobium_evals.plugin.options import parse_trial_timeout
from pytest_mobium_evals.run.trial import TrialEnv, TrialSpec, run_trial
from pytest_mobium_evals.runfolder.layout import RunDir
from pytest_mobium_evals.suites.catalog import load_task_definitions

pytest_plugins = ["pytester"]
ROOT = Path(__file__).resolve().parents[2]
PROMPT = "In MobiumApp, open the Login Demo and sign in with the demo account: username mobium, password hunter2."
FUNCTIONS = offered_functions(None)
OPENAI, OLLAMA = parse_models("openai/local-model")[0], parse_models("ollama/qwen2.5:7b")[0]


@pytest.fixture
def llama_cpp(monkeypatch):
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with LlamaCppStandin() as endpoint:
        monkeypatch.setenv("OPENAI_BASE_URL", endpoint.base_url)
        yield endpoint


# --- counting the first request ---------------------------------------------------------------------------------

def test_the_servers_own_tokenizer_counts_the_templated_request(llama_cpp):
    size = measure(OPENAI, FUNCTIONS, SYSTEM_PROMPT, PROMPT, llama_cpp.base_url)
    rendered = LlamaCppStandin.render(first_messages(SYSTEM_PROMPT, PROMPT), FUNCTIONS)
    assert size.exact and size.tokens == LlamaCppStandin.count(rendered)
    assert size.fixed == LlamaCppStandin.count(LlamaCppStandin.render(first_messages(SYSTEM_PROMPT, ""), FUNCTIONS))
    assert size.fixed < size.tokens and size.tool_count == len(FUNCTIONS) >= 60
    assert (size.context, size.context_from) == (llama_cpp.n_ctx, "the server's /props n_ctx")
    assert "/apply-template" in size.method and "/apply-template" in size.line()
    assert size.floor is not None and size.floor <= size.fixed


def test_a_server_without_a_tokenizer_is_estimated_and_says_so(openai_api):
    size = measure(OPENAI, FUNCTIONS, SYSTEM_PROMPT, PROMPT, openai_api.base_url)
    chars = request_chars(first_messages(SYSTEM_PROMPT, PROMPT), FUNCTIONS)
    assert not size.exact and size.tokens == math.ceil(chars / ESTIMATE_CHARS_PER_TOKEN)
    assert size.floor is None and size.context is None
    assert "estimated" in size.line() and size.line().count("~") == 2


def test_a_surface_that_hides_tools_shrinks_the_count(llama_cpp):
    hidden = {"name": "fewer", "tools": {f["function"]["name"]: {"hidden": True} for f in FUNCTIONS[10:]}}
    fewer = offered_functions(hidden)
    assert len(fewer) == 10
    small = measure(OPENAI, fewer, SYSTEM_PROMPT, PROMPT, llama_cpp.base_url)
    whole = measure(OPENAI, FUNCTIONS, SYSTEM_PROMPT, PROMPT, llama_cpp.base_url)
    assert small.tool_count == 10 and small.tokens < whole.tokens / 3


def test_ollama_gets_a_num_ctx_that_holds_the_prompt(ollama_api):
    size = measure(OLLAMA, FUNCTIONS, SYSTEM_PROMPT, PROMPT)
    assert (size.context, size.context_from) == (32768, "/api/show qwen2.context_length")
    assert size.tokens < size.num_ctx <= 32768 and size.fits()
    ollama_api.context_length = 1 << 20  # a model with room: the prompt and the conversation's room, no more
    roomy = measure(OLLAMA, FUNCTIONS, SYSTEM_PROMPT, PROMPT)
    assert roomy.num_ctx % 1024 == 0 and roomy.tokens + CONVERSATION_ROOM <= roomy.num_ctx < \
        roomy.tokens + CONVERSATION_ROOM + 1024


@pytest.mark.parametrize("provider", ["ollama", "openai"])
def test_a_prompt_over_the_models_context_is_refused_in_one_line(provider, ollama_api, llama_cpp):
    if provider == "ollama":
        ollama_api.context_length = 4096
        size = measure(OLLAMA, FUNCTIONS, SYSTEM_PROMPT, PROMPT)
        where = "/api/show qwen2.context_length"
    else:
        llama_cpp.n_ctx = 4096
        size = measure(OPENAI, FUNCTIONS, SYSTEM_PROMPT, PROMPT, llama_cpp.base_url)
        where = "the server's /props n_ctx"
    assert not size.fits()
    message = size.refusal()  # what the session refuses the run with, in one line
    assert "\n" not in message and "4,096" in message and where in message and "--tools" in message


# --- during a trial -------------------------------------------------------------------------------------------------

def t01_task():
    return load_task_definitions([ROOT / "tasks" / "mobiumapp_tasks"])["t01"]


def _trial(setting, tool_server, tmp_path, limits):
    task = t01_task()
    env = TrialEnv(seed=7, run_dir=RunDir(tmp_path / "run"), limits=limits,
                   agent_runner=drivers.run_agent_driver, server_spec=lambda device: tool_server.spec)
    spec = TrialSpec(task=task, driver="agent", repeat=0, model_setting=setting)
    return run_trial(spec, env, tool_server.device, task.outcome)


def test_ollama_asks_for_the_num_ctx_in_every_request(ollama_api, tool_server, tmp_path):
    ollama_api.script(solve_t01())
    size = measure(OLLAMA, FUNCTIONS, SYSTEM_PROMPT, PROMPT)
    run_agent(OLLAMA, PROMPT, tool_server.spec, Limits(prompt_size=size), lambda e: None, tmp_path / "w")
    chats = [r for r, path in zip(ollama_api.requests, ollama_api.paths) if path == "/api/chat"]
    # six tool-calling turns, the turn that stops calling, the final answer
    assert len(chats) == 8 and all(r["options"] == {"num_ctx": size.num_ctx, "num_predict": MAX_OUTPUT_TOKENS}
                                   for r in chats)


def test_a_prompt_the_server_cut_is_an_infra_error_not_the_agents(llama_cpp, tool_server, tmp_path):
    """Counted on a server with room, then served with less (its /props not asked again): the server cuts the
    prompt as older llama.cpp servers did, and the trial says so."""
    size = measure(OPENAI, FUNCTIONS, SYSTEM_PROMPT, PROMPT, llama_cpp.base_url)
    llama_cpp.n_ctx, llama_cpp.overflow = size.fixed // 2, "truncate"
    llama_cpp.script(solve_t01())
    result = _trial(OPENAI, tool_server, tmp_path, Limits(prompt_size=size))
    record = result.record
    assert record.verdict == "infra_error" and record.infra_phase == "driver"
    assert "cut the prompt" in record.infra_error and f"{size.fixed:,}" in record.infra_error
    assert truncation(size, size.fixed) is None and truncation(size, 0) is None  # a whole prompt; no usage at all


def test_a_prompt_the_server_refused_as_too_long_is_an_infra_error(llama_cpp, tool_server, tmp_path):
    llama_cpp.n_ctx = 2048
    llama_cpp.script(solve_t01())
    record = _trial(OPENAI, tool_server, tmp_path, Limits()).record
    assert record.verdict == "infra_error" and "longer than its context" in record.infra_error


def test_the_record_says_which_limits_applied(openai_api, tool_server, tmp_path):
    openai_api.script(solve_t01())
    limits = Limits(max_seconds=900, max_seconds_for="openai/local-model", request_timeout=1200, tool_timeout=30)
    record = _trial(OPENAI, tool_server, tmp_path, limits).record
    assert record.verdict == "pass"
    assert record.limits.model_dump() == {
        "max_tool_calls": 40, "trial_timeout_s": 900, "trial_timeout_for": "openai/local-model",
        "request_timeout_s": 1200, "tool_timeout_s": 30, "nudge_text_calls": False,
        "max_output_tokens": MAX_OUTPUT_TOKENS, "require_first_call": False}
    stored = json.loads((tmp_path / "run" / "trials" / record.trial / "verdict.json").read_text())
    assert stored["limits"] == record.limits.model_dump()


def test_the_final_request_keeps_the_turns_prefix_and_the_cache(llama_cpp, tool_server, tmp_path):
    """The final-answer request offers the same tools after the same messages, so the template renders the same
    prefix and the server's slot reads only the new tail; before, it left the tools out and re-read everything."""
    llama_cpp.script(solve_t01())
    events: list[dict] = []
    run = run_agent(OPENAI, PROMPT, tool_server.spec, Limits(), events.append, tmp_path / "w")
    assert run.claim.status == "done"
    chats = [r for r, path in zip(llama_cpp.requests, llama_cpp.paths) if path == "/v1/chat/completions"]
    *turns, final = chats
    assert final.get("response_format") and final["tool_choice"] == "none"
    assert final["tools"] == turns[0]["tools"] == turns[-1]["tools"]
    assert final["messages"][:len(turns[-1]["messages"])] == turns[-1]["messages"]
    steps = [e["tokens"] for e in events if e["kind"] == "model"]
    assert len(steps) == len(chats) and all("cached" in s for s in steps)
    last = steps[-1]
    # Re-read: the last turn's reply and the final request's own words, a few hundred tokens of many thousands.
    assert last["input"] - last["cached"] < 200 < last["cached"]
    without_tools = LlamaCppStandin.render(final["messages"])
    shared = len(os.path.commonprefix([LlamaCppStandin.render(turns[-1]["messages"], turns[-1]["tools"]),
                                       without_tools]))
    assert shared // LlamaCppStandin.CHARS_PER_TOKEN < 300  # what a request without the tools would have kept


# --- a reply's bound and the first call (issue 42) ---------------------------------------------------------------

@pytest.mark.parametrize("bound", [300, MAX_OUTPUT_TOKENS, None])
def test_every_request_of_the_loop_bounds_the_reply(bound, openai_api, ollama_api, tool_server, tmp_path):
    """A real small model that rambled wrote until its context was full (an hour of one request on a CPU): every
    request of the tool loop, the final answer's included, carries the bound, as OpenAI's max_tokens and as
    Ollama's num_predict; None sends none (the server's own applies)."""
    limits = Limits() if bound == MAX_OUTPUT_TOKENS else Limits(max_output_tokens=bound)
    openai_api.script(solve_t01())
    run_agent(OPENAI, PROMPT, tool_server.spec, limits, lambda e: None, tmp_path / "o")
    ollama_api.script(solve_t01())
    run_agent(OLLAMA, PROMPT, tool_server.spec, limits, lambda e: None, tmp_path / "l")
    openai_chats = [r for r, path in zip(openai_api.requests, openai_api.paths) if path == "/v1/chat/completions"]
    ollama_chats = [r for r, path in zip(ollama_api.requests, ollama_api.paths) if path == "/api/chat"]
    assert len(openai_chats) == len(ollama_chats) == 8
    assert [r.get("max_tokens") for r in openai_chats] == [bound] * 8
    assert [(r.get("options") or {}).get("num_predict") for r in ollama_chats] == [bound] * 8


@pytest.mark.parametrize("model", [OPENAI, OLLAMA], ids=["openai", "ollama"])
def test_a_reply_cut_at_its_bound_is_said_and_read_as_it_is(model, openai_api, ollama_api, tool_server, tmp_path):
    """A reply that reaches the bound comes back cut (finish_reason / done_reason "length"): the transcript says so
    after what was written, and the trial goes on as it would after any text, to the final answer."""
    from pytest_mobium_evals.core.transcript import steps

    api = openai_api if model is OPENAI else ollama_api
    api.script([Call("app_map"), Text("Let me think about the screen. " * 100), Answer("cannot", None, "unsure")])
    events: list[dict] = []
    run = run_agent(model, PROMPT, tool_server.spec, Limits(max_output_tokens=50), events.append, tmp_path / "w")
    assert (run.stop_reason, run.claim.status, run.tool_calls) == ("final_answer", "cannot", 1)
    (cut,) = [e for e in events if e["kind"] == "output_limit"]
    assert (cut["tokens"], cut["bound"]) == (50, 50) and "50 tokens (--max-output-tokens)" in cut["message"]
    said = [e for e in events if e["kind"] == "assistant" and e.get("text")]
    assert len(said[-1]["text"]) == 50 * 4 and events.index(cut) == events.index(said[-1]) + 1
    assert any(s.role == "error" and "cut" in s.text for s in steps(events))


def test_the_first_request_can_require_a_call_and_only_the_first(openai_api, tool_server, tmp_path):
    openai_api.script(solve_t01())
    run_agent(OPENAI, PROMPT, tool_server.spec, Limits(require_first_call=True), lambda e: None, tmp_path / "w")
    chats = [r for r, path in zip(openai_api.requests, openai_api.paths) if path == "/v1/chat/completions"]
    assert [r.get("tool_choice") for r in chats] == ["required"] + [None] * 6 + ["none"]
    openai_api.script(solve_t01())
    run_agent(OPENAI, PROMPT, tool_server.spec, Limits(), lambda e: None, tmp_path / "v")
    chats = [r for r, path in zip(openai_api.requests, openai_api.paths) if path == "/v1/chat/completions"]
    assert [r.get("tool_choice") for r in chats] == [None] * 7 + ["none"]


def test_the_options_set_the_bound_and_the_first_call_and_the_record_keeps_them(pytester, llama_cpp):
    pytester.makepyfile(test_local=TASK)
    llama_cpp.script([Call("app_current"), Answer("done", None, "opened")])
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--model=openai/local-model",
                                           f"--base-url={llama_cpp.base_url}", "--run-dir=run", "--seed=1",
                                           "--max-output-tokens=256", "--require-first-call")
    assert result.ret == 0, result.stdout.str()
    chats = [r for r, path in zip(llama_cpp.requests, llama_cpp.paths) if path == "/v1/chat/completions"]
    assert [(r.get("max_tokens"), r.get("tool_choice")) for r in chats] == [(256, "required"), (256, None),
                                                                            (256, "none")]
    (verdict,) = [json.loads(p.read_text()) for p in (pytester.path / "run").glob("trials/*/verdict.json")]
    assert (verdict["limits"]["max_output_tokens"], verdict["limits"]["require_first_call"]) == (256, True)
    stored = json.loads((pytester.path / "run" / "record.json").read_text())["options"]
    assert (stored["max_output_tokens"], stored["require_first_call"]) == (256, True)


@pytest.mark.parametrize("options, words", [
    (["--model=openai/local-model", "--max-output-tokens=-5"], "--max-output-tokens -5: must be a number of tokens"),
    (["--model=ollama/qwen2.5:7b", "--require-first-call"], "has no openai/ setting"),
])
def test_a_bad_bound_or_first_call_is_refused_in_one_line(pytester, options, words):
    pytester.makepyfile(test_local=TASK)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--run-dir=run", *options)
    assert result.ret != 0
    errors = [line for line in result.stderr.lines if words in line]
    assert len(errors) == 1 and "Traceback" not in result.stderr.str()


# --- the options ----------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("value, expected", [
    ("300", (300.0, {})), (600, (600.0, {})),
    ("openai/qwen=3600,200", (200.0, {"openai/qwen": 3600.0})),
    ("ollama/qwen2.5:7b=1800", (300.0, {"ollama/qwen2.5:7b": 1800.0})),
])
def test_trial_timeout_per_model_setting(value, expected):
    assert parse_trial_timeout(value) == expected


@pytest.mark.parametrize("value, words", [
    ("soon", "'soon' is not a number"), ("0", "must be positive"), ("300,600", "two values for every setting"),
    ("a=1,a=2", "'a' is given twice"), ("=5", "names no model setting"),
])
def test_a_bad_trial_timeout_is_refused_naming_the_entry(value, words):
    with pytest.raises(ValueError, match=words):
        parse_trial_timeout(value)


def test_the_request_timeout_reaches_each_providers_client(monkeypatch, ollama_api, openai_api):
    from pytest_mobium_evals.drivers.agents.loop import make_provider

    for setting in (OLLAMA, OPENAI):
        provider = make_provider(setting, openai_api.base_url, Limits(request_timeout=1234))
        client = provider._client
        timeout = getattr(client, "timeout", None) or client._client.timeout
        assert getattr(timeout, "read", timeout) == 1234


# --- the whole run ----------------------------------------------------------------------------------------------

TASK = r'''
from pytest_mobium_evals.core.tasks import Claim, Outcome, task


def ref_l01(tools, params):
    return Claim("done", None, "nothing to do")


@task(id="l01", slug="local", prompt="In MobiumApp, open the Login Demo.", ready_testid="homeList",
      reference=ref_l01, wrong=ref_l01)
def test_l01(device, params):
    return Outcome(True, observed="")
'''


def test_a_run_whose_prompt_cannot_fit_stops_before_its_first_trial(pytester, ollama_api):
    ollama_api.context_length = 4096
    pytester.makepyfile(test_local=TASK)
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--model=ollama/qwen2.5:7b", "--run-dir=run",
                                           "--seed=1")
    assert result.ret == pytest.ExitCode.USAGE_ERROR
    errors = [line for line in result.stderr.lines if "cannot read the tools and the task whole" in line]
    assert len(errors) == 1 and "ollama/qwen2.5:7b" in errors[0] and "4,096" in errors[0]
    assert not list((pytester.path / "run").glob("trials/*/verdict.json"))
    assert ollama_api.paths.count("/api/chat") == 0


def test_the_header_says_each_settings_first_request(pytester, ollama_api, llama_cpp):
    pytester.makepyfile(test_local=TASK)
    ollama_api.script([Answer("done", None, "opened")])
    llama_cpp.script([Call("app_current"), Answer("done", None, "opened")])
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--model=ollama/qwen2.5:7b,openai/local-model",
                                           f"--base-url={llama_cpp.base_url}", "--run-dir=run", "--seed=1",
                                           "--trial-timeout=openai/local-model=120,60")
    out = result.stdout.str()
    ollama_line = next(line for line in result.stdout.lines if line.startswith("mobium-evals: ollama/qwen2.5:7b"))
    openai_line = next(line for line in result.stdout.lines if line.startswith("mobium-evals: openai/local-model"))
    assert "estimated" in ollama_line and "num_ctx" in ollama_line and "/api/show" in ollama_line
    assert "/apply-template" in openai_line and "/props" in openai_line
    assert out.index(ollama_line) < out.index("test_local.py")  # before the first trial's line
    verdicts = {json.loads(p.read_text())["model_label"]: json.loads(p.read_text())
                for p in (pytester.path / "run").glob("trials/*/verdict.json")}
    assert verdicts["openai/local-model"]["limits"]["trial_timeout_s"] == 120
    assert verdicts["openai/local-model"]["limits"]["trial_timeout_for"] == "openai/local-model"
    assert verdicts["ollama/qwen2.5:7b"]["limits"]["trial_timeout_s"] == 60
    assert verdicts["ollama/qwen2.5:7b"]["limits"]["trial_timeout_for"] is None
    # The summary counts each setting's trials by why they stopped.
    assert {v["stop_reason"] for v in verdicts.values()} == {"final_answer"}
    assert result.stdout.lines.count("  stopped: final_answer 1") == 2


# --- why a trial stopped --------------------------------------------------------------------------------------------

TEXT_CALL = 'I will check the version.\n```json\n{"name": "app_devices", "arguments": {}}\n```'


def test_a_tool_call_written_as_text_is_recorded_as_that_with_its_text(openai_api, tool_server, tmp_path):
    """The first real-model run's trial: a call written as prose, finish_reason stop. The loop ends the tool turns
    there (the call is not made), asks for the final answer, and the record says why it stopped."""
    openai_api.script([Call("app_map"), Text(TEXT_CALL), Answer("done", "15", "the device runs Android 15")])
    events: list[dict] = []
    run = run_agent(OPENAI, PROMPT, tool_server.spec, Limits(), events.append, tmp_path / "w")
    assert (run.stop_reason, run.stop_text, run.nudged, run.tool_calls) == ("text_tool_call", TEXT_CALL, False, 1)
    assert run.claim.status == "done"  # its final answer is still asked for, and graded as any other
    assert [e["tool"] for e in events if e["kind"] == "text_tool_call"] == ["app_devices"]
    assert [e["stop_reason"] for e in events if e["kind"] == "final"] == ["text_tool_call"]


def test_with_the_nudge_the_model_is_told_once_and_goes_on(openai_api, tool_server, tmp_path):
    openai_api.script([Call("app_map"), Text(TEXT_CALL), Call("app_devices"), Text(TEXT_CALL),
                       Answer("done", "15", "the device runs Android 15")])
    events: list[dict] = []
    run = run_agent(OPENAI, PROMPT, tool_server.spec, Limits(nudge_text_calls=True), events.append, tmp_path / "w")
    # Told once after the first text call, it made the call; the second text call ended the turns.
    assert (run.stop_reason, run.nudged, run.tool_calls) == ("text_tool_call", True, 2)
    nudges = [e for e in events if e["kind"] == "nudge"]
    assert len(nudges) == 1
    third = openai_api.requests[2]
    assert third["messages"][-1] == {"role": "user", "content": nudges[0]["text"]}


def test_json_about_anything_else_is_not_a_call():
    from pytest_mobium_evals.drivers.agents.loop import written_tool_call

    assert written_tool_call('{"status": "done", "answer": "15"}', FUNCTIONS) is None
    assert written_tool_call('{"name": "Pixel 9"} is the device', FUNCTIONS) is None
    assert written_tool_call("no json here", FUNCTIONS) is None
    assert written_tool_call('<tool_call>\n{"name": "app_tap", "arguments": {"target": "@e3"}}\n</tool_call>',
                             FUNCTIONS) == "app_tap"
    assert written_tool_call('{"function": {"name": "app_map", "arguments": "{}"}}', FUNCTIONS) == "app_map"


def test_every_verdict_says_why_its_driver_stopped(openai_api, tool_server, tmp_path, fast_retries):
    openai_api.script(solve_t01())
    assert _trial(OPENAI, tool_server, tmp_path / "a", Limits()).record.stop_reason == "final_answer"
    openai_api.script(solve_t01())
    limited = _trial(OPENAI, tool_server, tmp_path / "b", Limits(max_tool_calls=2)).record
    assert (limited.stop_reason, limited.hit_limit, limited.verdict) == ("tool_calls_limit", "tool_calls",
                                                                        "unreported")
    openai_api.script([Fail(500, times=None)])
    failed = _trial(OPENAI, tool_server, tmp_path / "c", Limits()).record
    assert (failed.stop_reason, failed.verdict) == ("api_error", "infra_error")
    openai_api.script([Call("app_map"), Text(TEXT_CALL), Answer("cannot", None, "unsure")])
    texted = _trial(OPENAI, tool_server, tmp_path / "d", Limits()).record
    assert (texted.stop_reason, texted.stop_text, texted.nudged) == ("text_tool_call", TEXT_CALL, False)
    for folder in ("a", "b", "c", "d"):
        (stored,) = (tmp_path / folder / "run" / "trials").glob("*/verdict.json")
        assert "stop_reason" in json.loads(stored.read_text())


def test_the_stop_reason_of_each_ending():
    from pytest_mobium_evals.core.tasks import Claim
    from pytest_mobium_evals.drivers.agents.base import stop_reason

    done = Claim("done", None, "seen")
    assert stop_reason(None, done) == "final_answer"
    assert stop_reason(None, Claim()) == "text"
    assert stop_reason(None, done, text_call=True) == "text_tool_call"
    assert stop_reason("time", done) == "time_limit" and stop_reason("tool_calls", Claim()) == "tool_calls_limit"


# --- --tools: a trimmed tool list, recorded as a variant ------------------------------------------------------------

def test_tools_selection_is_a_variant_hiding_the_rest():
    from pytest_mobium_evals.surface.rewrite import unknown_to
    from pytest_mobium_evals.surface.variants import SurfaceError, only_tools

    alone = only_tools({}, "app_map, app_tap")
    assert list(alone) == ["tools-2"]
    assert [f["function"]["name"] for f in offered_functions(alone["tools-2"])] == ["app_map", "app_tap"]
    edited = {"units": {"name": "units", "about": "x", "errors": {}, "map": {},
                        "tools": {"app_map": {"description_append": " (units)", "hidden": False, "params": {}}}}}
    merged = only_tools(edited, "app_map")["units+tools-1"]
    assert merged["tools"]["app_map"]["description_append"] == " (units)" and not merged["tools"]["app_map"]["hidden"]
    assert merged["tools"]["app_tap"]["hidden"]
    with pytest.raises(SurfaceError, match="app_click is not a tool"):
        only_tools({}, "app_map,app_click")
    # A real Mobium without some of the hidden tools: hiding what is not there asks for nothing.
    assert unknown_to(alone["tools-2"], [{"name": "app_map"}, {"name": "app_tap"}]) == []


def test_a_run_with_tools_offers_only_those_and_records_the_variant(pytester, llama_cpp):
    pytester.makepyfile(test_local=TASK)
    llama_cpp.script([Call("app_current"), Answer("done", None, "opened")])
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--model=openai/local-model",
                                           f"--base-url={llama_cpp.base_url}", "--run-dir=run", "--seed=1",
                                           "--tools=app_current,app_map,app_tap")
    line = next(line for line in result.stdout.lines if line.startswith("mobium-evals: openai/local-model"))
    assert "3 tools' schemas" in line and line.endswith("[surface tools-3]")
    chats = [r for r, path in zip(llama_cpp.requests, llama_cpp.paths) if path == "/v1/chat/completions"]
    assert chats and all(sorted(t["function"]["name"] for t in r["tools"]) == ["app_current", "app_map", "app_tap"]
                         for r in chats)
    (verdict,) = [json.loads(p.read_text()) for p in (pytester.path / "run").glob("trials/*/verdict.json")]
    assert verdict["surface"] == "tools-3" and verdict["surface_seen"]["tool_count"] == 3


# --- a system prompt as a surface variant (issue 42) -----------------------------------------------------------------

def test_a_system_prompt_variant_is_what_the_model_reads_and_what_is_counted(pytester, llama_cpp):
    """`[prompt] system` of a --surface variant replaces the system prompt in every request of its trials (the final
    answer's included), in the transcript, and in the first request counted before the run; the baseline's trials
    keep the default."""
    from pytest_mobium_evals.surface.variants import load

    pytester.makepyfile(test_local=TASK)
    llama_cpp.script([Call("app_current"), Answer("done", None, "opened")])
    variant = ROOT / "surfaces" / "small-model-prompt.toml"
    small = load(str(variant), ROOT).variant.prompt.system
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--model=openai/local-model",
                                           f"--base-url={llama_cpp.base_url}", "--run-dir=run", "--seed=1",
                                           f"--surface=baseline,{variant}")
    assert result.ret == 0, result.stdout.str()
    chats = [r for r, path in zip(llama_cpp.requests, llama_cpp.paths) if path == "/v1/chat/completions"]
    systems = [r["messages"][0]["content"] for r in chats]
    assert len(chats) == 6 and systems.count(SYSTEM_PROMPT) == 3 and systems.count(small) == 3
    headers = {line.rsplit("[surface ", 1)[1].rstrip("]"): line for line in result.stdout.lines
               if line.startswith("mobium-evals: openai/local-model")}
    counted = {name: LlamaCppStandin.count(LlamaCppStandin.render(first_messages(text, ""), FUNCTIONS))
               for name, text in (("baseline", SYSTEM_PROMPT), ("small-model-prompt", small))}
    for name, fixed in counted.items():
        assert f"the system prompt {fixed:,}," in headers[name]
    for folder in (pytester.path / "run" / "trials").iterdir():
        verdict = json.loads((folder / "verdict.json").read_text())
        events = [json.loads(line) for line in (folder / "transcript.jsonl").read_text().splitlines()]
        told = next(e["system"] for e in events if e["kind"] == "prompt")
        assert told == (small if verdict["surface"] == "small-model-prompt" else SYSTEM_PROMPT)
