"""From a Ghost Bench task to our Task: its eval becomes the outcome, its init the precondition (checked to hold
the opposite of the goal), its controls derived (controls.py)."""

from __future__ import annotations

import re
import shlex
import time
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_mobium_evals.core.errors import InfraError
from pytest_mobium_evals.core.tasks import Claim, Controls, Outcome, Task

from ..json_loading import TaskFileError
from ..registry import Entry, object_name
from .controls import control_plan
from .loading import GhostBenchError, GhostTask, load_dir, load_file, load_objects

if TYPE_CHECKING:  # pragma: no cover
    from pytest_mobium_evals.reach.device import Device
    from pytest_mobium_evals.reach.toolserver import Tools

SUITE = "ghost_bench"
#: Between two reads of the device while waiting for an init to take; each read is an ADB round trip already.
_POLL_S = 0.2

#: Ghost Bench's reset (two HOME key events) is kept; we also stop the task's app first, so a trial never starts in
#: the page the previous trial left open (Settings resumes where it was) and results do not depend on test order.
HOME = "input keyevent KEYCODE_HOME"
#: How long a precondition may take to show on the device (`svc wifi disable` returns before wifi_on changes on a
#: real device). Ghost Bench waits a fixed second; we wait for the state instead, and fail loudly if it never comes.
PRECONDITION_TIMEOUT_S = 10.0


class PreconditionError(InfraError):
    """The task's init did not put the device in the opposite state, so the trial would measure nothing. The trial
    records it as an infrastructure error (the reset did not take), with this message, and never charges a driver."""


def slug_of(task_id: str) -> str:
    """A task id's words, lower case, joined by '-' (SystemWifiTurnOn -> system-wifi-turn-on)."""
    words = re.findall(r"[A-Z]+(?=[A-Z][a-z]|\d|\b|_)|[A-Z]?[a-z]+|[A-Z]+|\d+", task_id)
    return "-".join(word.lower() for word in words) or task_id.lower()


def evaluate(task: GhostTask, device: Device) -> tuple[bool, str]:
    """Ghost Bench's evaluate_task over our Device: (passed, "got X (expected Y)")."""
    return task.check.judge(device.shell(task.check.cmd))


def to_task(gt: GhostTask) -> Task:
    """Our Task for a Ghost Bench task: its eval is the outcome, its init the precondition, controls derived."""
    plan = None
    if gt.runs_here:
        # Derived now, so a task whose eval says nothing we can script fails collection with its name rather than
        # failing three trials later.
        try:
            plan = control_plan(gt)
        except GhostBenchError as err:
            raise GhostBenchError(f"{gt.source}: {err}") from None

    def outcome(device: Device, params: dict) -> Outcome:
        passed, reason = evaluate(gt, device)
        if gt.teardown:
            # Ghost Bench tears down right after evaluating; nothing reads the device between the two here either.
            device.shell(gt.teardown["cmd"])
        return Outcome(reached=passed, observed=reason)

    def precondition(device: Device, params: dict) -> None:
        device.shell(f"am force-stop {shlex.quote(gt.app)}")
        device.shell(HOME)
        device.shell(HOME)
        if gt.init:
            device.shell(gt.init["cmd"])
        # Ghost Bench's promise: "the goal is never already satisfied". Checked, not assumed.
        deadline = time.monotonic() + PRECONDITION_TIMEOUT_S
        while True:
            passed, reason = evaluate(gt, device)
            if not passed:
                return
            if time.monotonic() >= deadline:
                init = gt.init["cmd"] if gt.init else "(no init)"
                raise PreconditionError(f"{gt.source}: after `{init}` the goal already holds ({reason}), so a "
                                        f"driver that does nothing would pass")
            time.sleep(_POLL_S)

    def not_here(tools: Tools, params: dict) -> Claim:  # never runs: the item is skipped (see skip_reason)
        raise GhostBenchError(gt.skip_reason)

    reasons = {}
    if plan is not None:
        reasons = {"reference": f"{plan.reference_does}",
                   "null": "claims done and does nothing; the init put the device in the opposite state",
                   "wrong": f"{plan.wrong_does}"}
    reasons.update(gt.controls.reasons)
    controls = Controls(reference=gt.controls.reference, null=gt.controls.null, wrong=gt.controls.wrong,
                        reasons=reasons)
    return Task(
        id=gt.id,
        slug=slug_of(gt.id),
        suite=SUITE,
        prompt=gt.goal.replace("{", "{{").replace("}", "}}"),  # a goal is plain text, never a template
        outcome=outcome,
        reference=plan.reference if plan else not_here,
        wrong=plan.wrong if plan else not_here,
        precondition=precondition,
        controls=controls,
        allowed_settings=plan.allowed_settings if plan else (),
        app="",  # Ghost Bench resets no app's data: clearing Settings or Chrome is not a reset
        max_steps=gt.max_steps,
        platforms=gt.platforms,
        source=gt.source,
        evidence=plan.evidence if plan else "device",
        evidence_reason=plan.evidence_reason if plan else None,
        near_misses=plan.near_misses if plan else (),
    )


def load_tasks(path: Path | str) -> list[Task]:
    """Our Tasks from a task file or a directory of them. Raises GhostBenchError (one line) on a malformed file."""
    path = Path(path)
    ghost = load_dir(path) if path.is_dir() else load_file(path)
    return [to_task(gt) for gt in ghost]


def entries(path: Path, config: Any = None) -> list[Entry]:
    """Ghost Bench's loader in the task registry: one Entry per object of the file; a malformed object is an Entry
    that errors alone with its one line."""
    out = []
    for index, gt in enumerate(load_objects(path), start=1):
        if isinstance(gt, TaskFileError):
            out.append(Entry(None, error=str(gt), name=object_name(gt, index), suite=SUITE))
            continue
        try:
            task = to_task(gt)
        except TaskFileError as err:
            out.append(Entry(None, error=str(err), name=gt.id, suite=SUITE))
            continue
        out.append(Entry(task, marks=((gt.category, f"Ghost Bench tasks of category {gt.category}"),),
                         skip=None if gt.runs_here else gt.skip_reason))
    return out
