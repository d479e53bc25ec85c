"""One record of a trial (trial_record.TrialRecord), read and written in one shape: old run folders load, a bad
field is one line naming the file and the field, and a key the schema does not know survives the round trip."""

from __future__ import annotations

import json
import typing
from pathlib import Path

import pytest
from runbuilder import verdict_json, write_run

from pytest_mobium_evals.core.errors import UsageError
from pytest_mobium_evals.core.record_parts import (
    AnswerForm,
    LimitsApplied,
    RecordedClaim,
    RecordedSideEffect,
    SurfaceSeen,
    Timings,
    Tokens,
)
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


#: The record's fields whose value has fields of its own: each is a part (core/record_parts.py), read by its
#: attributes wherever it is read, never unpacked as a mapping.
PARTS = {"claim": RecordedClaim, "tokens": Tokens, "timings": Timings, "side_effects": RecordedSideEffect,
         "limits": LimitsApplied, "surface_seen": SurfaceSeen, "answer_forms": AnswerForm}


def test_the_fields_with_fields_of_their_own_are_typed_parts():
    for name, part in PARTS.items():
        annotation = TrialRecord.model_fields[name].annotation
        assert part in _types_in(annotation), (name, annotation)


def _types_in(annotation) -> set:
    args = typing.get_args(annotation)
    return {annotation} if not args else {t for a in args for t in _types_in(a)}


def test_every_kept_trial_is_written_back_as_it_was_read():
    verdicts = list(EVIDENCE.glob("*/trials/*/verdict.json"))
    assert len(verdicts) > 100
    for path in verdicts:
        stored = json.loads(path.read_text())
        record = TrialRecord.parse(stored)
        assert record.to_json() == {**record.to_json(), **stored}, path  # nothing it held is changed or dropped
        for name in PARTS:
            if stored.get(name) is not None:
                assert record.to_json()[name] == stored[name], (path, name)


def test_a_part_keeps_the_keys_it_was_given_and_its_numbers_as_written():
    record = TrialRecord.parse(verdict_json("t01") | {
        "tokens": {"output": 3, "input": 2.0, "cached": 9}, "timings": {"total_s": 12},
        "side_effects": [{"namespace": "secure", "key": "k", "before": None, "after": "1", "put_back": True}]})
    assert (record.tokens.input, record.tokens.output, record.tokens.total, record.seconds) == (2.0, 3, 5.0, 12)
    assert record.side_effects[0].name == "secure/k" and record.side_effects[0].put_back
    stored = record.to_json()
    assert stored["tokens"] == {"input": 2.0, "output": 3, "cached": 9} and stored["timings"] == {"total_s": 12}
    assert json.dumps(stored["timings"]) == '{"total_s": 12}'  # not 12.0, and no reset_s: null
