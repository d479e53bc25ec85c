"""The drivers of a trial: the agent, and the grader's controls.

- agent: a model, through `agents.run_agent` (issue 6), with the MCP tool server as its only tools.
- reference: the task's scripted solution, which must pass.
- null: claims done and does nothing, which must fail (except where the task says why not: t04).
- wrong: the task's plausible wrong action, then claims done, which must fail.
- reference+wait, +home, +menu, +answers: the reference, then what a model might do besides (think for 30 s, go
  home, go back to the menu, write its answer its own way); each must get the reference's verdict.
- near-miss: one of the task's declared nearly-right actions, with the verdict it declares.

The controls talk to the same tool server, over the same MCP client, into the same transcript as the agent: a
grader is only trusted once it has told these apart through the very path an agent uses."""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass
from typing import Any, Callable, Optional

from pytest_mobium_evals.core.errors import MobiumEvalsError
from pytest_mobium_evals.core.tasks import Claim, Said, Task
from pytest_mobium_evals.core.transcript import EventKind, is_call
from pytest_mobium_evals.core.verdicts import (
    ALL_CONTROL_DRIVERS,
    METAMORPHIC_DRIVERS,
    NEAR_MISS,
    NULL,
    REFERENCE,
    REFERENCE_HOME,
    REFERENCE_MENU,
    REFERENCE_WAIT,
    WRONG,
)
from pytest_mobium_evals.reach.toolserver import (
    InfraError,
    ToolError,
    Tools,  # the MCP client, owned by toolserver.py
)

# Mobium's error codes that say the device or its toolchain failed, never the caller's request: a control script
# that gets one was stopped by the infrastructure. Every other code (no_such_element, timeout, invalid_argument, …)
# may be the script's own mistake, and is blamed on it only once the device is seen still answering.
INFRA_CODES = frozenset({"no_device", "device_server", "toolchain_missing"})


@dataclass
class DriverRun:
    claim: Claim
    tool_calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: Optional[float] = None
    hit_limit: Optional[str] = None
    stop_reason: Optional[str] = None  # why the driver stopped (trial_record.StopReason); a control's script: "script"
    # What the driver wrote when it stopped calling tools (a call written as text, text that never became a final
    # answer, or the text before the final answer); a control script's, when it returns a `Said`.
    stop_text: Optional[str] = None
    nudged: bool = False  # the agent was told once that its text was not a call
    seconds: float = 0.0
    script_error: Optional[str] = None  # a control script that broke: what it raised, for the failure report


class DriverError(MobiumEvalsError):
    """A control script that broke (a bug in a reference or wrong script, not the agent's doing). The trial is
    still graded, and fails with the script's own message; it is not an infrastructure error and is never
    retried."""


def null_script(tools: Any, params: dict) -> Claim:
    """The null control: says it is done, touches nothing."""
    return Claim(status="done", reason="null control: no action taken")


def infrastructure_cause(exc: BaseException, device_alive: Callable[[], bool]) -> Optional[str]:
    """Why a control script's failure is the infrastructure's doing, or None when it is the script's own.

    A tool error with an infrastructure code (`device_server`, `no_device`, `toolchain_missing`), or a session
    that never reached the device (`device_not_ready` with details.reached false), is the infrastructure's; any
    other failure is blamed on the script only if the device still answers, since a device that stopped answering
    makes every script fail somewhere."""
    if isinstance(exc, InfraError):
        return str(exc)
    if isinstance(exc, ToolError):
        if exc.code in INFRA_CODES:
            return f"the tool server could not reach the device: {exc}"
        if exc.code == "device_not_ready" and exc.details.get("reached") is False:
            return f"the tool server's session never reached the device: {exc}"
    if not device_alive():
        return f"the device stopped answering ({type(exc).__name__}: {exc})"
    return None


#: How long `reference+wait` lets the app's clock run before grading: longer than a model's thinking between its
#: last tool call and its answer, and than any of the apps' transient lines (a toast, a coasting flick).
WAIT_S = 30.0
MENU_BACK_PRESSES = 6  # the deepest MobiumApp screen is three levels below the menu; a keyboard or dialog adds one


def control_script(driver: str, task: Task, variant: Optional[str] = None) -> Callable[[Any, dict], Claim]:
    if driver == NEAR_MISS:
        return task.near_miss(variant).script
    # the reference's script serves each metamorphic control too: after_reference adds what it does besides
    scripts = {REFERENCE: task.reference, NULL: null_script, WRONG: task.wrong} | dict.fromkeys(METAMORPHIC_DRIVERS,
                                                                                               task.reference)
    if driver not in scripts:
        raise ValueError(f"{driver!r} is not a control driver ({', '.join(ALL_CONTROL_DRIVERS)})")
    return scripts[driver]


def after_reference(driver: str, task: Task, tools: Any, pass_time: Callable[[float], None]) -> None:
    """What a metamorphic control does once the reference has claimed: what a model might do after the job,
    which changes nothing the task asks for. Through the same MCP tools as the script, into its transcript."""
    if driver == REFERENCE_WAIT:
        pass_time(WAIT_S)
    elif driver == REFERENCE_HOME:
        tools.call("app_press", button="home")
    elif driver == REFERENCE_MENU:
        back_to_menu(tools, task)


def back_to_menu(tools: Any, task: Task) -> None:
    """Back to the app's menu as a model goes there: into the native context, the app brought to the front if it
    left it, then Android's back until the menu shows."""
    tools.call("app_context", context="NATIVE_APP", check=False)
    current = tools.call("app_current", check=False)
    if task.app and task.app not in (current.text or ""):
        tools.call("app_launch", app=task.app)
    for _ in range(MENU_BACK_PRESSES):
        found = tools.call("app_find", locator=f"testid={task.ready_testid}", check=False)
        if not found.is_error and (found.data or {}).get("elements"):
            return
        tools.call("app_press", button="back")


def run_control(driver: str, task: Task, spec: Any, params: dict, on_event: Callable[[dict], None],
                *, tools_factory: Optional[Callable[..., Any]] = None, tool_timeout: float = 60.0,
                device_alive: Callable[[], bool] = lambda: True, variant: Optional[str] = None,
                pass_time: Callable[[float], None] = time.sleep) -> DriverRun:
    """Run a control script against a fresh tool server for this trial, then stop the server.

    A script stopped by the infrastructure raises InfraError (the trial is an infrastructure error). A script that
    broke on its own (a wrong locator in a reference) returns with no claim and `script_error` set: the trial is
    still graded, and the control fails with what the script raised."""
    script = control_script(driver, task, variant)
    if tools_factory is None:
        def tools_factory(spec, on_event):
            return Tools(spec, timeout=tool_timeout, on_event=on_event)
    counter = _CallCounter(on_event)
    started = time.monotonic()
    tools = tools_factory(spec, on_event=counter)
    script_error = None
    try:
        claim = script(tools, params)
        after_reference(driver, task, tools, pass_time)
    except Exception as exc:
        cause = infrastructure_cause(exc, device_alive)
        if cause is not None:
            raise exc if isinstance(exc, InfraError) else InfraError(cause) from exc
        script_error = f"{task.id} {driver} script raised {type(exc).__name__}: {exc}\n" + \
            "".join(traceback.format_exception(exc)[-6:])
        on_event({"kind": EventKind.SCRIPT_ERROR, "driver": driver, "error": f"{type(exc).__name__}: {exc}"})
        claim = Claim()
    finally:
        tools.close()
    said = None
    if isinstance(claim, Said) and isinstance(claim.claim, Claim):
        said, claim = claim.text, claim.claim
    if not isinstance(claim, Claim):
        script_error = f"{task.id} {driver} script returned {type(claim).__name__}, not a Claim"
        claim = Claim()
    return DriverRun(claim=claim, tool_calls=counter.calls, seconds=time.monotonic() - started,
                     script_error=script_error, stop_reason="script", stop_text=said)


def run_agent_driver(setting: Any, prompt: str, spec: Any, limits: Any, on_event: Callable[[dict], None],
                     workdir: Any, base_url: Optional[str] = None) -> DriverRun:
    """The model, through agents.run_agent (which starts the tool server itself: the Claude CLI owns its MCP
    child). `workdir` is an empty folder of the trial's own: the leakage guard gives the agent nothing else."""
    from pytest_mobium_evals.drivers import agents  # noqa: PLC0415  the model clients: not in a run of controls alone (every task file's control scripts import this module)

    started = time.monotonic()
    run = agents.run_agent(setting, prompt, spec, limits, on_event, workdir, base_url)
    return DriverRun(claim=run.claim, tool_calls=run.tool_calls, tokens_in=run.tokens_in or 0,
                     tokens_out=run.tokens_out or 0, cost_usd=run.cost_usd, hit_limit=run.hit_limit,
                     stop_reason=run.stop_reason, stop_text=run.stop_text, nudged=run.nudged,
                     seconds=time.monotonic() - started)


class _CallCounter:
    """Passes transcript events on, counting the tool calls among them."""

    def __init__(self, on_event: Callable[[dict], None]):
        self._on_event = on_event
        self.calls = 0

    def __call__(self, event: dict) -> None:
        if is_call(event):
            self.calls += 1
        self._on_event(event)
