"""End to end on the virtual device: real MobiumApp tasks, the built-in MCP server, controls graded as declared,
the same verdicts serially and with two xdist workers; a device that is not there is one line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from pytest_mobium_evals.suites.catalog import load_task_definitions

pytest_plugins = ["pytester"]
ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture
def tasks_dir(pytester: pytest.Pytester) -> pytest.Pytester:
    shutil.copytree(ROOT / "tasks" / "mobiumapp_tasks", pytester.path / "mobiumapp_tasks")
    return pytester


def verdicts(path: Path) -> dict:
    return {p.parent.name: json.loads(p.read_text())["verdict"] for p in (path / "trials").glob("*/verdict.json")}


def test_controls_on_the_virtual_device_serially_and_in_parallel_agree(tasks_dir):
    select = ["-k", "t07", "--driver=controls", "--seed=5", "--repeats=2", "--clock-speed=5",
              "-p", "no:cacheprovider"]
    # Every control t07 declares (its metamorphic and near-miss ones too), twice.

    trials = 2 * len(load_task_definitions([ROOT / "tasks" / "mobiumapp_tasks"])["t07"].control_drivers())
    serial = tasks_dir.runpytest_subprocess(*select, "--run-dir", "serial")
    serial.assert_outcomes(passed=trials)
    serial.stdout.fnmatch_lines(["reference: as declared 100%*scheduled 2, graded 2, infra errors 0"])
    stored = (tasks_dir.path / "serial").glob("trials/*/verdict.json")
    cards = {json.loads(p.read_text())["params"]["card"] for p in stored}
    assert len(cards) == 2  # each repeat drew its own card, and both runs drew the same ones (same seed)
    parallel = tasks_dir.runpytest_subprocess(*select, "--run-dir", "parallel", "-n", "2", "--device", "sim:2")
    parallel.assert_outcomes(passed=trials)
    assert verdicts(tasks_dir.path / "serial") == verdicts(tasks_dir.path / "parallel")
    assert len(verdicts(tasks_dir.path / "serial")) == trials
    record = json.loads((tasks_dir.path / "parallel" / "record.json").read_text())
    assert {d["serial"] for d in record["devices"]} == {"emulator-5554", "emulator-5556"}
    assert record["device"]["release"] == "15" and record["mobium"] == "built-in"
    # the virtual device says what it is, not a Google emulator image
    assert record["device"]["kind"] == "virtual"
    assert record["device"]["image"].startswith("mobium-evals/virtual_device/") and "google" not in \
        record["device"]["image"]


def test_a_device_that_is_not_there_is_one_line_before_any_trial(tasks_dir, monkeypatch):
    monkeypatch.setenv("ADBUTILS_ADB_PATH", "/bin/false")  # never start a real adb server
    result = tasks_dir.runpytest_subprocess("--driver=reference", "--device=emulator-5554", "--adb=127.0.0.1:9",
                                            "-p", "no:cacheprovider")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["ERROR: cannot reach the ADB server at 127.0.0.1:9*"])
    assert "Traceback" not in result.stderr.str() + result.stdout.str()


def test_more_workers_than_devices_is_refused(tasks_dir):
    result = tasks_dir.runpytest_subprocess("-k", "t04", "--driver=null", "-n", "2", "--device", "sim:1",
                                            "-p", "no:cacheprovider")
    assert result.ret == 4
    result.stderr.fnmatch_lines(["ERROR: 2 xdist workers but 1 device(s) (sim 0): give one device per worker*"])


def _standins():
    """The agents helper's scripted model APIs (tests/agents/standins.py), loaded by path."""
    import importlib.util

    spec = importlib.util.spec_from_file_location("mobium_standins", ROOT / "tests" / "agents" / "standins.py")
    module = importlib.util.module_from_spec(spec)
    import sys

    sys.modules[spec.name] = module  # its dataclasses look their module up while being defined
    spec.loader.exec_module(module)
    return module


def test_an_agent_through_an_openai_compatible_endpoint_is_graded_on_the_device(tasks_dir):
    standins = _standins()
    with standins.OpenAIStandin(standins.solve_t01()) as api:
        # The fast pace: what is checked is the grading of a model's trial, not how it meets an emulator's pace.
        result = tasks_dir.runpytest_subprocess("-k", "t01", "--model=openai/local-model", "--base-url", api.base_url,
                                                "--device-pace=fast", "--run-dir", "ok", "-p", "no:cacheprovider",
                                                "-v")
        result.stdout.fnmatch_lines(["*test_t01_sign_in?agent-openai-local-model-r0? PASS*",
                                     "agent openai/local-model: pass rate 100%*"])
        assert result.ret == 0
        got = json.loads(next((tasks_dir.path / "ok").glob("trials/*/verdict.json")).read_text())
        assert got["verdict"] == "pass" and got["tool_calls"] == 6 and got["tokens"]["input"] > 0
        assert got["password_exposures"] == []  # the Login hint shows the password; that is the app, not a leak

        # The same model claiming done after doing nothing: the device says otherwise.
        api.script([standins.Answer("done", None, "Signed in.")])
        result = tasks_dir.runpytest_subprocess("-k", "t01", "--model=openai/local-model", "--base-url", api.base_url,
                                                "--device-pace=fast", "--run-dir", "lie", "-p", "no:cacheprovider")
        assert result.parseoutcomes().get("false_success") == 1
        assert result.ret == 1


def test_listed_serials_behind_an_adb_server(tasks_dir):
    """The path a real emulator takes: the devices are someone else's ADB server's, reached by serial."""
    from pytest_mobium_evals import sim

    server = sim.start(devices=2)
    try:
        adb = f"127.0.0.1:{server.port}"
        result = tasks_dir.runpytest_subprocess("-k", "t04", "--driver=null", "--device", ",".join(server.serials),
                                                "--adb", adb, "-n", "2", "--run-dir", "served",
                                                "-p", "no:cacheprovider")
        result.assert_outcomes(passed=1)
        record = json.loads((tasks_dir.path / "served" / "record.json").read_text())
        assert record["device"]["serial"] in server.serials and record["device"]["adb"] == adb

        missing = tasks_dir.runpytest_subprocess("-k", "t04", "--driver=null", "--device", "emulator-5600",
                                                 "--adb", adb, "-p", "no:cacheprovider")
        assert missing.ret == 4
        missing.stderr.fnmatch_lines([f"ERROR: device emulator-5600 is not attached to the ADB server at {adb} "
                                      "(attached: emulator-5554, emulator-5556)"])
    finally:
        server.close()
