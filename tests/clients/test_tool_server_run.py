"""`pytest --tool-server="node …/mobile-mcp/lib/index.js" --model=haiku:low -k t21` on the virtual device, the agent
being an offline stand-in that drives mobile-mcp's tools (tests/agents/toolserver_standin.py): the trial is graded
on the device's state as any agent trial is, its record names the server, and the controls of the same run keep the
built-in Mobium-compatible server."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
pytest_plugins = ["pytester"]

CONFTEST = f"""
import sys
sys.path.insert(0, {str(ROOT / "tests" / "agents")!r})

import pytest
from toolserver_standin import mobile_mcp_runner


@pytest.fixture
def mobium_trial_env(request):
    def edit(env):
        env.agent_runner = mobile_mcp_runner()
    return edit
"""


def test_an_agent_trial_runs_on_mobile_mcp_and_the_record_names_it(pytester: pytest.Pytester, mobile_mcp,
                                                                 monkeypatch, tmp_path):
    shutil.copytree(ROOT / "tasks" / "mobiumapp_tasks", pytester.path / "mobiumapp_tasks")
    pytester.makeconftest(CONFTEST)
    monkeypatch.setenv("HOME", str(tmp_path))  # the virtual device's emulator console keeps its token there
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-standin")  # the readiness check; the stand-in calls no API
    result = pytester.runpytest_subprocess("-k", "t21", "--tool-server", mobile_mcp, "--model", "haiku:low",
                                           "--driver", "agent,reference", "--run-dir", "run", "--seed", "4",
                                           "-p", "no:cacheprovider", "-p", "no:randomly")
    trials = {json.loads(p.read_text())["driver"]: json.loads(p.read_text())
              for p in (pytester.path / "run").glob("trials/*/verdict.json")}
    assert set(trials) == {"agent", "reference"}, result.stdout.str()[-3000:]
    agent = trials["agent"]
    assert agent["verdict"] == "pass", (agent, result.stdout.str()[-3000:])
    assert agent["tool_server"] == f"mobile-mcp: {mobile_mcp}"
    assert agent["outcome_observed"] == "Night mode: yes"
    # The controls' server is Mobium's: the reference sets dark mode with app_appearance, a tool mobile-mcp lacks.
    assert trials["reference"]["verdict"] == "pass" and trials["reference"]["tool_server"] is None
    record = json.loads((pytester.path / "run" / "record.json").read_text())
    assert record["agent_tool_server"] == f"mobile-mcp: {mobile_mcp}"
    assert record["options"]["tool_server"] == mobile_mcp
    transcript = next((pytester.path / "run").glob("trials/t21-agent-*/transcript.jsonl")).read_text()
    assert '"mobile_click_on_screen_at_coordinates"' in transcript and '"app_' not in transcript


def test_two_runs_on_two_adb_servers_each_reach_their_own_device(pytester: pytest.Pytester, mobile_mcp,
                                                                  monkeypatch, tmp_path):
    """mobilecli's daemon keeps the ADB server of the command that started it, for every later run sharing its home
    (here the fixture's MOBILECLI_HOME stands for the user's ~/.mobilecli). Each trial gets a home of its own, so
    the second run, on another virtual device behind another ADB server, finds its device; and each trial's daemon
    is ended, none left in the shared home."""
    import os

    shutil.copytree(ROOT / "tasks" / "mobiumapp_tasks", pytester.path / "mobiumapp_tasks")
    pytester.makeconftest(CONFTEST)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-standin")
    shared = Path(os.environ["MOBILECLI_HOME"])
    ports = []
    for run in ("one", "two"):
        result = pytester.runpytest_subprocess("-k", "t21", "--tool-server", mobile_mcp, "--model", "haiku:low",
                                               "--driver", "agent", "--run-dir", run, "--seed", "4",
                                               "-p", "no:cacheprovider", "-p", "no:randomly")
        (verdict,) = [json.loads(p.read_text()) for p in (pytester.path / run).glob("trials/*/verdict.json")]
        assert verdict["verdict"] == "pass", (run, verdict["infra_error"], result.stdout.str()[-3000:])
        ports.append(json.loads((pytester.path / run / "record.json").read_text())["device"]["adb"])
    assert ports[0] != ports[1]  # two virtual devices, each behind an ADB server of its own
    assert not list(shared.iterdir())  # the shared home was never used: no daemon of an earlier run to find


MOBIUM_STANDIN = """#!/bin/sh
# A stand-in for `mobium`: notes its arguments and the variable it was given, then hands over to the built-in
# server on the ADB server the standard variables name, without the --driver it has no use for.
echo "$* | $MOBIUM_DRIVER_ADB" >> "{record}"
exec "{python}" -m pytest_mobium_evals.commands.cli mcp --device "$3" \\
    --adb "$ANDROID_ADB_SERVER_HOST:$ANDROID_ADB_SERVER_PORT"
"""


def test_mobium_gets_a_driver_and_variables_passed_through(pytester: pytest.Pytester):
    import stat
    import sys

    shutil.copytree(ROOT / "tasks" / "mobiumapp_tasks", pytester.path / "mobiumapp_tasks")
    record = pytester.path / "started.txt"
    binary = pytester.path / "bin" / "mobium"
    binary.parent.mkdir()
    binary.write_text(MOBIUM_STANDIN.format(record=record, python=sys.executable))
    binary.chmod(binary.stat().st_mode | stat.S_IXUSR)
    result = pytester.runpytest_subprocess("-k", "t22", "--driver", "reference", f"--mobium={binary}",
                                           "--mobium-driver", "uiautomator", "--mobium-env",
                                           "MOBIUM_DRIVER_ADB=/opt/drivers/mobium-driver-adb", "--run-dir", "run",
                                           "-p", "no:cacheprovider")
    verdict = json.loads(next((pytester.path / "run").glob("trials/t22-reference-*/verdict.json")).read_text())
    # t22's reference reads Settings' About page, which Mobium's own server can do (no android_version asked).
    assert verdict["verdict"] == "pass", result.stdout.str()[-3000:]
    started = record.read_text().splitlines()
    assert started and all(line.startswith("mcp --device emulator-") and " --driver uiautomator | "
                           "/opt/drivers/mobium-driver-adb" in line for line in started), started
