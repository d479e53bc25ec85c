"""A process that runs trials freezes what it holds to its end (plugin/long_lived.py), so that the collector's full
collections stop walking pytest, the plugin, the collection and the first trial's imports; a run with no trial, and
--collect-only, leave the collector alone."""

from __future__ import annotations

import json

import pytest
from plugin_fakes import CONFTEST, TASKS

pytest_plugins = ["pytester"]

# Each process of the run says how much was frozen as each trial began and at its end, and how many times the plugin
# froze (a worker writes its own file).
PROBE = r'''
import gc, json
import pytest

SEEN = {"as_trials_began": []}


def pytest_configure(config):
    # What was frozen before the run began: a run forked from a prepared Python (plugin/prepared_python.py) starts
    # with that process's imports frozen already.
    SEEN["at_start"] = gc.get_freeze_count()


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item):
    SEEN["as_trials_began"].append(gc.get_freeze_count())


def pytest_unconfigure(config):
    plugin = config.pluginmanager.get_plugin("mobium-evals-long-lived")
    name = config.workerinput["workerid"] if hasattr(config, "workerinput") else "main"  # not the environment's:
    # a run started by a test in an xdist worker inherits that worker's PYTEST_XDIST_WORKER
    with open(f"frozen-{name}.json", "w") as f:
        json.dump(dict(SEEN, at_end=gc.get_freeze_count(), freezes=plugin.freezes), f)
'''


@pytest.fixture
def suite(pytester: pytest.Pytester) -> pytest.Pytester:
    pytester.makeconftest(CONFTEST + PROBE)
    pytester.makepyfile(test_tasks=TASKS)
    return pytester


def frozen(pytester: pytest.Pytester, name: str) -> dict:
    return json.loads((pytester.path / f"frozen-{name}.json").read_text())


def test_a_run_freezes_its_collection_and_then_its_first_trials_imports(suite):
    suite.runpytest_subprocess("-p", "no:cacheprovider", "--run-dir", "run", "--driver=reference,null",
                               "-n", "0").assert_outcomes(passed=2)
    seen = frozen(suite, "main")
    assert seen["freezes"] == 2
    first, second = seen["as_trials_began"]
    assert first > seen["at_start"]  # the collection, frozen before any trial ran
    assert second > first  # and what the first trial imported, once it had ended


def test_under_xdist_each_worker_freezes_twice_and_the_controller_once(suite):
    # four trials: xdist's first batches give each of the two workers two
    suite.runpytest_subprocess("-p", "no:cacheprovider", "--run-dir", "run", "--driver=reference,null",
                               "--repeats=2", "-n", "2").assert_outcomes(passed=4)
    controller = frozen(suite, "main")
    assert controller["freezes"] == 1 and controller["at_end"] > controller["at_start"]
    workers = [frozen(suite, f"gw{i}") for i in range(2)]
    assert [w["freezes"] for w in workers] == [2, 2]


def test_collect_only_and_a_run_without_trials_freeze_nothing(suite):
    suite.runpytest_subprocess("-p", "no:cacheprovider", "--run-dir", "run", "--driver=reference",
                               "--collect-only").assert_outcomes()
    seen = frozen(suite, "main")
    # nothing frozen by the run (what was frozen before it may only have been freed since)
    assert (seen["as_trials_began"], seen["freezes"]) == ([], 0) and seen["at_end"] <= seen["at_start"]
    suite.makepyfile(test_plain="def test_plain():\n    assert True\n")
    suite.runpytest_subprocess("-p", "no:cacheprovider", "--run-dir", "run2", "test_plain.py").assert_outcomes(
        passed=1)
    seen = frozen(suite, "main")
    (began,) = seen["as_trials_began"]
    assert seen["freezes"] == 0 and seen["at_end"] <= began <= seen["at_start"]
