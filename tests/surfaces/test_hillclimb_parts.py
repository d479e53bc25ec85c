"""The hillclimb's parts that need no device: the persuasion control's plain wording, the cost check, gepa's
minibatch acceptance, candidate names and round seeds."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from pytest_mobium_evals.commands.hillclimb import search, wording
from pytest_mobium_evals.core.record_parts import Tokens


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
    return [SimpleNamespace(record=SimpleNamespace(task=f"h{i}", repeat=0, passed=p, tool_calls=calls,
                                                   tokens=Tokens(input=tokens, output=0), cost_usd=0.0, surface="v"))
            for i, p in enumerate(passed)]


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


def _held(before: dict, after: dict):
    from pytest_mobium_evals.analysis.paired import compare_outcomes

    return compare_outcomes("m", "v", "held_out", before, after)


SIX = [f"h{i}" for i in range(6)]


def test_the_rejection_says_what_held_out_showed_and_no_more():
    dev = SimpleNamespace(variant="v", delta=0.5)
    lower = _held({t: [True, True] for t in SIX}, {t: [t != "h0", True] for t in SIX})  # -8, not clear
    said = search.rejection(dev, lower)
    assert "not clear" in said and "no gain where it was not tuned" in said and "worse" not in said
    worse = _held({t: [True, True] for t in SIX}, {t: [False, False] for t in SIX})  # every task down: p 1/64
    assert "clearly worse; it is worse where it was not tuned" in search.rejection(dev, worse)
    same = _held({t: [True, False] for t in SIX}, {t: [True, False] for t in SIX})
    assert "no gain, so a change that helps only where it was tuned" in search.rejection(dev, same)
    gain = _held({t: [False, False] for t in SIX}, {t: [t != "h0"] * 2 for t in SIX})  # +83, 5 of 6 up: p 1/32
    assert gain.call == "not clear" and "is not clear (exact one-sided p 0.0312" in search.rejection(dev, gain)


def test_hillclimb_md_always_shows_the_cost_check_and_the_persuasion_control():
    from pytest_mobium_evals.commands.hillclimb import evidence

    def md(**outcome) -> str:
        return "\n".join(evidence.cost_section(search.Acceptance(**outcome), 0.25)
                         + evidence.persuasion_section(search.Acceptance(**outcome)))

    ended = md(accepted=False, why="gepa kept no candidate")
    assert "## Cost check" in ended and "Not reached: the hillclimb ended before the held-out test" in ended
    assert "## Persuasion control" in ended and "Not run: no variant was accepted" in ended
    gain = _held({t: [False, False] for t in SIX}, {t: [True, True] for t in SIX})
    unclear = _held({t: [False, False] for t in SIX}, {t: [t != "h0"] * 2 for t in SIX})
    measured = md(accepted=False, why="", held_out=unclear, cost_check="over the 5 held-out trials ...")
    assert "Measured, not applied (the held-out test did not call the final clearly better" in measured
    assert "over the 5 held-out trials" in measured and "Not run: no variant was accepted" in measured
    refused = md(accepted=False, why="", held_out=gain, cost_check="tool calls 12.0 a trial against 8.0 (+50%)")
    assert "Applied: tool calls 12.0 a trial against 8.0 (+50%)." in refused and "past +25%" in refused
    plain = _held({t: [False, False] for t in SIX}, {t: [True, True] for t in SIX})
    plain.variant = "v-plain"
    kept = md(accepted=True, why="", held_out=gain, cost_check="tool calls 8.0 a trial against 8.0 (+0%)",
              persuasion="in plain wording (v-plain) it is still +100 points over 6 held-out tasks, clearly better",
              plain_held_out=plain)
    assert "Applied: tool calls 8.0" in kept and "This one: in plain wording (v-plain) it is still +100" in kept
    assert "| v-plain | held_out | 6 |" in kept  # the rerun's table
