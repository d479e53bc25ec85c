"""Run folders written by hand, following the Records contract in DEVELOPERS.md (a helper module with its own
name, so it cannot be shadowed by another test folder's conftest)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Optional

from pytest_mobium_evals.runfolder.reading import trial_name

ANSWER_OF = {"t02": "Incorrect username or password.", "t08": "60", "t22": "15", "t23": "440 Hz and 880 Hz"}


def verdict_json(task: str, verdict: str = "pass", *, driver: str = "agent", model: str = "claude-haiku-5-5",
                 effort: Optional[str] = "low", repeat: int = 1, seed: int = 7, expected: Optional[str] = None,
                 answer: Optional[str] = None, answer_ok: Optional[bool] = None, status: Optional[str] = "done",
                 severity: Optional[str] = None, blockers: Optional[list] = None, observed: str = "",
                 tokens: tuple[int, int] = (1000, 200), cost: Optional[float] = 0.01,
                 infra_error: Optional[str] = None) -> dict:
    control = driver in ("reference", "null", "wrong")
    if control:
        model, effort, tokens, cost = "none", None, (0, 0), None
        expected = expected or {"reference": "pass"}.get(driver, "false_success")
    return {
        "task": task, "suite": "mobiumapp", "driver": driver, "model": model, "effort": effort, "seed": seed,
        "repeat": repeat, "verdict": verdict, "severity": severity, "blockers": blockers or [],
        "expected": expected, "ok": (verdict == expected) if control else verdict == "pass",
        "claim": {"status": status, "answer": answer, "reason": None}, "answer_ok": answer_ok,
        "outcome_reached": verdict == "pass", "outcome_acted": False, "outcome_observed": observed,
        "reason_ok": None, "side_effects": [],
        "tool_calls": 5, "tokens": {"input": tokens[0], "output": tokens[1]}, "cost_usd": cost,
        "timings": {"reset_s": 1.0, "driver_s": 5.0, "grade_s": 0.5, "total_s": 6.5},
        "device": {"serial": "emulator-5554", "release": "15", "sdk": "35"}, "infra_error": infra_error,
        "password_exposures": [], "found": None, "regression": False, "params": {},
    }


def write_run(root: Path, name: str, verdicts: list[dict], **record: Any) -> Path:
    """A complete run folder named `name` under `root` holding these verdicts; `record` overrides its record."""
    folder = root / name
    tasks = list(dict.fromkeys(v["task"] for v in verdicts))
    rec = {"run": name, "started": "2026-11-29T10:00:00Z", "finished": True, "seed": verdicts[0]["seed"],
           "tasks": tasks, "repeats": max(v["repeat"] for v in verdicts),
           "drivers": list(dict.fromkeys(v["driver"] for v in verdicts)),
           "models": list(dict.fromkeys(v["model"] for v in verdicts if v["model"] != "none")),
           "device": {"serial": "emulator-5554", "release": "15", "sdk": "35"},
           "mobium": {"commit": "a" * 40, "dirty": False},
           "scheduled": [trial_name(v["task"], v["driver"], v["model"], v["repeat"]) for v in verdicts]}
    rec.update(record)
    rec = {k: v for k, v in rec.items() if v is not ...}  # `key=...` removes a key
    (folder / "trials").mkdir(parents=True)
    (folder / "record.json").write_text(json.dumps(rec, indent=1))
    for v in verdicts:
        trial = folder / "trials" / trial_name(v["task"], v["driver"], v["model"], v["repeat"])
        trial.mkdir()
        (trial / "verdict.json").write_text(json.dumps(v, indent=1))
        (trial / "transcript.jsonl").write_text('{"tool": "app_map"}\n')
    return folder
