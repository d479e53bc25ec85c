"""Ghost Bench's run summary written from our stored verdicts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from pytest_mobium_evals.core.trial_record import TrialRecord
from pytest_mobium_evals.runfolder.layout import RunDir, trial_name
from pytest_mobium_evals.runfolder.writing import write_record, write_trial
from pytest_mobium_evals.suites.ghost_bench import summary as gb


def verdict(task: str, driver: str, *, reached, observed, verdict_name, repeat=0, model="none", suite="ghost_bench",
            infra=None, total_s=2.0, tool_calls=3, claim="done") -> dict:
    return {"task": task, "suite": suite, "driver": driver, "model": model, "effort": None, "seed": 7,
            "repeat": repeat, "verdict": verdict_name, "severity": None, "blockers": [], "expected": "pass",
            "ok": True, "claim": {"status": claim, "answer": None, "reason": None}, "answer_ok": None,
            "outcome_reached": reached, "outcome_observed": observed, "side_effects": [], "tool_calls": tool_calls,
            "tokens": {"input": 0, "output": 0}, "cost_usd": None,
            "timings": {"reset_s": 0.5, "driver_s": 1.0, "grade_s": 0.5, "total_s": total_s},
            "device": {"serial": "emulator-5554", "release": "15"}, "infra_error": infra, "password_exposures": [],
            "max_steps": 10, "hit_limit": None}


def store(run: RunDir, data: dict) -> None:
    write_trial(run, trial_name(data["task"], data["driver"], data["model"], data["repeat"]), data)


def test_summary_per_setting_with_scores_and_reasons(tmp_path):
    run = RunDir(tmp_path / "20261129-230000-controls")
    write_record(run, {"seed": 7, "tasks": [], "device": {}, "mobium": {}})
    store(run, verdict("SystemWifiTurnOn", "reference", reached=True, verdict_name="pass",
                       observed="got '1' (expected '1' or '2')"))
    store(run, verdict("OpenAppClock", "reference", reached=True, verdict_name="pass", total_s=3.04,
                       observed="got 'ResumedActivity: …deskclock…' (expected it to contain 'deskclock')"))
    store(run, verdict("SystemWifiTurnOn", "null", reached=False, verdict_name="false_success",
                       observed="got '0' (expected '1' or '2')", tool_calls=0))
    store(run, verdict("OpenAppClock", "null", reached=None, verdict_name="infra_error", observed=None,
                       infra="driver: InfraError: the tool server died"))
    store(run, verdict("t01", "reference", reached=True, verdict_name="pass", observed="Welcome", suite="mobiumapp"))

    path = gb.write_summary(run.path)
    assert path == run.path / "ghost_bench.json"
    summary = json.loads(path.read_text())
    assert summary["suite"] == "ghost_bench" and summary["seed"] == 7
    ref, null = summary["runs"]  # controls in a fixed order: reference before null

    assert ref["driver"] == "reference" and ref["model"] == "none"
    assert (ref["success_rate"], ref["passed"], ref["total_tasks"], ref["total_time_s"]) == (1.0, 2, 2, 5.0)
    by_task = {r["task_id"]: r for r in ref["results"]}
    assert set(by_task) == {"SystemWifiTurnOn", "OpenAppClock"}  # the MobiumApp trial is not Ghost Bench's
    assert by_task["SystemWifiTurnOn"]["score"] == 1.0
    assert (by_task["SystemWifiTurnOn"]["steps"], by_task["SystemWifiTurnOn"]["max_steps"]) == (3, 10)
    assert ref["device"] == "emulator-5554"
    assert by_task["SystemWifiTurnOn"]["reason"] == "got '1' (expected '1' or '2')"

    assert (null["success_rate"], null["passed"], null["total_tasks"]) == (0.0, 0, 2)
    rows = {r["task_id"]: r for r in null["results"]}
    assert rows["SystemWifiTurnOn"]["score"] == 0.0 and rows["SystemWifiTurnOn"]["verdict"] == "false_success"
    assert rows["SystemWifiTurnOn"]["reason"] == "got '0' (expected '1' or '2')"
    # An infrastructure error stays in the denominator at score 0, with its error, as Ghost Bench counts it.
    assert rows["OpenAppClock"]["score"] == 0.0
    assert rows["OpenAppClock"]["error"] == "driver: InfraError: the tool server died"
    assert rows["OpenAppClock"]["reason"].startswith("error: ")


def test_score_is_the_device_state_not_the_claim(tmp_path):
    # Ghost Bench never asks the agent: an unreported success scores 1.0 there, whatever our verdict says.
    run = RunDir(tmp_path / "run")
    store(run, verdict("SystemBrightnessMax", "agent", model="claude-sonnet-4-5", reached=True, claim=None,
                       verdict_name="unreported", observed="got '255' (expected '255')"))
    store(run, verdict("SystemBrightnessMax", "agent", model="claude-sonnet-4-5", reached=False, repeat=1,
                       verdict_name="false_success", observed="got '128' (expected '255')"))
    (agent,) = json.loads(gb.write_summary(run.path).read_text())["runs"]
    assert agent["model"] == "claude-sonnet-4-5" and agent["provider"] == "claude"
    assert [r["score"] for r in agent["results"]] == [1.0, 0.0]
    assert [r["repeat"] for r in agent["results"]] == [0, 1]
    assert (agent["success_rate"], agent["passed"], agent["total_tasks"]) == (0.5, 1, 2)


def test_no_ghost_bench_trials_writes_nothing(tmp_path):
    run = RunDir(tmp_path / "run")
    store(run, verdict("t01", "reference", reached=True, verdict_name="pass", observed="x", suite="mobiumapp"))
    assert gb.write_summary(run.path) is None
    assert not (run.path / "ghost_bench.json").exists()


def test_a_half_written_verdict_is_left_out(tmp_path):
    run = RunDir(tmp_path / "run")
    store(run, verdict("SystemWifiTurnOff", "reference", reached=True, verdict_name="pass",
                       observed="got '0' (expected '0')"))
    broken = run.trial_dir("SystemWifiTurnOn-reference-none-r0")
    broken.mkdir(parents=True)
    (broken / "verdict.json").write_text('{"task": "SystemWifiTurnOn", "suite": "ghost')
    (ref,) = json.loads(gb.write_summary(Path(run.path)).read_text())["runs"]
    assert [r["task_id"] for r in ref["results"]] == ["SystemWifiTurnOff"]


class FakeConfig:
    stash = pytest.Stash()  # where the plugin keeps the summary's path for the terminal summary


def test_the_summary_is_rewritten_after_each_trial_and_says_how_the_run_ended(tmp_path):
    from pytest_mobium_evals.plugin import ghost_bench as plugin

    run = RunDir(tmp_path / "run")
    write_record(run, {"seed": 7, "tasks": [], "device": {}, "mobium": {}, "ended": "2026-12-01T10:00:00"})
    first = verdict("SystemWifiTurnOn", "reference", reached=True, verdict_name="pass", observed="got '1'")
    store(run, first)
    plugin.pytest_mobium_trial_recorded(FakeConfig, run.path, TrialRecord.parse(first))
    summary = json.loads((run.path / "ghost_bench.json").read_text())
    assert summary["status"] == "running" and summary["runs"][0]["status"] == "running"
    assert summary["runs"][0]["total_tasks"] == 1 and summary["runs"][0]["finished_at"] is None

    second = verdict("SystemWifiTurnOff", "reference", reached=False, verdict_name="false_success",
                     observed="got '1' (expected '0')")
    store(run, second)
    plugin.pytest_mobium_trial_recorded(FakeConfig, run.path, TrialRecord.parse(second))
    assert json.loads((run.path / "ghost_bench.json").read_text())["runs"][0]["total_tasks"] == 2

    plugin.pytest_mobium_run_finished(FakeConfig, run.path, "stopped")
    summary = json.loads((run.path / "ghost_bench.json").read_text())
    assert summary["status"] == "stopped" and summary["runs"][0]["status"] == "stopped"
    assert summary["runs"][0]["finished_at"] == "2026-12-01T10:00:00"
    assert FakeConfig.stash[plugin.SUMMARY_WRITTEN] == run.path / "ghost_bench.json"  # said in the terminal summary


def test_a_trial_of_another_suite_does_not_write_the_summary(tmp_path):
    from pytest_mobium_evals.plugin import ghost_bench as plugin

    run = RunDir(tmp_path / "run")
    other = verdict("t01", "reference", reached=True, verdict_name="pass", observed="Welcome", suite="mobiumapp")
    store(run, other)
    plugin.pytest_mobium_trial_recorded(FakeConfig, run.path, TrialRecord.parse(other))
    assert not (run.path / "ghost_bench.json").exists()


def test_a_summary_rewritten_after_each_trial_reads_each_trial_once(tmp_path, monkeypatch):
    """The plugin rewrites the summary after each of the suite's trials with the run's reader (`RunTrials`): a
    verdict read before is not parsed again unless it changed, and a rewrite still sees every trial as it is."""
    from pytest_mobium_evals.runfolder.reading import RunTrials

    run = RunDir(tmp_path / "20261129-230000-controls")
    write_record(run, {"seed": 7, "tasks": [], "device": {}, "mobium": {}})
    parsed = []
    real_parse = TrialRecord.parse
    monkeypatch.setattr(TrialRecord, "parse", classmethod(lambda cls, data: parsed.append(data["task"])
                                                           or real_parse.__func__(cls, data)))
    reader = RunTrials(run)
    for task in ("SystemWifiTurnOn", "OpenAppClock", "OpenAppCamera"):
        store(run, verdict(task, "reference", reached=True, verdict_name="pass", observed="got it"))
        gb.write_summary(run, status="running", trials=reader)
    assert parsed == ["SystemWifiTurnOn", "OpenAppClock", "OpenAppCamera"]  # each read once, as it came
    store(run, verdict("OpenAppClock", "reference", reached=False, verdict_name="false_success",
                       observed="got nothing", total_s=9.5))  # rewritten: read again
    gb.write_summary(run, status="completed", trials=reader)
    assert parsed == ["SystemWifiTurnOn", "OpenAppClock", "OpenAppCamera", "OpenAppClock"]
    (written,) = json.loads((run.path / "ghost_bench.json").read_text())["runs"]
    scores = {r["task_id"]: r["score"] for r in written["results"]}
    assert scores == {"SystemWifiTurnOn": 1.0, "OpenAppClock": 0.0, "OpenAppCamera": 1.0}
