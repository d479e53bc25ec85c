"""compare: the same tasks and seed, trial by trial; refuses runs that differ in seed or task set."""

from __future__ import annotations

import shutil

from pytest_mobium_evals.commands.cli import main


def test_compare_trial_by_trial_says_what_changed_and_what_differs(make_run, tmp_path, capsys):
    old = make_run("old", {"t01": ["pass", "pass"], "t08": ["false_success", "pass"]})
    new = make_run("new", {"t01": ["pass", "honest_failure"], "t08": ["pass", "pass"]},
                   mobium={"commit": "b" * 40, "dirty": True},
                   device={"serial": "emulator-5556", "release": "14", "sdk": "34"})
    assert main(["compare", str(old), str(new)]) == 0
    out = capsys.readouterr().out
    assert (new / "compare.md").read_text() == out
    assert "Same seed (7) and task set (2 tasks)." in out
    assert "Mobium commit: aaaaaaaaaaaa → bbbbbbbbbbbb (dirty)" in out
    assert "device: emulator-5554, Android 15 (API 35) → emulator-5556, Android 14 (API 34)" in out
    assert "## Trials that changed verdict (2 of 4 compared)" in out
    assert "| t01 | r2 | claude-haiku-5-5, low effort | pass | honest_failure | – | – |" in out
    assert "| t08 | r1 | claude-haiku-5-5, low effort | false_success | pass | '60' | '60' |" in out
    # t01 and t08 are both dev tasks: one row, and the exact test cannot call anything over two tasks
    assert ("| claude-haiku-5-5, low effort | 2 | 75% [50–100%] | 75% [50–100%] | +0 points [-50 to +50] | 1 "
            "| cannot be clear with 2 dev tasks | 0 → 0 |") in out


# Twelve held-out tasks by the split's hash (core/split.py), and three dev ones.
HELD_OUT = ["t03", "t06", "t10", "t13", "t17", "t18", "t20", "t22", "t23", "t31", "t32", "t34"]
DEV = ["t01", "t02", "t04"]


def test_compare_calls_a_difference_by_the_exact_paired_test_per_split(make_run, capsys):
    from pytest_mobium_evals.analysis.paired import split_of

    assert [split_of(t) for t in HELD_OUT + DEV] == ["held_out"] * 12 + ["dev"] * 3
    # the fix turns six held-out failures into passes, every repeat: six tasks up, none down, one-sided p 1/64
    old = make_run("old", {t: ["pass" if i < 6 else "honest_failure"] * 2 for i, t in enumerate(HELD_OUT)}
                   | {t: ["honest_failure"] * 2 for t in DEV})
    new = make_run("new", {t: ["pass"] * 2 for t in HELD_OUT + DEV})
    assert main(["compare", str(old), str(new)]) == 0
    out = capsys.readouterr().out
    assert ("| claude-haiku-5-5, low effort (held-out tasks) | 12 | 50% [17–75%] | 100% [100–100%] "
            "| +50 points [+25 to +83] | 0.0312 | clearly better: new is better than old | 0 → 0 |") in out
    # dev and held out apart: the dev tasks' gain is its own row, which cannot be clear over three tasks
    assert ("| claude-haiku-5-5, low effort (dev tasks) | 3 | 0% [0–0%] | 100% [100–100%] "
            "| +100 points [+100 to +100] | 0.25 | cannot be clear with 3 dev tasks | 0 → 0 |") in out
    # ... while one held-out task changing out of twelve could be noise (one-sided p 1/2)
    noisy = make_run("noisy", {t: ["pass" if i < 7 else "honest_failure"] * 2 for i, t in enumerate(HELD_OUT)}
                     | {t: ["honest_failure"] * 2 for t in DEV})
    assert main(["compare", str(old), str(noisy), "--out", str(noisy / "c.md")]) == 0
    assert "| +8 points [+0 to +25] | 1 | not clear: could be noise |" in (noisy / "c.md").read_text()
    # and a change for the worse, the same test the other way
    assert main(["compare", str(new), str(old), "--out", str(old / "c.md")]) == 0
    assert "| 0.0312 | clearly worse: new is worse than old |" in (old / "c.md").read_text()


def test_compare_says_when_no_result_could_be_clear(make_run, capsys):
    # four held-out tasks, every one up from failing to passing: the most a change can do, and still not clear,
    # since the exact test's least one-sided p over four tasks is 1/16
    tasks = HELD_OUT[:4]
    old = make_run("old", {t: ["honest_failure"] * 3 for t in tasks})
    new = make_run("new", {t: ["pass"] * 3 for t in tasks})
    assert main(["compare", str(old), str(new)]) == 0
    out = capsys.readouterr().out
    assert ("| claude-haiku-5-5, low effort | 4 | 0% [0–0%] | 100% [100–100%] | +100 points [+100 to +100] "
            "| 0.125 | cannot be clear with 4 held-out tasks | 0 → 0 |") in out


def test_compare_makes_the_same_call_as_the_surface_table(make_run):
    """compare's reading is analysis.paired's exact test on the same outcomes (its level under A/A is simulated in
    tests/analysis/test_paired.py), whatever the repeats and however the tasks moved."""
    import random

    from pytest_mobium_evals.analysis import paired
    from pytest_mobium_evals.report.compare import compare_runs, setting_rows
    from pytest_mobium_evals.runfolder.reading import load_run

    rng = random.Random(5)
    for draw in range(6):
        repeats = rng.randint(1, 4)
        tasks = HELD_OUT[:rng.randint(6, 12)]
        runs = []
        for name in ("a", "b"):
            outcomes = {t: [rng.random() < 0.5 for _ in range(repeats)] for t in tasks}
            runs.append((outcomes, make_run(f"{name}{draw}", {t: ["pass" if ok else "honest_failure" for ok in v]
                                                               for t, v in outcomes.items()})))
        (base, a), (mine, b) = runs
        c = compare_runs(load_run(a), load_run(b))
        [row] = setting_rows(c, *c.setting_pairs[0])
        expected = paired.compare_outcomes("m", "v", "held_out", base, mine)
        assert (row.test.call, row.test.p) == (expected.call, expected.p)
        assert row.test.p == paired.sign_flip_test(paired.task_differences(base, mine)).two_sided


def test_a_model_swapped_for_another_is_compared_setting_to_setting(make_run, capsys, tmp_path):
    old = make_run("old", {"t01": ["pass"], "t02": ["pass"]})
    new = make_run("new", {"t01": ["pass"], "t02": ["false_success"]}, model="claude-opus-5-5", effort="medium")
    assert main(["compare", str(old), str(new), "--out", str(tmp_path / "c.md")]) == 0
    out = (tmp_path / "c.md").read_text()
    assert "settings: claude-haiku-5-5, low effort → claude-opus-5-5, medium effort" in out
    assert "| t02 | r1 | claude-haiku-5-5, low effort | pass | false_success |" in out
    assert not (new / "compare.md").exists()


def test_compare_refuses_another_seed(make_run, capsys):
    old = make_run("old", {"t01": ["pass"]})
    new = make_run("new", {"t01": ["pass"]}, seed=8)
    assert main(["compare", str(old), str(new)]) == 2
    err = capsys.readouterr().err
    assert "different seeds (old: 7, new: 8)" in err and err.count("\n") == 1


def test_compare_refuses_another_task_set_and_says_which_tasks(make_run, capsys):
    old = make_run("old", {"t01": ["pass"], "t02": ["pass"]})
    new = make_run("new", {"t01": ["pass"], "t03": ["pass"]})
    assert main(["compare", str(old), str(new)]) == 2
    assert "different task sets (only in old: t02; only in new: t03)" in capsys.readouterr().err


def test_compare_refuses_an_incomplete_run(make_run, capsys):
    old = make_run("old", {"t01": ["pass"], "t02": ["pass"]})
    new = make_run("new", {"t01": ["pass"], "t02": ["pass"]})
    shutil.rmtree(new / "trials" / "t02-agent-claude-haiku-5-5-r1")
    assert main(["compare", str(old), str(new)]) == 2
    assert "incomplete run, not reported: 1 scheduled trial(s) have no verdict.json: t02-agent-claude-haiku-5-5-r1" \
        in capsys.readouterr().err
