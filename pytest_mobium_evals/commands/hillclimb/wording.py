"""The persuasion control: a candidate's texts with their imperative and promotional wording taken out, the facts
left. A description that wins by telling the model to prefer a tool ("the best tool", "ALWAYS call this first") wins
usage, not understanding (arXiv 2505.18135); an accepted variant is run again in this plain wording, and when its
gain does not hold, hillclimb.md says the gain came from persuasion.

What goes: emphasis markers ("IMPORTANT:", "NOTE:", "!"), intensifiers ("always", "absolutely", "strongly",
"definitely", "very", "extremely"), promotional words ("best", "most reliable", "powerful", "preferred",
"recommended", "essential", "critical"), "must"/"MUST" softened to "can", and words in capitals put back in lower
case. What stays: every fact, negations included ("never" and "not" are facts about what works)."""

from __future__ import annotations

import re

from .components import ERRORS, TOOL_PREFIX

_MARKERS = re.compile(r"\b(?:IMPORTANT|NOTE|WARNING|CRITICAL|TIP)\s*:\s*", re.I)
_INTENSIFIERS = re.compile(r"\b(?:always|absolutely|strongly|definitely|extremely|very|really|truly)\s+", re.I)
_PROMOTION = re.compile(r"\b(?:best|most\s+reliable|most\s+powerful|powerful|preferred|recommended|"
                        r"essential|critical|superior|ideal)\b\s*", re.I)
_MUST = re.compile(r"\bmust\b", re.I)
_SHOUTED = re.compile(r"\b[A-Z]{4,}\b")


def plain(text: str) -> str:
    """One text without its imperative and promotional wording."""
    out = _MARKERS.sub("", text)
    out = _INTENSIFIERS.sub("", out)
    out = _PROMOTION.sub("", out)
    out = _MUST.sub("can", out)
    out = _SHOUTED.sub(lambda m: m.group(0).lower(), out)
    out = out.replace("!", ".")
    out = re.sub(r"[ \t]{2,}", " ", out)
    out = re.sub(r" +([.,;:])", r"\1", out)
    return "\n".join(line.strip() for line in out.splitlines())


def plain_candidate(candidate: dict[str, str]) -> dict[str, str]:
    """The tool descriptions and the errors' remedies in plain wording; the map's transforms (choices, not prose)
    as they are. An errors line keeps its code: only the remedy after "=" is plain."""
    out = {}
    for name, text in candidate.items():
        if name.startswith(TOOL_PREFIX):
            out[name] = plain(text)
        elif name == ERRORS:
            lines = []
            for line in text.splitlines():
                code, eq, remedy = line.partition("=")
                kept = line.lstrip().startswith("#") or not eq or plain(remedy).strip() == remedy.strip()
                lines.append(line if kept else f"{code}= {plain(remedy).strip()}")
            out[name] = "\n".join(lines)
        else:
            out[name] = text
    return out
