"""The hillclimb's parts that need no device: the persuasion control's plain wording, the cost check, gepa's
minibatch acceptance, candidate names and round seeds."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from pytest_mobium_evals.commands.hillclimb import search, wording


def test_plain_wording_takes_out_the_push_and_keeps_the_facts():
    said = ("IMPORTANT: ALWAYS call this first! It is the most reliable way to read the screen. You MUST "
            "map again after a tap; a ref is never valid on another screen.")
    assert wording.plain(said) == ("call this first. It is the way to read the screen. You can map again after "
                                   "a tap; a ref is never valid on another screen.")
    facts = "Lists the screen's elements with a ref each; a ref is not valid after the screen changes."
    assert wording.plain(facts) == facts


def test_a_plain_candidate_changes_prose_only():
    candidate = {"tool.app_map": "Always map first!", "errors": "# header\ninvalid_argument = You MUST map first\n"
                                                                 "* = run app_map", "map": "values = labelled"}
    plain = wording.plain_candidate(candidate)
    assert plain == {"tool.app_map": "map first.", "errors": "# header\ninvalid_argument = You can map first\n"
                                                             "* = run app_map", "map": "values = labelled"}
    assert wording.plain_candidate(plain) == plain  # nothing left to strip: the control reruns nothing


def _trials(calls: float, tokens: float, passed: list[bool]) -> list:
    record = SimpleNamespace(tool_calls=calls, tokens={"input": tokens, "output": 0}, cost_usd=0.0, surface="v")
    return [SimpleNamespace(task=f"h{i}", repeat=0, passed=p, record=record) for i, p in enumerate(passed)]


def test_the_cost_check_refuses_a_rise_past_its_bound_for_the_same_work():
    both = [True] * 6
    risen, line = search.cost_rise(_trials(8, 1000, both), _trials(10, 1000, both), 0.25)
    assert risen is None and "tool calls 10.0 a trial against 8.0 (+25%)" in line and "the bound is +25%" in line
    risen, _ = search.cost_rise(_trials(8, 1000, both), _trials(11, 1000, both), 0.25)
    assert risen == "its tool calls a trial rose +38%"
    risen, _ = search.cost_rise(_trials(8, 1000, both), _trials(8, 1400, both), 0.25)
    assert risen == "its tokens a trial rose +40%"
    risen, line = search.cost_rise(_trials(8, 0, both), _trials(8, 0, both), 0.25)  # no tokens spent: no ratio
    assert risen is None and "no ratio" in line
    # A start that gives up at once (1 call) against a fix that does the task (7): no like-for-like cost, no refusal.
    risen, line = search.cost_rise(_trials(1, 100, [False] * 6), _trials(7, 700, both), 0.25)
    assert risen is None and line.startswith("no held-out trial passed under both")
    # Over the trials that passed under both only.
    mixed = _trials(8, 1000, [True, True, False, False, False, False])
    cheaper_failures = _trials(1, 1000, [False] * 6)
    risen, line = search.cost_rise(mixed[:2] + cheaper_failures[2:], _trials(9, 1000, both), 0.25)
    assert risen is None and "over the 2 held-out trials that passed under both" in line


@pytest.mark.parametrize("before, after, kept", [
    ([0.0, 0.5, 1.0], [0.5, 0.5, 1.0], True),
    ([0.0, 0.5, 1.0], [1.0, 0.0, 1.0], False),  # a higher sum, one task traded for another
    ([0.0, 0.5, 1.0], [0.0, 0.5, 1.0], False),
])
def test_a_minibatch_keeps_a_proposal_only_when_nothing_fell(before, after, kept):
    proposal = SimpleNamespace(subsample_scores_before=before, subsample_scores_after=after)
    assert search.PairedMinibatch().should_accept(proposal, None) is kept
    if not kept:
        assert search.PairedMinibatch().reject_reason(proposal, None)


def test_the_installed_gepa_takes_our_acceptance_criterion():
    from gepa.strategies.acceptance import AcceptanceCriterion

    criterion = search.gepa_acceptance()["acceptance_criterion"]
    assert isinstance(criterion, AcceptanceCriterion)


def test_candidates_are_named_by_their_start_and_rounds_have_seeds_of_their_own():
    texts = {"map": "values = labelled"}
    assert search.label_for(texts, {"map": "values = as_is"}, "no-remedies").startswith("no-remedies-c-")
    assert search.label_for(texts, texts, "no-remedies") == "no-remedies"
    assert search.label_for(texts, {}, "baseline") != search.label_for(texts, {}, "no-remedies")
    assert len({search.round_seed(1, r) for r in range(5)}) == 5 and search.round_seed(1, 0) == 1
