"""The agent driver under faults: the device failing in a phase, the tool server killed mid-call, the model API
answering 5xx or garbage (the OpenAI-compatible stand-in): each trial is an infrastructure error with its phase,
never a failed agent or a missing trial."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest
from fault_invariant import check_invariant
from fault_tasks import TASKS

pytest_plugins = ["pytester"]
ROOT = Path(__file__).resolve().parents[2]


def _standins():
    spec = importlib.util.spec_from_file_location("mobium_standins", ROOT / "tests" / "agents" / "standins.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up while being defined
    spec.loader.exec_module(module)
    return module


standins = _standins()
SOLVE = [standins.Call("app_tap", {"target": "label=Login Demo"}),
         standins.Call("app_wait_for", {"target": "testid=username", "timeout_ms": 3000}),
         standins.Answer("done", None, "the login form is open")]


@pytest.fixture
def agent(pytester: pytest.Pytester, monkeypatch):
    pytester.makepyfile(test_faulty=TASKS)
    for name in ("MOBIUM_EVALS_SIM_FAULT", "MOBIUM_EVALS_MCP_FAULT"):
        monkeypatch.delenv(name, raising=False)

    def run(trajectory, *, sim_fault=None, mcp_fault=None, extra=(), trial_timeout="60"):
        if sim_fault:
            monkeypatch.setenv("MOBIUM_EVALS_SIM_FAULT", sim_fault)
        if mcp_fault:
            monkeypatch.setenv("MOBIUM_EVALS_MCP_FAULT", mcp_fault)
        with standins.OpenAIStandin(trajectory) as api:
            result = pytester.runpytest_subprocess("-p", "no:cacheprovider", "-k", "f01", "--model=openai/local-model",
                                                   "--base-url", api.base_url, "--run-dir", "run", "--seed", "3",
                                                   "--tool-timeout", "4", "--trial-timeout", trial_timeout,
                                                   "--device-pace=fast", *extra)
            asked = sum(path.endswith("/chat/completions") for path in api.paths)  # the model's turns
        stored = check_invariant(pytester.path / "run", result.stdout.str())
        (trial,) = stored.values()
        run.asked = asked
        return result, trial
    return run


def test_the_agent_passes_without_a_fault(agent):
    _, trial = agent(SOLVE)
    assert trial["verdict"] == "pass"


@pytest.mark.parametrize("sim_fault, phase", [("drop:phase=reset", "reset"), ("hang:phase=driver", "driver"),
                                              ("garbage:phase=driver", "outcome"), ("drop:phase=outcome", "outcome")])
def test_a_device_fault_under_the_agent_is_an_infra_error(agent, sim_fault, phase):
    _, trial = agent(SOLVE, sim_fault=sim_fault)
    assert trial["verdict"] == "infra_error"
    # a device that answers garbage to the agent's tools is only known to be broken when the harness reads it
    assert trial["infra_phase"] in (phase, "outcome") if phase == "driver" else trial["infra_phase"] == phase


@pytest.mark.parametrize("kind", ["kill", "hang"])
def test_a_tool_server_dying_under_the_agent_is_an_infra_error_of_the_driver_phase(agent, kind):
    _, trial = agent(SOLVE, mcp_fault=f"{kind}:call=1")
    assert (trial["verdict"], trial["infra_phase"]) == ("infra_error", "driver"), trial["infra_error"]


@pytest.mark.parametrize("fail", [standins.Fail(503, times=None), standins.Fail(200, times=None, body=b"{not json")],
                         ids=["5xx", "malformed"])
def test_a_model_api_failing_is_an_infra_error_of_the_driver_phase(agent, fail):
    _, trial = agent([fail, *SOLVE])
    assert (trial["verdict"], trial["infra_phase"]) == ("infra_error", "driver"), trial["infra_error"]


# A --tool-server that exits before its handshake, and one that never answers it (within a trial time of 3 s): the
# trial is the infrastructure's, in the driver phase, and the model was never asked (it had no tools yet).
@pytest.mark.parametrize("server, trial_timeout", [("sh -c 'exit 3'", "60"), ("sleep 600", "3")],
                         ids=["exits", "never-answers"])
def test_a_tool_server_that_does_not_start_is_an_infra_error_of_the_driver_phase(agent, server, trial_timeout):
    _, trial = agent(SOLVE, extra=("--tool-server", server), trial_timeout=trial_timeout)
    assert (trial["verdict"], trial["infra_phase"]) == ("infra_error", "driver"), trial["infra_error"]
    assert trial["tool_server"].endswith(f": {server}") and trial["hit_limit"] is None
    assert agent.asked == 0
