"""pass^k's estimator and the paired bootstrap difference (intervals.py), and the figures summary.py makes of them."""

from __future__ import annotations

import dataclasses
import itertools
import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_mobium_evals.analysis.intervals import paired_difference, pass_hat_k, pass_k_over_tasks
from pytest_mobium_evals.analysis.summary import TrialScore, difference, difference_line, difference_lines, figures


@given(st.integers(1, 8).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n), st.integers(1, n))))
def test_pass_hat_k_is_the_share_of_k_subsets_that_all_pass(case):
    # C(c, k) / C(n, k) is exactly the chance that k repeats drawn without replacement from the n all passed:
    # count the subsets directly.
    n, c, k = case
    trials = [True] * c + [False] * (n - c)
    subsets = list(itertools.combinations(trials, k))
    assert pass_hat_k(c, n, k) == pytest.approx(sum(all(s) for s in subsets) / len(subsets))


@given(st.integers(2, 8).flatmap(lambda n: st.tuples(st.just(n), st.integers(0, n))))
def test_pass_hat_1_is_the_pass_rate_and_pass_hat_n_needs_every_repeat(case):
    n, c = case
    assert pass_hat_k(c, n, 1) == pytest.approx(c / n)
    assert pass_hat_k(c, n, n) == (1.0 if c == n else 0.0)
    # never above the naive (c/n)**k, which overstates reliability on few repeats
    for k in range(1, n + 1):
        assert pass_hat_k(c, n, k) <= (c / n) ** k + 1e-12


def test_pass_hat_k_refuses_k_above_n():
    with pytest.raises(ValueError, match="1 <= k <= n"):
        pass_hat_k(1, 2, 3)


def test_pass_k_averages_over_tasks_with_an_interval():
    outcomes = {"a": [True, True, True], "b": [True, False, True], "c": [False, False, False]}
    got = pass_k_over_tasks(outcomes, 2)
    # a: 1, b: C(2,2)/C(3,2) = 1/3, c: 0
    assert got.value == pytest.approx((1 + 1 / 3 + 0) / 3) and got.tasks == 3
    assert 0 <= got.low <= got.value <= got.high <= 1
    assert pass_k_over_tasks({"a": [True]}, 2) is None  # no task has two trials


def test_a_paired_difference_resamples_tasks_on_both_sides_together():
    # B passes every task A passes, plus ten more: every draw of tasks favours B, so the interval is clear of 0.
    a = {f"t{i}": [i < 10] * 3 for i in range(30)}
    b = {f"t{i}": [i < 20] * 3 for i in range(30)}
    diff = paired_difference(a, b)
    assert diff.delta == pytest.approx(1 / 3) and diff.tasks == 30
    assert diff.low > 0 and diff.clear_of_zero and "B is better than A" in diff.verdict()
    # the same rates on different tasks: no difference in rate, and the paired interval says it could be noise
    swapped = {f"t{i}": [10 <= i < 20] * 3 for i in range(30)}
    even = paired_difference(a, swapped)
    assert even.delta == 0 and even.low < 0 < even.high and not even.clear_of_zero
    assert paired_difference(a, b) == paired_difference(a, b)  # a fixed seed: the same figures every time


def test_only_tasks_on_both_sides_are_paired():
    diff = paired_difference({"x": [True], "y": [False]}, {"y": [True], "z": [False]})
    assert diff.tasks == 1 and diff.delta == 1.0 and not diff.clear_of_zero
    assert "too few to tell" in diff.verdict()
    assert paired_difference({"x": [True]}, {"z": [True]}) is None


def _outcomes(rates: dict[str, int], repeats: int = 3) -> list[TrialScore]:
    return [TrialScore(task=t, repeat=r, verdict="pass" if r < passes else "honest_failure", success=r < passes)
            for t, passes in rates.items() for r in range(repeats)]


def test_figures_give_pass_k_with_repeats_and_a_difference_line():
    haiku = figures("haiku", _outcomes({f"t{i}": 1 for i in range(12)}), control=False)
    opus = figures("opus", _outcomes({f"t{i}": 3 for i in range(12)}), control=False)
    assert haiku.pass_k.k == 3 and haiku.pass_k.value == 0 and opus.pass_k.value == 1
    assert haiku.rate_text() == "33% [33–33%] (12/36)"
    line = difference_line(haiku, opus)
    assert line.startswith("opus vs haiku: +67 points [+67 to +67] over 12 tasks, clear of zero")
    assert math.isclose(difference(haiku, opus).delta, 2 / 3)
    single = figures("one", _outcomes({"t1": 1}, repeats=1), control=False)
    assert single.pass_k is None and single.pass_k_text() == ""


def test_a_difference_is_taken_apart_over_dev_and_held_out_tasks():
    def split(outcomes: list[TrialScore], held_out: set[str]) -> list[TrialScore]:
        return [dataclasses.replace(o, split="held_out" if o.task in held_out else "dev") for o in outcomes]

    held = {"t0", "t1", "t2", "t3"}
    base = figures("baseline", split(_outcomes({f"t{i}": 1 for i in range(12)}), held), control=False)
    # better on the eight dev tasks only: the one line over all twelve would have said +44
    tuned = figures("tuned", split(_outcomes({f"t{i}": 1 if f"t{i}" in held else 3 for i in range(12)}), held),
                    control=False)
    dev, held_out = difference_lines(base, tuned)
    assert dev.startswith("tuned (dev tasks) vs baseline (dev tasks): +67 points [+67 to +67] over 8 tasks")
    assert held_out.startswith("tuned (held-out tasks) vs baseline (held-out tasks): +0 points")
    one_split = figures("a", _outcomes({"t1": 1}), control=False), figures("b", _outcomes({"t1": 2}), control=False)
    assert difference_lines(*one_split) == [difference_line(*one_split)]
