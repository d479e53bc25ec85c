"""The users' commands, literally, from the repository's root; and a project that merely has the plugin installed
keeps a clean pytest."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from pytest_mobium_evals.suites.androidworld.adapter import entries as androidworld_entries
from pytest_mobium_evals.suites.catalog import load_task_definitions
from pytest_mobium_evals.suites.ghost_bench.adapter import load_tasks

pytest_plugins = ["pytester"]
ROOT = Path(__file__).resolve().parents[2]


def collect(*args: str) -> list[str]:
    """What `pytest ARGS --collect-only -q` collects in the repository's root, as a user would run it."""
    done = subprocess.run([sys.executable, "-m", "pytest", *args, "--collect-only", "-q", "-p", "no:cacheprovider"],
                          cwd=ROOT, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr
    return [line for line in done.stdout.splitlines() if "::" in line]


def test_plain_pytest_collects_the_tasks_not_the_plugins_tests():
    ids = collect()
    assert ids and all(i.startswith("tasks/") for i in ids)
    assert any("[agent-opus-medium-r0]" in i for i in ids)


def test_driver_reference_and_controls_collect_every_task():
    reference = collect("--driver=reference")
    controls = collect("--driver=controls")
    assert all(i.endswith(("[reference-r0]", "[clean-reference-r0]")) for i in reference)
    # every task's three declared controls, and the derived ones and near misses that apply to it; an injection
    # task's twice, attacked and clean; the tasks as the registry finds them, every suite's (JSON ones included)
    tasks = list(load_task_definitions([ROOT / "tasks"]).values())
    assert {t.suite for t in tasks} == {"mobiumapp", "ghost_bench", "androidworld"}
    loaded = [t.id for t in load_tasks(ROOT / "tasks" / "ghost_bench")]
    loaded += [e.task.id for path in sorted((ROOT / "tasks" / "androidworld").glob("*.json"))
               for e in androidworld_entries(path) if e.task is not None]
    assert sorted(loaded) == sorted(t.id for t in tasks if t.suite != "mobiumapp")  # what each suite's loader reads
    assert len(controls) == sum(len(task.control_drivers()) * (2 if task.injection else 1) for task in tasks)
    assert sum(i.endswith("[clean-reference-r0]") for i in reference) == sum(t.injection is not None for t in tasks)
    assert len(controls) > 3 * len(reference)
    assert {i.split("[")[0] for i in reference} == {i.split("[")[0] for i in collect()}


def test_regression_selects_the_tasks_that_found_defects():
    ids = collect("-m", "regression")
    assert {i.split("::")[1].split("[")[0] for i in ids} == {"test_t05_slider", "test_t08_feed", "test_t22_version"}


def test_model_and_k_select_one_task_with_that_model():
    assert collect("--model=haiku:low", "-k", "t05") == [
        "tasks/mobiumapp_tasks/test_t05_slider.py::test_t05_slider[agent-haiku-low-r0]"]


def test_another_project_keeps_a_clean_pytest(pytester: pytest.Pytester):
    pytester.makepyfile(test_plain="def test_one():\n    assert 1 + 1 == 2\n")
    result = pytester.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=1)
    assert "mobium-evals summary" not in result.stdout.str()
    assert not (pytester.path / "runs").exists()
