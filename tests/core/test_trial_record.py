"""One record of a trial (trial_record.TrialRecord), read and written in one shape: old run folders load, a bad
field is one line naming the file and the field, and a key the schema does not know survives the round trip."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from runbuilder import verdict_json, write_run

from pytest_mobium_evals.core.errors import UsageError
from pytest_mobium_evals.core.trial_record import SCHEMA, RecordInvalid, TrialRecord
from pytest_mobium_evals.runfolder.reading import load_run

EVIDENCE = Path(__file__).resolve().parents[2] / "evidence"


def test_every_kept_run_folder_still_loads():
    folders = [p.parent for p in EVIDENCE.glob("*/record.json")]
    assert folders, "evidence/ holds no run folder"
    for folder in folders:
        run = load_run(folder, require_complete=False)
        assert run.trials and not [p for p in run.problems if "verdict.json" in p], run.problems
        # older than the schema's version field: read as version 1, with the later fields at their defaults
        assert {t.record.schema_version for t in run.trials} == {SCHEMA}


def test_a_field_of_the_wrong_type_is_one_line_naming_the_file_and_the_field(tmp_path):
    bad = verdict_json("t01") | {"tool_calls": "many"}
    folder = write_run(tmp_path, "run", [bad])
    with pytest.raises(UsageError) as caught:
        load_run(folder)
    message = str(caught.value)
    assert "\n" not in message
    assert f"{folder / 'trials' / 't01-agent-claude-haiku-5-5-r1' / 'verdict.json'}: tool_calls:" in message
    assert "'many'" in message


def test_a_record_reads_as_its_fields_and_never_as_a_mapping():
    record = TrialRecord.parse(verdict_json("t05", "touched", blockers=["irreversible: deleted"]) | {"tier": "hard"})
    assert record.verdict == record.to_json()["verdict"] == "touched"
    assert record.setting.group == "agent claude-haiku-5-5"
    assert record.gating_blockers == ["irreversible: deleted"] and not record.success
    with pytest.raises(TypeError):  # one typed record end to end: its readers name its fields (issue 33)
        record["verdict"]
    assert not hasattr(record, "get")


def test_a_key_the_schema_does_not_know_is_kept(tmp_path):
    data = verdict_json("t01") | {"written_by_a_newer_harness": {"x": 1}}
    stored = TrialRecord.parse(data).to_json()
    assert stored["written_by_a_newer_harness"] == {"x": 1} and stored["schema"] == SCHEMA
    assert TrialRecord.parse(json.loads(json.dumps(stored))) == TrialRecord.parse(stored)


def test_not_an_object_and_an_unknown_verdict_are_refused():
    with pytest.raises(RecordInvalid, match="not a JSON object"):
        TrialRecord.parse([1, 2])
    with pytest.raises(RecordInvalid, match="unknown verdict 'maybe'"):
        TrialRecord.parse(verdict_json("t01") | {"verdict": "maybe"})
