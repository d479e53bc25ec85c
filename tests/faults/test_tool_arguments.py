"""Random arguments to every MCP tool, through the real MCP client to the built-in server on the virtual device:
each call gets an answer (a result or an error result, or a protocol refusal of arguments the schema forbids),
never a dead or silent server."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from pytest_mobium_evals.reach.toolserver import InfraError, ToolResult, Tools, ToolServerSpec

# Tools that may wait as long as they are told to (a random timeout_ms is minutes): a long answer from them is
# right, not a hang, and would only slow the test.
SLOW_OR_LASTING = {"app_wait_for", "app_batch"}

json_leaf = st.one_of(st.none(), st.booleans(), st.integers(-2**40, 2**40), st.floats(allow_nan=False, width=32),
                      st.text(max_size=30))
json_value = st.recursive(json_leaf, lambda inner: st.one_of(st.lists(inner, max_size=3),
                                                             st.dictionaries(st.text(max_size=8), inner,
                                                                             max_size=3)),
                          max_leaves=6)


@pytest.fixture(scope="module")
def tools():
    from pytest_mobium_evals import sim

    with sim.start(devices=1, clock_speed=20.0) as server:
        with Tools(ToolServerSpec.builtin(server.serials[0], "127.0.0.1", server.port), timeout=30) as t:
            yield t


def arguments_for(tool: dict) -> st.SearchStrategy[dict]:
    """Arguments near the schema (its own keys, any JSON values) and far from it (unknown keys)."""
    props = list((tool.get("inputSchema") or {}).get("properties") or {})
    known = st.dictionaries(st.sampled_from(props), json_value, max_size=len(props)) if props else st.just({})
    return st.one_of(known, st.dictionaries(st.text(max_size=10), json_value, max_size=3))


def test_random_arguments_to_every_tool_get_an_answer_and_the_server_lives(tools):
    defs = [d for d in tools.tool_defs if d["name"] not in SLOW_OR_LASTING]
    assert len(defs) > 10

    @settings(max_examples=150, deadline=None, suppress_health_check=list(HealthCheck), derandomize=True)
    @given(data=st.data())
    def call_one(data):
        tool = data.draw(st.sampled_from(defs))
        args = data.draw(arguments_for(tool))
        try:
            res = tools.call(tool["name"], check=False, timeout=30, **args)
        except InfraError as exc:  # the server died or went silent: the one outcome that is never right
            pytest.fail(f"{tool['name']}({args!r}) killed the tool server: {exc}")
        except Exception as exc:  # a protocol-level refusal (the SDK validating against the schema) is fine
            assert "McpError" in type(exc).__name__ or "validation" in str(exc).lower(), (tool["name"], args, exc)
            return
        assert isinstance(res, ToolResult)
        if res.is_error:
            assert isinstance(res.data, dict) and res.data.get("code"), (tool["name"], args, res.text)

    call_one()
    assert not tools.call("app_devices", check=False).is_error  # and the server still answers
