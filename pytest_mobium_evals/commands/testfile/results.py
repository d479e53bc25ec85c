"""What a run of a test file found: per-step failures, per-test outcomes, the file's result."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Optional

from .format import EXIT_BAD_FILE, EXIT_FAILED, EXIT_NO_DEVICE, EXIT_PASSED

# ---- results ----------------------------------------------------------------------------------------------------

@dataclass(frozen=True)
class StepFailure:
    """A step that failed: where (beforeEach, the test's steps, or the fresh-app launch), which, and why."""

    phase: str  # "setup" | "beforeEach" | "steps"
    step: int
    tool: str  # "app_wait_for", "expect app_state", …
    code: str
    message: str
    description: str = ""
    soft: bool = False

    def line(self) -> str:
        prefix = {"setup": "starting the app fresh, ", "beforeEach": "beforeEach ", "steps": ""}[self.phase]
        head = f"{prefix}step {self.step} ({self.tool}): [{self.code}] {self.message}"
        if self.soft:
            return f"soft, carried on: {self.description} — {head}" if self.description else \
                f"soft, carried on: {head}"
        if self.step == 1:
            return f"{head}; nothing ran after it"
        ran = "step 1" if self.step == 2 else f"steps 1-{self.step - 1}"
        return f"{head}; {ran} ran before it, and nothing after"

    def to_json(self) -> dict:
        return {"phase": self.phase, "step": self.step, "tool": self.tool, "code": self.code,
                "message": self.message, "description": self.description, "soft": self.soft, "line": self.line()}


@dataclass
class TestOutcome:
    name: str
    failure: Optional[StepFailure] = None
    soft_failures: list[StepFailure] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def passed(self) -> bool:
        return self.failure is None and not self.soft_failures

    @property
    def status(self) -> str:
        return "passed" if self.passed else "failed"

    def detail_lines(self) -> list[str]:
        lines = [f.line() for f in self.soft_failures]
        if self.failure is not None:
            lines.append(self.failure.line())
        return lines

    def to_json(self) -> dict:
        return {"name": self.name, "status": self.status, "seconds": round(self.seconds, 3),
                "failure": self.failure.to_json() if self.failure else None,
                "soft_failures": [f.to_json() for f in self.soft_failures]}


@dataclass
class TestFileResult:
    """What a run of one file came to. `problems` non-empty: a bad file, nothing ran. `infra_error`: the device or
    tool server failed, and the tests from that one on did not run."""

    file: str
    problems: list[str] = field(default_factory=list)
    tests: list[TestOutcome] = field(default_factory=list)
    infra_error: Optional[str] = None
    seconds: float = 0.0
    stopped_early: int = 0  # tests left unrun by max_failures

    @property
    def status(self) -> str:
        if self.problems:
            return "bad_file"
        if self.infra_error:
            return "infra_error"
        return "passed" if all(t.passed for t in self.tests) else "failed"

    @property
    def exit_code(self) -> int:
        return {"bad_file": EXIT_BAD_FILE, "infra_error": EXIT_NO_DEVICE, "passed": EXIT_PASSED,
                "failed": EXIT_FAILED}[self.status]

    @property
    def failed(self) -> list[TestOutcome]:
        return [t for t in self.tests if not t.passed]

    def summary(self) -> str:
        """One line: what the run came to, as the list reporter ends."""
        if self.problems:
            return f"bad file {self.file}: {self.problems[0]}" + (
                f" (and {len(self.problems) - 1} more)" if len(self.problems) > 1 else "")
        passed = len(self.tests) - len(self.failed)
        parts = [f"{passed} passed"]
        if self.failed:
            parts.append(f"{len(self.failed)} failed")
        if self.stopped_early:
            parts.append(f"{self.stopped_early} not run")
        line = f"{', '.join(parts)} ({self.seconds:.1f}s)"
        if self.infra_error:
            line += f"; the run stopped: {self.infra_error}"
        return line

    def to_json(self) -> dict:
        return {"file": self.file, "status": self.status, "exit_code": self.exit_code, "problems": self.problems,
                "infra_error": self.infra_error, "seconds": round(self.seconds, 3), "not_run": self.stopped_early,
                "tests": [t.to_json() for t in self.tests]}
