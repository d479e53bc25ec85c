"""A scripted reflection model that proposes null variants, for the null arm of probes/cli_hillclimb.py
(`--reflect=python:reflect_null`, tests/agents on PYTHONPATH): whatever the failures say, it gives back the
component's text with one neutral sentence or line added, a change the model reads (it is in the request the CLI
sends) and the scripted agent (tests/agents/cli_agent.py) never acts on. A hillclimb that accepts such a variant
has been fooled by noise.

- `tool.*`: a sentence appended to the description.
- `errors`: a remedy for `no_such_alert`, a code a sign-in never meets.
- `map`: the note lines hidden (`notes = hidden`); the agent's moves never depend on the map's text."""

from __future__ import annotations

import re

from reflect_standin import _blocks

SENTENCE = "Its answer is the screen as it was when the call returned."
REMEDY_LINE = "no_such_alert = there was no alert on screen; read the screen with app_map"


def propose(component: str, current: str) -> str:
    if component.startswith("tool."):
        return f"{current} {SENTENCE}" if SENTENCE not in current else current
    if component == "errors":
        return current if REMEDY_LINE in current else "\n".join(current.splitlines() + [REMEDY_LINE])
    if component == "map":
        return re.sub(r"^notes = \S+", "notes = hidden", current, flags=re.M)
    return current


def reflect(prompt: str) -> tuple[str, int, int]:
    component = re.search(r"The part is `([^`]+)`", prompt).group(1)
    current = (_blocks(prompt) + [""])[0]
    answer = f"```\n{propose(component, current)}\n```"
    return answer, len(prompt) // 4, len(answer) // 4
