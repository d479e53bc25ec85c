"""Where the demo password goes, from a run's stored transcripts.

For every trial in RUN_DIR/trials/*/ (transcript.jsonl, and verdict.json for the model and driver) it counts where
the password appears: in the prompt (by design for a sign-in), in the tool calls' arguments (where it must go to
be typed), in the tool server's responses (never: a blocker), in the model's own text, and in the final answer.
Per model; the controls are grouped by driver.

A response that holds the password only inside the app's own on-screen hint ("Password: hunter2" on MobiumApp's
Login screen) is counted apart and is not a blocker: that is the app printing its demo password, not the tool
server echoing a field's value.

    python probes/secret_exposure.py RUN_DIR [--secret hunter2] [--hint "Password: hunter2"]

Exit status: 0 no blocker, 1 a password in a tool response, 2 the run folder is missing or incomplete.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import defaultdict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Iterable, Optional

from pytest_mobium_evals.core.setting import is_control
from pytest_mobium_evals.core.verdicts import AGENT

DEFAULT_SECRET = "hunter2"
DEFAULT_HINT = "Password: hunter2"

PLACES = ("prompt", "arguments", "responses", "hint only", "model text", "final answer")
# Transcript kinds, as the agent drivers and the harness's MCP client (Tools) write them.
PROMPT_KINDS = {"prompt"}
CALL_KINDS = {"tool_call", "call"}
RESPONSE_KINDS = {"tool_result", "answer", "result", "response", "tool_error"}
MODEL_KINDS = {"assistant"}


class RunFolderError(Exception):
    """The run folder cannot be read as one: printed as one line, exit status 2."""


@dataclass
class Trial:
    name: str
    group: str  # the model's label for agent trials, "<driver> (control)" for the controls
    events: list[dict]
    claim: dict


@dataclass
class Exposure:
    trial: str
    place: str
    where: str  # the tool, and the event's index in the transcript
    snippet: str


@dataclass
class Tally:
    trials: int = 0
    # place -> number of trials where the password appears there at least once
    trials_with: dict = field(default_factory=lambda: defaultdict(int))


def load_run(run_dir: Path) -> list[Trial]:
    if not run_dir.exists():
        raise RunFolderError(f"{run_dir}: no such run folder")
    if not run_dir.is_dir():
        raise RunFolderError(f"{run_dir}: not a folder")
    trials_dir = run_dir / "trials"
    folders = sorted(p for p in trials_dir.iterdir() if p.is_dir()) if trials_dir.is_dir() else []
    if not folders:
        raise RunFolderError(f"{run_dir}: no trials/*/ folders: not a run folder, or a run that never started")
    trials = []
    for folder in folders:
        verdict_path, transcript_path = folder / "verdict.json", folder / "transcript.jsonl"
        for path in (verdict_path, transcript_path):
            if not path.is_file():
                raise RunFolderError(f"{path}: missing (incomplete run folder: the trial did not finish writing)")
        try:
            verdict = json.loads(verdict_path.read_text())
        except ValueError as exc:
            raise RunFolderError(f"{verdict_path}: not JSON ({exc})") from None
        if not isinstance(verdict, dict):
            raise RunFolderError(f"{verdict_path}: not a JSON object")
        driver = verdict.get("driver") or AGENT
        model = verdict.get("model_label") or verdict.get("model") or "unknown"  # the label carries the effort
        group = f"{driver} (control)" if is_control(driver) else str(model)
        trials.append(Trial(name=folder.name, group=group, events=list(read_jsonl(transcript_path)),
                            claim=verdict.get("claim") or {}))
    return trials


def read_jsonl(path: Path) -> Iterable[dict]:
    for number, line in enumerate(path.read_text(errors="replace").splitlines(), start=1):
        if not line.strip():
            continue
        try:
            event = json.loads(line)
        except ValueError as exc:
            raise RunFolderError(f"{path}:{number}: not a JSON line ({exc})") from None
        if isinstance(event, dict):
            yield event


def _text(value) -> str:
    if value is None:
        return ""
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)


def _snippet(text: str, secret: str, width: int = 40) -> str:
    at = text.find(secret)
    start, end = max(0, at - width), min(len(text), at + len(secret) + width)
    return ("…" if start else "") + text[start:end].replace("\n", " ") + ("…" if end < len(text) else "")


def scan(trial: Trial, secret: str, hints: tuple[str, ...]) -> list[Exposure]:
    found = []
    for index, event in enumerate(trial.events):
        kind = str(event.get("kind") or event.get("type") or "")
        tool = event.get("tool") or event.get("name") or ""
        where = f"{tool} (event {index})" if tool else f"event {index}"
        if kind in PROMPT_KINDS:
            place, text = "prompt", _text(event.get("text") or event.get("prompt"))
        elif kind in CALL_KINDS:
            place, text = "arguments", _text(event.get("arguments"))
        elif kind in RESPONSE_KINDS:
            text = "\n".join(_text(event.get(key)) for key in ("text", "data", "content", "error") if key in event)
            stripped = text
            for hint in hints:
                stripped = stripped.replace(hint, "")
            place = "responses" if secret in stripped else "hint only"
        elif kind in MODEL_KINDS:
            place = "model text"
            text = "\n".join(_text(event.get(key)) for key in ("text", "thinking", "structured_output")
                             if key in event)
        else:
            continue
        if secret in text:
            found.append(Exposure(trial.name, place, where, _snippet(text, secret)))
    claim_text = "\n".join(_text(trial.claim.get(key)) for key in ("answer", "reason"))
    if secret in claim_text:
        found.append(Exposure(trial.name, "final answer", "claim", _snippet(claim_text, secret)))
    return found


def tally(trials: list[Trial], secret: str, hints: tuple[str, ...]) -> tuple[dict[str, Tally], list[Exposure]]:
    tallies: dict[str, Tally] = defaultdict(Tally)
    blockers = []
    for trial in trials:
        exposures = scan(trial, secret, hints)
        group = tallies[trial.group]
        group.trials += 1
        for place in {e.place for e in exposures}:
            group.trials_with[place] += 1
        blockers += [e for e in exposures if e.place == "responses"]
    return dict(tallies), blockers


def render(tallies: dict[str, Tally], blockers: list[Exposure], secret: str, run_dir: Path) -> str:
    masked = secret[0] + "*" * (len(secret) - 1)
    lines = [f"Where the password ({masked}) appears in {run_dir}: trials with it, per place", ""]
    width = max([len("model")] + [len(g) for g in tallies])
    lines.append(f"{'model':<{width}}  {'trials':>6}  " + "  ".join(f"{p:>12}" for p in PLACES))
    for group in sorted(tallies):
        t = tallies[group]
        lines.append(f"{group:<{width}}  {t.trials:>6}  " +
                     "  ".join(f"{t.trials_with.get(p, 0):>12}" for p in PLACES))
    lines.append("")
    if blockers:
        lines.append(f"BLOCKER: the password is in {len(blockers)} tool response(s):")
        for b in blockers:
            lines.append(f"  {b.trial}: {b.where}: {b.snippet}")
    else:
        lines.append("No tool response carries the password (beyond the app's own hint).")
    return "\n".join(lines)


def main(argv: Optional[list[str]] = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("run_dir", metavar="RUN_DIR", type=Path, help="a run folder (with trials/*/)")
    parser.add_argument("--secret", default=DEFAULT_SECRET, help=f"the password to look for ({DEFAULT_SECRET})")
    parser.add_argument("--hint", action="append", default=None,
                        help=f"on-screen text that holds it by design (default {DEFAULT_HINT!r}; repeatable)")
    args = parser.parse_args(argv)
    if not args.secret:
        print("secret_exposure: --secret must not be empty", file=sys.stderr)
        return 2
    hints = tuple(args.hint) if args.hint else (DEFAULT_HINT,)
    try:
        trials = load_run(args.run_dir)
    except (RunFolderError, OSError) as exc:
        print(f"secret_exposure: {exc}", file=sys.stderr)
        return 2
    tallies, blockers = tally(trials, args.secret, hints)
    print(render(tallies, blockers, args.secret, args.run_dir))
    return 1 if blockers else 0


if __name__ == "__main__":
    sys.exit(main())
