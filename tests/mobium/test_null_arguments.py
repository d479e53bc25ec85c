"""A JSON null for an argument is that argument left out, on every tool, as it is to Mobium (whose Go handlers read
each argument by type assertion from a map, where nil and a missing key are one case: tools.without_nulls).

The tools and their optional parameters come from the server's own tools/list, so a tool added later is covered
without touching this file."""

from __future__ import annotations

import pytest

from pytest_mobium_evals.mobium_server.errors import MobiumError
from pytest_mobium_evals.mobium_server.server import run_tool, tool_list
from pytest_mobium_evals.mobium_server.tools import Mobium

APP = "dev.mobium.mobiumapp"  # MobiumApp, as the conftest names it

#: Each tool with at least one optional parameter, from tools/list: (name, its required, its optional parameters).
WITH_OPTIONAL = [(tool.name, list(tool.input_schema.get("required", [])),
                  [p for p in tool.input_schema["properties"] if p not in tool.input_schema.get("required", [])])
                 for tool in tool_list()]
WITH_OPTIONAL = [row for row in WITH_OPTIONAL if row[2]]


def a_value(schema: dict):
    """A value of the parameter's declared type, which the server's argument check accepts."""
    if schema.get("enum"):
        return schema["enum"][0]
    return {"string": "x", "integer": 1, "number": 1, "boolean": True, "array": [], "object": {}}.get(
        schema.get("type"), "x")


def required_args(name: str, required: list[str]) -> dict:
    props = next(t for t in tool_list() if t.name == name).input_schema["properties"]
    return {p: a_value(props[p]) for p in required}


class Handed(Exception):
    """Raised by a stand-in tool body: what the dispatch handed it."""

    def __init__(self, args: dict):
        super().__init__(args)
        self.args_given = args


def handed(mobium: Mobium, name: str, arguments: dict) -> dict:
    """The arguments the tool's own body receives after the server's dispatch and argument check."""

    def body(args: dict):
        raise Handed(dict(args))

    setattr(mobium, "t_" + name, body)
    try:
        mobium.call(name, arguments)
    except Handed as got:
        return got.args_given
    finally:
        delattr(mobium, "t_" + name)
    raise AssertionError(f"{name}: the tool's body was never reached")


def test_the_list_covers_the_tools_with_optional_parameters():
    """The table below is not empty by accident: tools/list has ~70 tools, nearly all with optional parameters
    (device and driver on every device tool)."""
    assert len(WITH_OPTIONAL) >= 60
    assert any(name == "app_launch" and "device" in optional for name, _, optional in WITH_OPTIONAL)


@pytest.mark.parametrize("name,required,optional", WITH_OPTIONAL, ids=[row[0] for row in WITH_OPTIONAL])
def test_null_for_every_optional_parameter_is_each_left_out(name, required, optional):
    """Every optional parameter sent as null at once: the call is not refused, and the tool's body gets exactly
    what it gets when they are left out."""
    mobium = Mobium("127.0.0.1", 1, "emulator-5554")  # port 1: nothing answers; no body runs here anyway
    given = required_args(name, required)
    with_nulls = {**given, **{p: None for p in optional}}
    assert handed(mobium, name, with_nulls) == handed(mobium, name, given) == given


@pytest.mark.parametrize("name,required,optional", WITH_OPTIONAL, ids=[row[0] for row in WITH_OPTIONAL])
def test_a_call_with_nulls_answers_as_the_call_without_them(name, required, optional):
    """The whole call, tool body and all, on a server whose device cannot be reached: the same answer (or the same
    refusal) with the optional parameters null as without them, and never a refusal that names a null."""
    mobium = Mobium("127.0.0.1", 1, "emulator-5554")
    given = required_args(name, required)
    without = run_tool(mobium, name, given)
    nulled = run_tool(mobium, name, {**given, **{p: None for p in optional}})
    assert not any("NoneType" in getattr(block, "text", "") for block in nulled.content)
    assert (nulled.is_error, nulled.structured_content) == (without.is_error, without.structured_content)


def test_a_required_parameter_sent_as_null_is_named_as_missing():
    """Null for a required argument is the argument missing, as Mobium's own check says it, not a type error."""
    mobium = Mobium("127.0.0.1", 1, "emulator-5554")
    with pytest.raises(MobiumError) as error:
        mobium.call("app_fill", {"target": "testid=username", "text": None})
    assert "needs text" in error.value.message and "NoneType" not in error.value.message


def test_a_batch_steps_nulls_are_left_out_too():
    mobium = Mobium("127.0.0.1", 1, "emulator-5554")
    seen: list[dict] = []

    def body(args: dict):
        seen.append(dict(args))
        raise MobiumError("no_device", "stand-in body", "")

    mobium.t_app_tap = body
    with pytest.raises(MobiumError):
        mobium.call("app_batch", {"steps": [{"name": "app_tap", "arguments": {
            "target": "testid=loginBtn", "x": None, "y": None, "double": None, "fingers": None}}], "device": None})
    assert seen == [{"target": "testid=loginBtn"}]


def test_app_launch_with_a_null_device_over_mcp(fresh):
    """The call a small model made in the first real-model run (`app_launch: device must be a string, got
    NoneType None`), through the MCP server and its SDK client, on the virtual device."""
    fresh.call("app_press", button="home", device=None)
    result = fresh.call("app_launch", app=APP, device=None, driver=None, check=False)
    assert not result.is_error, result.text
    assert APP in fresh.call("app_current", device=None).text
