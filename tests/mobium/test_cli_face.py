"""The `mobium` CLI face without a device: Mobium's grammar turned into tool calls, and bad lines refused in one
line with Mobium's exit status 2."""

from __future__ import annotations

import re

import pytest

from pytest_mobium_evals.mobium_server import cli_face
from pytest_mobium_evals.mobium_server.cli_grammar import GrammarError, duration_ms, parse


@pytest.mark.parametrize("argv, tool, args", [
    (["--device", "emulator-5554", "tap", "label=Login Demo"], "app_tap",
     {"target": "label=Login Demo", "device": "emulator-5554"}),
    (["tap", "540", "814"], "app_tap", {"x": 540, "y": 814}),
    (["double-tap", "@e1"], "app_tap", {"target": "@e1", "double": True}),
    (["uncheck", "testid=darkSwitch"], "app_check", {"target": "testid=darkSwitch", "checked": False}),
    (["wait", "testid=x", "--for", "hidden", "--timeout", "5s"], "app_wait_for",
     {"target": "testid=x", "condition": "hidden", "timeout_ms": 5000}),
    (["wait", "testid=u", "--for", "value", "--text", "", "--timeout", "2500ms"], "app_wait_for",
     {"target": "testid=u", "condition": "value", "text": "", "timeout_ms": 2500}),
    (["map", "--json"], "app_map", {}),
    (["--json", "map", "--diff"], "app_map", {"diff": True}),
    (["dialogs", "--when", "Save Password", "--press", "Not Now"], "app_dialogs",
     {"when": "Save Password", "press": "Not Now"}),
    (["grant", "dev.mobium.mobiumapp", "notifications"], "app_grant",
     {"app": "dev.mobium.mobiumapp", "permissions": ["notifications"]}),
    (["swipe", "1", "2", "3", "4", "--duration", "120ms"], "app_swipe",
     {"x1": 1, "y1": 2, "x2": 3, "y2": 4, "duration_ms": 120}),
    (["background", "62"], "app_background", {"seconds": 62}),
    (["location", "--lat", "48.8566", "--lon", "2.3522"], "app_location",
     {"latitude": 48.8566, "longitude": 2.3522}),
    (["--backend", "uiautomator", "--device", "d", "press", "back"], "app_press",
     {"button": "back", "device": "d", "driver": "uiautomator"}),
    (["crashes", "--app", "dev.mobium.mobiumapp", "--limit", "1", "--json"], "app_crashes",
     {"app": "dev.mobium.mobiumapp", "limit": 1}),
    (["crashes", "data_app_crash@1790357773461"], "app_crashes", {"id": "data_app_crash@1790357773461"}),
    (["logs", "--source", "device", "--app", "dev.mobium.mobiumapp", "--level", "error", "--lines", "20000"],
     "app_logs", {"source": "device", "app": "dev.mobium.mobiumapp", "level": "error", "lines": 20000}),
])
def test_a_command_line_becomes_its_tool_call(argv, tool, args):
    line = parse(argv)
    assert (line.tool, line.args) == (tool, args)


def test_json_and_output_flags_stand_anywhere(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    line = parse(["screenshot", "-o", "shot.png", "--json"])
    assert line.json and line.args == {"path": str(tmp_path / "shot.png")}


@pytest.mark.parametrize("argv, said", [
    (["bogus"], 'unknown command "bogus"'),
    (["tap", "--nope", "x"], "unknown flag: --nope"),
    (["wait", "testid=x", "--timeout", "soon"], 'invalid duration "soon"'),
    (["type", "testid=a", "b", "c"], "accepts at most 2 arg(s)"),
    (["--driver", "appium", "map"], 'unknown driver "appium"'),
    ([], "a command is needed"),
    (["daemon", "reload"], "daemon takes one of start, stop, status"),
])
def test_a_bad_line_is_refused_naming_what(argv, said):
    with pytest.raises(GrammarError, match=re.escape(said)):
        parse(argv)


def test_a_bad_line_exits_2_with_one_error_line(capsys):
    assert cli_face.main(["tap", "--nope"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.splitlines() == ['error: unknown flag: --nope (for "mobium tap")']


def test_a_bad_line_with_json_prints_the_error_payload(capsys):
    assert cli_face.main(["--json", "bogus"]) == 2
    out, _ = capsys.readouterr()
    assert out.startswith('{\n  "error": "unknown command \\"bogus\\" for \\"mobium\\""')
    assert '"code": "invalid_argument"' in out


def test_daemon_stop_with_none_running_is_a_no_op(capsys, tmp_path, monkeypatch):
    monkeypatch.setenv("MOBIUM_HOME", str(tmp_path))
    monkeypatch.setenv("MOBIUM_SESSION", "none")
    assert cli_face.main(["daemon", "stop"]) == 0
    assert capsys.readouterr().out == "no daemon was running\n"


def test_go_durations():
    assert [duration_ms("--t", v) for v in ("1s", "50ms", "1m30s", "0.5s")] == [1000, 50, 90000, 500]


def test_exit_codes_follow_mobium():
    assert {c: cli_face.EXIT_CODES.get(c, 1) for c in ("timeout", "unsupported", "no_such_element",
                                                       "invalid_argument", "not_confirmed", "internal")} == \
        {"timeout": 6, "unsupported": 5, "no_such_element": 4, "invalid_argument": 2, "not_confirmed": 7,
         "internal": 1}

