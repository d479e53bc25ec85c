"""Stopping a run (SIGKILL under -n 2, Ctrl-C serially) and --resume: nothing graded is lost or graded twice, the
interrupted trials run again, the record ends finished. A trial folder left half-written is rerun on resume with one
line saying so, and `report`/`compare` refuse it with one line naming the file."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fault_invariant import check_invariant
from fault_tasks import TASKS

pytest_plugins = ["pytester"]
DEADLINE_S = 240


def start(folder: Path, *args: str, hold: Path | None = None) -> subprocess.Popen:
    # an outer xdist worker's variables would make the run think it is a worker of another session
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MOBIUM_EVALS_", "PYTEST_XDIST", "PYTEST_CURRENT"))}
    env["PYTHONPATH"] = str(folder)
    if hold is not None:
        env["FAULT_TASKS_HOLD"] = str(hold)  # fault_tasks.held_while_asked
    return subprocess.Popen([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "test_faulty.py", *args],
                            cwd=folder, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            start_new_session=True, preexec_fn=answer_ctrl_c)


def answer_ctrl_c() -> None:
    """In the run's process before it starts Python: Ctrl-C as a terminal delivers it. The suite may itself run with
    SIGINT ignored (a non-interactive shell ignores it in the commands it starts in the background, as CI may be
    started), and an ignored signal stays ignored across exec: Python would then never raise KeyboardInterrupt, and
    the run would go on to its end."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def wait_for_verdicts(proc: subprocess.Popen, run_dir: Path, count: int) -> dict[str, bytes]:
    """Waits (on the run folder and the process, with a deadline) until `count` trials have their verdict."""
    deadline = time.monotonic() + DEADLINE_S
    while time.monotonic() < deadline:
        found = {p.parent.name: p.read_bytes() for p in run_dir.glob("trials/*/verdict.json")}
        if len(found) >= count:
            return found
        try:
            proc.wait(timeout=0.1)  # paces the poll; a run that ends early is a failure of the test's premise
        except subprocess.TimeoutExpired:
            continue
        pytest.fail(f"the run ended before {count} verdicts: {proc.stdout.read()[-2000:]}")
    pytest.fail(f"no {count} verdicts within {DEADLINE_S}s")


def wait_for_path(proc: subprocess.Popen, path: Path) -> None:
    """Waits (on the file and the process, with a deadline) until the run has written `path`."""
    deadline = time.monotonic() + DEADLINE_S
    while not path.exists():
        if time.monotonic() >= deadline:
            pytest.fail(f"no {path.name} within {DEADLINE_S}s")
        try:
            proc.wait(timeout=0.1)  # paces the poll; a run that ends first is a failure of the test's premise
        except subprocess.TimeoutExpired:
            continue
        pytest.fail(f"the run ended before {path.name}: {proc.stdout.read()[-2000:]}")


def finish(proc: subprocess.Popen) -> str:
    out, _ = proc.communicate(timeout=DEADLINE_S)
    return out


@pytest.fixture
def folder(pytester: pytest.Pytester) -> Path:
    pytester.makepyfile(test_faulty=TASKS)
    return pytester.path


def test_sigkill_under_two_workers_then_resume_grades_every_trial_once(folder):
    run = folder / "run"
    common = ("-k", "f01", "--driver=reference,null,wrong", "--repeats=3", "--seed=4", "-n", "2", "--device", "sim:2")
    proc = start(folder, *common, "--run-dir", str(run))
    before = wait_for_verdicts(proc, run, 2)
    os.killpg(proc.pid, signal.SIGKILL)  # the controller, both workers, their tool servers: no cleanup at all
    proc.wait()
    before = {n: (run / "trials" / n / "verdict.json").read_bytes() for n in before}
    record = json.loads((run / "record.json").read_text())
    assert record["finished"] is False
    out = finish(start(folder, "-k", "f01", "-n", "2", "--device", "sim:2", "--resume", str(run)))
    stored = check_invariant(run, out)
    assert len(stored) == 9
    for name, data in before.items():  # graded before the kill: kept as it was, not graded again
        assert (run / "trials" / name / "verdict.json").read_bytes() == data
    assert all(v["verdict"] != "infra_error" for v in stored.values())
    assert "reference: as declared 100%" in out


def test_ctrl_c_then_resume_ends_finished(folder):
    run, hold = folder / "run", folder / "hold"
    hold.touch()  # the wrong control, which runs after the reference and null ones, waits while this exists
    proc = start(folder, "-k", "f01", "--driver=reference,null,wrong", "--repeats=2", "--seed=4", "--run-dir", str(run),
                 hold=hold)
    wait_for_path(proc, Path(f"{hold}.reached"))
    assert len(list(run.glob("trials/*/verdict.json"))) == 4  # graded before the stop, kept by the resume
    os.kill(proc.pid, signal.SIGINT)
    out = finish(proc)
    assert "KeyboardInterrupt" in out
    assert json.loads((run / "record.json").read_text())["finished"] is False
    out = finish(start(folder, "-k", "f01", "--resume", str(run)))
    stored = check_invariant(run, out)
    assert len(stored) == 6


def test_a_half_written_trial_is_refused_by_report_and_rerun_on_resume(folder):
    run = folder / "run"
    out = finish(start(folder, "-k", "f01", "--driver=reference,null,wrong", "--seed=4", "--run-dir", str(run)))
    check_invariant(run, out)
    truncated = run / "trials" / "f01-null-none-r0" / "verdict.json"
    truncated.write_bytes(truncated.read_bytes()[:40])
    (run / "trials" / "f01-wrong-none-r0" / "transcript.jsonl").unlink()

    for argv in (["report", str(run)], ["compare", str(run), str(run)]):
        done = subprocess.run([sys.executable, "-m", "pytest_mobium_evals.commands.cli", *argv], capture_output=True,
                              text=True, cwd=folder)
        assert done.returncode != 0
        lines = (done.stdout + done.stderr).strip().splitlines()
        assert len(lines) == 1 and "Traceback" not in lines[0], lines
        assert str(truncated) in lines[0]

    out = finish(start(folder, "-k", "f01", "--resume", str(run)))
    assert f"mobium-evals: --resume: {truncated}: not readable JSON" in out
    assert "transcript.jsonl: missing beside its verdict.json; that trial runs again" in out
    stored = check_invariant(run, out)
    assert stored["f01-null-none-r0"]["verdict"] == "false_success"
    assert (run / "trials" / "f01-wrong-none-r0" / "transcript.jsonl").exists()
