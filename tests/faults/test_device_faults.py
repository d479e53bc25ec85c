"""The virtual device misbehaving in each phase of a trial (sim/faults.py), under the three controls and the agent:
every trial still ends with one verdict, an infrastructure error naming the phase, never a failed control or a
missing trial; a hang ends within the tool timeout."""

from __future__ import annotations

import pytest
from fault_invariant import check_invariant
from fault_tasks import TASKS

pytest_plugins = ["pytester"]
TOOL_TIMEOUT = "4"


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch):
    pytester.makepyfile(test_faulty=TASKS)

    def run(fault: str | None, *args: str):
        if fault:
            monkeypatch.setenv("MOBIUM_EVALS_SIM_FAULT", fault)
        else:
            monkeypatch.delenv("MOBIUM_EVALS_SIM_FAULT", raising=False)
        return pytester.runpytest_subprocess("-p", "no:cacheprovider", "--run-dir", "run", "--seed", "3",
                                             "--tool-timeout", TOOL_TIMEOUT, "--trial-timeout", "60", *args)
    return run


@pytest.mark.parametrize("kind", ["drop", "hang", "garbage"])
@pytest.mark.parametrize("phase", ["reset", "driver", "outcome"])
def test_a_device_fault_in_any_phase_is_an_infra_error_of_every_control(suite, pytester, kind, phase):
    result = suite(f"{kind}:phase={phase}", "-k", "f01", "--driver=reference,null,wrong")
    stored = check_invariant(pytester.path / "run", result.stdout.str())
    assert {v["driver"]: v["verdict"] for v in stored.values()} == dict.fromkeys(("reference", "null", "wrong"),
                                                                                 "infra_error")
    for v in stored.values():
        # the null control touches no tool: its driver phase sends the device nothing, so the outcome read is
        # where it meets the fault
        noticed = ("driver", "outcome") if phase == "driver" else (phase,)
        assert v["infra_phase"] in noticed, (v["driver"], v["infra_error"])
        assert v["timings"]["total_s"] < 60  # a hang ended within the trial limit (--trial-timeout)
    assert "Traceback" not in result.stdout.str()
    result.stdout.fnmatch_lines(["reference: *scheduled 1, graded 0, infra errors 1"])


def test_without_a_fault_the_controls_grade_as_declared_and_a_broken_reference_fails_loudly(suite, pytester):
    result = suite(None, "--driver=reference,null,wrong")
    stored = check_invariant(pytester.path / "run", result.stdout.str())
    assert {n: v["verdict"] for n, v in stored.items()} == {
        "f01-reference-none-r0": "pass", "f01-null-none-r0": "false_success", "f01-wrong-none-r0": "false_success",
        "f02-reference-none-r0": "unreported", "f02-null-none-r0": "false_success",
        "f02-wrong-none-r0": "false_success"}
    broken = stored["f02-reference-none-r0"]
    assert not broken["ok"] and "no_such_element" in broken["script_error"]
    result.assert_outcomes(passed=5, failed=1)
    result.stdout.fnmatch_lines(["*the reference script broke*", "*no_such_element*"])


def test_a_broken_reference_on_a_dead_device_is_an_infra_error_not_a_failed_control(suite, pytester):
    result = suite("drop:phase=driver", "-k", "f02", "--driver=reference")
    stored = check_invariant(pytester.path / "run", result.stdout.str())
    assert stored["f02-reference-none-r0"]["verdict"] == "infra_error"


def test_a_device_gone_for_good_after_n_commands_leaves_every_later_trial_an_infra_error(suite, pytester):
    result = suite("drop:after=60", "--driver=reference,null,wrong", "--repeats=2")
    stored = check_invariant(pytester.path / "run", result.stdout.str())
    verdicts = [stored[n]["verdict"] for n in sorted(stored)]
    assert "infra_error" in verdicts
    assert len(stored) == 12


def test_a_device_gone_mid_run_under_every_control_still_adds_up(suite, pytester):
    # The derived controls (reference+wait's clock, +home's key, +menu's back presses) and the near misses talk to
    # the device too: a device gone for good part way leaves each of their trials graded or an infra error.
    result = suite("drop:after=60", "--driver=controls")
    stored = check_invariant(pytester.path / "run", result.stdout.str())
    drivers = {v["driver"] for v in stored.values()}
    assert {"reference", "null", "wrong", "reference+wait", "reference+home"} <= drivers
    assert "infra_error" in {v["verdict"] for v in stored.values()}
    assert "Traceback" not in result.stdout.str()
