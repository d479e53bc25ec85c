"""The hillclimb's parts that need no device: the persuasion control's plain wording, the cost check, the search's
gate (gepa's AcceptanceCriterion) and its record, candidate names and round seeds, the acceptance's held-out test in
looks (with made-up trials), and the error code the reflection reads."""

from __future__ import annotations

from pathlib import Path
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


@pytest.mark.parametrize("before, after, kept, old_rule", [
    ([0.0, 0.5, 1.0], [0.5, 0.5, 1.0], True, True),
    # issue 40: the right proposal, one task fallen by chance: the total rose, so it goes on (the old rule refused it)
    ([0.0, 0.5, 1.0, 0.5], [1.0, 1.0, 0.5, 1.0], True, False),
    ([0.0, 0.5, 1.0], [1.0, 0.5, 0.0], False, False),  # one task traded for another: no rise
    ([0.0, 0.5, 1.0], [0.0, 0.5, 1.0], False, False),
])
def test_the_gate_passes_a_proposal_whose_minibatch_total_rose_and_records_both_scores(before, after, kept, old_rule):
    decisions = []
    outputs = [{"task": f"t{i}"} for i in range(len(before))]
    proposal = SimpleNamespace(subsample_scores_before=before, subsample_scores_after=after,
                               eval_before=SimpleNamespace(outputs=outputs))
    gate = search.MinibatchGate(decisions.append)
    assert gate.should_accept(proposal, None) is kept
    assert decisions == [{"rule": search.MinibatchGate.RULE, "kept": kept, "tasks": [o["task"] for o in outputs],
                          "before": before, "after": after, "total_before": sum(before), "total_after": sum(after),
                          "none_fell_and_one_rose": old_rule}]
    if not kept:
        assert gate.reject_reason(proposal, None) == f"the minibatch's total did not rise ({sum(before):g} -> " \
                                                     f"{sum(after):g})"


def test_the_installed_gepa_takes_our_acceptance_criterion():
    from gepa.strategies.acceptance import AcceptanceCriterion

    criterion = search.gepa_acceptance()["acceptance_criterion"]
    assert isinstance(criterion, AcceptanceCriterion) and isinstance(criterion, search.MinibatchGate)


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


# --- the acceptance, with trials made up: the held-out test's looks --------------------------------------------------

def _fake_trials(monkeypatch, tmp_path, passes):
    """search.ensure answered from `passes(label, task, repeat)`, each trial once (its `ran` counts new ones), and
    every call recorded as (folder name, labels, repeats)."""
    from pytest_mobium_evals.commands.hillclimb.trials import Trials

    made, calls = {}, []

    def ensure(setup, folder, surfaces, tasks, repeats, attempts=2):
        labels = [Path(s).stem for s in surfaces]
        calls.append((folder.name, labels, repeats))
        out = Trials()
        for label in labels:
            for task in tasks:
                for r in range(repeats):
                    key = (label, task, r)
                    if key not in made:
                        out.ran += 1
                        record = SimpleNamespace(task=task, repeat=r, passed=passes(label, task, r), surface=label,
                                                 tool_calls=5, tokens=Tokens(input=100, output=10), cost_usd=0.0,
                                                 surface_seen=None)
                        made[key] = SimpleNamespace(name=f"{task}-{label}-r{r}", path=tmp_path / f"{task}-{label}-r{r}",
                                                    record=record)
                    out.by_key[key] = made[key]
        return out

    monkeypatch.setattr(search, "ensure", ensure)
    return calls


def _accept(tmp_path, looks=3):
    seed, final = {"errors": "# none"}, {"errors": "invalid_argument = run app_map again"}

    class Adapter:
        def candidate_file(self, candidate):
            label = "start" if candidate == seed else "final"
            return label, tmp_path / f"{label}.toml"

    plan = SimpleNamespace(out=tmp_path, dev=["d1", "d2"], held_out=[f"h{i}" for i in range(6)])
    found = SimpleNamespace(candidates=[seed, final], scores=[0.2, 0.9], adapter=Adapter())
    args = SimpleNamespace(keep=1, repeats=2, looks=looks, model="m", max_cost_rise=0.25)
    return search.accept(plan, None, None, seed, found, args)


def test_the_held_out_test_looks_again_while_undecided_and_stops_when_clear(monkeypatch, tmp_path, capsys):
    calls = _fake_trials(monkeypatch, tmp_path, lambda label, task, r: label == "final")
    acceptance = _accept(tmp_path)
    # six tasks, every one up: p 1/64 at each look, over the 1.13% the first of three may spend, within the 1.91%
    # of the second
    assert [c for c in calls if c[0] == search.ACCEPT_HELD_OUT] == [
        (search.ACCEPT_HELD_OUT, ["start", "final"], 2), (search.ACCEPT_HELD_OUT, ["start", "final"], 4)]
    assert acceptance.accepted and acceptance.held_out.sequential.repeats == 4
    assert "after 4 repeats, exact one-sided p 0.0156 (the final better), within the 1.91% look 2 may spend" in \
        acceptance.why
    assert acceptance.trials_run == 2 * 2 * 2 + 2 * 6 * 4  # the dev check, and two looks of the held-out test
    said = capsys.readouterr().out
    assert "held-out look 1 of at most 3 (2 repeats): +12 passes, exact one-sided p 0.0156 (the final better) " \
           "against 1.13%: undecided, 4 repeats next" in said
    # its power, said before the first look, from the dev check's pairs
    assert said.index("at the dev check's +100 points (discordance 100% of paired trials") < said.index("look 1")
    assert len(acceptance.held_out.trials["h0"]) == 4  # its table links the trials the test used


def test_a_held_out_test_with_no_gain_stops_at_its_first_look(monkeypatch, tmp_path):
    calls = _fake_trials(monkeypatch, tmp_path,
                         lambda label, task, r: (label == "final") if task.startswith("d") else r % 2 == 0)
    acceptance = _accept(tmp_path)
    assert [c[2] for c in calls if c[0] == search.ACCEPT_HELD_OUT] == [2]
    assert not acceptance.accepted and acceptance.held_out.call == "not clear"
    assert "on held out +0 points [+0, +0] over 6 held-out tasks after 2 repeats: no gain (exact one-sided p 1 that " \
           "the final is better), so a change that helps only where it was tuned is not proposed; the test stopped " \
           "at look 1 of 3" in acceptance.why


def test_the_outlook_reads_the_dev_checks_pairs():
    from pytest_mobium_evals.analysis.sequential import Schedule

    pairs = [(False, True)] * 6 + [(True, True)] * 3 + [(True, False)]  # +50 points, discordance 70%
    said, figures = search.outlook(pairs, 10, Schedule(3, 3))
    assert said.startswith("at the dev check's +50 points (discordance 70% of paired trials; an overestimate")
    assert figures["power"] >= figures["power_at_half"] and figures["max_trials"] == 180
    assert search.outlook([(True, True)] * 4, 10, Schedule(3, 3)) == (
        "the dev check left no gain to estimate its power at", {})


def test_the_reflection_reads_the_code_the_proxy_recorded():
    from pytest_mobium_evals.commands.hillclimb.trials import read_steps

    message = "unknown ref @e19 — the last map has 12 refs, @e1 through @e12"
    events = [{"kind": "prompt", "text": "Open the Login Demo."},
              {"kind": "tool_call", "id": "1", "tool": "app_tap", "arguments": {"target": "@e19"}},
              {"kind": "tool_result", "id": "1", "tool": "app_tap", "text": message, "is_error": True}]
    seen = {"error_codes": [{"text": message, "code": "invalid_argument",
                             "remedy_not_shown": "run app_map again and use one of its refs"}]}
    _, _, errors, _ = read_steps(events, seen)
    assert errors == [f"ERROR [invalid_argument] from app_tap: {message} | (no remedy given; the server's, which the "
                      f"agent's client did not pass on: run app_map again and use one of its refs)"]
    assert read_steps(events)[2] == [f"ERROR from app_tap: {message} | (no remedy given)"]  # no proxy, no code
    import reflect_standin

    side_info = "# Example 1\n" + errors[0]
    assert reflect_standin.propose("errors", "# header", side_info).splitlines()[-1] == \
        f"invalid_argument = {reflect_standin.REMEDY}"  # on the code that needs it, not on "*"
