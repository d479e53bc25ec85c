"""The invariant every fault test checks: every scheduled trial has exactly one readable verdict.json, graded or
`infra_error` with its phase and cause; per setting scheduled = graded + infra errors; record.json's counts and the
terminal summary say the same."""

from __future__ import annotations

import json
import re
from collections import Counter, defaultdict
from pathlib import Path

PHASES = ("reset", "precondition", "driver", "outcome", "grade", "record")


def verdicts(run_dir: Path) -> dict[str, dict]:
    return {p.parent.name: json.loads(p.read_text()) for p in sorted((run_dir / "trials").glob("*/verdict.json"))}


def check_invariant(run_dir: Path, summary: str = "") -> dict[str, dict]:
    """Asserts the invariant over a finished run folder (and its terminal output, when given); returns the verdicts
    by trial name."""
    record = json.loads((run_dir / "record.json").read_text())
    stored = verdicts(run_dir)
    scheduled = record["scheduled"]
    assert sorted(stored) == sorted(scheduled), f"trials without a verdict: {set(scheduled) - set(stored)}"
    assert record["finished"] is True
    for name, v in stored.items():
        assert (run_dir / "trials" / name / "transcript.jsonl").exists(), name
        if v["verdict"] == "infra_error":
            assert v["infra_phase"] in PHASES and v["infra_error"], (name, v["infra_phase"], v["infra_error"])
            assert v["infra_error"].startswith(v["infra_phase"] + ":")
    assert record["counts"] == dict(Counter(v["verdict"] for v in stored.values()))
    if summary:
        groups: dict[str, list[dict]] = defaultdict(list)
        for v in stored.values():
            groups[v["driver"] if v["driver"] != "agent" else f"agent {v['model_label']}"].append(v)
        for group, rows in groups.items():
            infra = sum(v["verdict"] == "infra_error" for v in rows)
            line = re.search(rf"^{re.escape(group)}: .*scheduled (\d+), graded (\d+), infra errors (\d+)$", summary,
                             re.M)
            assert line, f"no summary line for {group}"
            assert tuple(map(int, line.groups())) == (len(rows), len(rows) - infra, infra), line.group(0)
    return stored
