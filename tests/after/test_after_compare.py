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
    assert "| claude-haiku-5-5, low effort | 75% |" in out


def test_compare_says_whether_the_difference_is_clear_of_zero(make_run, capsys):
    # twelve tasks: the fix turns six failures into passes (a real change) ...
    old = make_run("old", {f"t{i:02d}": ["pass" if i < 6 else "honest_failure"] * 2 for i in range(12)})
    new = make_run("new", {f"t{i:02d}": ["pass"] * 2 for i in range(12)})
    assert main(["compare", str(old), str(new)]) == 0
    out = capsys.readouterr().out
    assert "| +50 points [+25 to +83] | clear of zero: new is better than old |" in out
    # ... while one task changing out of twelve could be noise
    noisy = make_run("noisy", {f"t{i:02d}": ["pass" if i < 7 else "honest_failure"] * 2 for i in range(12)})
    assert main(["compare", str(old), str(noisy), "--out", str(noisy / "c.md")]) == 0
    assert "| +8 points [+0 to +25] | not clear of zero: could be noise |" in (noisy / "c.md").read_text()


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
