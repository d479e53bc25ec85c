"""Collection: the task registry's files become pytest's (a Python task file is a test module like any other, a
JSON suite's file a module built by its loader), every task is registered once by id, every task function becomes
its trials (driver × model setting × repeat), `--reruns` is narrowed to infrastructure errors, the agent's readiness
is checked once before any trial, and what was scheduled is written down for the record and the summary."""

from __future__ import annotations

import os
from collections import Counter
from typing import TYPE_CHECKING, Optional

import pytest

from pytest_mobium_evals.core.setting import includes_agent, is_control
from pytest_mobium_evals.core.tasks import task_of
from pytest_mobium_evals.core.verdicts import NULL
from pytest_mobium_evals.runfolder.collection import Collection
from pytest_mobium_evals.suites.registry import TaskRegistry

from .session import EvalSession, eval_session

if TYPE_CHECKING:
    from pytest_mobium_evals.core.tasks import Task
    from pytest_mobium_evals.run.trial import TrialSpec

ONLY_RERUN = "TrialInfraError"  # the class name --reruns is narrowed to (trial.TrialInfraError)


def spec_of(item):
    """The trial an item is (a TrialSpec), or None for an ordinary test."""
    callspec = getattr(item, "callspec", None)
    if callspec is None:
        return None
    return callspec.params.get("mobium_trial")


#: The session's task registry: every task collected, by id, from every suite.
REGISTRY = pytest.StashKey[TaskRegistry]()


def registry_of(config: pytest.Config) -> TaskRegistry:
    return config.stash.setdefault(REGISTRY, TaskRegistry())


def pytest_collect_file(file_path, parent):
    """A JSON suite's task file (the registry knows which, and its loader) as a module of task functions; Python
    task files are pytest's own test modules."""
    from pytest_mobium_evals.plugin.json_suites import collect_json_suite_file  # noqa: PLC0415  the JSON suites' loading, only where files are collected (never xdist's controller)

    return collect_json_suite_file(parent, file_path)


@pytest.hookimpl(tryfirst=True)
def pytest_pycollect_makeitem(collector, name: str, obj):
    """Each task function, of any suite, is marked and registered. A task id taken already fails the second file
    in one line naming both (TaskRegistry.add), as one error item."""
    task = task_of(obj) if callable(obj) else None
    if task is None:
        return None
    mark(obj, task)
    registry_of(collector.config).add(task)
    return None


def mark(fn, task) -> None:
    """The pytest marks a task function carries, put on it as pytest is about to make it an item (the task core,
    tasks.py, knows no pytest): its suite (`-m mobiumapp`), its tier when it is hard (`-m hard`), `regression` when
    its failure once found a Mobium defect, `injection` for an injection task (`-m injection`), the trial fixture
    that the plugin parametrizes over driver × model × repeat, and `mobium_trial_env`, the seam a conftest may
    override (protocol.py reads it from the item's fixtures). Once per function, however many modules hold it."""
    if getattr(fn, "__mobium_marked__", False):
        return
    marks = [pytest.mark.usefixtures("mobium_trial", "mobium_trial_env"), getattr(pytest.mark, task.suite)]
    if task.tier == "hard":
        marks.append(pytest.mark.hard)
    if task.regression:
        marks.append(pytest.mark.regression)
    if task.injection is not None:
        marks.append(pytest.mark.injection)
    for m in marks:
        m(fn)
    fn.__mobium_marked__ = True


def pytest_generate_tests(metafunc: pytest.Metafunc) -> None:
    task = task_of(metafunc.function)
    if task is None or "mobium_trial" not in metafunc.fixturenames:
        return
    evals = eval_session(metafunc.config)
    specs = trial_specs(evals, task)
    if task.injection is not None:
        # Its clean twin runs beside it, under every driver, so a fall in utility under attack can be told from
        # the task being hard.
        specs += trial_specs(evals, task.clean_twin())
    metafunc.parametrize("mobium_trial", specs, ids=[s.param_id for s in specs], indirect=True)


def trial_specs(evals: EvalSession, task: Task) -> list[TrialSpec]:
    """The trials a task runs as in this run: each --driver's, a control once per variant it declares, the agent
    once per model setting and surface variant; each as many times as --repeats."""
    from pytest_mobium_evals.run.trial import TrialSpec  # noqa: PLC0415  run.trial loads the agents and pydantic

    specs = []
    controls = task.control_drivers()
    repeats = evals.options.repeats
    for driver in evals.options.drivers:
        if is_control(driver):
            for control, variant in controls:
                if control == driver:
                    specs += [TrialSpec(task=task, driver=driver, repeat=repeat, variant=variant)
                              for repeat in range(repeats)]
            continue
        settings = evals.agents.settings()
        names = Counter(s.name for s in settings if s is not None)
        for setting in settings:
            qualify = setting is not None and names[setting.name] > 1
            for repeat in range(repeats):
                # Each repeat runs every variant in turn: the same task and seed, interleaved in time.
                for surface in list(evals.agents.surface_variants()) or [None]:
                    specs.append(TrialSpec(task=task, driver=driver, repeat=repeat, model_setting=setting,
                                           qualify_effort=qualify, surface=surface))
    return specs


@pytest.hookimpl(trylast=True)
def pytest_collection_modifyitems(session: pytest.Session, config: pytest.Config, items: list) -> None:
    trials = [item for item in items if spec_of(item) is not None]
    if not trials or config.option.collectonly:
        return  # nothing will run: no readiness check, no run folder
    evals = eval_session(config)
    reruns = getattr(config.option, "reruns", None)
    if reruns and not getattr(config.option, "only_rerun", None):
        # --reruns alone: retry only infrastructure errors, never a verdict (a flaky agent is a result).
        for item in trials:
            item.add_marker(pytest.mark.flaky(reruns=reruns, only_rerun=[ONLY_RERUN]))
    if evals.is_worker:
        _graded_by_running_first(items)
    longest = longest_agent_prompt(evals, trials)
    if includes_agent(evals.options.drivers) and not evals.is_worker:  # under xdist the controller checks (XdistHooks)
        evals.agents.prompt_lines, problem = evals.agents.problem(longest or "")
        if problem:
            raise pytest.UsageError(problem)
    elif evals.is_worker and longest is not None:
        evals.agents.prompt_sizes(longest)  # each worker counts as the controller did, for its trials' limits
    _write_collection(evals, trials, longest)
    if not evals.is_worker:
        evals.books.begin()


def _graded_by_running_first(items: list) -> None:
    """Under xdist, the trials whose grade runs what the driver handed over (`Task.grade_runs_answer`) go first, one
    at the head of each worker's first batch: t25's runs the answered test file on three builds, seconds where other
    trials take a fraction of one, and several of them in one worker's batch (or started last) would be the run's
    tail while every other worker idles. xdist's load scheduler hands each worker a first batch of consecutive items
    (a quarter of its share, at least 2), so the heavy items go that many apart. Every worker sorts alike (a stable
    sort of the same collection, and the same worker count), as xdist needs."""

    def heavy(item) -> bool:
        spec = spec_of(item)
        return spec is not None and spec.driver != NULL and spec.task.grade_runs_answer  # null hands over nothing

    heavy_items = [item for item in items if heavy(item)]
    if not heavy_items:
        return
    rest = [item for item in items if not heavy(item)]
    workers = max(1, int(os.environ.get("PYTEST_XDIST_WORKER_COUNT") or 1))
    batch = max(2, len(items) // workers // 4)
    ordered: list = []
    for item in heavy_items:
        ordered.append(item)
        ordered += rest[:batch - 1]
        del rest[:batch - 1]
    items[:] = ordered + rest


def longest_agent_prompt(evals: EvalSession, items: list) -> Optional[str]:
    """The longest task prompt an agent trial of this run is given (its seeded parameters filled in), or None when
    no agent trial is scheduled: what the first request's size is counted with."""
    prompts = [spec.task.render_prompt(spec.task.seeded_params(evals.options.seed, spec.repeat))
               for spec in (spec_of(item) for item in items) if spec is not None and not spec.setting.is_control]
    return max(prompts, key=len) if prompts else None


def _write_collection(evals: EvalSession, items: list, longest_prompt: Optional[str] = None) -> None:
    """What this session scheduled, for the record and the summary: kept on the session, and written for the
    processes that do not collect (under xdist every worker collects the same items, so they all write the same
    file; the controller reads it)."""
    specs = [spec_of(item) for item in items]
    evals.books.collected(Collection(
        tasks=list(dict.fromkeys(s.task.id for s in specs)), scheduled=[s.name for s in specs],
        settings=dict(Counter(s.setting for s in specs)), suites=sorted({s.task.suite for s in specs}),
        # The controller under xdist collects nothing: it counts the first request with this.
        longest_agent_prompt=longest_prompt))
