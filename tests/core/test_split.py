"""The declared held-out split: a stable hash of the id puts about a third of the tasks in held out, a task may
override it with a reason, and a malformed override is a declaration error."""

from __future__ import annotations

from pathlib import Path

from pytest_mobium_evals.core.split import hashed_split, split_of, split_problem
from pytest_mobium_evals.suites.catalog import load_task_definitions

ROOT = Path(__file__).resolve().parents[2]


def test_about_a_third_of_the_suite_is_held_out_and_the_split_does_not_move():
    ids = sorted(load_task_definitions([ROOT / "tasks" / "mobiumapp_tasks"]))
    held = [t for t in ids if hashed_split(t) == "held_out"]
    assert 0.25 <= len(held) / len(ids) <= 0.42
    assert [hashed_split(t) for t in ids] == [hashed_split(t) for t in ids]
    # Independent of what else is in the suite: adding tasks never moves one already there.
    assert hashed_split("t22") == "held_out" and hashed_split("t01") == "dev"


def test_an_override_wins_and_needs_a_reason():
    assert split_of("t22", ("dev", "its screen is where units-in-map was tuned")) == "dev"
    assert split_problem(("dev", "a reason")) == []
    assert split_problem(("train", "x")) and split_problem(("held_out", " ")) and split_problem("dev")


def test_a_task_declaring_a_bad_split_fails_in_one_line(pytester):
    pytester.makepyfile(test_bad='''
from pytest_mobium_evals.core.tasks import Claim, Outcome, task


def ref(tools, params):
    return Claim("done", None, "")


@task(id="s01", slug="bad-split", prompt="p", reference=ref, wrong=ref, split=("test", ""))
def test_s01(device, params):
    return Outcome(True)
''')
    # the file is one error item, its report the declaration's one line
    result = pytester.runpytest_subprocess("--driver=reference", "--run-dir", "run", "-n", "0", "-p",
                                           "no:cacheprovider")
    result.assert_outcomes(errors=1)
    result.stdout.fnmatch_lines(["*s01*split ('test', '') is not (\"dev\" or \"held_out\", a reason)*"])
    assert "Traceback" not in result.stdout.str()


pytest_plugins = ["pytester"]
