"""The trial protocol inside pytest: the fixtures a task's outcome check takes, the trial run in place of the
plain call (run/trial.py), and the verdict carried on the test report. The outcome stays pytest's own (passed/failed),
so junitxml, pytest-html and xdist work unchanged; the trial's record (trial_record.py) travels beside it, as
`report.mobium` (the `TrialRecord` itself; under xdist its JSON form on the wire, made a `TrialRecord` again on the
controller) and a few report attributes and user_properties."""

from __future__ import annotations

import base64
import inspect
from pathlib import Path
from typing import TYPE_CHECKING

import pytest

from pytest_mobium_evals.core.errors import RecordError
from pytest_mobium_evals.core.verdicts import INFRA_ERROR
from pytest_mobium_evals.runfolder.layout import RunDir
from pytest_mobium_evals.runfolder.reading import graded

from .collection import spec_of
from .session import SURFACE_READER, eval_session

if TYPE_CHECKING:  # pydantic's import is left to the first trial: this module loads in every pytest run
    from pytest_mobium_evals.core.trial_record import TrialRecord

RESULT = pytest.StashKey["TrialRecord"]()
SCREEN = pytest.StashKey[str]()  # the final screen, base64, for pytest-html's extras


@pytest.fixture
def mobium_trial(request: pytest.FixtureRequest):
    """The trial this test is (driver, model setting, repeat); parametrized by the plugin."""
    return getattr(request, "param", None)


@pytest.fixture
def mobium_trial_env():
    """None by default. Override it in a conftest with `lambda env: ...` to edit each trial's TrialEnv."""
    return None


@pytest.fixture(scope="session")
def mobium_device(request: pytest.FixtureRequest):
    """The device this process leased for the session (see devices.py)."""
    evals = eval_session(request.config)
    device = evals.devices.lease()
    evals.devices.write_info(evals.options.run_dir)
    return device


@pytest.fixture
def device(mobium_device):
    """The harness's `Device` (over ADB): what a task's outcome check reads."""
    return mobium_device


@pytest.fixture
def params(request: pytest.FixtureRequest, mobium_trial) -> dict:
    """The trial's parameters, from the task's generator seeded by (run seed, task, repeat)."""
    if mobium_trial is None:
        return {}
    return mobium_trial.task.seeded_params(eval_session(request.config).options.seed, mobium_trial.repeat)


class VerdictFailed(AssertionError):
    """The trial's verdict is not the one this driver must get."""


class RunStopped(Exception):
    """The run folder refused a write: the run stops, with one line."""


@pytest.hookimpl(tryfirst=True)
def pytest_pyfunc_call(pyfuncitem: pytest.Function):
    spec = spec_of(pyfuncitem)
    if spec is None:
        return None
    from pytest_mobium_evals.run.trial import RunFolderWriteError, TrialEnv, TrialInfraError, run_trial  # noqa: PLC0415  a trial's machinery (asyncio, the MCP client, the drivers): only in a process that runs trials

    evals = eval_session(pyfuncitem.config)
    run_dir = RunDir(evals.options.run_dir)
    if evals.options.resumed:
        stored = _stored_record(run_dir, spec.name)
        if stored is not None and stored.verdict != INFRA_ERROR:
            stored.resumed = True
            pyfuncitem.stash[RESULT] = stored
            _raise_unless_ok(spec, stored)
            return True

    device = pyfuncitem.funcargs["device"]
    limits = None
    if spec.model_setting is not None:  # the agent's
        limits = evals.agents.limits_for(spec.model_setting, spec.surface)
    env = TrialEnv(seed=evals.options.seed, run_dir=run_dir, server_spec=evals.devices.server_spec, limits=limits,
                   agent_server_spec=evals.devices.agent_server_spec,
                   agent_tool_server=evals.devices.agent_server_label(),
                   base_url=evals.options.base_url, device_info=evals.devices.info,
                   enforce_max_steps=evals.options.enforce_max_steps, tool_timeout=evals.options.tool_timeout,
                   on_phase=evals.devices.enter_phase, surfaces=evals.agents.surface_variants(),
                   auto_advance=evals.devices.pace == "fast", held_clock=evals.devices.pace != "fast",
                   surface_reader=pyfuncitem.config.stash.get(SURFACE_READER, None))
    _customize_env(pyfuncitem, env)
    # the test function's own arguments, as pytest passes them: those without a default
    argnames = [name for name, p in inspect.signature(pyfuncitem.function).parameters.items()
                if p.default is p.empty and p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]

    def outcome_check(dev, params, claim=None):
        kwargs = {name: pyfuncitem.funcargs[name] for name in argnames}
        kwargs.update({k: v for k, v in (("device", dev), ("params", params), ("claim", claim)) if k in argnames})
        return pyfuncitem.obj(**kwargs)

    try:
        result = run_trial(spec, env, device, outcome_check)
    except RunFolderWriteError as exc:
        # Nothing more can be recorded: stop after this trial, with one line (under xdist too).
        message = f"mobium-evals: {exc}"
        pyfuncitem.session.shouldstop = message
        raise RunStopped(message) from None
    record = result.record
    if result.screen:
        pyfuncitem.stash[SCREEN] = base64.b64encode(result.screen).decode("ascii")
    pyfuncitem.stash[RESULT] = record
    if result.error is not None:
        raise TrialInfraError(record.infra_error) from result.error
    _raise_unless_ok(spec, record)
    return True


def _stored_record(run_dir, name: str):
    """A trial's record from an earlier session of the run, or None (absent, half-written, or not of this schema:
    then the trial runs again)."""
    from pytest_mobium_evals.core.trial_record import RecordInvalid, TrialRecord  # noqa: PLC0415  pydantic, left to the first trial's record: this module loads in every pytest run

    data = graded(run_dir, name)
    if data is None:
        return None
    try:
        return TrialRecord.parse(data)
    except RecordInvalid:
        return None


def _customize_env(item: pytest.Function, env) -> None:
    """The seam for the plugin's own tests: a conftest that overrides the `mobium_trial_env` fixture with a
    callable gets to edit each trial's env (a fake MCP client, a fake agent) before the trial runs."""
    hook = item.funcargs.get("mobium_trial_env")  # every trial requests it (collection.mark)
    if callable(hook):
        hook(env)


def _raise_unless_ok(spec, record: TrialRecord) -> None:
    if record.ok:
        return
    lines = [f"{spec.task.id} {spec.task.slug}, {spec.driver}"
             + (f" {spec.model_label}" if spec.model_setting is not None else "")
             + f": got {record.verdict} (expected {record.expected})"]
    lines.append(f"outcome reached: {record.outcome_reached}; the device read {record.outcome_observed!r}")
    lines.append(f"claim: {record.claim_status}; answer: {record.answer!r}; reason: {record.reason!r}")
    if record.stop_text:
        lines.append(f"it wrote before its final answer: {record.stop_text!r}"
                     + (f" (stating {record.stated_status})" if record.stated_status else ""))
    if record.answer_ok is not None:
        lines.append(f"answer accepted: {record.answer_ok}")
    for effect in record.side_effects or []:
        lines.append(f"side effect: {effect.name}: {effect.before} -> {effect.after}"
                     + (" (changed and put back)" if effect.put_back else ""))
    for blocker in record.blocker_lines:
        lines.append(f"BLOCKER: {blocker}")
    if record.script_error:
        lines.append(f"the {spec.driver} script broke (the control is wrong about its task, not the device):")
        lines.append(record.script_error.rstrip())
    raise VerdictFailed("\n".join(lines))


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    report = yield
    spec = spec_of(item)
    if spec is None:
        return report
    report.mobium_trial = spec.name
    if report.when != "call":
        if report.failed and report.when == "setup":
            # a setup failure of a trial (the device could not be leased) is an infrastructure error too
            from pytest_mobium_evals.run.trial import setup_failure_record  # noqa: PLC0415  a trial's machinery (asyncio, the MCP client, the drivers): only in a process that runs trials

            message = str(call.excinfo.value) if call.excinfo else "setup"
            _attach(report, item, setup_failure_record(spec, eval_session(item.config).options.seed, message))
        return report
    if call.excinfo is not None and call.excinfo.errisinstance((RunStopped,)):
        report.longrepr = str(call.excinfo.value)
        return report
    record = item.stash.get(RESULT, None)
    if record is None:
        return report  # the trial broke in harness or task code: an ordinary test failure with its traceback
    if call.excinfo is not None and call.excinfo.errisinstance((VerdictFailed,)):
        # The verdict is the story, not the plugin's stack: show what the device read and what was claimed.
        report.longrepr = str(call.excinfo.value)
    _attach(report, item, record)
    # Only for a run that writes the HTML report: pytest-html is loaded whenever it is installed, and each trial's
    # screen encoding and transcript reading are work a run without --html would do for nothing.
    if item.config.pluginmanager.hasplugin("html") and getattr(item.config.option, "htmlpath", None):
        from .html_hooks import trial_extras  # noqa: PLC0415  pytest-html's side: only when it writes a report

        option = item.config.option
        report.extras = list(getattr(report, "extras", []) or []) + trial_extras(
            Path(eval_session(item.config).options.run_dir), spec.name, record, item.stash.get(SCREEN, None),
            whole=bool(getattr(option, "mobium_full_screens", False)),
            self_contained=bool(getattr(option, "self_contained_html", False)),
            report_dir=Path(option.htmlpath).expanduser().resolve().parent)
    return report


def _attach(report, item, record: TrialRecord) -> None:
    """The record onto the report: whole as `report.mobium` (the `TrialRecord`; `pytest_report_to_serializable`
    below gives xdist its JSON form; pytest-html's columns read it there), and the few facts junitxml shows as user
    properties."""
    report.mobium = record
    shown = record.report_properties()
    # junitxml writes properties from the teardown report, which copies item.user_properties: set both.
    for key in ("verdict", "expected", "severity", "driver", "model", "claim", "answer", "tool_calls", "seconds"):
        if shown[key] is not None:
            prop = (f"mobium_{key}", shown[key])
            if prop not in item.user_properties:
                item.user_properties.append(prop)
            if prop not in report.user_properties:
                report.user_properties.append(prop)


@pytest.hookimpl(wrapper=True)
def pytest_report_to_serializable(config: pytest.Config, report):
    """pytest's own serialization of the report (xdist's worker sends it), with `mobium` in its JSON form: pytest
    copies a report's attributes as they are, and a `TrialRecord` is not JSON."""
    data = yield
    record = getattr(report, "mobium", None)
    if isinstance(data, dict) and record is not None:
        data["mobium"] = record.to_wire()
        # A worker on another host: the trial's files (and the run's .session/) go with it (runfolder/shipping)
        files = eval_session(config).books.files_to_send(getattr(report, "mobium_trial", None))
        if files is not None:
            data["mobium_files"] = files
    return data


@pytest.hookimpl(wrapper=True)
def pytest_report_from_serializable(config: pytest.Config, data):
    """pytest's own report rebuilt from its JSON (on xdist's controller), with `mobium` a `TrialRecord` again, as
    it was on the worker that made it."""
    files = data.pop("mobium_files", None) if isinstance(data, dict) else None
    if files:
        # Written before anything reads the report, so that the run folder holds the trial it speaks of.
        try:
            eval_session(config).books.files_received(files)
        except RecordError as exc:
            pytest.exit(f"mobium-evals: {exc}", returncode=pytest.ExitCode.INTERNAL_ERROR)
    report = yield
    carried = getattr(report, "mobium", None)
    if isinstance(carried, dict):
        from pytest_mobium_evals.core.trial_record import TrialRecord  # noqa: PLC0415  pydantic, left to the first trial's record: this module loads in every pytest run

        report.mobium = TrialRecord.parse(carried)
    return report
