"""The vocabulary every part of the harness shares: the drivers, the verdicts a trial can get, and the one that is
not a verdict at all (`infra_error`). One definition each, so a report and the grader can never disagree on a
spelling."""

from __future__ import annotations

#: The verdicts an agent or control trial can get. `infra_error` is not one of them: it is recorded beside them,
#: counted in the denominator, and never charged to the driver.
VERDICTS = ("pass", "false_success", "false_refusal", "honest_failure", "unreported", "touched", "wrong_reason")
INFRA_ERROR = "infra_error"
ALL_VERDICTS = VERDICTS + (INFRA_ERROR,)

SEVERITIES = ("blocker", "major", "minor")

CONTROL_DRIVERS = ("reference", "null", "wrong")
DRIVERS = ("agent",) + CONTROL_DRIVERS
