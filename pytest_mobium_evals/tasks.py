"""What a task is: its prompt, seeded parameters, precondition, outcome check, scripted controls, and the verdict
each control must get. Suites (MobiumApp's t01–t25, Ghost Bench's JSON) build `Task` values; the plugin turns each
into pytest items and runs them as trials.

A task's outcome is read from the device (over ADB), never from what a driver says; a driver only contributes a
`Claim`, which the grader sets against that outcome."""

from __future__ import annotations

import hashlib
import random
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Callable, Literal, Optional

from .verdicts import CONTROL_DRIVERS, DRIVERS, VERDICTS  # noqa: F401  (re-exported: part of the task API)

if TYPE_CHECKING:  # the concrete types live in modules with heavier imports
    from .answers import AnswerRule
    from .device import Device
    from .toolserver import Tools

ClaimStatus = Optional[Literal["done", "cannot"]]



@dataclass(frozen=True)
class Claim:
    """What a driver said at the end: done or cannot (None when it never said), an answer, and its reason."""

    status: ClaimStatus = None
    answer: Optional[str] = None
    reason: Optional[str] = None

    def to_json(self) -> dict:
        return {"status": self.status, "answer": self.answer, "reason": self.reason}

    @classmethod
    def from_json(cls, data: Optional[dict]) -> "Claim":
        data = data or {}
        status = data.get("status")
        return cls(status=status if status in ("done", "cannot") else None,
                   answer=data.get("answer"), reason=data.get("reason"))


@dataclass(frozen=True)
class Outcome:
    """The task's state read back from the device. `reached` is whether the asked-for state holds; `observed` is
    what was read (the app's own string, a setting's value), kept for the record and for "got X (expected Y)".
    `acted` says whether the screen shows that the target was acted on at all (refusal tasks: touched)."""

    reached: bool
    observed: str = ""
    acted: bool = False


@dataclass(frozen=True)
class Controls:
    """The verdict each control driver must get on this task, and why when it is not the usual one."""

    reference: str = "pass"
    null: str = "false_success"
    wrong: str = "false_success"
    reasons: dict = field(default_factory=dict)  # driver -> why its expected verdict is what it is

    def expected(self, driver: str) -> str:
        return getattr(self, driver)


Params = dict[str, Any]
ParamGenerator = Callable[[random.Random], Params]
Precondition = Callable[["Device", Params], None]
Script = Callable[["Tools", Params], Claim]
OutcomeCheck = Callable[["Device", Params], Outcome]


@dataclass
class Task:
    id: str  # "t01", or a Ghost Bench id such as "SystemWifiTurnOn"
    slug: str  # "sign-in"
    suite: str  # "mobiumapp" | "ghost_bench" | ...
    prompt: str  # a template: "{name}" placeholders are filled from the parameters
    outcome: OutcomeCheck
    reference: Script
    wrong: Script
    params: Optional[ParamGenerator] = None
    precondition: Optional[Precondition] = None
    controls: Controls = field(default_factory=Controls)
    irreversible: tuple[str, ...] = ()  # actions that cannot be undone: a false success on them is a blocker
    refusal: bool = False  # refusing is the right answer
    refusal_reason: Optional["AnswerRule"] = None  # for refusal tasks: what a right reason mentions
    answer: Optional["AnswerRule"] = None  # for answer tasks
    allowed_settings: tuple[str, ...] = ()  # "namespace/key" the task is about: changing them is not a side effect
    found: Optional[str] = None  # what this task found in Mobium (CHALLENGES entries); regression tasks have one
    regression: bool = False
    app: str = "dev.mobium.mobiumapp"  # the app reset before the trial ("" for none)
    max_steps: Optional[int] = None  # advisory step budget (Ghost Bench: complexity × 10)
    secrets: tuple[str, ...] = ()  # strings that must never appear in a tool response (the demo password)
    secret_hints: tuple[str, ...] = ()  # on-screen text that holds a secret by design (the app's own hint): not a leak
    platforms: tuple[str, ...] = ("android",)
    source: str = ""  # where the task is defined (file and id), for error messages
    ready_testid: Optional[str] = None  # after the reset's launch, wait until this node is on screen (the menu)

    def seeded_params(self, run_seed: int, repeat: int) -> Params:
        if self.params is None:
            return {}
        return dict(self.params(random.Random(trial_seed(run_seed, self.id, repeat))))

    def render_prompt(self, params: Params) -> str:
        return self.prompt.format(**params)


def trial_seed(run_seed: int, task_id: str, repeat: int) -> int:
    """A trial's own seed: stable, and independent of collection order and of which worker runs it."""
    digest = hashlib.sha256(f"{run_seed}:{task_id}:{repeat}".encode()).hexdigest()
    return int(digest, 16) % 2**32


TASK_ATTR = "__mobium_task__"


def task(**fields: Any) -> Callable[[Callable], Callable]:
    """Attach a `Task` to a test function whose body is the task's outcome check:
    `def test_t01_sign_in(device, params) -> Outcome`. The plugin collects such functions as trials."""

    def decorate(fn: Callable) -> Callable:
        fields.setdefault("suite", "mobiumapp")
        fields.setdefault("source", f"{fn.__module__}.{fn.__name__}")
        value = Task(outcome=fn, **fields)
        setattr(fn, TASK_ATTR, value)
        return mark(fn, value)

    return decorate


def mark(fn: Callable, value: "Task") -> Callable:
    """The pytest marks every task function carries: its suite (`-m mobiumapp`), `regression` when its failure
    once found a Mobium defect, and the trial fixture that the plugin parametrizes over driver × model × repeat."""
    import pytest

    fn = pytest.mark.usefixtures("mobium_trial")(fn)
    fn = getattr(pytest.mark, value.suite)(fn)
    if value.regression:
        fn = pytest.mark.regression(fn)
    return fn


def task_of(obj: Any) -> Optional[Task]:
    return getattr(obj, TASK_ATTR, None)
