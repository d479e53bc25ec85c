"""Faults on purpose: the virtual device misbehaving at a chosen point, so the harness's handling of a lost device
can be tested deterministically.

A `FaultPlan` holds one fault: what the device does (`drop` the connection unanswered, `hang` without a word, or
answer `garbage`), and when (after the Nth device command, or once the harness enters a named phase of a trial).

    drop:after=40       the 41st device command and every one after it is dropped (the device is gone for good)
    hang:phase=driver   from the first command of each trial's driver phase to the end of that trial, no answer
    garbage:phase=reset each trial's reset gets bytes that are not ADB

A phase fault lasts to the end of the trial it fired in, and comes back in the next trial's phase: one run checks
every trial of it against the same fault. The harness says which phase it is in through `enter_phase` (trial.py
reports each phase it enters); a plan used without a harness (`mobium-evals sim --fault`) fires on counts only.
`MOBIUM_EVALS_SIM_FAULT` sets the plan of a virtual device the plugin starts itself (`--device sim`)."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Optional

KINDS = ("drop", "hang", "garbage")
ENV = "MOBIUM_EVALS_SIM_FAULT"
GARBAGE = b"\xde\xad\xbe\xefNOT-ADB\x00\xff\xfe"


class FaultSpecError(ValueError):
    """A fault spec that cannot be read: the message names the spec and what is wrong with it."""


@dataclass(frozen=True)
class Fault:
    kind: str
    after: Optional[int] = None  # fire on device commands after this many
    phase: Optional[str] = None  # fire from the first command in this phase of a trial

    def __post_init__(self):
        if self.kind not in KINDS:
            raise FaultSpecError(f"fault kind {self.kind!r}: choose one of {', '.join(KINDS)}")
        if (self.after is None) == (self.phase is None):
            raise FaultSpecError(f"fault {self.kind}: give exactly one of after=N or phase=NAME")
        if self.after is not None and self.after < 0:
            raise FaultSpecError(f"fault {self.kind}: after={self.after} must be 0 or more")


def parse_fault(spec: str) -> Fault:
    """`KIND:after=N` or `KIND:phase=NAME`."""
    kind, _, when = spec.strip().partition(":")
    key, _, value = when.partition("=")
    if key == "after":
        try:
            return Fault(kind, after=int(value))
        except ValueError:
            raise FaultSpecError(f"fault {spec!r}: after= takes a whole number, got {value!r}") from None
    if key == "phase" and value:
        return Fault(kind, phase=value)
    raise FaultSpecError(f"fault {spec!r}: expected KIND:after=N or KIND:phase=NAME (KIND one of "
                         f"{', '.join(KINDS)})")


class FaultPlan:
    """What the ADB server asks before serving each device command: `action()` is None (serve it) or a kind."""

    def __init__(self, fault: Optional[Fault] = None):
        self.fault = fault
        self.commands = 0  # device commands seen
        self.fired = 0  # device commands the fault took
        self._phase: Optional[str] = None
        self._phase_armed = False  # the fault's phase was entered in this trial
        self._lock = threading.Lock()
        self._released = threading.Event()  # set when the plan stops (hanging connections then close)

    @classmethod
    def from_spec(cls, spec: Optional[str]) -> "FaultPlan":
        return cls(parse_fault(spec) if spec else None)

    @property
    def phase(self) -> Optional[str]:
        return self._phase

    def enter_phase(self, phase: str) -> None:
        """The harness entered `phase` of a trial. `reset` begins a new trial: a phase fault of the last one ends."""
        with self._lock:
            if phase == "reset":
                self._phase_armed = False
            self._phase = phase
            if self.fault is not None and self.fault.phase == phase:
                self._phase_armed = True

    def action(self) -> Optional[str]:
        with self._lock:
            self.commands += 1
            fault = self.fault
            if fault is None:
                return None
            firing = self._phase_armed if fault.phase is not None else self.commands > fault.after
            if firing:
                self.fired += 1
                return fault.kind
            return None

    def wait_released(self, timeout: float) -> bool:
        """A hanging connection waits here: until the plan is released (the server closing) or the timeout."""
        return self._released.wait(timeout)

    def release(self) -> None:
        self._released.set()
