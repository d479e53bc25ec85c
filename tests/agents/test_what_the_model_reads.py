"""What each real client passes to its model for a tool's answer, observed at the model API boundary (the scripted
endpoint records every request), and the hillclimb's reflection reading the transcript that client's driver
recorded. The facts the surface proxy relies on are checked here, against the clients themselves:

- the Claude CLI (bundled with claude-agent-sdk) gives the model a successful answer's structured content as JSON,
  and for an error only the message text;
- the agent loop (OpenAI-compatible and Ollama) gives the model the text blocks."""

from __future__ import annotations

import json

import pytest
from standins import Answer, Call

from pytest_mobium_evals.commands.hillclimb.trials import read_steps
from pytest_mobium_evals.drivers.agents import Limits, parse_models, run_agent

PROVIDERS = [pytest.param("claude", marks=pytest.mark.slow), "ollama", "openai"]
MODEL = {"claude": "sonnet:low", "ollama": "ollama/qwen2.5:7b", "openai": "openai/local-model"}
ENDPOINT = {"claude": "anthropic_api", "ollama": "ollama_api", "openai": "openai_api"}
APP = "dev.mobium.mobiumapp"
STALE = "@e999"  # a ref before any map: refused at once (invalid_argument), nothing moved on screen


@pytest.fixture
def api(request, provider):
    return request.getfixturevalue(ENDPOINT[provider])


def tool_results(request: dict) -> list[str]:
    """The tool answers in one model request, in order, as the model reads them."""
    out = []
    for message in request.get("messages", []):
        content = message.get("content")
        if message.get("role") == "tool":  # OpenAI chat completions and Ollama
            out.append(content if isinstance(content, str) else json.dumps(content))
        elif isinstance(content, list):  # Anthropic Messages: tool_result blocks in a user turn
            for block in content:
                if isinstance(block, dict) and block.get("type") == "tool_result":
                    inner = block.get("content")
                    out.append(inner if isinstance(inner, str) else
                               "".join(b.get("text", "") for b in inner or [] if isinstance(b, dict)))
    return out


def converse(provider, spec, api, tmp_path) -> list[dict]:
    api.script([Call("app_map"), Call("app_tap", {"target": STALE}), Answer("cannot", None, "stuck")])
    events: list[dict] = []
    run_agent(parse_models(MODEL[provider])[0], "Open the Login Demo in MobiumApp.", spec, Limits(),
              events.append, tmp_path / "work")
    return events


@pytest.mark.parametrize("provider", PROVIDERS)
def test_what_each_client_passes_to_its_model_and_the_reflection_reads_it(provider, api, tool_server, tmp_path):
    from pytest_mobium_evals.reach.toolserver import Tools

    with Tools(tool_server.spec) as direct:  # the server's own answers, to set the model's against
        the_map = direct.call("app_map")
        refused = direct.call("app_tap", target=STALE, check=False)
    assert refused.is_error and refused.data["code"] == "invalid_argument" and refused.data.get("remedy")

    events = converse(provider, tool_server.spec, api, tmp_path)
    seen = tool_results(api.requests[-1])
    assert len(seen) == 2, seen
    map_seen, error_seen = seen
    if provider == "claude":
        # The structured content as JSON; the map's text lines are not what the model reads.
        assert json.loads(map_seen)["elements"] == the_map.data["elements"]
        assert the_map.text.splitlines()[0] not in map_seen
    else:
        assert map_seen == the_map.text
    # An error is its message text for every client: the remedy in the structured payload never reaches a model.
    assert error_seen.endswith(refused.data["message"]) and refused.data["remedy"] not in error_seen

    # The reflection reads the driver's own transcript: the tools by name, the error, the last map.
    prompt, steps, errors, last_map = read_steps(events)
    assert prompt.startswith("Open the Login Demo")
    assert steps[0] == "call app_map({})" and steps[1].startswith("answer of app_map: ")
    assert steps[2] == f'call app_tap({{"target": "{STALE}"}})'
    assert errors == [steps[3]] and steps[3].startswith("ERROR from app_tap: ")
    assert steps[3].endswith("| (no remedy given)")  # what the model got had none
    assert last_map == map_seen
    assert not any("None" in line for line in steps)


# --- a variant's change, in the model's request ---------------------------------------------------------------

SLIDER_VISIT = [Call("app_scroll_to", {"target": "label=Slider Demo", "direction": "down"}),
                Call("app_tap", {"target": "label=Slider Demo"}), Call("app_map"),
                Call("app_tap", {"target": STALE}), Answer("cannot", None, "stuck")]
VARIANTS = {  # name → the variant's edits (surfaces.Variant's keys)
    "baseline": {},
    "baseline-copy": {},
    "labelled-values": {"map": {"values": "labelled"}},
    "verbose-layout": {"map": {"layout": "verbose"}},
    "no-remedies": {"errors": {"*": {"remedy": ""}}},
    "remedies-in-text": {"errors": {"*": {"show_remedy": True}}},
    "app-map-described": {"tools": {"app_map": {"description_append": "Read it before every tap."}}},
}
# Which variants change the model's request, per client: the CLI reads a map's structured content (where the bounds
# a verbose layout adds to the text already are), every client reads an error's text (where no remedy is).
CHANGES = {"claude": {"labelled-values", "remedies-in-text", "app-map-described"},
           "openai": {"labelled-values", "verbose-layout", "remedies-in-text", "app-map-described"}}
READER = {"claude": "claude-cli", "openai": "text"}


def plain(name: str, edits: dict) -> dict:
    from pytest_mobium_evals.surface.variants import Variant

    return {"name": name, **Variant.model_validate(edits).model_dump()}


def what_the_model_got(requests: list[dict]) -> dict:
    """The part of one conversation's requests a surface can change: the tools' descriptions as offered (the final
    request of the agent loop offers none) and the tool answers, as the last request carries them."""
    tools = {}
    for request in requests:
        for tool in request.get("tools") or []:
            function = tool.get("function") or tool  # OpenAI's function-calling shape, or Anthropic's
            if tool.get("type") == "function" or function.get("name", "").startswith("mcp__mobium__"):
                tools[function["name"]] = function.get("description")
    return {"tools": tools, "answers": tool_results(requests[-1])}


@pytest.mark.slow  # seven conversations, each visiting the Slider Demo (the CLI's: about 10 s each)
@pytest.mark.parametrize("provider", ["claude", "openai"])
def test_surface_seen_differs_from_baselines_exactly_when_the_models_request_does(provider, api, tool_server,
                                                                                 tmp_path):
    from pytest_mobium_evals.surface import proxy as surface_proxy
    from pytest_mobium_evals.surface import rewrite as surface_rewrite

    got, hashes, refused = {}, {}, {}
    for name, edits in VARIANTS.items():
        variant = plain(name, edits)
        refused[name] = surface_rewrite.refusal(variant, READER[provider])
        tool_server.device.reset_app(APP, ready_testid="homeList")
        api.script(list(SLIDER_VISIT))
        asked = len(api.requests)
        spec, seen = surface_proxy.wrap_for_trial(tool_server.spec, variant, READER[provider])
        run_agent(parse_models(MODEL[provider])[0], "Read the slider's value.", spec, Limits(), lambda e: None,
                  tmp_path / name)
        got[name] = what_the_model_got(api.requests[asked:])
        assert got[name]["tools"], "no tools offered"
        hashes[name] = seen.read()["hash"]
        assert len(got[name]["answers"]) == 4, got[name]
    changed = {name for name in VARIANTS if got[name] != got["baseline"]}
    assert changed == CHANGES[provider]
    assert {name for name in VARIANTS if hashes[name] != hashes["baseline"]} == changed
    # A variant whose every edit its client never passes on is refused for that model, in one line.
    assert {name for name, line in refused.items() if line} == set(VARIANTS) - changed - {"baseline", "baseline-copy"}
    assert all("\n" not in line for line in refused.values() if line)
    if provider == "claude":
        assert refused["verbose-layout"] == ("surface variant verbose-layout cannot change what the Claude CLI passes "
                                             "to its model (its edits: map.layout = verbose)")
        shown = json.loads(got["labelled-values"]["answers"][2])
        assert any(el.get("value_is") for el in shown["elements"])
