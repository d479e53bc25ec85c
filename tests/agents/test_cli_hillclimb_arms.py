"""The scripted parts of probes/cli_hillclimb.py's arms, without the CLI: what the scripted Claude model
(cli_agent.py) needs to recover from its first miss, per kind of task, and that reflect_null.py's proposals are
real edits of each component that this agent never acts on."""

from __future__ import annotations

from pathlib import Path

import cli_agent
import reflect_null

from pytest_mobium_evals.commands.hillclimb.components import components_of
from pytest_mobium_evals.surface.variants import load

PROMPT = "In MobiumApp, open the Login Demo and sign in with the demo account: username mobium, password hunter2, and"
FRESH = PROMPT.replace("In MobiumApp, ", "In MobiumApp, from a fresh start, ")
REMEDY = "ERROR (remedy: run app_map to get the screen's current refs, then retry with a ref from it)"


def _body(prompt: str, miss_answer: str, app_map: str = "Lists the screen's elements.") -> dict:
    return {"tools": [{"name": "mcp__mobium__app_map", "description": app_map}],
            "messages": [{"role": "user", "content": prompt},
                         {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "x"}]},
                         {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1",
                                                       "content": miss_answer}]}]}


def _goes_on(prompt: str, miss_answer: str, **kw) -> bool:
    model = cli_agent.ReadingModel(noise=0.0)
    return model.plan(_body(prompt, miss_answer, **kw))[-1][0] == "done"


def test_a_sign_in_recovers_from_its_miss_only_through_the_remedy():
    assert _goes_on(PROMPT, REMEDY)
    assert not _goes_on(PROMPT, "ERROR no element @e999")
    # app_map's description does nothing for this kind
    assert not _goes_on(PROMPT, "ERROR no element @e999", app_map=f"Lists elements; {cli_agent.REF_FACT}.")


def test_a_fresh_start_sign_in_needs_app_maps_description_and_no_remedy_helps_it():
    assert not _goes_on(FRESH, REMEDY)  # the dev-only fix: the remedy the dev tasks needed
    assert _goes_on(FRESH, "ERROR no element @e999", app_map=f"Lists elements; {cli_agent.REF_FACT}.")


def test_the_noisy_model_gives_up_about_as_often_as_it_says():
    model = cli_agent.ReadingModel(noise=0.2, seed=3)
    ends = [model.plan(_body(PROMPT, REMEDY))[-1][0] for _ in range(2000)]
    assert 0.17 < ends.count("cannot") / len(ends) < 0.23


def test_the_null_reflection_changes_every_component_and_nothing_the_agent_acts_on():
    root = Path(__file__).resolve().parents[2]
    start = components_of(load("tests/surfaces/cli_suite/remedy-shown.toml", root), ["app_map"])
    proposed = {name: reflect_null.propose(name, text) for name, text in start.items()}
    assert all(proposed[name] != start[name] for name in start)  # an edit of each: a candidate, not a cache hit
    assert reflect_null.propose("errors", proposed["errors"]) == proposed["errors"]  # once, not again and again
    # the agent's play with the proposal's texts is the start's: the remedy it reads is the same
    assert "app_map" in proposed["errors"] and cli_agent.REF_FACT not in proposed["tool.app_map"]
    assert proposed["errors"].startswith(start["errors"])  # every remedy the start had, word for word
    miss = "ERROR no element @e999"
    assert (_goes_on(FRESH, miss, app_map=proposed["tool.app_map"])
            == _goes_on(FRESH, miss, app_map=start["tool.app_map"]))
