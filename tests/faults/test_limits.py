"""An agent stopped by its limits, through the whole plugin, for every driver: a trial that reaches the tool-call
limit and one that reaches the time limit are each graded (never an infrastructure error, never lost), with a
verdict.json naming the limit, a transcript, and the run's counts (scheduled = graded + infra errors) intact.

The models are the offline stand-ins (the Claude CLI against the scripted Messages endpoint, Ollama's /api/chat,
the OpenAI-compatible /v1/chat/completions). The time limit is a small `--trial-timeout` with a model that keeps
silent past it: the test waits on the driver's own deadline, never on a sleep of its own."""

from __future__ import annotations

import json
import threading

import pytest
from fault_invariant import check_invariant
from fault_tasks import TASKS
from test_agent_faults import standins

pytest_plugins = ["pytester"]

MODEL = {"claude": "sonnet:low", "ollama": "ollama/qwen2.5:7b", "openai": "openai/local-model"}
STANDIN = {"claude": standins.AnthropicStandin, "ollama": standins.OllamaStandin, "openai": standins.OpenAIStandin}
# The tool server's start and the Claude CLI's (a second or two, several on a loaded machine) count against the
# trial's time: its budget leaves room for them.
TIME_LIMIT = {"claude": 10.0, "ollama": 6.0, "openai": 6.0}
OPEN_LOGIN = [standins.Call("app_tap", {"target": "label=Login Demo"}),
              standins.Call("app_wait_for", {"target": "testid=username", "timeout_ms": 3000})]


@pytest.fixture
def run_agent(pytester: pytest.Pytester, monkeypatch):
    pytester.makepyfile(test_limited=TASKS)
    for name in ("MOBIUM_EVALS_SIM_FAULT", "MOBIUM_EVALS_MCP_FAULT", "OPENAI_API_KEY"):
        monkeypatch.delenv(name, raising=False)

    def run(provider, trajectory, *options, drivers="agent"):
        with STANDIN[provider](trajectory) as api:
            if provider == "claude":
                monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-standin")
                monkeypatch.setenv("ANTHROPIC_BASE_URL", api.url)
            elif provider == "ollama":
                monkeypatch.setenv("OLLAMA_HOST", api.url)
            else:
                monkeypatch.setenv("OPENAI_BASE_URL", api.base_url)
            result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-k", "f01", f"--model={MODEL[provider]}",
                                                   f"--driver={drivers}", "--run-dir", "run", "--seed", "3",
                                                   "--tool-timeout", "10", "--device-pace=fast", *options)
        output = result.stdout.str()
        stored = check_invariant(pytester.path / "run", output)
        agent = [v for v in stored.values() if v["driver"] == "agent"]
        assert len(agent) == 1, sorted(stored)
        folder = pytester.path / "run" / "trials" / agent[0]["trial"]
        events = [json.loads(line) for line in (folder / "transcript.jsonl").read_text().splitlines()]
        return agent[0], events, output, stored
    return run


@pytest.mark.parametrize("provider", ["claude", "ollama", "openai"])
def test_a_trial_at_its_tool_call_limit_is_graded_and_counted(run_agent, provider):
    # The login form opened in two calls, then a third the limit refuses: the work is on the device, unreported.
    trajectory = [*OPEN_LOGIN, standins.Call("app_map"), standins.Answer("done", None, "the login form is open")]
    trial, events, output, _ = run_agent(provider, trajectory, "--max-tool-calls", "2")
    assert (trial["verdict"], trial["hit_limit"], trial["infra_error"]) == ("unreported", "tool_calls", None)
    assert trial["outcome_reached"] is True and trial["claim"]["status"] is None and trial["tool_calls"] == 2
    assert events[-1]["kind"] == "final" and events[-1]["hit_limit"] == "tool_calls"
    assert f"{trial['trial']}: unreported (minor), stopped at its tool-call limit" in output


@pytest.mark.parametrize("provider", ["claude", "ollama", "openai"])
def test_a_trial_at_its_time_limit_is_graded_and_counted(run_agent, provider):
    released = threading.Event()
    # The model opens the login form, then keeps silent until the test is over: the driver's deadline stops it.
    trajectory = [*OPEN_LOGIN, standins.Do(lambda: released.wait(120)), standins.Call("app_map"),
                  standins.Answer("done")]
    try:
        trial, events, output, _ = run_agent(provider, trajectory, "--trial-timeout", str(TIME_LIMIT[provider]))
    finally:
        released.set()
    # Graded as any trial without a claim is (issue 6), whatever the device shows: unreported.
    assert (trial["verdict"], trial["hit_limit"]) == ("unreported", "time"), trial["infra_error"]
    assert trial["claim"]["status"] is None
    assert events[-1]["kind"] == "final" and events[-1]["hit_limit"] == "time"
    assert f"{trial['trial']}: {trial['verdict']} " in output and "stopped at its time limit" in output


def test_every_control_beside_an_agent_at_its_limit_is_counted(run_agent):
    """The agent stopped by its limit in the same run as the controls: each setting's counts hold. (Not +menu:
    f01's outcome is the login form left open, which going back to the menu undoes; nor +answers: f01 has no
    answer.)"""
    trajectory = [*OPEN_LOGIN, standins.Call("app_map"), standins.Answer("done")]
    trial, _, output, stored = run_agent("openai", trajectory, "--max-tool-calls", "1",
                                         drivers="agent,reference,null,wrong,reference+wait,reference+home")
    assert (trial["verdict"], trial["hit_limit"]) == ("unreported", "tool_calls")
    controls = {v["driver"]: v for v in stored.values() if v["driver"] != "agent"}
    assert sorted(controls) == ["null", "reference", "reference+home", "reference+wait", "wrong"]
    assert all(v["verdict"] == v["expected"] and v["hit_limit"] is None for v in controls.values()), \
        {d: (v["verdict"], v["expected"]) for d, v in controls.items()}
