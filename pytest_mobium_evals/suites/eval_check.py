"""An eval command's output against what it must be. Ghost Bench's three kinds: `expect` (exact), `expect_in` (one
of) or `expect_contains` (case-insensitive substring), after stripping, as Ghost Bench's evaluator compares them.
AndroidWorld's suite adds `expect_top_package`: the package of the app in front, read from `am stack list`'s
visible task as android_env reads it."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

EXPECTATIONS = ("expect", "expect_in", "expect_contains")
TOP_PACKAGE = "expect_top_package"
# android_env's _get_current_activity on `am stack list | grep -E visible=true`: the text between the braces of
# the first line that has them (the visible task's topActivity=ComponentInfo{package/class})
_COMPONENT = re.compile(r".*\{(.*)\}")


@dataclass(frozen=True)
class Check:
    """An eval command and what its output must be. `kind` is one of EXPECTATIONS."""

    cmd: str
    kind: str
    expected: Any  # str for expect/expect_contains, tuple[str, ...] for expect_in

    def judge(self, output: str) -> tuple[bool, str]:
        """(passed, reason). The output is stripped first, as Ghost Bench's runner does. The reason carries
        "got X (expected Y)" so a failed trial says what the device really held."""
        got = output.strip()
        if self.kind == "expect":
            return got == self.expected, f"got {_quote(got)} (expected {_quote(self.expected)})"
        if self.kind == "expect_in":
            choices = " or ".join(_quote(value) for value in self.expected)
            return got in self.expected, f"got {_quote(got)} (expected {choices})"
        if self.kind == TOP_PACKAGE:
            match = _COMPONENT.search(got)
            package = match.group(1).split("/", 1)[0] if match else ""
            return package == self.expected, (f"got {_quote(package)} in front (expected {_quote(self.expected)})"
                                              if match else f"got no visible task (expected {_quote(self.expected)})")
        passed = self.expected.lower() in got.lower()
        return passed, f"got {_quote(_clip(got))} (expected it to contain {_quote(self.expected)})"

    def describe(self) -> str:
        if self.kind == "expect":
            return f"`{self.cmd}` prints {_quote(self.expected)}"
        if self.kind == "expect_in":
            return f"`{self.cmd}` prints one of {', '.join(_quote(v) for v in self.expected)}"
        if self.kind == TOP_PACKAGE:
            return f"`{self.cmd}` shows {_quote(self.expected)} in front"
        return f"`{self.cmd}` output contains {_quote(self.expected)}"


def _quote(value: str) -> str:
    return "'" + str(value).replace("\n", "\\n") + "'"


def _clip(text: str, limit: int = 200) -> str:
    return text if len(text) <= limit else text[:limit] + "…"


