"""The main job's processes: a control run on the virtual device that names none gets the ini's worker count;
anything the user says about processes, devices or the driver keeps it in one process."""

from __future__ import annotations

import json
import sys

import pytest

from pytest_mobium_evals.plugin.parallel import parse_workers


def test_auto_is_two_workers_a_core_within_bounds():
    assert [parse_workers("auto", cores) for cores in (1, 2, 3, 16)] == [2, 4, 6, 8]
    assert parse_workers("3", 2) == 3 and parse_workers("0", 2) == 0 and parse_workers("", 2) == 0
    with pytest.raises(pytest.UsageError, match="mobium_workers = 'many' \\(ini\\): expected a number"):
        parse_workers("many", 2)


@pytest.fixture
def project(pytester: pytest.Pytester, monkeypatch) -> pytest.Pytester:
    # Run from an xdist worker, the inner pytest would inherit the variable that marks a worker, and stay serial.
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    pytester.makeini("[pytest]\nmobium_workers = 2\n")
    pytester.makepyfile(test_plain="def test_one():\n    pass\n")
    return pytester


@pytest.mark.parametrize("options,workers", [
    (["--driver=null"], 2),
    (["--driver=null", "-n", "0"], 0),
    (["--driver=null", "-n", "1"], 1),
    (["--driver=null", "-p", "no:xdist"], 0),
    (["--driver=null", "--device=sim:2"], 0),
    (["--driver=agent"], 0),
])
def test_the_worker_count(project, options, workers):
    result = project.runpytest_subprocess(*options, "-p", "no:cacheprovider")
    assert result.ret == 0
    created = [line for line in result.stdout.lines if line.startswith("created: ")]
    assert created == ([f"created: {workers}/{workers} worker" + "s" * (workers > 1)] if workers else [])


def test_under_xdist_the_trials_graded_by_running_the_answer_go_first_one_to_each_workers_first_batch(
        monkeypatch):
    from types import SimpleNamespace

    from pytest_mobium_evals.plugin.collection import _graded_by_running_first

    # a grade that only reads the claim (t60 looks in it for a leak) is not heavy: only one that runs it
    reads_device, runs_the_answer = False, True

    def item(name, grade_runs_answer, driver):
        spec = SimpleNamespace(driver=driver, task=SimpleNamespace(grade_runs_answer=grade_runs_answer))
        return SimpleNamespace(name=name, callspec=SimpleNamespace(params={"mobium_trial": spec}))

    items = [item("a", reads_device, "reference"), item("b", runs_the_answer, "null"),
             item("c", reads_device, "wrong"), item("d", runs_the_answer, "reference"),
             SimpleNamespace(name="plain"), item("e", runs_the_answer, "wrong")]
    items += [item(f"x{i}", reads_device, "reference") for i in range(26)]
    monkeypatch.setenv("PYTEST_XDIST_WORKER_COUNT", "2")
    names = [i.name for i in items]
    _graded_by_running_first(items)
    # 32 items on 2 workers: xdist's first batches are 32 // 2 // 4 = 4 consecutive items each, so the two heavy
    # trials lead gw0's batch (0-3) and gw1's (4-7); the null control's grade reads nothing it ran
    assert [i.name for i in items][:9] == ["d", "a", "b", "c", "e", "plain", "x0", "x1", "x2"]
    assert sorted(i.name for i in items) == sorted(names)


def run_that_notes_the_offer(pytester, monkeypatch) -> None:
    """MobiumApp's tasks in a run folder of their own, offered no server from this process, with a conftest that notes
    in `offered-<worker>-<test>.json` which prepared server each trial's worker was offered."""
    import shutil
    from pathlib import Path

    from pytest_mobium_evals.reach.toolserver import PREPARED_SERVER_ENV

    monkeypatch.delenv(PREPARED_SERVER_ENV, raising=False)
    monkeypatch.delenv("PYTEST_XDIST_WORKER", raising=False)
    root = Path(__file__).resolve().parents[2]
    shutil.copytree(root / "tasks" / "mobiumapp_tasks", pytester.path / "mobiumapp_tasks")
    pytester.makeconftest(f"""
        import json, os

        def pytest_runtest_teardown(item):
            worker = os.environ.get("PYTEST_XDIST_WORKER")
            with open(f"offered-{{worker}}-{{item.name}}.json", "w") as out:
                json.dump(os.environ.get({PREPARED_SERVER_ENV!r}), out)
    """)


def test_the_workers_on_this_machine_fork_their_tool_servers_from_one_prepared_server(pytester, monkeypatch):
    """The controller prepares the built-in server once its workers have collected trials, and each worker's trials
    fork theirs from it, rather than every worker importing a server of its own (its CPU and about 70 MB)."""
    import json

    run_that_notes_the_offer(pytester, monkeypatch)
    result = pytester.runpytest_subprocess("-k", "t04", "--driver=reference,null", "--repeats=2", "-n", "2",
                                           "-p", "no:cacheprovider")
    assert result.ret == 0, result.stdout.str()
    seen = {path.name.split("-")[1]: json.loads(path.read_text()) for path in pytester.path.glob("offered-gw*.json")}
    assert sorted(seen) == ["gw0", "gw1"]
    assert seen["gw0"] is not None and seen["gw0"] == seen["gw1"]  # one server, the controller's


def test_a_run_started_under_an_offered_server_forks_its_trials_servers_from_it(pytester, monkeypatch):
    """A pytest run started by a process that offers a prepared server (as this suite's processes offer theirs to
    the runs their tests start) prepares none of its own: neither its xdist controller for the workers nor a worker
    for itself; the trials fork their servers from the one offered, and grade as they would with their own."""
    import json

    from pytest_mobium_evals.reach.toolserver import PreparedServer

    run_that_notes_the_offer(pytester, monkeypatch)
    server = PreparedServer(offer=True)
    try:
        offered = server.attach_command()
        assert offered is not None, server.problem
        result = pytester.runpytest_subprocess("-k", "t04", "--driver=reference,null", "-n", "2",
                                               "--run-dir=run", "-p", "no:cacheprovider")
    finally:
        server.close()
    assert result.ret == 0, result.stdout.str()
    seen = {path.name: json.loads(path.read_text()) for path in pytester.path.glob("offered-gw*.json")}
    assert len(seen) == 2 and all(json.loads(command) == offered for command in seen.values()), seen
    assert not (pytester.path / "run" / ".session" / "prepared-server.json").exists()


def test_an_offer_whose_server_is_gone_or_of_another_interpreter_is_not_taken(monkeypatch, tmp_path):
    import json
    import sys

    from pytest_mobium_evals.reach.toolserver import PREPARED_SERVER_ENV, offered_from_above

    socket_path = tmp_path / "s"
    socket_path.touch()
    attach = ["-I", "-S", "attach.py", str(socket_path)]
    monkeypatch.setenv(PREPARED_SERVER_ENV, json.dumps([sys.executable, *attach]))
    assert offered_from_above()
    monkeypatch.setenv(PREPARED_SERVER_ENV, json.dumps(["/usr/bin/python3-other", *attach]))
    assert not offered_from_above()
    socket_path.unlink()
    monkeypatch.setenv(PREPARED_SERVER_ENV, json.dumps([sys.executable, *attach]))
    assert not offered_from_above()
    monkeypatch.delenv(PREPARED_SERVER_ENV)
    assert not offered_from_above()


# What a worker sees as it starts: whether the MCP SDK came with it (only a fork of the prepared Python has it
# before its first trial), its parent, its import path's head, its command line and how its stdout is buffered.
WORKER_AT_START = """
import json, os, sys

def pytest_configure(config):
    worker = os.environ.get("PYTEST_XDIST_WORKER")
    with open(f"start-{worker or 'controller'}.json", "w") as out:
        json.dump({"mcp": "mcp.client.session" in sys.modules, "argv": sys.argv, "path": sys.path,
                   "cwd": os.getcwd(), "mark": os.environ.get("PREPARED_WORKER_MARK"), "pid": os.getpid(),
                   "ppid": os.getppid(), "parent": open(f"/proc/{os.getppid()}/cmdline").read().split("\\0")}, out)
"""


def _starts(pytester: pytest.Pytester) -> list[dict]:
    return [json.loads(path.read_text()) for path in sorted(pytester.path.glob("start-gw*.json"))]


def test_the_workers_are_forks_of_one_prepared_python_in_the_runs_folder_and_environment(project, monkeypatch):
    monkeypatch.setenv("PREPARED_WORKER_MARK", "the run's")
    project.makeconftest(WORKER_AT_START)
    project.makepyfile(test_assert="def test_rewritten():\n    assert 1 + 1 == 3\n")
    result = project.runpytest_subprocess("--driver=null", "-p", "no:cacheprovider")
    result.assert_outcomes(passed=1, failed=1)
    assert "assert (1 + 1) == 3" in result.stdout.str()  # the worker's own assertion rewriting of the run's tests
    assert "warning" not in result.stdout.str().lower(), result.stdout.str()  # none about modules imported early
    starts = _starts(project)
    assert len(starts) == 2
    for start in starts:
        assert start["mcp"] is True  # the point: imported once, before the workers
        assert start["parent"][1].endswith("prepared_python.py") and "--origin" in start["parent"], start["parent"]
        assert start["argv"] == ["-c"] and start["cwd"] == str(project.path)
        assert start["mark"] == "the run's"
    project.makeini("[pytest]\nmobium_workers = 2\nmobium_prepared_workers = false\n")
    assert project.runpytest_subprocess("--driver=null", "-p", "no:cacheprovider").ret == 1
    from_nothing = _starts(project)
    assert not any(start["mcp"] for start in from_nothing)
    assert [start["path"] for start in starts] == [start["path"] for start in from_nothing]  # the same import path


@pytest.mark.parametrize("options,ini", [
    (["--tx", "2*popen//python=" + sys.executable], ""),  # a spec of the user's own
    ([], "mobium_prepared_workers = false\n"),
])
def test_workers_the_user_asked_otherwise_start_from_nothing(project, options, ini):
    project.makeini(f"[pytest]\nmobium_workers = 2\n{ini}")
    project.makeconftest(WORKER_AT_START)
    dist = ["--dist", "load"] if options else []
    result = project.runpytest_subprocess("--driver=null", "-p", "no:cacheprovider", *options, *dist)
    assert result.ret == 0
    starts = _starts(project)
    assert len(starts) == 2 and not any(start["mcp"] for start in starts)
    controller = json.loads((project.path / "start-controller.json").read_text())
    assert all(start["ppid"] == controller["pid"] for start in starts)


@pytest.mark.fresh_interpreter
def test_ctrl_c_ends_a_run_and_its_forked_workers(project):
    """Ctrl-C in a terminal (SIGINT to the run's process group) ends the run as interrupted, and its workers with
    it: forks of the prepared Python are outside that group, and each gets the signal from the command that stands
    in for it (its test sees the KeyboardInterrupt). The run is started from nothing, as a user's is, so that its
    controller is in the group too."""
    import os
    import signal
    import subprocess

    from polling import wait_for

    project.makepyfile(test_held="""
        import os, threading

        def hold():
            open(f"held-{os.getpid()}", "w").close()
            try:
                threading.Event().wait(120)
            except KeyboardInterrupt:  # the signal itself, not xdist's kill of a worker that did not go
                open(f"interrupted-{os.getpid()}", "w").close()
                raise

        def test_held_one():
            hold()

        def test_held_two():
            hold()
    """)
    run = subprocess.Popen([sys.executable, "-mpytest", "--driver=null", "-p", "no:cacheprovider", "test_held.py"],
                           cwd=project.path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, start_new_session=True,
                           preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL))
    try:
        def both_held():
            pids = [int(path.name.split("-")[1]) for path in project.path.glob("held-*")]
            return pids if len(pids) == 2 else None

        held = wait_for(both_held, timeout=60, what="both workers to hold their test")
        os.killpg(run.pid, signal.SIGINT)
        out, _ = run.communicate(timeout=60)
        assert run.returncode == pytest.ExitCode.INTERRUPTED, out.decode(errors="replace")[-2000:]
        assert b"KeyboardInterrupt" in out
        wait_for(lambda: not any(_alive(pid) for pid in held), timeout=30, what="the workers to end")
        assert sorted(int(path.name.split("-")[1]) for path in project.path.glob("interrupted-*")) == sorted(held)
    finally:
        if run.poll() is None:
            os.killpg(run.pid, signal.SIGKILL)
            run.wait()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ", 1)[1][0] != "Z"
    except FileNotFoundError:
        return False
