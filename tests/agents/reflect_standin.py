"""A scripted reflection model for `mobium-evals hillclimb --reflect=python:reflect_standin` (tests/agents on
PYTHONPATH): it reads gepa's proposal prompt as a model would, the component's current text and the failed trials,
and proposes the edit the failures point at, or the text unchanged when they point at nothing in this component.

- `errors`: a refused call whose answer carried no remedy → a remedy for that code naming app_map. The code is on
  the error's line whenever the trial ran behind the surface proxy (a hillclimb's always do), which records it
  beside the text a model client passes on; an error line without one gets the remedy for every code, "*".
- `map`: a failed task about a slider whose map lines show a bare number → `values = labelled` (the map says the
  value is the app's own).
- `tool.app_map`: a failed task about a list that loads as it scrolls, and a description that does not say a
  loading list has not ended → that sentence appended.

The answer is wrapped in ``` as gepa's proposer reads it. Tokens are estimated from the lengths (no API)."""

from __future__ import annotations

import re

REMEDY = "run app_map to get the screen's current refs, then retry with a ref from it"
LOADING = 'A "loading…" line means a list that is loading has not ended: scroll or wait, then map again.'


def _blocks(prompt: str) -> list[str]:
    return re.findall(r"```\n(.*?)\n```", prompt, re.S)


def _failures(side_info: str) -> list[str]:
    return [part for part in re.split(r"^# Example \d+$", side_info, flags=re.M) if part.strip()]


def propose(component: str, current: str, side_info: str) -> str:
    failures = _failures(side_info)
    if component == "errors":
        codes = sorted({m.group(1) or "*" for f in failures
                        for m in re.finditer(r"ERROR (?:\[([a-z_]+)\] )?from [^\n]*\(no remedy given[);]", f)})
        lines = current.splitlines()
        listed = {line.split("=", 1)[0].strip() for line in lines if "=" in line and not line.startswith("#")}
        return "\n".join(lines + [f"{code} = {REMEDY}" for code in codes if code not in listed])
    if component == "map":
        sliders = [f for f in failures if re.search(r"slider", f, re.I) and re.search(r"\(slider, ?\d", f)]
        if sliders:
            return re.sub(r"^values = \S+", "values = labelled", current, flags=re.M)
        return current
    if component == "tool.app_map":
        loading = [f for f in failures if re.search(r"loads as it scrolls|feed|last row", f, re.I)]
        if loading and "has not ended" not in current:
            return f"{current} {LOADING}"
        return current
    return current


def reflect(prompt: str) -> tuple[str, int, int]:
    component = re.search(r"The part is `([^`]+)`", prompt).group(1)
    blocks = _blocks(prompt)
    current, side_info = (blocks + ["", ""])[:2]
    text = propose(component, current, side_info)
    answer = f"```\n{text}\n```"
    return answer, len(prompt) // 4, len(answer) // 4
