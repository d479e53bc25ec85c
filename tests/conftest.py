"""Fixtures the plugin's test folders share."""

from __future__ import annotations

import os

import pytest


@pytest.fixture(scope="module")
def phone():
    """One virtual device behind its own ADB server, reached as the harness reaches a device (`Device`)."""
    from pytest_mobium_evals import sim
    from pytest_mobium_evals.reach.device import Device

    server = sim.start(devices=1, port=0)
    try:
        yield Device.connect(server.serials[0], "127.0.0.1", server.port)
    finally:
        server.close()


@pytest.fixture(scope="session", autouse=True)
def prepared_tool_server():
    """One prepared built-in tool server a test process, offered to the pytest runs its tests start: each run's
    trials fork their servers from it instead of the run preparing one of its own (about 0.65 CPU seconds a run,
    and the suite starts hundreds; reach/devices.py). A test of how a run prepares its own removes the offer
    (`monkeypatch.delenv(PREPARED_SERVER_ENV)`)."""
    from pytest_mobium_evals.reach.toolserver import PreparedServer

    server = PreparedServer(offer=True)
    server.attach_command()  # offered from here on (or, if it did not come up, each run prepares its own)
    yield
    server.close()


def pytest_xdist_auto_num_workers(config):
    """`-n auto` for the plugin's own tests: three workers a core. Most of a test's time is waiting, not work (on
    the virtual device's app timers, a subprocess pytest run, the Claude CLI's start, a fault's deadline): on 2
    cores, 9.6 CPU-minutes of it took 14 wall-minutes with 2 workers and 9 wall-minutes with 6 (DEVELOPERS.md,
    "Running the checks", has today's figures)."""
    return 3 * (os.cpu_count() or 1)


# The modules that take a minute or more of a worker (`--durations` on 2 cores, 6 workers: a module's span from its
# first test's start to its last one's end), longest first: they start first, so they overlap the many short ones
# instead of ending the run alone. The fault modules mostly wait (on a hung device's or tool server's deadline), so
# they overlap the rest best when started early.
LONG_MODULES = (
    "tests/after/test_one_grader.py",  # the main job, every task's controls, then regraded (unless CI names its run)
    "tests/hosts/test_two_hosts.py",  # two simulated hosts over ssh, and one host's run beside them
    "tests/surfaces/test_hillclimb.py",  # two hillclimbs in one module fixture
    "tests/faults/test_agent_faults.py",
    "tests/faults/test_device_faults.py",
    "tests/faults/test_limits.py",
    "tests/plugin/test_trials.py",
    "tests/plugin/test_virtual_device.py",
    "tests/agents/test_what_the_model_reads.py",
    "tests/agents/test_recorded_llama_server.py",
    "tests/reach/test_fleet.py",
    "tests/t25/test_t25_grading.py",
    "tests/agents/test_local_models.py",
    "tests/clients/test_tool_server_run.py",
    "tests/surfaces/test_comparison_controls.py",
    "tests/conformance/test_mobium_app.py",
    "tests/agents/test_drivers.py",
    "tests/conformance/test_dialogs.py",
    "tests/faults/test_server_and_disk_faults.py",
    "tests/faults/test_stop_and_resume.py",
)


def pytest_collection_modifyitems(config, items):
    order = {name: rank for rank, name in enumerate(LONG_MODULES)}
    position = {id(item): index for index, item in enumerate(items)}
    items.sort(key=lambda item: (order.get(item.nodeid.split("::", 1)[0], len(order)), position[id(item)]))


# Modules whose tests go out one by one, not as a module: they share no module fixture, and each mostly waits (a
# replayed real run's agent trials, at an emulator's pace), so one worker holding all of them was the suite's longest
# span (six replays, 490 s in turn on a loaded machine).
SPREAD_MODULES = ("tests/agents/test_recorded_llama_server.py",)


def pytest_xdist_make_scheduler(config, log):
    """Under xdist's default (`--dist load`), the plugin's own tests go out a module at a time, in the order above:
    a module's fixtures (a virtual device, a hillclimb, a conformance daemon) are set up once, and a worker that
    finishes takes the next module, so no batch of long tests queues behind another on one worker. The tests of
    SPREAD_MODULES go out one at a time, at their module's place in that order."""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ModulesAndSpreadTests(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return nodeid if nodeid.split("::", 1)[0] in SPREAD_MODULES else super()._split_scope(nodeid)

    config.option.loadscopereorder = False  # the collection's order, long modules first, not by test count
    return ModulesAndSpreadTests(config, log)


@pytest.fixture(scope="session")
def prepared_pytest():
    """This test process's prepared Python (pytest_mobium_evals/plugin/prepared_python.py), started when a test
    first runs an inner pytest, with what a trial of any driver imports."""
    from pytest_mobium_evals.plugin.prepared_python import AGENT_TRIALS, PreparedPython

    server = PreparedPython(AGENT_TRIALS)
    yield server
    server.close()


@pytest.fixture
def forked_pytest(prepared_pytest):
    """The command line that runs `python -mpytest ARGS` as a fork of the prepared Python (ARGS follow it), or None
    when it did not come up."""
    if not prepared_pytest.ready():
        return None
    return [*prepared_pytest.attach_command(), "-mpytest"]


@pytest.fixture(autouse=True)
def inner_runs_forked(request):
    """A test's `pytester.runpytest_subprocess` runs are forks of the prepared Python, each a process of its own
    with the test's folder, environment and streams, without the 1.6 CPU seconds of imports a run from nothing
    spends. A test about what a fresh interpreter does at start is marked `fresh_interpreter`."""
    if "pytester" not in request.fixturenames or request.node.get_closest_marker("fresh_interpreter"):
        yield
        return
    command = request.getfixturevalue("forked_pytest")
    if command is None:
        yield
        return
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(pytest.Pytester, "_getpytestargs", lambda self: tuple(command))
        yield


def pytest_configure(config):
    config.addinivalue_line("markers", "fresh_interpreter: the test's inner pytest runs start from nothing, not as "
                                       "forks of the prepared pytest (what it checks happens at an interpreter's "
                                       "start)")
