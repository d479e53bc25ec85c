"""What one pass rate is about, defined once: a driver, and for the agent its model setting and surface variant.

"Is this a control?" has one answer, `is_control`, and every part of the harness asks it here (a trial as pytest
schedules it, a record as the writer and the reports read it, a run's drivers as the options name them): no other
module compares a driver's name (tests/core/test_setting.py holds the package to that).

The agent is the one driver that is not a control. A driver this version does not know (a record written by a
newer one, with a control added since) is a control too: it is a script checking the grader, never the model under
evaluation, so its trials are counted as declared, kept out of the agent's rates and comparisons, and its declared
blockers do not gate the session."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Iterable, Optional

from .verdicts import AGENT, ALL_CONTROL_DRIVERS


def is_control(driver: Optional[str]) -> bool:
    """Whether a driver is a control of the grader (a script with a declared verdict) rather than the agent."""
    return driver != AGENT


def includes_agent(drivers: Iterable[str]) -> bool:
    """Whether a run's drivers (`--driver`) include the agent: then it has model settings to check and count."""
    return any(not is_control(d) for d in drivers)


def agent_only(drivers: Iterable[str]) -> bool:
    """Whether the agent is a run's only driver."""
    drivers = list(drivers)
    return bool(drivers) and not any(is_control(d) for d in drivers)


@dataclass(frozen=True)
class Setting:
    """What one pass rate is about: a driver, and for the agent its model, effort and surface variant (a trial's:
`TrialSpec.setting`, `TrialRecord.setting`)."""

    driver: str
    model: str = "none"
    effort: Optional[str] = None
    surface: Optional[str] = None  # the surface variant the agent saw (--surface); None: the server's own
    # The model setting as --model named it ("opus:medium"): how the terminal names the agent's group. Not part of
    # what the setting is: two names for one model and effort are one setting (and one trial folder).
    model_label: Optional[str] = field(default=None, compare=False)

    @property
    def is_control(self) -> bool:
        return is_control(self.driver)

    @property
    def rank(self) -> tuple[int, int]:
        """Where the setting is listed among others: the agent's first, then the controls in the order reports
        list them (`verdicts.ALL_CONTROL_DRIVERS`), then controls this version does not know."""
        if not self.is_control:
            return (0, 0)
        order = {driver: i for i, driver in enumerate(ALL_CONTROL_DRIVERS)}
        return (1, order.get(self.driver, len(order)))

    @property
    def group(self) -> str:
        """The setting as the terminal's summary and the session's collection key it: a control's driver, or
        `agent LABEL` with the model setting as --model named it, and ` surface=NAME` under a surface variant."""
        group = self.driver if self.is_control else f"{AGENT} {self.model_label or self.model}"
        return f"{group} surface={self.surface}" if self.surface else group

    @property
    def short(self) -> str:
        """One word for one-line listings: reference, or claude-haiku-5-5:low."""
        if self.is_control or self.model in ("", "none"):
            return self.driver
        short = f"{self.model}:{self.effort}" if self.effort else self.model
        return f"{short} surface={self.surface}" if self.surface else short

    @property
    def label(self) -> str:
        """The setting as the reports name it: `reference (control)`, or `claude-haiku-5-5, low effort`."""
        if self.is_control:
            return f"{self.driver} (control)"
        label = self.model if self.model not in ("", "none") else self.driver
        label = f"{label}, {self.effort} effort" if self.effort else label
        return f"{label}, surface {self.surface}" if self.surface else label
