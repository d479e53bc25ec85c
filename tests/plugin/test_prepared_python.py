"""The prepared Python the suite's inner runs are forks of (plugin/prepared_python.py): a fork is the run
`python -mpytest` would be, in the test's folder, with its environment, import path and streams, its exit status and
the signal that ended it, and with the imports it is there for already made; a run whose client is killed goes with
it. `python -c CODE` (xdist's workers) is forked too, and any other command line runs as it would."""

from __future__ import annotations

import json
import os
import signal
import subprocess

import pytest
from polling import wait_for

pytest_plugins = ["pytester"]

# What a run's own conftest sees when it is imported: whether the MCP SDK is imported already (only in a fork of the
# prepared pytest: a run from nothing imports it at its first trial), and where the run is.
SEEN_AT_START = """
import json, os, sys
with open("start.json", "w") as out:
    json.dump({"mcp": "mcp.client.session" in sys.modules, "cwd": os.getcwd(), "argv0": sys.argv[0],
               "mark": os.environ.get("PREPARED_PYTEST_MARK"), "pid": os.getpid(), "ppid": os.getppid(),
               "path0": sys.path[0]}, out)
"""

TESTS = """
import os, signal, sys
import helper_on_the_path


def test_reads_the_runs_own_module():
    assert helper_on_the_path.VALUE == "the run's own"


def test_fails():
    assert 1 + 1 == 3


def test_ends_by_a_signal_when_asked():
    if os.environ.get("PREPARED_PYTEST_SIGNAL"):
        os.kill(os.getpid(), signal.SIGTERM)
"""


@pytest.fixture
def inner(pytester: pytest.Pytester, monkeypatch):
    monkeypatch.setenv("PREPARED_PYTEST_MARK", "set by the test")
    monkeypatch.delenv("PREPARED_PYTEST_SIGNAL", raising=False)
    pytester.makeconftest(SEEN_AT_START)
    pytester.makepyfile(helper_on_the_path="VALUE = \"the run's own\"", test_inner=TESTS)
    return pytester


def test_an_inner_run_is_a_fork_that_starts_with_the_sdk_imported_in_the_tests_folder_and_environment(inner):
    result = inner.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1)
    assert result.ret == 1
    assert "assert (1 + 1) == 3" in result.stdout.str()  # the run's own assertion rewriting
    assert "warning" not in result.stdout.str().lower(), result.stdout.str()  # none about modules imported early
    start = json.loads((inner.path / "start.json").read_text())
    assert start["mcp"] is True  # the fork's point: the MCP SDK came with it
    assert (start["cwd"], start["path0"]) == (str(inner.path), str(inner.path))
    assert start["mark"] == "set by the test"
    assert start["argv0"].endswith(os.path.join("pytest", "__main__.py"))  # as `python -mpytest` sets it
    assert start["ppid"] != os.getpid()


@pytest.mark.fresh_interpreter
def test_a_run_from_nothing_is_the_same_run_without_the_sdk(inner):
    """The marker's runs start from nothing: the same outcomes, and the SDK not imported at its start."""
    result = inner.runpytest_subprocess("-p", "no:cacheprovider")
    result.assert_outcomes(passed=2, failed=1)
    start = json.loads((inner.path / "start.json").read_text())
    assert start["mcp"] is False and start["ppid"] == os.getpid()
    assert start["mark"] == "set by the test"


def test_a_run_ended_by_a_signal_ends_its_client_by_the_same_signal(inner, monkeypatch):
    monkeypatch.setenv("PREPARED_PYTEST_SIGNAL", "1")
    result = inner.runpytest_subprocess("-p", "no:cacheprovider", "-k", "signal")
    assert result.ret == -signal.SIGTERM


def test_a_run_whose_client_is_killed_goes_with_it(inner, forked_pytest):
    """As a run from nothing ends when it is killed (pytester's timeout kills it): the client's end ends the fork,
    which holds on until then (its test waits for a file that never comes)."""
    inner.makepyfile(test_held="""
        import threading

        def test_held():
            threading.Event().wait(120)
    """)
    client = subprocess.Popen([*forked_pytest, "-p", "no:cacheprovider", "test_held.py"],
                              cwd=inner.path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        def started():
            try:  # the file is there before its text is (the fork writes it as it starts)
                return json.loads((inner.path / "start.json").read_text())
            except (FileNotFoundError, ValueError):
                return None

        start = wait_for(started, timeout=60, what="the fork to start")
        assert start["mcp"] is True
        client.kill()
        client.wait()
        wait_for(lambda: not _alive(start["pid"]), timeout=30, what="the fork to end with its client")
    finally:
        client.kill()
        client.wait()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as stat:
            return stat.read().split(") ", 1)[1][0] != "Z"  # a zombie has ended, its parent not told yet
    except FileNotFoundError:
        return False


SEEN_BY_CODE = ("import json, os, sys; print(json.dumps({'mcp': 'mcp.client.session' in sys.modules, "
                "'argv': sys.argv, 'path0': sys.path[0], 'unbuffered': sys.stdout.write_through, "
                "'ignores_environment': sys.flags.ignore_environment, 'read': sys.stdin.read(), 'pid': os.getpid(), "
                "'mark': os.environ.get('PREPARED_PYTEST_MARK')}))")


@pytest.mark.parametrize("flags,forked", [(["-u"], True), ([], True), (["-E"], False)])
def test_code_on_the_command_line_runs_as_a_fresh_interpreter_would_forked_or_not(prepared_pytest, tmp_path,
                                                                                  monkeypatch, flags, forked):
    """`-c CODE` after -u (xdist's workers are started so) is forked; a command line the prepared Python does not
    fork (-E here) is run by the interpreter itself, with what it asked."""
    assert prepared_pytest.ready(), prepared_pytest.problem
    monkeypatch.setenv("PREPARED_PYTEST_MARK", "the asker's")
    done = subprocess.run([*prepared_pytest.attach_command(), *flags, "-c", SEEN_BY_CODE, "one", "two"],
                          input="what the asker wrote", capture_output=True, text=True, cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    seen = json.loads(done.stdout)
    assert seen["mcp"] is forked
    assert seen["argv"] == ["-c", "one", "two"] and seen["path0"] == ""
    assert seen["unbuffered"] is ("-u" in flags)
    assert seen["ignores_environment"] == ("-E" in flags)
    assert seen["read"] == "what the asker wrote"
    assert seen["mark"] == "the asker's"  # -E ignores only PYTHON* variables


def test_with_no_prepared_python_there_the_client_is_the_interpreter(tmp_path):
    from pytest_mobium_evals.plugin.prepared_python import PreparedPython

    gone = PreparedPython(modules=())
    command = gone.attach_command()
    gone.close()
    done = subprocess.run([*command, "-u", "-c", SEEN_BY_CODE], input="", capture_output=True, text=True,
                          cwd=tmp_path, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout)["mcp"] is False
