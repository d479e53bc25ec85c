"""The hillclimb's reflection model through the providers the drivers use (scripted endpoints, no network): a text
answer with its tokens, recorded atomically, replayed on resume without asking again, and counted toward the budget
across invocations; a bad `--reflect` is one line."""

from __future__ import annotations

import json

import pytest
from standins import TOKENS_IN, TOKENS_OUT

from pytest_mobium_evals.commands.hillclimb.reflection import ReflectionError, ReflectionModel, resolve


@pytest.mark.parametrize("name, fixture", [("openai/local-model", "openai_api"), ("ollama/qwen2.5:7b", "ollama_api")])
def test_a_provider_answers_in_text_and_a_resumed_hillclimb_replays_it(name, fixture, request, tmp_path):
    endpoint = request.getfixturevalue(fixture)
    if fixture == "ollama_api":
        endpoint.models = ["qwen2.5:7b"]
    label, answer = resolve(name)
    model = ReflectionModel(label, answer, tmp_path)
    assert model("what failed?") == "I have finished."
    assert (model.total_tokens_in, model.total_tokens_out) == (TOKENS_IN, TOKENS_OUT)
    stored = json.loads((tmp_path / "0001.json").read_text())
    assert stored["answer"] == "I have finished." and stored["model"] == name

    asked = len(endpoint.requests)
    assert asked >= 1
    again = ReflectionModel(label, answer, tmp_path)
    assert again.total_tokens == TOKENS_IN + TOKENS_OUT  # the budget goes on from the record
    assert again("what failed?") == "I have finished." and again.replayed == 1
    assert len(endpoint.requests) == asked  # not asked again
    assert again.total_tokens == TOKENS_IN + TOKENS_OUT
    again("something new")
    assert sorted(p.name for p in tmp_path.iterdir()) == ["0001.json", "0002.json"]


@pytest.mark.slow
def test_claude_answers_through_the_bundled_cli_with_no_tools(anthropic_api, tmp_path):
    label, answer = resolve("sonnet:medium")
    model = ReflectionModel(label, answer, tmp_path)
    assert model("what failed?")
    assert model.total_tokens_out > 0


def test_a_bad_reflection_model_is_one_line(monkeypatch):
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    for name, said in [("gpt-9", "unknown model"), ("python:no_such_module_here", "cannot import"),
                       ("openai/x", "set --base-url or OPENAI_BASE_URL")]:
        with pytest.raises(ReflectionError) as err:
            resolve(name)
        assert said in str(err.value) and "\n" not in str(err.value)
