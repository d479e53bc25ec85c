"""AndroidWorld's run summary (`<run_dir>/androidworld.json`), Ghost Bench's run shape with AndroidWorld's score:
the task's score on the device (a composite's 0.5 included) when the agent ended saying done or cannot (an
"infeasible" end is done to AndroidWorld), else 0. Our verdict is kept beside it."""

from __future__ import annotations

import re

from pytest_mobium_evals.core.trial_record import TrialRecord
from pytest_mobium_evals.runfolder.layout import ANDROIDWORLD_SUMMARY

from ..ghost_bench.summary import SummarySpec
from .adapter import SUITE

# what the outcome records: "score 0.5: ..." (our grader) or "AndroidWorld <Class>.is_successful: 0.5" (a twin)
_SCORE = re.compile(r"(?:^score |\.is_successful: )(\d+(?:\.\d+)?)")


def androidworld_score(record: TrialRecord) -> float:
    """AndroidWorld's `score if done else 0` for one stored trial."""
    if record.claim_status not in ("done", "cannot"):
        return 0.0
    match = _SCORE.search(str(record.outcome_observed or ""))
    if match:
        return float(match.group(1))
    return 1.0 if record.outcome_reached else 0.0


SPEC = SummarySpec(suite=SUITE, file=ANDROIDWORLD_SUMMARY, score=androidworld_score,
                   note="score is AndroidWorld's: the device's score (a composite's the mean of its parts) when the "
                        "driver ended saying done or cannot, else 0; verdict is ours (the device set against the "
                        "claim, which tells a false 'done' from an honest 'cannot'); success_rate is the mean score")
