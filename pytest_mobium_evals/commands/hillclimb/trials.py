"""Trials under a surface variant, through the one trial machinery there is: a pytest run of the tasks with
`--surface=<variant files>`, `--model`, `--repeats` and `--seed`, into a run folder of its own, read back with the
run loader (`runfolder.reading.load_run`, `TrialRecord`). No second trial runner: what a hillclimb evaluates is what
`pytest --surface` measures, on the same devices (`--device`, the virtual one by default).

A trial once recorded under a variant file is not run again: the same variant, task, seed and repeat have their
verdict.json already (the cache is the run folders, so a stopped hillclimb resumes with nothing lost). A trial that
ended `infra_error` is not the variant's: it is left out of the cache and run again, once; still failing, the
hillclimb stops with that line, to be resumed."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

from pytest_mobium_evals.core.errors import (  # UsageError: what the run loader raises, one line
    MobiumEvalsError,
    UsageError,
)
from pytest_mobium_evals.core.transcript import steps as transcript_steps
from pytest_mobium_evals.drivers.agents import parse_models
from pytest_mobium_evals.run.trial import agent_param_id
from pytest_mobium_evals.runfolder.layout import TRANSCRIPT
from pytest_mobium_evals.runfolder.reading import Trial, is_run, load_run, read_events
from pytest_mobium_evals.surface.variants import variant_name

LOG = "pytest.log"
TEXT_LIMIT = 700  # characters of a tool's answer kept in the reflective dataset


class TrialRunError(MobiumEvalsError, RuntimeError):
    """Trials that could not be run (pytest refused the options, the device or the model failed): one line."""


@dataclass(frozen=True)
class TrialSetup:
    """What every evaluation shares: where the tasks are, the task model, the seed, pytest's extra options."""

    root: Path  # the project folder pytest runs in
    task_paths: tuple[str, ...]
    model: str
    seed: int
    pytest_args: tuple[str, ...] = ()
    env: tuple[tuple[str, str], ...] = ()
    # task id → its pytest node (`file::function`): a run collects only the files it needs, and names the exact
    # trials it needs (a look of the held-out test that adds repeats runs those repeats, not the ones it has)
    task_nodes: tuple[tuple[str, str], ...] = ()

    def paths_for(self, tasks: list[str]) -> list[str]:
        nodes = dict(self.task_nodes)
        if all(t in nodes for t in tasks):
            return sorted({nodes[t].split("::", 1)[0] for t in tasks})
        return list(self.task_paths)

    def node_ids(self, keys: list[tuple[str, str, int]]) -> Optional[list[str]]:
        """The pytest ids of these (surface label, task, repeat) trials, or None when a task's node is not known."""
        nodes = dict(self.task_nodes)
        if not keys or not all(task in nodes for _, task, _ in keys):
            return None
        model = parse_models(self.model)[0].label
        return [f"{nodes[task]}[{agent_param_id(model, label, repeat)}]" for label, task, repeat in sorted(keys)]


@dataclass
class Trials:
    """Trials by (surface label, task, repeat), each a runfolder.reading.Trial; and how many were run now (not
    cached)."""

    by_key: dict[tuple[str, str, int], Trial] = field(default_factory=dict)
    ran: int = 0
    folders: list[Path] = field(default_factory=list)


def _pytest_command(setup: TrialSetup, surfaces: list[str], tasks: list[str], repeats: int, run_dir: Path,
                    keys: Optional[list[tuple[str, str, int]]] = None) -> list[str]:
    """The pytest run of `keys` (surface label, task, repeat) by their ids when every task's node is known; else of
    every repeat of `tasks` under `surfaces`, by file and -k."""
    folder = f"--resume={run_dir}" if is_run(run_dir) else f"--run-dir={run_dir}"
    nodes = setup.node_ids(keys) if keys else None
    targets = nodes or [*setup.paths_for(tasks), "-k", " or ".join(sorted(tasks))]
    return [sys.executable, "-m", "pytest", *targets, f"--surface={','.join(surfaces)}", f"--model={setup.model}",
            f"--repeats={repeats}", f"--seed={setup.seed}", folder, "-p", "no:cacheprovider", "-q",
            *setup.pytest_args]


def run_pytest(setup: TrialSetup, surfaces: list[str], tasks: list[str], repeats: int, run_dir: Path,
               keys: Optional[list[tuple[str, str, int]]] = None) -> list[Trial]:
    """One pytest run; its agent trials of `tasks` (those of `keys` when given), or TrialRunError."""
    run_dir.parent.mkdir(parents=True, exist_ok=True)
    command = _pytest_command(setup, surfaces, tasks, repeats, run_dir, keys)
    log = run_dir.parent / f"{run_dir.name}.{LOG}"
    with open(log, "wb") as out:
        out.write((" ".join(command) + "\n\n").encode("utf-8"))
        out.flush()
        code = subprocess.call(command, cwd=setup.root, stdout=out, stderr=subprocess.STDOUT,
                               env={**os.environ, **dict(setup.env)})
    try:
        run = load_run(run_dir, require_complete=False)
    except UsageError as exc:
        tail = [line for line in log.read_text(encoding="utf-8", errors="replace").splitlines() if line.strip()]
        raise TrialRunError(f"pytest exited {code} without a run folder ({tail[-1] if tail else exc}); "
                            f"see {log}") from None
    wanted = set(tasks)
    return [t for t in run.trials if t.record.task in wanted and not t.record.is_control]


def label_of(surface: str) -> str:
    return variant_name(surface)


def _folder_name(surfaces: list[str], tasks: list[str], repeats: int, attempt: int,
                 keys: Optional[list[tuple[str, str, int]]] = None) -> str:
    blob = json.dumps([sorted(label_of(s) for s in surfaces), sorted(tasks), repeats]
                      + ([sorted(keys)] if keys else [])).encode("utf-8")
    return f"{hashlib.sha256(blob).hexdigest()[:8]}-a{attempt}"


def recorded(folder: Path) -> Trials:
    """Every graded trial (not an infra error) already in the run folders under `folder`."""
    out = Trials()
    if not folder.is_dir():
        return out
    for run_dir in sorted(p for p in folder.iterdir() if is_run(p)):
        try:
            run = load_run(run_dir, require_complete=False)
        except UsageError:
            continue  # a folder pytest never finished writing: its trials run again
        out.folders.append(run_dir)
        for t in run.trials:
            if not t.record.is_control and not t.record.is_infra_error and t.record.surface:
                out.by_key.setdefault((t.record.surface, t.record.task, t.record.repeat), t)
    return out


def ensure(setup: TrialSetup, folder: Path, surfaces: list[str], tasks: list[str], repeats: int,
           attempts: int = 2) -> Trials:
    """Every (surface, task, repeat) graded, running only what `folder` does not hold yet. The surfaces run
    interleaved in one pytest run (`--surface A,B`), so the ones compared share seeds and devices."""
    have = recorded(folder)
    labels = [label_of(s) for s in surfaces]
    ran = 0
    for attempt in range(1, attempts + 1):
        keys = sorted((label, task, repeat) for label in labels for task in tasks for repeat in range(repeats)
                      if (label, task, repeat) not in have.by_key)
        if not keys:
            have.ran = ran
            return have
        missing = sorted({task for _, task, _ in keys})
        need = [s for s in surfaces if label_of(s) in {label for label, _, _ in keys}]
        # Only the trials not recorded yet. When some repeat of a needed task is recorded (a new look of the held-out
        # test adds repeats; an infrastructure error's trial runs again), they are named to pytest by their ids: by
        # file and -k every repeat of the task would run again, and the folders would hold two of a trial.
        partial = (len(keys) < len(need) * len(missing) * repeats) and setup.node_ids(keys) is not None
        run_dir = folder / _folder_name(need, missing, repeats, attempt, keys if partial else None)
        before = {(t.record.surface, t.record.task, t.record.repeat) for t in have.by_key.values()}
        for t in run_pytest(setup, need, missing, repeats, run_dir, keys if partial else None):
            if not t.record.is_infra_error and t.record.surface:
                have.by_key.setdefault((t.record.surface, t.record.task, t.record.repeat), t)
        ran += len({(t.record.surface, t.record.task, t.record.repeat) for t in have.by_key.values()} - before)
        if run_dir not in have.folders:
            have.folders.append(run_dir)
    missing = [(label, task, repeat) for label in labels for task in tasks for repeat in range(repeats)
               if (label, task, repeat) not in have.by_key]
    if missing:
        label, task, repeat = missing[0]
        raise TrialRunError(f"{len(missing)} trial(s) still not graded after {attempts} attempts (the first: {task} "
                            f"r{repeat} under {label}; infrastructure errors are never charged to a variant); see "
                            f"the run folders under {folder}, and run the hillclimb again to resume")
    have.ran = ran
    return have


# --- a failed trial, for the reflection model -----------------------------------------------------------------------

def _short(text: object, limit: int = TEXT_LIMIT) -> str:
    text = text if isinstance(text, str) else json.dumps(text, ensure_ascii=False, default=str)
    return text if len(text) <= limit else text[:limit] + f"… ({len(text) - limit} more characters)"


def transcript(trial: Trial) -> list[dict]:
    return read_events(trial.path / TRANSCRIPT)


def coded_error(answer: str, seen: Optional[dict]) -> dict:
    """What the surface proxy recorded of an error the model read as `answer` (surface_seen's `error_codes`): its
    Mobium code and the remedy its client did not pass on; {} when the trial had no proxy or the text is not there.
    A model client passes an error's text alone, so its transcript has neither."""
    for entry in (seen or {}).get("error_codes") or []:
        text = entry.get("text") or ""
        if text and (text == answer or text in answer or answer in text):
            return entry
    return {}


def read_steps(events: list[dict], seen: Optional[dict] = None) -> tuple[str, list[str], list[str], Optional[str]]:
    """The prompt, the tool steps and the errors as the agent read them, and the last map it got, through
    core.transcript's one reader (each driver records a call's tool under its own key; the reader knows them all).
    An error's text is what reached the model: a remedy the client did not pass on is not in it. Its code (and the
    remedy not passed on) come from the payload where the recorder kept it, else from what the surface proxy saw
    (`seen`, the trial's surface_seen): a remedy can then be proposed for the code that needs it, not for every code."""
    events = list(events)
    prompt = ""
    lines: list[str] = []
    errors: list[str] = []
    last_map: Optional[str] = None
    for step in transcript_steps(events):
        if step.role == "prompt" and not prompt:
            prompt = step.text
        elif step.role == "tool":
            # a map ref as what the last map the agent read said it was (transcript.steps resolves it)
            lines.append(f"call {step.tool}({_short(step.resolved or step.arguments, 200)})")
            if step.answer is None:
                continue
            if step.is_error:
                # The structured payload is there when the recorder kept it (the harness's own client, which an
                # agent reading it directly uses); a model client's record is the text its model got, and no more.
                data = events[step.answered].get("data") if step.answered is not None else None
                data = data if isinstance(data, dict) else {}
                proxied = {} if data.get("code") else coded_error(step.answer, seen)
                code = data.get("code") or proxied.get("code")
                line = f"ERROR{f' [{code}]' if code else ''} from {step.tool}: {_short(step.answer, 300)}"
                if data.get("remedy") and data["remedy"] not in step.answer:
                    line += f" | remedy: {data['remedy']}"
                elif not data.get("remedy") and "remedy" not in step.answer.lower():
                    hidden = proxied.get("remedy_not_shown")
                    line += (f" | (no remedy given; the server's, which the agent's client did not pass on: {hidden})"
                             if hidden else " | (no remedy given)")
                errors.append(line)
                lines.append(line)
            else:
                lines.append(f"answer of {step.tool}: {_short(step.answer)}")
                if step.tool == "app_map":
                    last_map = step.answer
        elif step.role == "error":
            lines.append(f"ERROR: {_short(step.text, 300)}")
    return prompt, lines, errors, last_map


def trajectory(trial: Trial) -> dict:
    """What the reflection model reads of one trial: the prompt, the tool calls and answers (errors flagged), the
    claim, the verdict, and what the device showed (the outcome the grader read, and the last map the agent got)."""
    prompt, steps, errors, last_map = read_steps(transcript(trial), trial.record.surface_seen)
    record = trial.record
    return {
        "task": record.task,
        "surface": record.surface,
        "prompt": prompt,
        "params": record.params,
        "tool_steps": steps,
        "errors": errors,
        "claim": {"status": record.claim_status, "answer": record.answer, "reason": record.reason},
        "verdict": record.verdict,
        "severity": record.severity,
        "device_showed": _short(record.outcome_observed, 400),
        "last_map": _short(last_map or "(the agent never read the map)", 1500),
        "trial": str(trial.path),
    }


def feedback(t: dict) -> str:
    claim = t["claim"]
    said = claim.get("status") or "no claim"
    if claim.get("answer"):
        said += f", answering {claim['answer']!r}"
    if claim.get("reason"):
        said += f", because {claim['reason']!r}"
    severity = f" ({t['severity']})" if t["severity"] else ""
    return (f"The trial failed: verdict {t['verdict']}{severity}. "
            f"The agent said {said}; the device showed {t['device_showed']}. "
            + (f"It met {len(t['errors'])} error(s): {'; '.join(t['errors'])}. " if t["errors"] else "")
            + "What the agent read of Mobium's surface (the tool descriptions, the errors' remedies, the map's "
              "text) is what the component can change.")
