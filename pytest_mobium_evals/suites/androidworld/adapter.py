"""From an AndroidWorld task object to our Task: AndroidWorld's shared start-up and the class's setup become the
precondition (checked to leave the goal unmet, or met for a Verify task), its is_successful the outcome (a
composite's score the mean of its parts'), its controls derived with Ghost Bench's machinery.

AndroidWorld scores a trial `score if the agent said it was done else 0`; here the outcome is the device's truth
(reached only at score 1.0) and the claim is set against it by our grader, so the two stay apart in the verdict."""

from __future__ import annotations

import dataclasses
import random
import re
import shlex
import time
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from pytest_mobium_evals.core.tasks import Claim, NearMiss, Outcome, Task

from ..ghost_bench.adapter import PreconditionError, slug_of
from ..ghost_bench.controls import ControlPlan, control_plan
from ..ghost_bench.loading import GhostTask
from ..json_loading import TaskFileError
from ..registry import Entry, object_name
from .loading import AndroidWorldError, AWTask, load_file, load_objects, parts_of
from .native import NativeUnavailable, native_class, native_twin

if TYPE_CHECKING:  # pragma: no cover
    from pytest_mobium_evals.reach.device import Device
    from pytest_mobium_evals.reach.toolserver import Tools

SUITE = "androidworld"
#: AndroidWorld's frozen device time (device_constants.DT, 2023-10-15 15:34:00 UTC) in `date`'s SET format.
DEVICE_TIME = "1015153423.00"
#: AndroidWorld's shared start-up, what TaskEval.initialize_task sends before a class's own setup: automatic time
#: and zone off, the 24-hour clock, the zone UTC (the alarm manager's setTimeZone), then the frozen date. AndroidWorld
#: roots adbd to set the date; this harness does not root a device, so the date is set where adbd already runs as
#: root (an emulator after `adb root`) and otherwise left as it is: none of this suite's checks reads the clock.
SHARED_START = (
    "settings put global auto_time 0",
    "settings put global auto_time_zone 0",
    "settings put system time_12_24 24",
    "service call alarm 3 s16 UTC",
    f'if [ "$(whoami)" = root ]; then date {DEVICE_TIME}; fi',
)
HOME = "input keyevent KEYCODE_HOME"
#: How long the setup may take to show on the device (`svc wifi disable` returns before wifi_on changes on a real
#: device): waited for on the state itself, with this deadline.
START_TIMEOUT_S = 10.0
_POLL_S = 0.2


def close_recents(device: Device) -> None:
    """AndroidWorld's tear-down (adb_utils.close_recents): every `id=N` of the recents dump removed with
    `am stack remove`. Run at the start of the next trial rather than at the end of this one, so the trial's final
    screen is recorded as the agent left it; the next task starts from the same state either way."""
    for number in re.findall(r"id=(\d+)", device.shell("dumpsys activity recents")):
        device.shell(f"am stack remove {number}")


def score(parts: list[AWTask], device: Device) -> tuple[float, str]:
    """AndroidWorld's is_successful: each part's check 1.0 or 0.0, a composite's the mean; and what was read."""
    results = []
    for part in parts:
        assert part.check is not None
        passed, reason = part.check.judge(device.shell(part.check.cmd))
        results.append((passed, f"{part.id}: {reason}" if len(parts) > 1 else reason))
    value = sum(1.0 for passed, _ in results if passed) / len(results)
    return value, f"score {value:g}: " + "; ".join(reason for _, reason in results)


def to_task(aw: AWTask, by_id: dict[str, AWTask]) -> Task:
    """Our Task for one AndroidWorld task object of a file whose tasks are `by_id`."""
    choices = {_key(c): c for c in aw.choices()}
    plans: dict[tuple, list[ControlPlan]] = {}
    for key, choice in choices.items():
        parts = parts_of(aw, choice, by_id)
        try:
            plans[key] = [control_plan(_ghost(part, choice if part is aw else part_params(part))) for part in parts]
        except TaskFileError as err:
            raise AndroidWorldError(f"{aw.source}: {err}") from None
    first = next(iter(plans.values()))

    def parts_for(params: dict) -> list[AWTask]:
        return parts_of(aw, _choice(params), by_id)

    def plan_for(params: dict) -> list[ControlPlan]:
        return plans[_key(_choice(params))]

    def outcome(device: Device, params: dict) -> Outcome:
        value, observed = score(parts_for(params), device)
        return Outcome(reached=value == 1.0, observed=observed)

    def precondition(device: Device, params: dict) -> None:
        parts = parts_for(params)
        close_recents(device)
        for line in SHARED_START:
            device.shell(line)
        for package in dict.fromkeys(p for task in [aw, *parts] for p in task.packages):
            device.shell(f"am force-stop {shlex.quote(package)}")
        device.shell(HOME)
        for part in ([aw] if not aw.composite else parts):
            for step in part.setup:
                device.shell(step["cmd"])
        _wait_for_start(aw, parts, device)

    def reference(tools: Tools, params: dict) -> Claim:
        return _in_turn([plan.reference for plan in plan_for(params)], tools, params)

    def wrong(tools: Tools, params: dict) -> Claim:
        # every part done right but the last, which is done wrong: a composite then scores (n-1)/n, short of 1.0
        steps = plan_for(params)
        return _in_turn([plan.reference for plan in steps[:-1]] + [steps[-1].wrong], tools, params)

    def open_then_home(tools: Tools, params: dict) -> Claim:
        claim = reference(tools, params)
        tools.call("app_press", button="home")
        return claim

    # A goal one of whose parts is an app in front (OpenAppTaskEval, TurnOnWifiAndOpenApp) is read off the screen:
    # going home afterwards undoes it, and the near miss that does so must be caught.
    front = next((plan for plan in first if plan.evidence == "foreground"), None)
    near_misses = () if front is None else (NearMiss(
        "open-then-home", open_then_home, "false_success",
        "does the task, then goes back to the home screen before claiming: the app is no longer in front, as "
        "AndroidWorld's check reads it"),)
    verify = aw.starts == "met"
    reasons = {
        "reference": "; then ".join(plan.reference_does for plan in first),
        "null": ("claims done and does nothing: a Verify task's goal holds from the start, and AndroidWorld scores "
                 "that 1.0 once the agent says it is done" if verify else
                 "claims done and does nothing; the setup put the device in the opposite state"),
        "wrong": ("the goal holds from the start; " if verify else "")
        + "; then ".join([plan.reference_does for plan in first[:-1]] + [first[-1].wrong_does]),
    }
    reasons.update(aw.controls.reasons)
    controls = dataclasses.replace(aw.controls, reasons=reasons)
    allowed = tuple(dict.fromkeys(s for steps in plans.values() for plan in steps for s in plan.allowed_settings))
    return Task(
        id=aw.id,
        slug=slug_of(aw.id),
        suite=SUITE,
        prompt=aw.template,
        params=_generator(aw),
        outcome=outcome,
        reference=reference,
        wrong=wrong,
        precondition=precondition,
        controls=controls,
        allowed_settings=allowed,
        app="",  # AndroidWorld restores these apps' snapshots, which hold nothing for them: no app data is reset
        max_steps=aw.max_steps,
        source=aw.source,
        evidence="foreground" if front is not None else "device",
        evidence_reason=front.evidence_reason if front is not None else None,
        near_misses=near_misses,
    )


def part_params(part: AWTask) -> dict[str, str]:
    """A part's own parameters, fixed (load_file refuses a part that draws them)."""
    return part.choices()[0]


def load_tasks(path: Path | str) -> list[Task]:
    """Our Tasks from a task file or a directory of them. Raises AndroidWorldError (one line) on a mistake."""
    path = Path(path)
    files = sorted(path.glob("*.json")) if path.is_dir() else [path]
    out = []
    for file in files:
        tasks = load_file(file)
        by_id = {t.id: t for t in tasks}
        out.extend(to_task(t, by_id) for t in tasks)
    return out


def _ghost(part: AWTask, params: dict[str, str]) -> GhostTask:
    """The part as Ghost Bench's control derivation reads a task: its goal's words, the setting or app its check
    reads, the app it opens (Settings for a settings task), and our optional `ui`."""
    assert part.check is not None
    return GhostTask(id=part.id, goal=part.template.format(**params), app=part.packages[0], category=SUITE,
                     check=part.check, ui=part.ui, source=part.source)


def _in_turn(steps: list[Callable[[Tools, dict], Claim]], tools: Tools, params: dict) -> Claim:
    reasons = []
    for step in steps:
        claim = step(tools, params)
        if claim.status != "done":
            return claim
        reasons.append(claim.reason or "")
    return Claim("done", reason=" ".join(r for r in reasons if r))


def _wait_for_start(aw: AWTask, parts: list[AWTask], device: Device) -> None:
    want_met = aw.starts == "met"
    deadline = time.monotonic() + START_TIMEOUT_S
    while True:
        value, observed = score(parts, device)
        if (value == 1.0) == want_met:
            return
        if time.monotonic() >= deadline:
            state = "does not hold" if want_met else "already holds"
            raise PreconditionError(f"{aw.source}: after the setup the goal {state} ({observed}), so the trial "
                                    f"would not measure what {aw.cls} measures")
        time.sleep(_POLL_S)


def _generator(aw: AWTask) -> Callable[[random.Random], dict]:
    def params(rng: random.Random) -> dict:
        return {name: rng.choice(v) if isinstance(v, list) else v for name, v in aw.params.items()}
    return params


def _choice(params: dict) -> dict[str, str]:
    return {k: str(v) for k, v in params.items()}


def _key(choice: dict[str, str]) -> tuple:
    return tuple(sorted(choice.items()))


def entries(path: Path, config: Any = None) -> list[Entry]:
    """AndroidWorld's loader in the task registry: one Entry per object of the file; a malformed object (or one
    whose controls cannot be derived) is an Entry that fails alone with its one line, under its id (or its place in
    the file when it has none). With --androidworld-native, each task is followed by its twin graded by
    AndroidWorld's own class."""
    native = bool(config is not None and config.getoption("mobium_androidworld_native", False))
    loaded = load_objects(path)
    by_id = {item.id: item for item in loaded if isinstance(item, AWTask)}
    out = []
    for index, item in enumerate(loaded, start=1):
        if isinstance(item, AWTask):
            try:
                task = to_task(item, by_id)
            except AndroidWorldError as err:
                item = err
            else:
                out.append(Entry(task))
                if native:
                    out.append(_native_entry(item, task))
                continue
        out.append(Entry(None, error=str(item), name=object_name(item, index), suite=SUITE))
    return out


def _native_entry(aw: AWTask, task: Task) -> Entry:
    try:
        return Entry(native_twin(task, native_class(aw.cls)))
    except NativeUnavailable as err:
        return Entry(None, error=f"{aw.source}: --androidworld-native: {err}", name=f"{aw.id}.native",
                     suite=SUITE)
