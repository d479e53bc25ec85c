"""The controls of a surface comparison, offline: a stand-in agent that knows only what the surface tells it runs
real trials on the virtual device through the proxy. A copy of baseline must not come out clear; the remedies put
back clearly better, stripping them clearly worse; a variant that adds the fact the slider tasks need moves both of
them, and with two tasks the exact test says it cannot be clear."""

from __future__ import annotations

from pathlib import Path

import pytest
from surface_standin import CONTROL_TASKS, CONTROL_VARIANTS, comparison_controls, needs_of, run_variants

from pytest_mobium_evals.reach.device import Device
from pytest_mobium_evals.suites.catalog import load_task_definitions

ROOT = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def tasks():
    defined = load_task_definitions([ROOT / "tasks" / "mobiumapp_tasks"])
    return {t: defined[t] for t in CONTROL_TASKS}


@pytest.fixture(scope="module")
def controls(sim_server, tasks, tmp_path_factory):
    device = Device.connect(sim_server.serials[0], port=sim_server.port)
    run_dir = tmp_path_factory.mktemp("controls") / "run"
    outcomes = run_variants(list(tasks.values()), list(CONTROL_VARIANTS), 1, device, sim_server.port, ROOT,
                            run_dir=run_dir)
    return outcomes, comparison_controls(outcomes, tasks), run_dir


def test_the_stand_in_needs_what_the_tasks_say(tasks):
    assert {t: sorted(needs_of(task)) for t, task in tasks.items()} == {
        "t01": ["remedy"], "t03": ["remedy"], "t04": ["remedy"], "t05": ["remedy", "units"], "t06": ["remedy"],
        "t21": ["remedy"], "t22": ["remedy"], "t27": ["remedy", "units"]}


def test_each_comparison_control_comes_out_as_declared(controls):
    outcomes, compared, _ = controls
    for name, (declared, comparison) in compared.items():
        assert comparison.call == declared, (name, comparison)
    copy = compared["baseline vs a copy of baseline"][1]
    assert copy.better == copy.worse == []
    assert compared["units-in-map, on the tasks that need a slider's units"][1].better == ["t05", "t27"]
    assert sorted(compared["no-remedies"][1].worse) == sorted(t for t, v in outcomes["baseline"].items() if all(v))


def test_units_in_map_changes_nothing_on_the_tasks_that_do_not_need_it(controls):
    outcomes, _, _ = controls
    for task in ("t01", "t03", "t04", "t06", "t21", "t22"):
        assert outcomes["units-in-map"][task] == outcomes["baseline"][task]


def test_each_trial_records_its_variant_and_what_the_agent_saw(controls):
    import json

    _, _, run_dir = controls
    seen = {}
    for path in sorted((run_dir / "trials").glob("*/verdict.json")):
        record = json.loads(path.read_text())
        seen[(record["task"], record["surface"])] = record["surface_seen"]["hash"]
        assert record["split"] in ("dev", "held_out")
        assert record["surface_seen"]["variant"] == record["surface"]
    assert len(seen) == len(CONTROL_TASKS) * len(CONTROL_VARIANTS)
    for task in CONTROL_TASKS:
        assert seen[(task, "baseline")] == seen[(task, "baseline-copy")] != seen[(task, "no-remedies")]
