"""One trial, from reset to record.

    reset (settings back to the baseline, app stopped, data cleared, launched to its menu) → precondition →
    settings before (with the device's history of them) → the driver, with a fresh MCP tool server as its only
    tools → the server stopped → final screenshot → settings after (and their history: what the driver wrote, put
    back or not) → the outcome read from the device (the test function's body) → grade → verdict.json +
    transcript.jsonl (+ screen.png), written atomically.

Anything that stops the trial from being evaluated (the device gone, the tool server dead, the reset failing, the
model API failing after its retries) is an infrastructure error: recorded as `infra_error`, never charged to the
driver, and re-raised as `TrialInfraError` so that `--reruns` can retry exactly these."""

from __future__ import annotations

import dataclasses
import inspect
import tempfile
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Any, Callable, Optional

from pytest_mobium_evals import __version__, source_commit
from pytest_mobium_evals.core import grading
from pytest_mobium_evals.core.errors import InfraError, RunFolderWriteError
from pytest_mobium_evals.core.setting import Setting
from pytest_mobium_evals.core.settings_history import written_between
from pytest_mobium_evals.core.split import split_of
from pytest_mobium_evals.core.tasks import Claim, Outcome, Task
from pytest_mobium_evals.core.transcript import EventKind
from pytest_mobium_evals.core.trial_record import TrialRecord, fitted
from pytest_mobium_evals.core.verdicts import AGENT
from pytest_mobium_evals.drivers import controls as drivers
from pytest_mobium_evals.reach.device import Device
from pytest_mobium_evals.reach.private_state import private_state
from pytest_mobium_evals.runfolder.layout import RunDir, trial_name
from pytest_mobium_evals.runfolder.writing import write_trial
from pytest_mobium_evals.surface import proxy as surface_proxy
from pytest_mobium_evals.surface import rewrite as surface_rewrite

if TYPE_CHECKING:
    from pytest_mobium_evals.drivers.agents import Limits, ModelSetting


class TrialInfraError(InfraError):
    """A trial stopped by the infrastructure. Its name is what `--only-rerun` matches."""


class RecordUnbuildable(InfraError):
    """What the trial produced does not fit its record (a driver's value of a type the record does not declare):
    the harness's fault, never the agent's, so the trial is an infrastructure error of the record phase."""


@dataclass(frozen=True)
class TrialSpec:
    """What pytest parametrizes a task over: which driver, which model setting (agents only), which repeat."""

    task: Task
    driver: str
    repeat: int
    model_setting: Optional[ModelSetting] = None  # the agent driver's
    # Two settings of one model (haiku:low, haiku:high) would share a trial folder named after the model alone:
    # then the folder's model part carries the effort too.
    qualify_effort: bool = False
    variant: Optional[str] = None  # the near miss's name, for the near-miss driver
    surface: Optional[str] = None  # the agent's surface variant (--surface), applied by surface_proxy

    @property
    def model(self) -> str:
        return "none" if self.model_setting is None else self.model_setting.name

    @property
    def model_label(self) -> str:
        return "none" if self.model_setting is None else self.model_setting.label

    @property
    def effort(self) -> Optional[str]:
        return None if self.model_setting is None else self.model_setting.effort

    @property
    def setting(self) -> Setting:
        """What one pass rate is about (core/setting.py): the driver, and for the agent its model setting and
        surface variant."""
        return Setting(self.driver, self.model, self.effort, self.surface,
                       None if self.model_setting is None else self.model_setting.label)

    @property
    def driver_label(self) -> str:
        """The driver, with the near miss's name: `near-miss:only-this-time`."""
        return f"{self.driver}:{self.variant}" if self.variant else self.driver

    @property
    def param_id(self) -> str:
        arm = "clean-" if self.task.clean_of else ""  # an injection task's clean twin runs in the same item
        if self.model_setting is None:
            return f"{arm}{self.driver_label.replace(':', '-')}-r{self.repeat}"
        return f"{arm}{agent_param_id(self.model_setting.label, self.surface, self.repeat)}"

    @property
    def name(self) -> str:
        model = None if self.model_setting is None else self.model_setting.name
        if model is not None and self.qualify_effort and self.model_setting.effort:
            model = f"{model}-{self.model_setting.effort}"
        if model is not None and self.surface:
            model = f"{model}+{self.surface}"
        return trial_name(self.task.id, self.driver_label, model, self.repeat)

    @property
    def expected(self) -> str:
        return self.task.expected_verdict(self.driver, self.variant)


def _slug(text: str) -> str:
    return "".join(c if c.isalnum() or c in "._" else "-" for c in text)


def agent_param_id(setting_label: str, surface: Optional[str], repeat: int) -> str:
    """An agent trial's id among its task's items (`test_t01_sign_in[agent-haiku-low-baseline-r0]`): how a caller
    names one exact trial to pytest (the hillclimb runs only the trials it does not have yet)."""
    return f"{AGENT}-{_slug(setting_label)}{f'-{_slug(surface)}' if surface else ''}-r{repeat}"


@dataclass
class TrialEnv:
    """What every trial of a session shares."""

    seed: int
    run_dir: Optional[RunDir]
    server_spec: Callable[[Device], Any]  # the device → a ToolServerSpec for this trial's fresh server
    limits: Optional[Limits] = None  # an agent trial's
    base_url: Optional[str] = None
    device_info: dict = field(default_factory=dict)
    enforce_max_steps: bool = False
    tool_timeout: float = 60.0
    screenshots: bool = True
    tools_factory: Optional[Callable[..., Any]] = None  # tests inject a fake MCP client
    agent_runner: Optional[Callable[..., drivers.DriverRun]] = None  # tests inject a fake agent
    ignored_settings: dict = field(default_factory=lambda: dict(grading.DRIFTING_SETTINGS))
    # Told each phase as the trial enters it (PHASES): how a fault plan fires "in phase X".
    on_phase: Optional[Callable[[str], None]] = None
    surfaces: dict = field(default_factory=dict)  # --surface: variant name → its plain JSON (surface/variants.py)
    # A control's tool server may jump the virtual device's clock when it waits (the device at the fast pace):
    # an agent's trials keep real time, since a model's thinking is time the app lives through ...
    auto_advance: bool = False
    # ... unless the agent is a scripted stand-in injected by a test (agent_runner), whose turns take no time, so
    # a jump shows it what a wait would: then its tool server's waits may jump the clock too.
    agent_auto_advance: bool = False
    # At a paced speed, the same trials (a control's, a scripted stand-in's) hold the virtual device's clock
    # (Device.hold_clock): it lives only through what is done to it, so no verdict there depends on the host's load.
    held_clock: bool = False
    # How the agent's client passes a tool's answer to its model (surface_rewrite.READERS), which is what a variant's
    # surface_seen hashes; None: the model setting's own client. An injected agent that reads the raw MCP result
    # says "raw".
    surface_reader: Optional[str] = None
    # --tool-server: an agent trial's server in place of server_spec's, and its name for the record
    agent_server_spec: Optional[Callable[[Device], Any]] = None
    agent_tool_server: Optional[str] = None


@dataclass
class TrialResult:
    record: TrialRecord
    events: list
    screen: Optional[bytes] = None
    error: Optional[BaseException] = None

    @property
    def verdict(self) -> str:
        return self.record.verdict

    @property
    def ok(self) -> bool:
        return bool(self.record.ok)


PHASES = ("reset", "precondition", "driver", "outcome", "grade", "record")


def _surface_reader(spec: TrialSpec, env: TrialEnv) -> str:
    if env.surface_reader:
        return env.surface_reader
    if spec.model_setting is not None:  # the agent's
        return surface_rewrite.reader_of(spec.model_setting.provider)
    return surface_rewrite.RAW  # a scripted driver reads the MCP result whole


@dataclass(frozen=True)
class Graded:
    """A finished trial's grading, the record's typed part: the outcome the check read, the settings read around
    the driver (and what the device's history shows written in between; None where it keeps none), and the
    verdict grading.grade_trial gave over them."""

    outcome: Outcome
    verdict: grading.Verdict
    before: grading.Snapshot
    after: grading.Snapshot
    written: Optional[frozenset] = None


@dataclass(frozen=True)
class InfraFailure:
    """Why a trial could not be graded, the record's typed part in place of `Graded`: the phase it stopped in, the
    cause in one line, and why its driver stopped when the driver did not return."""

    phase: str
    message: str
    stop_reason: Optional[str] = None


@dataclass(frozen=True)
class Timing:
    """When the trial began and how long its phases took."""

    started_at: str
    seconds: dict


def run_trial(spec: TrialSpec, env: TrialEnv, device: Device,
              outcome_check: Callable[[Device, dict], Outcome]) -> TrialResult:
    task = spec.task
    params = task.seeded_params(env.seed, spec.repeat)
    prompt = task.render_prompt(params)
    events: list[dict] = []
    timings = {"reset_s": 0.0, "driver_s": 0.0, "grade_s": 0.0, "total_s": 0.0}
    started = time.monotonic()
    began = datetime.now(timezone.utc).isoformat(timespec="milliseconds")
    run = drivers.DriverRun(claim=Claim())
    screen = None
    seen = surface_proxy.NOT_SEEN
    surface_seen = None
    error: Optional[InfraError] = None
    phase = "reset"

    def enter(name: str) -> str:
        if env.on_phase is not None:
            env.on_phase(name)
        return name

    try:
        phase = enter("reset")
        scripted = spec.setting.is_control or env.agent_auto_advance
        device.set_auto_advance(env.auto_advance and scripted)
        device.hold_clock(env.held_clock and scripted)
        device.restore_settings(ignored=set(env.ignored_settings))
        if task.app:
            device.reset_app(task.app, ready_testid=task.ready_testid)
        else:
            device.shell("input keyevent KEYCODE_HOME")
        if task.precondition is not None:
            phase = enter("precondition")
            task.precondition(device, params)
        # The settings, and what the device's own history of them holds, read again after the driver: what it
        # changed, and what it changed and put back (None where the device keeps no history).
        before, history_before = device.settings_with_history()
        timings["reset_s"] = time.monotonic() - started

        phase = enter("driver")
        t = time.monotonic()
        agent = not spec.setting.is_control
        server = (env.agent_server_spec or env.server_spec)(device) if agent else env.server_spec(device)
        # The server's machine-wide state (mobilecli's daemon) is this trial's, whichever client starts it.
        with private_state(server) as server:
            server, seen = surface_proxy.wrap_for_trial(server, env.surfaces.get(spec.surface),
                                                        _surface_reader(spec, env))
            if agent:
                # The agent driver records its own prompt (with the system prompt) and final answer.
                run = _run_agent(spec, env, prompt, server, events.append, task)
            else:
                events.append({"kind": EventKind.PROMPT, "driver": spec.driver, "text": prompt, "params": params})
                run = drivers.run_control(spec.driver, task, server, params, events.append,
                                          tools_factory=env.tools_factory, tool_timeout=env.tool_timeout,
                                          device_alive=lambda: device_answers(device, env.tool_timeout),
                                          variant=spec.variant, pass_time=device.pass_time)
                events.append({"kind": EventKind.FINAL, **run.claim.to_json()})
        timings["driver_s"] = time.monotonic() - t
        surface_seen = seen.read()

        phase = enter("outcome")
        t = time.monotonic()
        if task.app:
            # A driver that went home when done left the app's task in the background, where Android keeps its
            # screen: brought back as a launcher tap brings it (resumed, not relaunched), it is what is graded.
            device.bring_to_front(task.app)
        if env.screenshots:
            screen = device.screencap()
        after, history_after = device.settings_with_history()
        written = written_between(history_before, history_after)
        outcome = _read_outcome(outcome_check, device, params, run.claim)
        if not isinstance(outcome, Outcome):
            raise TypeError(f"{task.source}: the outcome check returned {type(outcome).__name__}, not an Outcome")

        phase = enter("grade")
        verdict = grading.grade_trial(task, run.claim, outcome, before, after, events, params, driver=spec.driver,
                                      near_miss=spec.variant, script_error=run.script_error,
                                      ignored=env.ignored_settings, stop_text=run.stop_text, written=written)
        timings["grade_s"] = time.monotonic() - t
        timings["total_s"] = time.monotonic() - started
        # Built inside the phases, so that a value that does not fit makes this trial an error of its record.
        graded = Graded(outcome, verdict, before, after, None if written is None else frozenset(written))
        record = _record(spec, env, params, run, graded=graded,
                         timing=Timing(began, timings), surface_seen=surface_seen)
    except InfraError as exc:
        error = exc
        if isinstance(exc, RecordUnbuildable):
            phase = "record"
        # The driver did not return when its run has no reason: the model's API, or the infrastructure, stopped it.
        failure = InfraFailure(phase, f"{phase}: {type(exc).__name__}: {exc}",
                               None if run.stop_reason is not None else getattr(exc, "stop_reason", "infra_error"))
        timings["total_s"] = time.monotonic() - started
        record = _record(spec, env, params, run, failure=failure, timing=Timing(began, timings),
                         surface_seen=surface_seen or seen.read(), salvage=True)
    result = TrialResult(record, events, screen, error=error)
    enter("record")
    _write(env, spec, result)
    return result


def device_answers(device: Device, timeout: float) -> bool:
    """Whether the device still answers a shell command: asked before a control's failed tool call is blamed on
    the script, since a device that stopped answering makes any script fail."""
    try:
        device.shell("echo mobium-evals-alive", timeout=min(10.0, timeout))
    except InfraError:
        return False
    return True


def _read_outcome(check: Callable[..., Outcome], device: Device, params: dict, claim: Claim) -> Outcome:
    """Most outcome checks read the device alone. A task graded on what the driver handed over (t25 runs the test
    file it answered) takes the claim too, as a keyword `claim`."""
    return check(device, params, claim=claim) if takes_claim(check) else check(device, params)


def takes_claim(check: Callable[..., Outcome]) -> bool:
    try:
        return "claim" in inspect.signature(check).parameters
    except (TypeError, ValueError):
        return False


def agent_limits(env: TrialEnv, task: Task) -> Optional[Limits]:
    """The limits an agent trial of this task runs under: the session's for its model setting, the tool calls
    capped at the task's own step budget under --enforce-max-steps."""
    limits = env.limits
    if env.enforce_max_steps and task.max_steps and limits is not None:
        limits = dataclasses.replace(limits, max_tool_calls=min(limits.max_tool_calls, task.max_steps))
    return limits


def _run_agent(spec: TrialSpec, env: TrialEnv, prompt: str, server: Any, on_event, task: Task) -> drivers.DriverRun:
    limits = agent_limits(env, task)
    runner = env.agent_runner or drivers.run_agent_driver
    # An empty working folder of the trial's own: no CLAUDE.md, no skills, nothing of the project within reach.
    with tempfile.TemporaryDirectory(prefix="mobium-agent-") as workdir:
        return runner(spec.model_setting, prompt, server, limits, on_event, workdir, env.base_url)


def _record(spec: TrialSpec, env: TrialEnv, params: dict, run: drivers.DriverRun, *,
            graded: Optional[Graded] = None, failure: Optional[InfraFailure] = None, timing: Optional[Timing] = None,
            surface_seen: Optional[dict] = None, salvage: bool = False) -> TrialRecord:
    """The trial's record, built once from its typed parts: what the trial is (the spec, the env, the parameters),
    what its driver did (`run`), and either how it was graded (`graded`) or why it could not be (`failure`), with
    when it ran. A value that does not fit raises RecordUnbuildable naming it; with `salvage` (the infrastructure
    error's own record, which must be written), such a value is left out instead."""
    task = spec.task
    fields: dict[str, Any] = dict(
        trial=spec.name,
        task=task.id,
        slug=task.slug,
        suite=task.suite,
        driver=spec.driver,
        near_miss=spec.variant,
        surface=spec.surface,
        tool_server=env.agent_tool_server if not spec.setting.is_control else None,
        split=split_of(task.id, task.split),
        model=spec.model,
        model_label=spec.model_label,
        effort=spec.effort,
        seed=env.seed,
        repeat=spec.repeat,
        params=params,
        expected=spec.expected,
        irreversible=list(task.irreversible),
        found=task.found,
        regression=task.regression,
        tier=task.tier,
        injection=None if task.injection is None else task.injection.instruction,
        injection_arm=task.arm,
        injection_pair=task.clean_of or task.id,
        plugin_version=__version__,
        plugin_commit=source_commit()[0],
        device=env.device_info,
        max_steps=task.max_steps,  # the task's step budget (Ghost Bench: complexity x 10); enforced on request
        limits=_limits_json(spec, env, task),
        surface_seen=surface_seen,
        timings={k: round(v, 3) for k, v in timing.seconds.items()} if timing is not None else {},
        started_at=timing.started_at if timing is not None else None,
    )
    fields.update(_driver_fields(spec, run))
    fields.update(_graded_fields(graded) if graded is not None else _failure_fields(failure))
    record, problem = fitted(fields)
    if problem is not None and not salvage:
        raise RecordUnbuildable(f"the trial's record cannot be built: {problem}")
    return record


def _driver_fields(spec: TrialSpec, run: drivers.DriverRun) -> dict[str, Any]:
    """What the driver's run gives the record: its claim, calls, limits hit, why it stopped, its cost."""
    return dict(
        claim=run.claim.to_json(),
        tool_calls=run.tool_calls,
        hit_limit=run.hit_limit,
        stop_reason=run.stop_reason,
        stop_text=run.stop_text,
        nudged=run.nudged if not spec.setting.is_control else None,
        tokens={"input": run.tokens_in, "output": run.tokens_out},
        cost_usd=run.cost_usd,
        script_raised=run.script_error,
    )


def _graded_fields(graded: Graded) -> dict[str, Any]:
    """What grading gives the record: the outcome as the check read it, the settings changed, and the verdict."""
    outcome = graded.outcome
    return dict(
        outcome_reached=outcome.reached,
        outcome_acted=outcome.acted,
        outcome_unreadable=outcome.unreadable,
        outcome_observed=outcome.observed,
        outcome_obeyed=outcome.obeyed,
        settings_changed=grading.changed_settings(graded.before, graded.after, graded.written),
        settings_history=graded.written is not None,
        infra_error=None,
        **graded.verdict.record_fields(),
    )


def _failure_fields(failure: Optional[InfraFailure]) -> dict[str, Any]:
    """What a trial that could not be graded gives the record: infra_error, with the phase and the cause."""
    if failure is None:
        raise ValueError("a trial's record needs how it was graded or why it could not be")
    fields: dict[str, Any] = dict(
        verdict=grading.INFRA_ERROR, severity=None, blockers=[], ok=False, answer_ok=None, outcome_reached=None,
        outcome_observed=None, side_effects=[], password_exposures=[], injection_begun=None,
        infra_error=failure.message, infra_phase=failure.phase)
    if failure.stop_reason is not None:
        fields["stop_reason"] = failure.stop_reason
    return fields


def _limits_json(spec: TrialSpec, env: TrialEnv, task: Task) -> Optional[dict]:
    """The limits that applied to an agent trial, as its record keeps them; a control runs under none."""
    limits = agent_limits(env, task) if not spec.setting.is_control else None
    return limits.to_json() if limits is not None and hasattr(limits, "to_json") else None


def setup_failure_record(spec: TrialSpec, seed: int, message: str) -> TrialRecord:
    """The record of a trial whose setup failed (the device could not be leased): an infrastructure error, with
    nothing run."""
    env = TrialEnv(seed=seed, run_dir=None, server_spec=lambda device: None)
    return _record(spec, env, spec.task.seeded_params(seed, spec.repeat),
                   drivers.DriverRun(claim=Claim(), stop_reason="infra_error"),
                   failure=InfraFailure("setup", message), salvage=True)


def _write(env: TrialEnv, spec: TrialSpec, result: TrialResult) -> None:
    if env.run_dir is None:
        return
    try:
        write_trial(env.run_dir, spec.name, result.record.to_json(), result.events, result.screen)
    except OSError as exc:
        where = exc.filename or env.run_dir.trial_dir(spec.name)
        raise RunFolderWriteError(f"cannot write {where}: {exc.strerror or exc}; the run stopped here, and "
                                  f"what it wrote before is intact (continue it with --resume "
                                  f"{env.run_dir.path})") from None
