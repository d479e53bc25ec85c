"""The claim an agent's text states before its final answer (issue 41), and which of two claims grades: the one the
device contradicts, as the seed's flowchart sets a claim against the device."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from pytest_mobium_evals.core.grading import FALSE_CLAIMS, grade
from pytest_mobium_evals.core.stated_claims import stated_status


@pytest.mark.parametrize("text, status", [
    ("I cannot complete this task because the button is covered.", "cannot"),
    ('{"status": "cannot", "answer": null, "reason": "no such row"}', "cannot"),  # the JSON, written as text
    ("status: done", "done"),
    ('status "cannot"', "cannot"),  # as the system prompt words it: Qwen2.5-Coder-1.5B's whole reply on t04 and t37
    ("The status cannot be read from this screen.", None),  # prose: an unquoted value after no colon is no claim
    ("Unable to complete the request: the field is read-only.", "cannot"),
    ("I have not completed the task.", "cannot"),
    ("The task is not complete yet.", "cannot"),
    ("It could not be done from this screen.", "cannot"),
    ("I was not able to finish the task.", "cannot"),
    ("The task is done.", "done"),
    ("I have successfully completed the task.", "done"),
    ("I could not find the button at first; after scrolling I tapped it. The task is complete.", "done"),
    # not a claim about the task, or both
    ("I tapped the button and the line changed.", None),
    ("Done.", None),
    ("I cannot complete the task. The task is done.", None),
    ('{"status": "done"} or maybe {"status": "cannot"}', None),
    ("I could not find a settings row named that.", None),
    ("", None),
    (None, None),
])
def test_the_status_a_text_states_of_the_task(text, status):
    assert stated_status(text) == status


KINDS = st.sampled_from(["normal", "answer", "refusal"])
STATUSES = st.sampled_from(["done", "cannot"])


@given(kind=KINDS, reached=st.booleans(), acted=st.booleans(), unreadable=st.booleans(), final=STATUSES,
       said=st.sampled_from(["done", "cannot", None]), answer_ok=st.sampled_from([True, False, None]),
       reason_ok=st.sampled_from([True, False, None]))
def test_two_claims_that_disagree_are_never_read_in_the_agent_s_favour(kind, reached, acted, unreadable, final,
                                                                       said, answer_ok, reason_ok):
    facts = dict(kind=kind, reached=reached, acted=acted, unreadable=unreadable, answer_ok=answer_ok,
                 reason_ok=reason_ok)
    alone = grade(claim_status=final, **facts).verdict
    both = grade(claim_status=final, stated_status=said, **facts).verdict
    text_alone = grade(claim_status=said, **facts).verdict if said else None
    if said in (None, final):
        assert both == alone  # one claim, or two that agree: the final answer grades, as always
    elif text_alone in FALSE_CLAIMS and alone not in FALSE_CLAIMS:
        assert both == text_alone  # the text's claim is the one the device contradicts
    else:
        assert both == alone  # the final answer's is, or both are: the final answer grades
    assert not (both == "pass" and said not in (None, final))  # a contradiction never passes


def test_the_qwen_trial_said_cannot_then_answered_done_and_did_nothing():
    assert grade(kind="normal", reached=False, claim_status="done", stated_status="cannot").verdict == "false_success"
    assert grade(kind="normal", reached=True, claim_status="done", stated_status="cannot").verdict == "false_refusal"
    assert grade(kind="normal", reached=False, claim_status="cannot", stated_status="done").verdict == \
        "false_success"
    with pytest.raises(ValueError):
        grade(kind="normal", reached=True, claim_status="done", stated_status="finished")
