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

#: The three controls every task declares: its scripted solution, doing nothing, and its plausible wrong action.
CONTROL_DRIVERS = ("reference", "null", "wrong")

#: Controls derived from the reference with no code in the task, each of which must get the reference's verdict:
#: what a model does differently from the script without doing anything else. `+wait`: the app's clock runs on
#: 30 s before grading (a model thinks before it answers); `+home`: HOME when done, the app brought back as Android
#: does; `+menu`: back to the app's menu when done; `+answers`: the reference's answer in every form its rule must
#: accept, and with a rival appended, which it must not.
METAMORPHIC_DRIVERS = ("reference+wait", "reference+home", "reference+menu", "reference+answers")

#: A task's declared nearly-right actions (`NearMiss`), each with the verdict it must get.
NEAR_MISS = "near-miss"

#: Every driver that is a control of the grader, in the order reports list them.
ALL_CONTROL_DRIVERS = CONTROL_DRIVERS + METAMORPHIC_DRIVERS + (NEAR_MISS,)
DRIVERS = ("agent",) + ALL_CONTROL_DRIVERS


def is_control(driver: str) -> bool:
    return driver in ALL_CONTROL_DRIVERS
