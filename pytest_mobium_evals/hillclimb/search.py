"""The search (gepa over the dev tasks, through `SurfaceAdapter`) and our acceptance (dev with repeats, then the
paired test on held out). See `command` for the whole loop."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional

from ..records import atomic_write_json
from .components import CandidateError, candidate_id, diff, write_candidate
from .trials import TrialSetup, ensure, feedback, trajectory

SEARCH = "search"
CANDIDATES = "candidates"
ACCEPT_DEV = "accept-dev"
ACCEPT_HELD_OUT = "accept-held-out"
ROUNDS = "rounds"

COMPONENT_WHAT = {
    "errors": "the remedy each Mobium error carries, which the agent reads when a call is refused. Keep the format: "
              "one line per error code, CODE = remedy (\"*\" for every code); the codes are Mobium's",
    "map": "the transforms of app_map's text, the screen as the agent reads it. Keep the format: one line per "
           "transform, NAME = CHOICE, choosing among the choices listed after each #",
}
TEMPLATE = "\n".join([
    "You are improving one part of Mobium's agent-facing surface: the text an AI agent reads while it drives an "
    "Android phone through Mobium's MCP tools. The part is `{component}`: {what}.",
    "", "Its current text:", "```", "<curr_param>", "```", "",
    "Trials in which agents failed under it, each with the task's prompt, the tool calls and their answers, the "
    "errors, the verdict and what the device showed:",
    "```", "<side_info>", "```", "",
    "Find what the agents needed to know and were not told, or were told wrongly, by this part of the surface. "
    "Write the whole new text of `{component}`, saying that fact plainly and for every app, never a task's answer. "
    "Give the new text within ``` blocks."])


def label_for(candidate: dict[str, str], seed: dict[str, str], start_label: str) -> str:
    """The seed candidate is the start variant, under its own name (so the acceptance pairs with its trials);
    every other candidate is named by its texts."""
    return start_label if candidate == seed else f"c-{candidate_id(candidate)}"


class SurfaceAdapter:
    """gepa's adapter: a batch of dev task ids evaluated under a candidate by real trials (one repeat, the run's
    seed), scored 1 for a pass and 0 otherwise; failed trials as the reflective dataset."""

    propose_new_texts = None  # gepa's own proposer, with our templates and the --reflect model

    def __init__(self, plan, setup: TrialSetup, start, seed: dict[str, str]):
        self.plan, self.setup, self.start, self.seed = plan, setup, start, seed
        self.trials_run = 0
        self.evaluations = 0

    def candidate_file(self, candidate: dict[str, str]) -> tuple[str, Path]:
        label = label_for(candidate, self.seed, self.plan.start_label)
        about = (self.start.variant.about if label == self.plan.start_label
                 else f"hillclimb candidate from {self.plan.start_label}")
        return label, write_candidate(candidate, self.start, self.plan.out / CANDIDATES, label, about)

    def evaluate(self, batch: list[str], candidate: dict[str, str], capture_traces: bool = False):
        from gepa.core.adapter import EvaluationBatch

        self.evaluations += 1
        try:
            label, path = self.candidate_file(candidate)
        except CandidateError as exc:
            note = {"invalid": str(exc)}
            return EvaluationBatch(outputs=[note] * len(batch), scores=[0.0] * len(batch),
                                   trajectories=[note] * len(batch) if capture_traces else None)
        trials = ensure(self.setup, self.plan.out / SEARCH, [str(path)], list(batch), 1)
        self.trials_run += trials.ran
        got = [trials.by_key[(label, task, 0)] for task in batch]
        outputs = [{"task": t.task, "verdict": t.verdict, "trial": str(t.path)} for t in got]
        return EvaluationBatch(outputs=outputs, scores=[1.0 if t.passed else 0.0 for t in got],
                               trajectories=[trajectory(t) for t in got] if capture_traces else None)

    def make_reflective_dataset(self, candidate, eval_batch, components_to_update):
        records = []
        for traj, score in zip(eval_batch.trajectories or [], eval_batch.scores):
            if score >= 1.0:
                continue
            if "invalid" in traj:
                records.append({"Inputs": {}, "Generated Outputs": {}, "Feedback": f"The text is not a surface "
                                                                                   f"variant: {traj['invalid']}"})
                continue
            records.append({
                "Inputs": {"task": traj["task"], "prompt": traj["prompt"], "params": traj["params"]},
                "Generated Outputs": {"tool calls and answers": traj["tool_steps"], "claim": traj["claim"],
                                      "last map the agent read": traj["last_map"]},
                "Feedback": feedback(traj)})
        return {name: records for name in components_to_update}


class Rounds:
    """gepa's callbacks: each round (iteration) written to rounds/NNNN.json when it ends, atomically."""

    def __init__(self, folder: Path, adapter: SurfaceAdapter, reflection):
        self.folder, self.adapter, self.reflection = folder, adapter, reflection
        self.current: dict[str, Any] = {}
        self.ended = len(list(folder.glob("*.json")))

    def on_iteration_start(self, event):
        self.current = {"round": event["iteration"], "proposed": {}, "outcome": None}

    def on_proposal_end(self, event):
        self.current["proposed"] = dict(event.get("new_instructions") or {})

    def on_candidate_accepted(self, event):
        self.current["outcome"] = {"kept": True, "candidate": event["new_candidate_idx"],
                                   "score": event["new_score"]}

    def on_candidate_rejected(self, event):
        self.current["outcome"] = {"kept": False, "old_score": event["old_score"],
                                   "new_score": event["new_score"], "why": event["reason"]}

    def on_iteration_end(self, event):
        self.ended += 1
        self.current.update({"trials_run_so_far": self.adapter.trials_run,
                             "reflection_tokens_so_far": self.reflection.total_tokens})
        atomic_write_json(self.folder / f"{event['iteration']:04d}.json", self.current)


class FileLog:
    """gepa's log, to gepa/log.txt: its per-iteration lines are the run's record, not the terminal's."""

    def __init__(self, path: Path):
        path.parent.mkdir(parents=True, exist_ok=True)
        self.path = path

    def log(self, message: str) -> None:
        with open(self.path, "a", encoding="utf-8") as fh:
            fh.write(f"{message}\n")
        if "Found a better program" in message or "Selected program" in message:
            print(f"hillclimb: {message}")


class StopAfter:
    """gepa's stopper for what it does not count itself: reflection tokens and rounds."""

    def __init__(self, reflection, tokens: int, rounds: Optional[int], counter: Rounds):
        self.reflection, self.tokens, self.rounds, self.counter = reflection, tokens, rounds, counter
        self.why: Optional[str] = None

    def __call__(self, state) -> bool:
        if self.reflection.total_tokens >= self.tokens:
            self.why = f"reflection tokens: {self.reflection.total_tokens:,} of {self.tokens:,}"
        elif self.rounds is not None and state.i + 1 >= self.rounds:
            self.why = f"rounds: {state.i + 1} of {self.rounds}"
        return self.why is not None


@dataclass
class Found:
    candidates: list[dict[str, str]]  # gepa's pool, the seed first
    scores: list[float]  # each one's mean over the dev tasks, as gepa measured it
    adapter: SurfaceAdapter
    stopped_by: str
    rounds: int


def search(plan, setup: TrialSetup, start, seed: dict[str, str], reflection, args) -> Found:
    import gepa

    from .components import ERRORS, MAP, TOOL_PREFIX

    adapter = SurfaceAdapter(plan, setup, start, seed)
    rounds_dir = plan.out / ROUNDS
    rounds_dir.mkdir(parents=True, exist_ok=True)
    rounds = Rounds(rounds_dir, adapter, reflection)
    stop = StopAfter(reflection, args.reflect_tokens, args.rounds, rounds)
    # Errors and the map first: round robin goes in the candidate's order, and they are the components a failure
    # names most directly.
    ordered = {k: seed[k] for k in [ERRORS, MAP] + [k for k in seed if k.startswith(TOOL_PREFIX)]}
    templates = {name: TEMPLATE.format(component=name, what=COMPONENT_WHAT.get(
        name, f"the description of the tool {name[len(TOOL_PREFIX):]}, which the agent reads in tools/list"))
        for name in ordered}
    result = gepa.optimize(
        seed_candidate=ordered, trainset=plan.dev, valset=plan.dev, adapter=adapter, reflection_lm=reflection,
        reflection_prompt_template=templates, reflection_minibatch_size=min(args.minibatch, len(plan.dev)),
        candidate_selection_strategy="pareto", module_selector="round_robin", max_metric_calls=plan.search_budget,
        stop_callbacks=[stop], callbacks=[rounds], run_dir=str(plan.out / "gepa"), seed=args.seed,
        logger=FileLog(plan.out / "gepa" / "log.txt"),
        display_progress_bar=False, raise_on_exception=True, skip_perfect_score=True)
    why = stop.why or f"trials: {plan.search_budget} metric calls"
    return Found(list(result.candidates), list(result.val_aggregate_scores), adapter, why, rounds.ended)


# --- the acceptance ---------------------------------------------------------------------------------------------------

@dataclass
class Outcome:
    accepted: bool
    why: str
    final: Optional[dict[str, str]] = None
    final_label: Optional[str] = None
    dev: list = field(default_factory=list)  # paired.Comparison per kept candidate, against the start
    held_out: Optional[Any] = None  # the final's paired.Comparison on held out
    folders: dict[str, list[Path]] = field(default_factory=dict)
    trials_run: int = 0


def _by_label(trials, label: str) -> list:
    return [t for (surface, _, _), t in sorted(trials.by_key.items()) if surface == label]


def accept(plan, setup: TrialSetup, start, seed: dict[str, str], found: Found, args) -> Outcome:
    from ..paired import compare_trials

    kept = sorted((i for i in range(len(found.candidates)) if found.candidates[i] != seed),
                  key=lambda i: -found.scores[i])[:args.keep]
    files = {}
    for i in kept:
        label, path = found.adapter.candidate_file(found.candidates[i])
        files[label] = (found.candidates[i], path)
    seed_label, seed_path = found.adapter.candidate_file(seed)
    if not files:
        return Outcome(False, "gepa kept no candidate but the start: no proposal beat it on a minibatch",
                       trials_run=0)
    dev_trials = ensure(setup, plan.out / ACCEPT_DEV, [str(seed_path)] + [str(p) for _, p in files.values()],
                        plan.dev, args.repeats)
    base = _by_label(dev_trials, seed_label)
    dev = []
    for label in files:
        c = compare_trials(args.model, label, "dev", base, _by_label(dev_trials, label))
        _relink(c, dev_trials, label, plan.out)
        dev.append(c)
    outcome = Outcome(False, "", dev=dev, folders={ACCEPT_DEV: dev_trials.folders}, trials_run=dev_trials.ran)
    better = [c for c in dev if c.delta is not None and c.delta > 0]
    if not better:
        outcome.why = (f"no kept candidate is better than {seed_label} on the dev tasks with {args.repeats} repeats "
                       f"(gepa's minibatch gains did not hold)")
        return outcome

    def size(c) -> int:
        return len(diff(seed, files[c.variant][0], "a", "b").splitlines())

    best = sorted(better, key=lambda c: (-c.delta, size(c)))[0]
    outcome.final, outcome.final_label = files[best.variant][0], best.variant
    held = ensure(setup, plan.out / ACCEPT_HELD_OUT, [str(seed_path), str(files[best.variant][1])], plan.held_out,
                  args.repeats)
    outcome.folders[ACCEPT_HELD_OUT] = held.folders
    outcome.trials_run += held.ran
    c = compare_trials(args.model, best.variant, "held_out", _by_label(held, seed_label), _by_label(held, best.variant))
    _relink(c, held, best.variant, plan.out)
    outcome.held_out = c
    if c.call == "clearly better":
        outcome.accepted = True
        outcome.why = (f"{best.variant} is clearly better than {seed_label} on the held-out tasks: "
                       f"{100 * c.delta:+.0f} points [{100 * c.low:+.0f}, {100 * c.high:+.0f}] over {c.tasks} tasks, "
                       f"exact one-sided p {c.test.better:.3g}")
    else:
        outcome.why = rejection(best, c)
    return outcome


def rejection(dev, held) -> str:
    """Why the final candidate is not accepted, in the words its held-out result earns: a gain that is there but not
    clear is not "helps only where it was tuned"; that is said only of no gain on held out."""
    gained = f"{dev.variant} is better on dev ({100 * dev.delta:+.0f} points)"
    if held.delta is None or held.test is None:
        return f"{gained}, but it has no held-out trials to judge it"
    bounds = "" if held.low is None else f" [{100 * held.low:+.0f}, {100 * held.high:+.0f}]"
    measured = f"{100 * held.delta:+.0f} points{bounds} over {held.tasks} held-out tasks"
    if not held.test.decidable:
        return f"{gained}; on held out {measured}: {held.call}, so nothing could be accepted"
    if held.delta > 0:
        return (f"{gained}; on held out {measured} is not clear (exact one-sided p {held.test.better:.3g}, over "
                f"2.5%): a gain this size needs more held-out tasks or repeats to be told from chance")
    if held.delta < 0:
        return f"{gained}; on held out {measured}: {held.call}; it is worse where it was not tuned"
    return (f"{gained}; on held out {measured}: no gain, so a change that helps only where it was tuned is not "
            f"proposed")


def _relink(comparison, trials, label: str, out: Path) -> None:
    """The comparison's trial links as paths from the hillclimb's folder, where hillclimb.md is written."""
    comparison.trials = {}
    for (surface, task, _), t in sorted(trials.by_key.items()):
        if surface == label:
            comparison.trials.setdefault(task, []).append(os.path.relpath(t.path, out))
