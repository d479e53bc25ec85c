"""The paired statistics of a variant against baseline, and `mobium-evals plan`."""

from __future__ import annotations

import math

import pytest

from pytest_mobium_evals import paired


def test_the_exact_sign_test_on_discordant_tasks():
    assert paired.sign_test(0, 0) is None
    assert paired.sign_test(5, 0) == pytest.approx(2 / 32)
    assert paired.sign_test(3, 3) == 1.0
    assert paired.sign_test(1, 9) == pytest.approx(2 * (1 + 10) / 1024)


def test_a_comparison_names_the_flipped_tasks_and_is_clear_only_off_zero():
    base = {"a": [True, True], "b": [False, False], "c": [True, False], "d": [True, True]}
    same = paired.compare_outcomes("m", "copy", "held_out", base, dict(base))
    assert (same.delta, same.low, same.high, same.clear, same.call) == (0, 0, 0, False, "not clear")
    assert same.better == same.worse == []
    better = paired.compare_outcomes("m", "v", "held_out", base, {**base, "b": [True, True], "c": [True, True]})
    assert better.better == ["b", "c"] and better.worse == []
    assert better.delta == pytest.approx((1 + 0.5) / 4) and better.low >= 0
    mixed = paired.compare_outcomes("m", "v", "held_out", base, {**base, "b": [True, True], "a": [False, False]})
    assert (mixed.better, mixed.worse, mixed.clear) == (["b"], ["a"], False)


def test_only_held_out_calls_a_variant_better():
    base = {t: [False] for t in "abcdef"}
    mine = {t: [True] for t in "abcdef"}
    assert paired.compare_outcomes("m", "v", "held_out", base, mine).call == "clearly better"
    assert paired.compare_outcomes("m", "v", "dev", base, mine).call == "better on dev (tuning only)"
    assert paired.compare_outcomes("m", "v", "held_out", mine, base).call == "clearly worse"


def test_planning_a_comparison():
    # Unpaired, 71 tasks at 50% would need about 20 points; paired with 10% discordance and 3 repeats, far less.
    mde = paired.detectable_difference(71, 3, 0.10)
    assert mde == pytest.approx(2.8016 * math.sqrt(0.10 / 213), rel=1e-3)
    need = paired.repeats_needed(24, 0.10, 0.20)
    assert paired.detectable_difference(24, need, 0.20) <= 0.10 < paired.detectable_difference(24, need - 1, 0.20)
    with pytest.raises(ValueError):
        paired.detectable_difference(0, 1, 0.1)


def test_the_plan_command(capsys):
    from pytest_mobium_evals.cli import main

    assert main(["plan", "--tasks", "24", "--repeats", "3", "--discordance", "0.2"]) == 0
    assert "24 tasks x 3 repeats, discordance 20.0%: the smallest difference detectable at 80% power " \
           "(two-sided 5%) is 14.8 points" in capsys.readouterr().out
    assert main(["plan", "--tasks", "24", "--difference", "0.1", "--discordance", "0.2"]) == 0
    assert "repeats a task detect a 10-point difference" in capsys.readouterr().out
    assert main(["plan", "--tasks", "24"]) == 2
    assert capsys.readouterr().err.strip() == "mobium-evals plan: give --tasks and --discordance, or --from RUN"
