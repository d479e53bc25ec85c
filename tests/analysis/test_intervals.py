"""analysis/intervals.py: the bootstrap interval over tasks."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from pytest_mobium_evals.analysis.intervals import bootstrap_over_tasks


def test_the_interval_is_over_tasks_not_trials():
    # 10 tasks, each either always passing or always failing, 5 repeats: the spread comes from tasks only.
    tasks = {f"t{i}": [i < 7] * 5 for i in range(10)}
    rate = bootstrap_over_tasks(tasks)
    assert rate.rate == 0.7 and rate.tasks == 10 and rate.total == 50
    assert rate.low < 0.6 and rate.high > 0.8  # as wide as 10 samples, not as narrow as 50
    assert bootstrap_over_tasks(tasks) == rate  # seeded: the same trials print the same interval


@given(st.dictionaries(st.text("abc", min_size=1, max_size=3), st.lists(st.booleans(), min_size=1, max_size=4),
                       max_size=6))
def test_interval_contains_the_rate(outcomes):
    rate = bootstrap_over_tasks(outcomes, resamples=200)
    assert 0 <= rate.low <= rate.rate <= rate.high <= 1
    assert rate.total == sum(len(v) for v in outcomes.values())
