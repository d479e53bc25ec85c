"""`mobium-evals test FILE`: exit status and output, on the virtual device and before any device is reached."""

from __future__ import annotations

import json
import socket

import pytest

from pytest_mobium_evals.commands.cli import main


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def write(tmp_path, data, name="x.test.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return str(path)


def test_a_file_that_is_not_json_is_a_bad_file_before_any_device_is_reached(tmp_path, capsys):
    out = tmp_path / "result.json"
    # The ADB address is one nothing listens on: the file is refused before it would matter.
    code = main(["test", write(tmp_path, '{"app": '), "--adb", f"127.0.0.1:{free_port()}", "--json", str(out)])
    assert code == 2
    assert capsys.readouterr().err.startswith("bad file x.test.json: not JSON: Expecting value at line 1 column 9")
    assert json.loads(out.read_text())["status"] == "bad_file"


def test_a_missing_file_is_named(tmp_path, capsys):
    assert main(["test", str(tmp_path / "nope.test.json")]) == 2
    assert "cannot read" in capsys.readouterr().err


@pytest.mark.parametrize("option, words", [
    (["--adb", "localhost"], "--adb localhost: expected HOST:PORT"),
    (["--timeout", "0"], "--timeout must be more than 0 seconds"),
    (["--max-failures", "0"], "--max-failures must be 1 or more"),
    (["--grep", "("], "is not a regular expression"),
])
def test_bad_options_are_one_line_errors(tmp_path, capsys, option, words):
    path = write(tmp_path, {"app": "a", "tests": [{"name": "t", "steps": [{"tap": "x"}]}]})
    assert main(["test", path, "--device", "emulator-5554", *option]) == 2
    err = capsys.readouterr().err
    assert words in err and len(err.strip().splitlines()) == 1


def test_no_adb_server_means_no_device_exit_3(tmp_path, capsys):
    path = write(tmp_path, {"app": "a", "tests": [{"name": "t", "steps": [{"tap": "x"}]}]})
    assert main(["test", path, "--adb", f"127.0.0.1:{free_port()}"]) == 3
    assert "no ADB server at" in capsys.readouterr().err


def test_a_run_on_the_virtual_device_prints_the_list_and_exits_by_the_result(tmp_path, capsys, sim_server,
                                                                              market_device):
    adb = f"127.0.0.1:{sim_server.port}"
    data = {"app": "dev.mobium.morphomarket", "beforeEach": [{"wait_for": "testid=productList"}], "tests": [
        {"name": "the mug costs $12.50", "steps": [
            {"tap": "testid=product-mug"},
            {"wait_for": {"target": "testid=productPrice", "condition": "text", "text": "$12.50", "exact": True}}]},
        {"name": "the mug is free", "steps": [
            {"tap": "testid=product-mug"},
            {"wait_for": {"target": "testid=productPrice", "condition": "text", "text": "$0.00", "exact": True,
                          "timeout_ms": 300}}]},
    ]}
    # --device left out: the ADB server has one device, so it is the one.
    code = main(["test", write(tmp_path, data, "market.test.json"), "--adb", adb])
    out = capsys.readouterr()
    assert code == 1, out
    lines = out.out.splitlines()
    assert lines[0].startswith(f"  ok    [{sim_server.serials[0]}] market.test.json › the mug costs $12.50 (")
    assert lines[1].startswith(f"  FAIL  [{sim_server.serials[0]}] market.test.json › the mug is free (")
    assert lines[2].startswith("        step 2 (app_wait_for): [timeout] ") and \
        lines[2].endswith("; step 1 ran before it, and nothing after")
    assert lines[3].startswith("1 passed, 1 failed (")
    assert out.err.strip() == "error: 1 of 2 tests failed"
