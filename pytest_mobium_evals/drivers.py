"""The four drivers of a trial: the agent, and the grader's three controls.

- agent: a model, through `agents.run_agent` (issue 6), with the MCP tool server as its only tools.
- reference: the task's scripted solution, which must pass.
- null: claims done and does nothing, which must fail (except where the task says why not: t04).
- wrong: the task's plausible wrong action, then claims done, which must fail.

The controls talk to the same tool server, over the same MCP client, into the same transcript as the agent: a
grader is only trusted once it has told these apart through the very path an agent uses."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any, Callable, Optional

from .tasks import CONTROL_DRIVERS, Claim, Task


@dataclass
class DriverRun:
    claim: Claim
    tool_calls: int = 0
    tokens_in: int = 0
    tokens_out: int = 0
    cost_usd: Optional[float] = None
    hit_limit: Optional[str] = None
    seconds: float = 0.0


class DriverError(Exception):
    """A control script that broke (a bug in a reference or wrong script, not the agent's doing). It fails the
    trial with the script's own traceback; it is not an infrastructure error and is never retried."""


def null_script(tools: Any, params: dict) -> Claim:
    """The null control: says it is done, touches nothing."""
    return Claim(status="done", reason="null control: no action taken")


def run_control(driver: str, task: Task, spec: Any, params: dict, on_event: Callable[[dict], None],
                *, tools_factory: Optional[Callable[..., Any]] = None, tool_timeout: float = 60.0) -> DriverRun:
    """Run a control script against a fresh tool server for this trial, then stop the server."""
    if driver not in CONTROL_DRIVERS:
        raise ValueError(f"{driver!r} is not a control driver ({', '.join(CONTROL_DRIVERS)})")
    script = {"reference": task.reference, "wrong": task.wrong, "null": null_script}[driver]
    if tools_factory is None:
        from .toolserver import Tools  # the MCP client, owned by toolserver.py

        def tools_factory(spec, on_event):
            return Tools(spec, timeout=tool_timeout, on_event=on_event)
    counter = _CallCounter(on_event)
    started = time.monotonic()
    tools = tools_factory(spec, on_event=counter)
    try:
        claim = script(tools, params)
    finally:
        tools.close()
    if not isinstance(claim, Claim):
        raise DriverError(f"{task.id} {driver} script returned {type(claim).__name__}, not a Claim")
    return DriverRun(claim=claim, tool_calls=counter.calls, seconds=time.monotonic() - started)


def run_agent_driver(setting: Any, prompt: str, spec: Any, limits: Any, on_event: Callable[[dict], None],
                     workdir: Any, base_url: Optional[str] = None) -> DriverRun:
    """The model, through agents.run_agent (which starts the tool server itself: the Claude CLI owns its MCP
    child). `workdir` is an empty folder of the trial's own: the leakage guard gives the agent nothing else."""
    from . import agents

    started = time.monotonic()
    run = agents.run_agent(setting, prompt, spec, limits, on_event, workdir, base_url)
    return DriverRun(claim=run.claim, tool_calls=run.tool_calls, tokens_in=run.tokens_in or 0,
                     tokens_out=run.tokens_out or 0, cost_usd=run.cost_usd, hit_limit=run.hit_limit,
                     seconds=time.monotonic() - started)


class _CallCounter:
    """Passes transcript events on, counting the tool calls among them."""

    def __init__(self, on_event: Callable[[dict], None]):
        self._on_event = on_event
        self.calls = 0

    def __call__(self, event: dict) -> None:
        if is_call_event(event):
            self.calls += 1
        self._on_event(event)


def event_kind(event: dict) -> str:
    return str(event.get("kind") or event.get("type") or event.get("event") or "")


def is_call_event(event: dict) -> bool:
    return event_kind(event) in ("call", "tool_call")


def is_response_event(event: dict) -> bool:
    return event_kind(event) in ("answer", "result", "tool_result", "error", "tool_error")
