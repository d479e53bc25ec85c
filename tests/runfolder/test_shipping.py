"""A worker on another host sends its run folder's files with its reports, and the controller's run folder is whole
(runfolder/shipping.py). tests/hosts/ runs it across real ssh gateways; here a worker's disk is made its own by
giving it another folder, which the controller cannot read from."""

from __future__ import annotations

import base64
import json
import shutil
from pathlib import Path

import pytest

from pytest_mobium_evals.core.errors import RecordError
from pytest_mobium_evals.runfolder.layout import RunDir
from pytest_mobium_evals.runfolder.reading import graded
from pytest_mobium_evals.runfolder.shipping import packed, unpack
from pytest_mobium_evals.runfolder.writing import write_session_device, write_trial

ROOT = Path(__file__).resolve().parents[2]


def test_a_trials_files_and_what_changed_in_session_go_and_land_verdict_last(tmp_path):
    worker, controller = RunDir(tmp_path / "worker"), tmp_path / "controller"
    write_session_device(worker, 1, {"serial": "emulator-5554"})
    write_trial(worker, "t01-reference-none-r0", {"verdict": "pass"}, [{"kind": "call"}], screen=b"\x89PNG")
    sent: dict = {}
    files = packed(worker.path, "t01-reference-none-r0", sent)
    assert sorted(files) == [".session/device-1.json", "trials/t01-reference-none-r0/screen.png",
                             "trials/t01-reference-none-r0/transcript.jsonl",
                             "trials/t01-reference-none-r0/verdict.json"]
    unpack(controller, files)
    for relative in files:
        assert (controller / relative).read_bytes() == (worker.path / relative).read_bytes()
    assert graded(controller, "t01-reference-none-r0") == {"verdict": "pass"}
    # the next report carries its own trial, and .session/ only where it changed
    write_trial(worker, "t02-null-none-r0", {"verdict": "false_success"})
    assert sorted(packed(worker.path, "t02-null-none-r0", sent)) == [
        "trials/t02-null-none-r0/transcript.jsonl", "trials/t02-null-none-r0/verdict.json"]
    write_session_device(worker, 1, {"serial": "emulator-5554", "more": True})
    assert ".session/device-1.json" in packed(worker.path, None, sent)


@pytest.mark.parametrize("path", ["../outside.json", "/etc/passwd", "record.json", "trials/a/b/c.json",
                                  "trials/../x.json", ".session/../../x"])
def test_a_path_outside_a_trial_or_session_is_refused_and_nothing_is_written(tmp_path, path):
    data = base64.b64encode(b"{}").decode()
    with pytest.raises(RecordError, match="a worker sent .* not a file of a trial's folder or of .session/"):
        unpack(tmp_path / "run", {"trials/t01-reference-none-r0/verdict.json": data, path: data})
    assert not (tmp_path / "run").exists()


def test_workers_whose_disk_is_their_own_leave_the_controllers_run_folder_whole(pytester, tmp_path_factory):
    shutil.copytree(ROOT / "tasks" / "mobiumapp_tasks", pytester.path / "mobiumapp_tasks")
    elsewhere = tmp_path_factory.mktemp("workers-own-disk")
    # As an ssh gateway is: not popen-started, and writing under a folder the controller never reads.
    pytester.makeconftest(f"""
        import pytest

        @pytest.hookimpl(trylast=True)
        def pytest_configure_node(node):
            node.workerinput["mobium_remote"] = True
            state = node.workerinput["mobium_state"]
            state["run_dir"] = {str(elsewhere)!r} + "/" + node.gateway.id
    """)
    result = pytester.runpytest_subprocess("-k", "t04 or t05", "--driver=reference,null", "-n", "2",
                                           "--run-dir=run", "-p", "no:cacheprovider")
    assert result.ret == 0, result.stdout.str()
    run = RunDir(pytester.path / "run")
    record = json.loads(run.record_path.read_text())
    assert record["finished"] is True and len(record["scheduled"]) == 4
    assert sorted(record["scheduled"]) == sorted(p.name for p in (run.path / "trials").iterdir())
    for name in record["scheduled"]:
        assert graded(run, name) is not None and (run.trial_dir(name) / "screen.png").exists()
    assert len(record["devices"]) == 2
    # every file came over the wire: each worker wrote only its own trials, on its own disk
    workers = [set(p.name for p in (elsewhere / gw / "trials").iterdir()) for gw in ("gw0", "gw1")]
    assert workers[0] | workers[1] == set(record["scheduled"]) and not workers[0] & workers[1]
