"""The tool server killed, stalled or talking garbage mid-call (toolserver_faults.py), and a run folder that refuses
writes: the trial is an infrastructure error of the driver phase within the tool timeout, or the run stops with one
line and keeps what it wrote."""

from __future__ import annotations

import json

import pytest
from fault_invariant import check_invariant, verdicts
from fault_tasks import TASKS

pytest_plugins = ["pytester"]


@pytest.fixture
def suite(pytester: pytest.Pytester, monkeypatch):
    pytester.makepyfile(test_faulty=TASKS)
    monkeypatch.delenv("MOBIUM_EVALS_SIM_FAULT", raising=False)

    def run(*args: str, fault: str | None = None):
        if fault:
            monkeypatch.setenv("MOBIUM_EVALS_MCP_FAULT", fault)
        return pytester.runpytest_subprocess("-p", "no:cacheprovider", "--run-dir", "run", "--seed", "3",
                                             "--tool-timeout", "4", *args)
    return run


@pytest.mark.parametrize("kind", ["kill", "hang", "garbage"])
def test_a_tool_server_that_dies_or_stalls_mid_call_is_an_infra_error_of_the_driver_phase(suite, pytester, kind):
    result = suite("-k", "f01 and (reference or wrong)", "--driver=reference,null,wrong", fault=f"{kind}:call=1")
    stored = check_invariant(pytester.path / "run", result.stdout.str())
    assert len(stored) == 2
    for v in stored.values():
        assert (v["verdict"], v["infra_phase"]) == ("infra_error", "driver"), v["infra_error"]
        assert v["timings"]["total_s"] < 30
    assert "Traceback" not in result.stdout.str()


def test_a_bad_tool_server_fault_spec_is_one_line():
    from pytest_mobium_evals.reach.toolserver_faults import parse

    with pytest.raises(ValueError, match=r"tool server fault 'explode:call=1': expected KIND:call=N"):
        parse("explode:call=1")


DISK_FULL = r'''
import errno
import os

from pytest_mobium_evals.runfolder import files

_replace = os.replace
_seen = []


def _full_after_first_trial(src, dst, *args, **kwargs):
    # the first trial's three files go through; then the disk is full
    if str(dst).endswith("verdict.json"):
        _seen.append(dst)
        if len(_seen) > 1:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC), str(dst))
    return _replace(src, dst, *args, **kwargs)


files.os.replace = _full_after_first_trial
'''


def test_a_full_disk_stops_the_run_with_one_line_and_keeps_what_was_written(suite, pytester):
    pytester.makeconftest(DISK_FULL)
    result = suite("-k", "f01", "--driver=reference,null,wrong")
    out = result.stdout.str() + result.stderr.str()
    assert "Traceback" not in out
    result.stdout.fnmatch_lines(["*mobium-evals: cannot write *verdict.json: No space left on device; the run "
                                 "stopped here*--resume*"])
    stored = verdicts(pytester.path / "run")
    assert list(stored) == ["f01-reference-none-r0"]  # the first trial, whole
    assert stored["f01-reference-none-r0"]["verdict"] == "pass"
    record = json.loads((pytester.path / "run" / "record.json").read_text())
    assert record["finished"] is False
    # no half-written file of the refused trial is left behind: only temp files are ever partial, and they go
    leftovers = [p.name for p in (pytester.path / "run" / "trials").rglob("*") if p.name.endswith(".tmp")]
    assert leftovers == []
    # the disk has room again: --resume completes the run, grading nothing twice
    (pytester.path / "conftest.py").unlink()
    resumed = pytester.runpytest_subprocess("-p", "no:cacheprovider", "--resume", "run", "-k", "f01")
    check_invariant(pytester.path / "run", resumed.stdout.str())
    assert len(verdicts(pytester.path / "run")) == 3
