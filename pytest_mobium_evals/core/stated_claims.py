"""The claim an agent's own words state, apart from its final answer.

An agent stops calling tools with a reply of text, and is then asked for its final answer (the structured JSON the
grader reads: the tool loop asks for it, the Claude CLI insists on it). A model may say one thing in the text and
the other in the JSON: a Qwen2.5-Coder-1.5B wrote that it could not do the task, then answered `"status": "done"`.
`stated_status` reads the text's claim so that the record keeps both and the grader can tell when they disagree
(grading.grade: a contradiction is graded on the claim the device contradicts).

It reads only what states the task's end, and says so only when the text says one thing: the status written out
as the final answer's JSON would hold it (`"status": "cannot"`), or a sentence about the task as a whole ("I could
not complete the task", "the task is done"). Trouble met on the way ("I could not find the button at first") is
not a claim; a text that states both, or neither, states none (None)."""

from __future__ import annotations

import re
from typing import Optional

#: The status written out as the final answer's JSON (or a key and value in prose: status: cannot), or as the system
#: prompt words it (status "cannot", which Qwen2.5-Coder-1.5B wrote back as its whole reply). A bare "status cannot"
#: is prose ("the status cannot be read"), not a claim: without a colon the value must be quoted.
WRITTEN_STATUS = re.compile(r"""["']?\bstatus\b["']?\s*(?:[:=]\s*["']?(done|cannot)\b|["'](done|cannot)["'])""",
                            re.IGNORECASE)

_TASK = r"(?:the|this|that|your|my)\s+(?:task|request|job)|it|this|that"
_FINISH = r"(?:complete|finish|do|perform|accomplish|carry\s+out|fulfil|fulfill)"
_COULD_NOT = (r"(?:cannot|can\s*not|can't|can’t|could\s*not|couldn't|couldn’t|was\s+unable\s+to|am\s+unable\s+to|"
              r"were\s+unable\s+to|unable\s+to|was\s+not\s+able\s+to|wasn't\s+able\s+to|am\s+not\s+able\s+to|"
              r"not\s+able\s+to|failed\s+to|did\s+not\s+manage\s+to|didn't\s+manage\s+to)")
CANNOT = re.compile(
    rf"\b{_COULD_NOT}\s+(?:fully\s+|successfully\s+)?{_FINISH}\s+(?:{_TASK})\b"
    r"|\b(?:(?:the\s+|this\s+)?(?:task|request)|it|this|that)\s+(?:cannot|can't|can’t|could\s+not|couldn't|couldn’t)"
    r"\s+be\s+"
    r"(?:done|completed|finished|accomplished|performed|carried\s+out)\b"
    r"|\b(?:the\s+|this\s+)?(?:task|request)\s+(?:is|was)\s+(?:not\s+possible|impossible|infeasible|not\s+feasible)\b"
    r"|\b(?:have|has)\s+not\s+(?:been\s+)?(?:completed|finished|done|accomplished)\s+(?:the\s+task|it)\b"
    r"|\b(?:the\s+|this\s+)?task\s+(?:is|was|has)\s+not\s+(?:been\s+)?(?:done|complete|completed|finished)\b",
    re.IGNORECASE)
DONE = re.compile(
    r"\b(?:the\s+|this\s+|your\s+)?(?:task|request|job)\s+(?:is|has\s+been|was)\s+(?:now\s+)?"
    r"(?:successfully\s+)?(?:done|complete|completed|finished|accomplished)\b"
    rf"|\b(?:i|we)\s+(?:have\s+|'ve\s+|’ve\s+)?(?:now\s+)?(?:successfully\s+)?"
    rf"(?:completed|finished|done|accomplished|carried\s+out)\s+(?:{_TASK})\b",
    re.IGNORECASE)


def stated_status(text: Optional[str]) -> Optional[str]:
    """"done" or "cannot" when the text states that of the task, and only that; None otherwise."""
    if not text:
        return None
    written = {(m.group(1) or m.group(2)).lower() for m in WRITTEN_STATUS.finditer(text)}
    if len(written) == 1:
        return written.pop()
    if written:
        return None
    said = {status for status, rule in (("cannot", CANNOT), ("done", DONE)) if rule.search(text)}
    return said.pop() if len(said) == 1 else None
