"""Mobium's device checks as steps over the `mobium` CLI face: each step runs `bin/mobium` in a subprocess, as a
check script does, and is named after the check and the line it comes from (`login.sh:114`)."""

from __future__ import annotations

import json
import re
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional

import pytest

BIN = Path(__file__).parent / "bin" / "mobium"
APP = "dev.mobium.mobiumapp"


@dataclass
class Ran:
    rc: int
    out: str
    err: str

    @property
    def both(self) -> str:
        """What a check reads with `2>&1`."""
        return self.out + self.err

    @property
    def value(self) -> str:
        """What `$(…)` gives: stdout without its trailing newlines."""
        return self.out.rstrip("\n")


class Cli:
    """`$M` of a check: `bin/mobium --device SERIAL`, one process per call, state held by the session's daemon."""

    def __init__(self, env: dict[str, str], serial: str, pace: Optional[Callable[[str], None]] = None):
        self.env, self.serial = env, serial
        self._pace = pace
        self.uia2 = False  # whether the device has the UiAutomator2 server installed (conftest's UIA2_SERVER)

    def pace(self, name: str) -> None:
        """From here on the device takes `name`'s time per command (sim/pace.py)."""
        assert self._pace is not None, "this device's pace is fixed"
        self._pace(name)

    def run(self, *words: str, device: bool = True) -> Ran:
        argv = [str(BIN), *(("--device", self.serial) if device else ()), *words]
        done = subprocess.run(argv, env=self.env, capture_output=True, text=True, timeout=120)
        return Ran(done.returncode, done.stdout, done.stderr)

    def ok(self, *words: str) -> Ran:
        """A call under `set -e`: it must exit 0."""
        ran = self.run(*words)
        assert ran.rc == 0, f"`mobium {' '.join(words)}` exited {ran.rc}: {ran.both.strip()}"
        return ran

    def value(self, *words: str) -> str:
        return self.run(*words).value

    def json(self, *words: str) -> Any:
        ran = self.run(*words)
        return json.loads(ran.out)

    def fails(self, *words: str, rc: Optional[int] = None) -> Ran:
        """A call the check expects refused (`&& fail`), with Mobium's exit status when the check names one."""
        ran = self.run(*words)
        assert ran.rc != 0, f"`mobium {' '.join(words)}` was accepted: {ran.both.strip()}"
        if rc is not None:
            assert ran.rc == rc, f"`mobium {' '.join(words)}` exited {ran.rc}, want {rc}: {ran.both.strip()}"
        return ran

    # The idioms every check repeats.
    def fresh_start(self, app: str = APP) -> None:
        self.run("terminate", app)
        self.ok("launch", app)

    def says(self, testid: str, want: str) -> None:
        """login.sh's says(): wait for the element, then its text is exactly `want`."""
        self.ok("wait", f"testid={testid}", "--timeout", "5s")
        got = self.value("text", f"testid={testid}")
        assert got == want, f"{testid} reads {got!r}, want {want!r}"

    def advance_clock(self, seconds: float) -> None:
        """A check's `sleep N` while the app's own time runs: the device's clock jumps N s ahead and every timer
        due meanwhile fires at its own time, as on a device that waited, without the wait."""
        self.adb_shell(f"virtual-clock advance {seconds:g}")

    def looks(self, times: int, pause_s: float, holds: Callable[[], bool], what: str) -> None:
        """A check's `while [ $i -lt TIMES ]; do <read> && break; sleep PAUSE; done`: so many reads, the device's
        clock `pause_s` on between them, and no more."""
        for look in range(times):
            if holds():
                return
            if pause_s > 0 and look < times - 1:
                self.advance_clock(pause_s)
        raise AssertionError(f"{what}: not in {times} looks {pause_s:g}s apart")

    def until(self, holds: Callable[[], bool], what: str, deadline_s: float) -> None:
        """A wait on what runs on the host's time, not the device's (a route Mobium steps once a second): the
        check's own span as a deadline over the calls themselves."""
        end = time.monotonic() + deadline_s
        while not holds():
            assert time.monotonic() < end, f"{what}: not within {deadline_s:g}s"

    def adb_shell(self, command: str) -> str:
        """A check's direct `adb -s DEV shell …` stimulus, not a mobium call."""
        import adbutils
        client = adbutils.AdbClient(host="127.0.0.1", port=int(self.env["ANDROID_ADB_SERVER_PORT"]))
        return client.device(self.serial).shell(command)

    def absent(self, testid: str) -> None:
        self.ok("wait", f"testid={testid}", "--for", "hidden", "--timeout", "5s")


def basic_regex(pattern: str) -> str:
    """grep's basic regular expression as Python's: `( ) { } + ? |` stand for themselves, and their escaped forms
    (`\\(`, `\\|`, …, GNU's) are the operators."""
    out, i = [], 0
    while i < len(pattern):
        ch = pattern[i]
        if ch == "\\" and i + 1 < len(pattern):
            nxt = pattern[i + 1]
            out.append(nxt if nxt in "(){}+?|" else ch + nxt)
            i += 2
            continue
        out.append(re.escape(ch) if ch in "(){}+?|" else ch)
        i += 1
    return "".join(out)


def contains(pattern: str, text: str, *, extended: bool = False) -> bool:
    """`grep -q PATTERN`, or `grep -qE PATTERN` with `extended` (ERE reads as Python's for these patterns)."""
    return re.search(pattern if extended else basic_regex(pattern), text, re.M) is not None


@dataclass
class Step:
    where: str
    run: Callable[[Cli], None]
    xfail: str = ""       # a known gap: the step must fail (strict), and says where the gap was read
    hardware: str = ""    # needs a real device's hardware: listed, never run


class Flow:
    """One check's steps in its order, run as one test on one device, each step a subtest named after its line.

    One test rather than one per step: the steps share the device's and the daemon's state in order, which
    `pytest -n` must not split across workers."""

    def __init__(self, check: str):
        self.check = check
        self.steps: list[Step] = []

    def step(self, line: int, *, xfail: str = "", hardware: str = ""):
        def add(fn: Callable[[Cli], None]) -> Callable[[Cli], None]:
            where = f"{self.check}:{line}"
            # A line run more than once (a helper called in a loop) gets its round: `slider.sh:62#2`.
            rounds = sum(1 for s in self.steps if s.where.split("#")[0] == where)
            self.steps.append(Step(where if not rounds else f"{where}#{rounds + 1}", fn, xfail, hardware))
            return fn
        return add

    def hardware(self, line: int, what: str) -> None:
        self.step(line, hardware=what)(_never)

    def test(self):
        steps = self.steps

        def test_check(mobium: Cli, subtests) -> None:
            for step in steps:
                with subtests.test(msg=step.where):
                    _run(step, mobium)

        test_check.__name__ = "test_" + self.check.removesuffix(".sh").replace("-", "_")
        return test_check


def _run(step: Step, cli: Cli) -> None:
    if step.hardware:
        pytest.skip(f"HARDWARE: {step.hardware} ({step.where})")
    if not step.xfail:
        step.run(cli)
        return
    try:
        step.run(cli)
    except Exception:  # the gap shows as any failure: a refusal, a missing field, an unparsable answer
        pytest.xfail(f"{step.where}: {step.xfail}")
    pytest.fail(f"XPASS(strict) {step.where}: the known gap is gone, drop its xfail: {step.xfail}")


def _never(m: Cli) -> None:
    raise AssertionError("a hardware step ran")

