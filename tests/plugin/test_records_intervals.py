"""records.py (atomic run folder) and intervals.py (bootstrap over tasks)."""

from __future__ import annotations

import json
import os
import stat

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_mobium_evals.analysis.intervals import bootstrap_over_tasks
from pytest_mobium_evals.runfolder.writing import RecordError, RunDir, trial_name


def test_trial_names_are_safe_folder_names():
    assert trial_name("t01", "agent", "ollama/qwen2.5:7b", 2) == "t01-agent-ollama-qwen2.5-7b-r2"
    assert trial_name("t01", "null", None, 0) == "t01-null-none-r0"


def test_a_trial_is_complete_once_its_verdict_is_written(tmp_path, monkeypatch):
    run = RunDir(tmp_path / "run")
    real_replace = os.replace
    calls = []

    def replace(src, dst):
        calls.append(os.path.basename(dst))
        if os.path.basename(dst) == "verdict.json":
            raise KeyboardInterrupt  # interrupted just before the verdict lands
        real_replace(src, dst)

    monkeypatch.setattr(os, "replace", replace)
    with pytest.raises(KeyboardInterrupt):
        run.write_trial("t01-reference-none-r0", {"verdict": "pass"}, [{"kind": "call"}], b"png")
    monkeypatch.setattr(os, "replace", real_replace)
    assert calls == ["transcript.jsonl", "screen.png", "verdict.json"]
    assert run.graded("t01-reference-none-r0") is None  # not graded: resume runs it again
    assert not list((tmp_path / "run/trials/t01-reference-none-r0").glob("*.tmp"))  # no half-written file left
    run.write_trial("t01-reference-none-r0", {"verdict": "pass"}, [{"kind": "call"}])
    assert run.graded("t01-reference-none-r0") == {"verdict": "pass"}
    assert [v["verdict"] for v in run.all_verdicts()] == ["pass"]


def test_run_files_are_0644_and_folders_0755_for_artifact_uploads(tmp_path):
    old_umask = os.umask(0o022)  # the usual one: folders are made as mkdir makes them, files 0644 whatever it is
    try:
        run = RunDir(tmp_path / "run")
        run.write_record({"seed": 3})
        run.write_trial("t01-reference-none-r0", {"verdict": "pass"}, [{"kind": "call"}], b"png")
    finally:
        os.umask(old_umask)
    modes = {str(p.relative_to(tmp_path)): stat.S_IMODE(p.stat().st_mode) for p in tmp_path.rglob("*")}
    assert modes == {"run": 0o755, "run/record.json": 0o644, "run/trials": 0o755,
                     "run/trials/t01-reference-none-r0": 0o755,
                     "run/trials/t01-reference-none-r0/transcript.jsonl": 0o644,
                     "run/trials/t01-reference-none-r0/screen.png": 0o644,
                     "run/trials/t01-reference-none-r0/verdict.json": 0o644}


def test_reading_a_record_that_is_not_there_is_one_line(tmp_path):
    with pytest.raises(RecordError, match="not a run folder"):
        RunDir(tmp_path).read_record()
    (tmp_path / "record.json").write_text("[1]")
    with pytest.raises(RecordError, match="not a JSON object"):
        RunDir(tmp_path).read_record()
    RunDir(tmp_path).write_record({"seed": 3})
    assert json.loads((tmp_path / "record.json").read_text()) == {"seed": 3}


def test_the_interval_is_over_tasks_not_trials():
    # 10 tasks, each either always passing or always failing, 5 repeats: the spread comes from tasks only.
    tasks = {f"t{i}": [i < 7] * 5 for i in range(10)}
    rate = bootstrap_over_tasks(tasks)
    assert rate.rate == 0.7 and rate.tasks == 10 and rate.total == 50
    assert rate.low < 0.6 and rate.high > 0.8  # as wide as 10 samples, not as narrow as 50
    assert bootstrap_over_tasks(tasks) == rate  # seeded: the same trials print the same interval


@given(st.dictionaries(st.text("abc", min_size=1, max_size=3), st.lists(st.booleans(), min_size=1, max_size=4),
                       max_size=6))
def test_interval_contains_the_rate(outcomes):
    rate = bootstrap_over_tasks(outcomes, resamples=200)
    assert 0 <= rate.low <= rate.rate <= rate.high <= 1
    assert rate.total == sum(len(v) for v in outcomes.values())


@pytest.mark.parametrize("n", [1, 2, 3, 7, 64, 65, 100, 1000])
def test_the_bootstraps_draw_the_numbers_randrange_draws(n):
    """The intervals draw tasks through a quicker loop than Random.randrange, and must draw the very same tasks in
    the same order: an interval printed before still reprints identically."""
    import itertools
    import random

    from pytest_mobium_evals.analysis.intervals import _draws

    for seed in (0, 20261011):
        plain = random.Random(seed)
        assert list(itertools.islice(_draws(random.Random(seed), n), 500)) == [plain.randrange(n) for _ in range(500)]
