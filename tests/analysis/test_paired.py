"""The paired statistics of a variant against baseline, and `mobium-evals plan`."""

from __future__ import annotations

import itertools
from fractions import Fraction

import numpy as np
import pytest

from pytest_mobium_evals.analysis import paired, planning


def test_the_exact_sign_flip_test_counts_every_flip():
    assert paired.sign_flip_test([]) is None
    five = paired.sign_flip_test([1, 1, 1, 1, 1])
    assert (five.better, five.worse, five.decidable) == (1 / 32, 1.0, False)  # 1/32 > 2.5%: never clear
    six = paired.sign_flip_test([1, 1, 1, 1, 1, 1])
    assert (six.better, six.decidable) == (1 / 64, True)
    assert paired.min_tasks_to_decide() == 6
    # Unequal differences: totals of ±1/3 ±2/3 ±1: {2, 4/3, 2/3, 0, 0, -2/3, -4/3, -2}; observed 2/3 → 3 of 8 at least
    mixed = paired.sign_flip_test([Fraction(1, 3), Fraction(-2, 3), 1])
    assert (mixed.better, mixed.worse) == (3 / 8, 6 / 8)
    # A task that did not move flips onto itself: counted twice, it changes no share.
    assert paired.sign_flip_test([1, 1, 0]).better == paired.sign_flip_test([1, 1]).better == 1 / 4
    # By brute force over every flip, for differences of pass rates over 3 repeats.
    diffs = [Fraction(k, 3) for k in (2, -1, 3, 1, 0, 1, -2)]
    flips = [sum(s * d for s, d in zip(signs, diffs)) for signs in itertools.product((1, -1), repeat=len(diffs))]
    test = paired.sign_flip_test(diffs)
    assert test.better == sum(f >= sum(diffs) for f in flips) / len(flips)
    assert test.worse == sum(f <= sum(diffs) for f in flips) / len(flips)


def test_clearly_better_holds_its_level_under_a_a_for_every_task_count_and_repeats():
    """A/A: baseline and variant are the same agent (each task its own pass rate, every trial independent). "Clearly
    better" must come at most 2.5% of the time in every cell of 3-40 held-out tasks x 1-5 repeats. With 2,000 runs a
    cell, a rule that held only 4% would show above 3.5% in most cells; the old interval rule showed 6% at 5 tasks."""
    rng = np.random.default_rng(35)
    draws, worst, rates = 2000, 0.0, {}
    for tasks in (3, 4, 5, 6, 7, 8, 10, 12, 16, 20, 30, 40):
        for repeats in range(1, 6):
            rate = rng.uniform(0, 1, size=(draws, tasks, 1))
            base = (rng.uniform(size=(draws, tasks, repeats)) < rate).sum(axis=2)
            mine = (rng.uniform(size=(draws, tasks, repeats)) < rate).sum(axis=2)
            calls = [paired.sign_flip_test(d).better <= paired.LEVEL for d in (mine - base).tolist()]
            rates[(tasks, repeats)] = sum(calls) / draws
            worst = max(worst, rates[(tasks, repeats)])
    assert worst <= 0.035, max(rates.items(), key=lambda kv: kv[1])
    assert all(rates[(n, r)] == 0 for n in (3, 4, 5) for r in range(1, 6))  # cannot be clear with 5 or fewer
    # and the same simulation sees a real effect: +40 points on every one of 10 tasks is called clear most times
    rate = rng.uniform(0, 0.6, size=(draws, 10, 1))
    base = (rng.uniform(size=(draws, 10, 3)) < rate).sum(axis=2)
    mine = (rng.uniform(size=(draws, 10, 3)) < rate + 0.4).sum(axis=2)
    assert sum(paired.sign_flip_test(d).better <= paired.LEVEL for d in (mine - base).tolist()) / draws > 0.5


def test_a_comparison_names_the_flipped_tasks_and_is_clear_only_off_zero():
    base = {"a": [True, True], "b": [False, False], "c": [True, False], "d": [True, True]}
    same = paired.compare_outcomes("m", "copy", "held_out", base, dict(base))
    assert (same.delta, same.low, same.high, same.clear) == (0, 0, 0, False)
    assert same.call == "cannot be clear with 4 held-out tasks"
    assert same.better == same.worse == []
    better = paired.compare_outcomes("m", "v", "held_out", base, {**base, "b": [True, True], "c": [True, True]})
    assert better.better == ["b", "c"] and better.worse == []
    assert better.delta == pytest.approx((1 + 0.5) / 4) and better.low >= 0
    mixed = paired.compare_outcomes("m", "v", "held_out", base, {**base, "b": [True, True], "a": [False, False]})
    assert (mixed.better, mixed.worse, mixed.clear) == (["b"], ["a"], False)


def test_only_held_out_calls_a_variant_better_and_five_tasks_never_can():
    base = {t: [False] for t in "abcdef"}
    mine = {t: [True] for t in "abcdef"}
    assert paired.compare_outcomes("m", "v", "held_out", base, mine).call == "clearly better"
    assert paired.compare_outcomes("m", "v", "dev", base, mine).call == "better on dev (tuning only)"
    assert paired.compare_outcomes("m", "v", "held_out", mine, base).call == "clearly worse"
    # A drop on dev is a drop: tuning on dev can only flatter a variant there, never hide a regression.
    assert paired.compare_outcomes("m", "v", "dev", mine, base).call == "clearly worse"
    five = paired.compare_outcomes("m", "v", "held_out", {t: [False] * 3 for t in "abcde"},
                                   {t: [True] * 3 for t in "abcde"})
    # +100 points on all 5, an interval of [+100, +100]: still the exact p is 1/32 a side.
    assert (five.delta, five.low, five.call) == (1, 1, "cannot be clear with 5 held-out tasks")
    # A real A/A run's "+33 [+33, +33] clearly better": one task of six moved, p 1/2.
    one = paired.compare_outcomes("m", "v", "held_out", {t: [False] for t in "abcdef"},
                                  {**{t: [False] for t in "abcde"}, "f": [True]})
    assert (one.call, one.test.better) == ("not clear", 0.5)


def test_planning_with_the_exact_test():
    # The power the plan quotes is the exact test's, simulated: none below 6 tasks, and more with more repeats.
    assert planning.power(5, 5, 0.3, 0.4) == 0.0
    assert planning.power(12, 1, 0.3, 0.4) < planning.power(12, 3, 0.3, 0.4)
    mde = planning.detectable_difference(24, 3, 0.2)
    assert planning.power(24, 3, mde, 0.2) >= 0.8 > planning.power(24, 3, mde - 0.01, 0.2)
    need = planning.smallest_tasks(3, 0.2, 0.3)
    assert planning.power(need, 3, 0.2, 0.3) >= 0.8 > planning.power(need - 1, 3, 0.2, 0.3)
    with pytest.raises(ValueError):
        planning.detectable_difference(0, 1, 0.1)
    with pytest.raises(ValueError, match="needs at least that share"):
        planning.power(10, 1, 0.3, 0.2)


def test_the_plan_command(capsys):
    from pytest_mobium_evals.commands.cli import main

    assert main(["plan", "--tasks", "24", "--repeats", "3", "--discordance", "0.2"]) == 0
    assert ("24 held-out tasks x 3 repeats, discordance 20.0%: the smallest difference the exact test calls clear "
            "at 80% power is ") in capsys.readouterr().out
    assert main(["plan", "--tasks", "5", "--repeats", "3", "--discordance", "0.4", "--difference", "0.36"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert "cannot be clear with 5 held-out tasks" in out[0]
    assert out[1].startswith("to decide a 36-point difference at 80% power (discordance 40.0%), the smallest "
                             "held-out sets: ")
    assert main(["plan", "--tasks", "24"]) == 2
    assert capsys.readouterr().err.strip() == "mobium-evals plan: give --tasks and --discordance, or --from RUN"


def test_the_hillclimbs_acceptance_rule_with_a_noisy_agent():
    """The held-out acceptance as the hillclimb calls it (compare_outcomes(...).call == "clearly better"), over 20
    seeds of a noisy agent (each held-out task its own pass rate, 30-90%, every trial drawn): a null variant and a
    fix that helps only the dev tasks (on held out, the same agent as the start) are rejected in at least 19 of 20;
    a fix every task needs (each task's pass rate to 95%) is accepted in at least 19 of 20. Twelve held-out tasks and
    5 repeats: with 8 tasks and 3 the same fix is accepted only about 40% of the time (`plan` says what suffices)."""
    import random

    def outcomes(seed: int, fixed: bool, tasks: int = 12, repeats: int = 5):
        rng = random.Random(seed)
        rates = {f"h{i}": rng.uniform(0.3, 0.9) for i in range(tasks)}
        base = {t: [rng.random() < p for _ in range(repeats)] for t, p in rates.items()}
        mine = {t: [rng.random() < (0.95 if fixed else p) for _ in range(repeats)] for t, p in rates.items()}
        return base, mine

    def accepted(seed: int, fixed: bool) -> bool:
        return paired.compare_outcomes("m", "v", "held_out", *outcomes(seed, fixed)).call == "clearly better"

    assert sum(accepted(seed, fixed=False) for seed in range(20)) <= 1  # null, and dev-only: the same on held out
    assert sum(accepted(seed, fixed=True) for seed in range(20)) >= 19

    def rate(fixed: bool, draws: int = 2000) -> float:  # the exact test alone: the same call, without the intervals
        return sum(paired.sign_flip_test(paired.task_differences(*outcomes(seed, fixed))).better <= paired.LEVEL
                   for seed in range(1000, 1000 + draws)) / draws

    assert rate(fixed=False) <= 0.025 and rate(fixed=True) >= 0.9
