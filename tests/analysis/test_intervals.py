"""analysis/intervals.py: the bootstrap interval over tasks."""

from __future__ import annotations

import pytest
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


@pytest.mark.parametrize("n", [1, 2, 3, 7, 64, 65, 100, 1000])
def test_the_bootstraps_draw_the_numbers_randrange_draws(n):
    """The intervals draw tasks through a quicker loop than Random.randrange, and must draw the very same tasks in
    the same order: an interval printed before still reprints identically."""
    import itertools
    import random

    from pytest_mobium_evals.analysis.intervals import _draws

    for seed in (0, 20261011):
        plain = random.Random(seed)
        assert list(itertools.islice(_draws(random.Random(seed), n), 500)) == [plain.randrange(n) for _ in range(500)]
