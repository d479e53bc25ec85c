"""runfolder/: the atomic run folder (layout, writing, reading)."""

from __future__ import annotations

import json
import os
import stat

import pytest

from pytest_mobium_evals.core.errors import RecordError
from pytest_mobium_evals.runfolder.layout import RunDir, trial_name
from pytest_mobium_evals.runfolder.reading import graded, read_record
from pytest_mobium_evals.runfolder.writing import write_record, write_trial


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
        write_trial(run, "t01-reference-none-r0", {"verdict": "pass"}, [{"kind": "call"}], b"png")
    monkeypatch.setattr(os, "replace", real_replace)
    assert calls == ["transcript.jsonl", "screen.png", "verdict.json"]
    assert graded(run, "t01-reference-none-r0") is None  # not graded: resume runs it again
    assert not list((tmp_path / "run/trials/t01-reference-none-r0").glob("*.tmp"))  # no half-written file left
    write_trial(run, "t01-reference-none-r0", {"verdict": "pass"}, [{"kind": "call"}])
    assert graded(run, "t01-reference-none-r0") == {"verdict": "pass"}


def test_run_files_are_0644_and_folders_0755_for_artifact_uploads(tmp_path):
    old_umask = os.umask(0o022)  # the usual one: folders are made as mkdir makes them, files 0644 whatever it is
    try:
        run = RunDir(tmp_path / "run")
        write_record(run, {"seed": 3})
        write_trial(run, "t01-reference-none-r0", {"verdict": "pass"}, [{"kind": "call"}], b"png")
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
        read_record(tmp_path)
    (tmp_path / "record.json").write_text("[1]")
    with pytest.raises(RecordError, match="not a JSON object"):
        read_record(tmp_path)
    write_record(tmp_path, {"seed": 3})
    assert json.loads((tmp_path / "record.json").read_text()) == {"seed": 3}
