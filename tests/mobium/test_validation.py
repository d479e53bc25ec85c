"""Argument checking that needs no device: it refuses before anything reaches ADB."""

from __future__ import annotations

import pytest

from pytest_mobium_evals.mobium_server.errors import MobiumError
from pytest_mobium_evals.mobium_server.server import run_tool, tool_list
from pytest_mobium_evals.mobium_server.tools import Mobium

OFFLINE = Mobium("127.0.0.1", 1, "emulator-5554")   # port 1: nothing answers, so nothing here may need the device


def refused(name, **args) -> MobiumError:
    with pytest.raises(MobiumError) as e:
        OFFLINE.call(name, args)
    assert e.value.code == "invalid_argument", e.value.message
    return e.value


@pytest.mark.parametrize("name,args,words", [
    ("app_tap", {"target": "@e1", "x": 1, "y": 2}, "either target or x/y"),
    ("app_tap", {"x": "1", "y": 2}, "x must be an integer"),
    ("app_check", {"target": "x", "checked": "yes"}, "checked must be true or false"),
    ("app_press", {"button": "power"}, "must be one of back"),
    ("app_map", {"changes": True}, 'has no argument "changes" (it takes: device, diff, driver)'),
    ("app_click", {}, 'unknown tool "app_click" (have: app_devices'),
    ("app_batch", {"steps": []}, "non-empty list"),
    ("app_batch", {"steps": [{"name": "app_tap", "args": {}}]}, 'step 1 has "args"'),
    ("app_batch", {"steps": [{"name": "app_batch", "arguments": {}}]}, "cannot contain another"),
    ("app_batch", {"steps": [{"name": "app_tap", "arguments": {"locator": "x"}}]},
     'argument "locator" that app_tap does not take (it takes: double, fingers, target, x, y)'),
    ("app_batch", {"steps": [{"name": "app_tap", "arguments": {"target": "x"}},
                             {"name": "app_fill", "arguments": {"target": "x"}}]},
     'step 2 (app_fill) is missing "text"'),
    ("app_batch", {"steps": [{"name": "app_tap", "arguments": {"device": "x"}}]}, "a batch runs on one device"),
    ("app_batch", {"steps": [{"name": "app_tap", "arguments": {}}] * 101}, "at most 100 steps, got 101"),
])
def test_bad_arguments_are_refused_naming_what_is_allowed(name, args, words):
    assert words in refused(name, **args).message


def test_a_failure_is_a_result_with_is_error_never_a_protocol_error():
    res = run_tool(OFFLINE, "app_click", {})
    assert res.is_error and res.structured_content["code"] == "invalid_argument"
    assert res.content[0].text == res.structured_content["message"]
    assert res.structured_content["retryable"] is False


def test_every_schema_is_closed_and_hinted():
    for tool in tool_list():
        assert tool.input_schema["additionalProperties"] is False
        assert tool.annotations.read_only_hint in (True, False)
        for req in tool.input_schema.get("required", []):
            assert req in tool.input_schema["properties"]


@pytest.mark.parametrize("name,args,words", [
    ("app_type", {"target": "testid=x"}, "app_type needs text"),
    ("app_fill", {"text": "a"}, "app_fill needs a target"),
    ("app_long_press", {"x": 3}, "needs a target or both x and y"),
    ("app_swipe", {}, "needs a direction"),
    ("app_swipe", {"x1": 1, "y1": 2}, "all four"),
    ("app_tap", {}, "app_tap needs a target"),
    ("app_tap", {"x": 5}, "x and y must be given together"),
])
def test_missing_arguments_are_named_before_the_device_is_reached(name, args, words):
    assert words in refused(name, **args).message
