"""The search (gepa over the dev tasks, through `SurfaceAdapter`) and our acceptance (dev with repeats, then the
paired test on held out). See `command` for the whole loop."""

from __future__ import annotations

import dataclasses
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Optional

from pytest_mobium_evals.analysis.paired import _cost, compare_trials
from pytest_mobium_evals.analysis.sequential import Schedule, sequential_test
from pytest_mobium_evals.analysis.sequential import power as sequential_power
from pytest_mobium_evals.runfolder.files import atomic_write_json

from .components import ERRORS, MAP, TOOL_PREFIX, CandidateError, candidate_id, diff, write_candidate
from .trials import TrialSetup, ensure, feedback, trajectory
from .wording import plain_candidate

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
    every other candidate is named by the start it is laid over and its texts (the same texts over another start
    are another variant)."""
    return start_label if candidate == seed else f"{start_label}-c-{candidate_id(candidate)}"


def round_seed(base: int, round_number: int) -> int:
    """Each round's trials have seeds of their own, so a candidate is never judged on one frozen sample; within a
    round, a parent and its proposal share them (a paired comparison, and an unchanged proposal is a cache hit)."""
    return base + 1000 * round_number


class SurfaceAdapter:
    """gepa's adapter: a batch of dev task ids evaluated under a candidate by real trials (`--search-repeats` of
    each, at the round's seed), each task scored its pass rate over those repeats (the mean, never the best of
    them); failed trials as the reflective dataset."""

    propose_new_texts = None  # gepa's own proposer, with our templates and the --reflect model

    def __init__(self, plan, setup: TrialSetup, start, seed: dict[str, str], repeats: int = 1):
        self.plan, self.setup, self.start, self.seed = plan, setup, start, seed
        self.repeats = repeats
        self.round = 0  # set by Rounds as each gepa iteration starts; 0 for the start's first evaluation
        self.trials_run = 0  # real trials, not answers from the run folders' cache
        # ... of which on minibatches (a parent and its proposal, gepa's capture_traces) and on every dev task (a
        # proposal the gate let through, gepa's valset): what a gate that lets more through costs
        self.trials_by_phase = {"minibatch": 0, "dev": 0}
        self.evaluations = 0
        self.last_texts: dict[str, str] = {}  # the parent a round reflects on: the last candidate run with traces

    def candidate_file(self, candidate: dict[str, str]) -> tuple[str, Path]:
        label = label_for(candidate, self.seed, self.plan.start_label)
        about = (self.start.variant.about if label == self.plan.start_label
                 else f"hillclimb candidate from {self.plan.start_label}")
        return label, write_candidate(candidate, self.start, self.plan.out / CANDIDATES, label, about)

    def evaluate(self, batch: list[str], candidate: dict[str, str], capture_traces: bool = False):
        from gepa.core.adapter import EvaluationBatch

        self.evaluations += 1
        if capture_traces:
            self.last_texts = dict(candidate)
        try:
            label, path = self.candidate_file(candidate)
        except CandidateError as exc:
            note = {"invalid": str(exc)}
            return EvaluationBatch(outputs=[note] * len(batch), scores=[0.0] * len(batch),
                                   trajectories=[note] * len(batch) if capture_traces else None)
        seed = round_seed(self.setup.seed, self.round)
        trials = ensure(dataclasses.replace(self.setup, seed=seed), self.plan.out / SEARCH / f"seed-{seed}",
                        [str(path)], list(batch), self.repeats)
        self.trials_run += trials.ran
        self.trials_by_phase["minibatch" if capture_traces else "dev"] += trials.ran
        got = {task: [trials.by_key[(label, task, r)] for r in range(self.repeats)] for task in batch}
        # One output and trajectory per task: its first failed repeat (what the reflection should read), else its
        # first; the score is the mean over the repeats.
        shown = [next((t for t in got[task] if not t.record.passed), got[task][0]) for task in batch]
        outputs = [{"task": t.record.task, "verdict": t.record.verdict, "trial": str(t.path), "seed": seed,
                    "passed": sum(x.record.passed for x in got[t.record.task]), "repeats": self.repeats} for t in shown]
        scores = [sum(t.record.passed for t in got[task]) / self.repeats for task in batch]
        return EvaluationBatch(outputs=outputs, scores=scores,
                               trajectories=[trajectory(t) for t in shown] if capture_traces else None)

    def make_reflective_dataset(self, candidate, eval_batch, components_to_update):
        records = []
        for traj, score in zip(eval_batch.trajectories or [], eval_batch.scores):
            if score >= 1.0:
                continue  # every repeat passed: nothing to reflect on
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
    """gepa's callbacks: each round (iteration) written to rounds/NNNN.json when it ends, atomically: what was
    proposed, the gate's decision on it with both minibatch scores (`gate`), the outcome as gepa reports it, and the
    trials the round ran on minibatches and on the dev tasks."""

    def __init__(self, folder: Path, adapter: SurfaceAdapter, reflection):
        self.folder, self.adapter, self.reflection = folder, adapter, reflection
        self.current: dict[str, Any] = {}
        self.ended = len(list(folder.glob("*.json")))
        self._phase_before: dict[str, int] = {}

    def on_iteration_start(self, event):
        self.adapter.round = event["iteration"]
        self.current = {"round": event["iteration"], "seed": round_seed(self.adapter.setup.seed, event["iteration"]),
                        "proposed": {}, "gate": None, "outcome": None}
        self._phase_before = dict(self.adapter.trials_by_phase)

    def gated(self, decision: dict) -> None:
        """The gate's decision on this round's proposal (MinibatchGate calls it once a proposal)."""
        self.current["gate"] = decision

    def on_proposal_end(self, event):
        proposed = dict(event.get("new_instructions") or {})
        self.current["proposed"] = proposed
        # The reflection gave the text back as it was: the same candidate, whose trials this round are the cache's.
        self.current["unchanged"] = not proposed or all(
            self.adapter.last_texts.get(k) == v for k, v in proposed.items())

    def on_candidate_accepted(self, event):
        self.current["outcome"] = {"kept": True, "candidate": event["new_candidate_idx"],
                                   "score": event["new_score"]}

    def on_candidate_rejected(self, event):
        self.current["outcome"] = {"kept": False, "old_score": event["old_score"],
                                   "new_score": event["new_score"], "why": event["reason"]}

    def on_iteration_end(self, event):
        self.ended += 1
        self.current["trials"] = {phase: n - self._phase_before.get(phase, 0)
                                  for phase, n in self.adapter.trials_by_phase.items()}
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
    """gepa's stopper: real trials (gepa's own metric-call budget counts answers from the cache too), reflection
    tokens and rounds. It is asked between rounds, so the last round may run past the trial budget by its own."""

    def __init__(self, reflection, tokens: int, rounds: Optional[int], counter: Rounds, adapter=None,
                 trials: Optional[int] = None):
        self.reflection, self.tokens, self.rounds, self.counter = reflection, tokens, rounds, counter
        self.adapter, self.trials = adapter, trials
        self.why: Optional[str] = None

    def __call__(self, state) -> bool:
        if self.trials is not None and self.adapter.trials_run >= self.trials:
            self.why = f"trials: {self.adapter.trials_run} real trials of {self.trials} (cached answers not counted)"
        elif self.reflection.total_tokens >= self.tokens:
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

    adapter = SurfaceAdapter(plan, setup, start, seed, args.search_repeats)
    rounds_dir = plan.out / ROUNDS
    rounds_dir.mkdir(parents=True, exist_ok=True)
    rounds = Rounds(rounds_dir, adapter, reflection)
    stop = StopAfter(reflection, args.reflect_tokens, args.rounds, rounds, adapter, plan.search_budget)
    # Errors and the map first: round robin goes in the candidate's order, and they are the components a failure
    # names most directly.
    ordered = {k: seed[k] for k in [ERRORS, MAP] + [k for k in seed if k.startswith(TOOL_PREFIX)]}
    templates = {name: TEMPLATE.format(component=name, what=COMPONENT_WHAT.get(
        name, f"the description of the tool {name[len(TOOL_PREFIX):]}, which the agent reads in tools/list"))
        for name in ordered}
    result = gepa.optimize(
        seed_candidate=ordered, trainset=plan.dev, valset=plan.dev, adapter=adapter, reflection_lm=reflection,
        reflection_prompt_template=templates, reflection_minibatch_size=min(args.minibatch, len(plan.dev)),
        candidate_selection_strategy="pareto", module_selector="round_robin",
        stop_callbacks=[stop], callbacks=[rounds], run_dir=str(plan.out / "gepa"), seed=args.seed,
        logger=FileLog(plan.out / "gepa" / "log.txt"),
        display_progress_bar=False, raise_on_exception=True, skip_perfect_score=True,
        **gepa_acceptance(rounds.gated))
    why = stop.why or "gepa ended on its own"
    return Found(list(result.candidates), list(result.val_aggregate_scores), adapter, why, rounds.ended)


class MinibatchGate:
    """gepa's AcceptanceCriterion: which proposals go on from their minibatch to every dev task (gepa's valset) and
    so into the pool the dev check draws from. The rule is gepa's own default (StrictImprovementAcceptance): the
    minibatch's total score rose, parent and proposal run on the same round's seeds.

    Why not stricter. The gate holds no error rate: the held-out test does, and no gate decision touches a held-out
    task, so a null proposal the gate lets through costs trials (its dev evaluation, a place in the dev check), never
    a false acceptance. What a stricter gate costs is recall. The rule before issue 40 kept a proposal only when no
    minibatch task fell and one rose: with an agent that slips now and then on any task, some task of the minibatch
    falls by chance in most rounds, so it threw the right proposal away 5 times in 7 (2.0 -> 5.0, 2.5 -> 5.0, ...).
    A higher total is what a better proposal shows on a minibatch whatever the noise, and a null one shows it less
    than half the time (a tie is not a rise). Each decision is recorded with both scores and the old rule's verdict
    (rounds/NNNN.json, `gate`), so what the looser rule lets through, and what it then costs, is counted."""

    RULE = "the minibatch's total score rose (gepa's own rule)"

    def __init__(self, record: Optional[Callable[[dict], None]] = None):
        self.record = record

    @staticmethod
    def scores(proposal) -> tuple[list[float], list[float]]:
        return list(proposal.subsample_scores_before or []), list(proposal.subsample_scores_after or [])

    def should_accept(self, proposal, state) -> bool:
        before, after = self.scores(proposal)
        kept = sum(after) > sum(before)
        if self.record is not None:
            outputs = getattr(getattr(proposal, "eval_before", None), "outputs", None) or []
            moved = [b - a for a, b in zip(before, after)]
            self.record({"rule": self.RULE, "kept": kept,
                         "tasks": [o.get("task") if isinstance(o, dict) else None for o in outputs],
                         "before": before, "after": after, "total_before": sum(before), "total_after": sum(after),
                         # what the rule before issue 40 (no task fell, one rose) would have decided
                         "none_fell_and_one_rose": any(m > 0 for m in moved) and not any(m < 0 for m in moved)})
        return kept

    def reject_reason(self, proposal, state) -> str:
        before, after = self.scores(proposal)
        return f"the minibatch's total did not rise ({sum(before):g} -> {sum(after):g})"


def gepa_acceptance(record: Optional[Callable[[dict], None]] = None) -> dict:
    try:
        from gepa.strategies.acceptance import AcceptanceCriterion  # noqa: F401
    except ImportError:  # an older gepa: its own default rule, the same one, unrecorded
        return {}
    return {"acceptance_criterion": MinibatchGate(record)}


# --- the acceptance ---------------------------------------------------------------------------------------------------

@dataclass
class Acceptance:
    """What the acceptance stage decided about the search's final candidate, and what it rests on: the dev and
    held-out comparisons with the start, the cost check, the persuasion control (evidence.py writes it out)."""

    accepted: bool
    why: str
    final: Optional[dict[str, str]] = None
    final_label: Optional[str] = None
    dev: list = field(default_factory=list)  # paired.PairedComparison per kept candidate, against the start
    held_out: Optional[Any] = None  # the final's paired.PairedComparison on held out (its `sequential`: the looks)
    folders: dict[str, list[Path]] = field(default_factory=dict)
    trials_run: int = 0
    cost_check: Optional[str] = None  # the final's tool calls and tokens a trial against the start's, on held out
    # (measured whenever the held-out test ran; it decides only when that test called the final clearly better)
    persuasion: Optional[str] = None  # the final rerun in plain wording (wording.py), on held out
    plain_held_out: Optional[Any] = None  # that rerun's paired.PairedComparison
    schedule: Optional[Schedule] = None  # the held-out test's looks, fixed before its first trial
    outlook: Optional[str] = None  # its power at the dev check's estimate, said before its first trial
    outlook_figures: Optional[dict] = None  # the same, as figures (result.json)


def _by_label(trials, label: str, repeats: Optional[int] = None) -> list:
    """A side's trials, in (task, repeat) order; only its first `repeats` of each task when given."""
    return [t for (surface, _, repeat), t in sorted(trials.by_key.items())
            if surface == label and (repeats is None or repeat < repeats)]


def _outcomes(trials, label: str, tasks: list[str], repeats: int) -> dict[str, list[bool]]:
    """Each task's outcomes under `label`, repeats 0 to `repeats` - 1 in order (ensure() ran every one)."""
    return {task: [trials.by_key[(label, task, r)].record.passed for r in range(repeats)] for task in tasks}


def outlook(pairs: list[tuple[bool, bool]], held_out_tasks: int, schedule: Schedule) -> tuple[str, dict]:
    """The held-out test's power, said before its first trial, from the final candidate's dev check (`pairs`: the
    start's and the final's outcome for each dev task and repeat): at the difference and discordance measured there
    (an overestimate of the difference: the final is the kept candidate that gained most on dev, so part of its gain
    there is the luck it was picked for), and at half that difference."""
    discordant = sum(a != b for a, b in pairs)
    difference = (sum(b for _, b in pairs) - sum(a for a, _ in pairs)) / len(pairs) if pairs else 0.0
    if not discordant or difference <= 0:
        return "the dev check left no gain to estimate its power at", {}
    discordance = discordant / len(pairs)
    full, trials = sequential_power(held_out_tasks, schedule, difference, discordance)
    half, _ = sequential_power(held_out_tasks, schedule, difference / 2, discordance)
    figures = {"difference": difference, "discordance": discordance, "power": full, "power_at_half": half,
               "mean_trials": trials, "max_trials": 2 * held_out_tasks * schedule.max_repeats}
    return (f"at the dev check's {100 * difference:+.0f} points (discordance {100 * discordance:.0f}% of paired "
            f"trials; an overestimate, the final being the candidate that gained most on dev) it is called clearly "
            f"better {100 * full:.0f}% of the time, in {trials:.0f} trials on average (at most "
            f"{figures['max_trials']}); at half that difference {100 * half:.0f}%", figures)


def accept(plan, setup: TrialSetup, start, seed: dict[str, str], found: Found, args) -> Acceptance:
    kept = sorted((i for i in range(len(found.candidates)) if found.candidates[i] != seed),
                  key=lambda i: -found.scores[i])[:args.keep]
    files = {}
    for i in kept:
        label, path = found.adapter.candidate_file(found.candidates[i])
        files[label] = (found.candidates[i], path)
    seed_label, seed_path = found.adapter.candidate_file(seed)
    if not files:
        return Acceptance(False, "gepa kept no candidate but the start: no proposal beat it on a minibatch",
                          trials_run=0)
    dev_trials = ensure(setup, plan.out / ACCEPT_DEV, [str(seed_path)] + [str(p) for _, p in files.values()],
                        plan.dev, args.repeats)
    base = _by_label(dev_trials, seed_label)
    dev = []
    for label in files:
        c = compare_trials(args.model, label, "dev", base, _by_label(dev_trials, label))
        _relink(c, dev_trials, label, plan.out)
        dev.append(c)
    acceptance = Acceptance(False, "", dev=dev, folders={ACCEPT_DEV: dev_trials.folders}, trials_run=dev_trials.ran)
    better = [c for c in dev if c.delta is not None and c.delta > 0]
    if not better:
        acceptance.why = (f"no kept candidate is better than {seed_label} on the dev tasks with {args.repeats} repeats "
                          f"(gepa's minibatch gains did not hold)")
        return acceptance

    def size(c) -> int:
        return len(diff(seed, files[c.variant][0], "a", "b").splitlines())

    best = sorted(better, key=lambda c: (-c.delta, size(c)))[0]
    acceptance.final, acceptance.final_label = files[best.variant][0], best.variant
    final_path = files[best.variant][1]
    schedule = acceptance.schedule = Schedule(args.repeats, args.looks)
    pairs = [(dev_trials.by_key[(seed_label, t, r)].record.passed,
              dev_trials.by_key[(best.variant, t, r)].record.passed) for t in plan.dev for r in range(args.repeats)]
    acceptance.outlook, acceptance.outlook_figures = outlook(pairs, len(plan.held_out), schedule)
    print(f"hillclimb: the held-out test of {best.variant}: {schedule.words()}, over {len(plan.held_out)} tasks; "
          f"{acceptance.outlook}")
    # The looks: every block of repeats of every held-out task under both, until one decides.
    repeats, folders = schedule.repeats(1), set()
    while True:
        held = ensure(setup, plan.out / ACCEPT_HELD_OUT, [str(seed_path), str(final_path)], plan.held_out, repeats)
        folders |= set(held.folders)
        acceptance.trials_run += held.ran
        test = sequential_test(_outcomes(held, seed_label, plan.held_out, repeats),
                               _outcomes(held, best.variant, plan.held_out, repeats), schedule)
        look = test.last
        print(f"hillclimb: held-out look {look.look} of at most {schedule.looks} ({look.repeats} repeats): "
              f"{look.total:+d} passes, exact one-sided p {look.p:.3g} (the final better) against "
              f"{100 * look.spent:.2f}%: " + (test.decision or f"undecided, {test.next_repeats} repeats next"))
        if test.next_repeats is None:
            break
        repeats = test.next_repeats
    acceptance.folders[ACCEPT_HELD_OUT] = sorted(folders)
    base_held, mine_held = _by_label(held, seed_label, repeats), _by_label(held, best.variant, repeats)
    c = compare_trials(args.model, best.variant, "held_out", base_held, mine_held)
    c.sequential = test
    _relink(c, held, best.variant, plan.out, repeats)
    acceptance.held_out = c
    # Measured whatever the call, so hillclimb.md shows it; it decides only for a gain that is clear.
    risen, acceptance.cost_check = cost_rise(base_held, mine_held, args.max_cost_rise)
    if c.call != "clearly better":
        acceptance.why = rejection(best, c)
        return acceptance
    gain = (f"{best.variant} is clearly better than {seed_label} on the held-out tasks: {100 * c.delta:+.0f} points "
            f"[{100 * c.low:+.0f}, {100 * c.high:+.0f}] over {c.tasks} tasks after {repeats} repeats, exact "
            f"one-sided p {c.p_better:.3g} (the final better), within the {100 * test.last.spent:.2f}% look "
            f"{test.last.look} may spend")
    if risen:
        acceptance.why = f"{gain}; but {risen}, past the bound of {100 * args.max_cost_rise:+.0f}%: not accepted"
        return acceptance
    acceptance.accepted = True
    acceptance.why = gain
    _persuasion_control(plan, setup, seed_path, seed_label, found, acceptance, repeats, args)
    return acceptance


def cost_rise(base: list, mine: list, bound: float) -> tuple[Optional[str], str]:
    """Whether the variant's tool calls or tokens a trial rose past `bound` (a share: 0.25 is +25%) on held out, and
    the check in words for hillclimb.md. Better descriptions can cost steps (arXiv 2602.14878); but a trial that gives
    up at once is cheap, not better, so the cost is compared over the trials (task and repeat) that passed under
    both, the same work done."""
    passed = ({(t.record.task, t.record.repeat) for t in base if t.record.passed}
              & {(t.record.task, t.record.repeat) for t in mine if t.record.passed})
    if not passed:
        return None, (f"no held-out trial passed under both {mine[0].record.surface if mine else 'the variant'} and "
                      f"the start, so there is no like-for-like cost to compare (the bound is {100 * bound:+.0f}%)")
    theirs_cost = _cost([t for t in base if (t.record.task, t.record.repeat) in passed])
    mine_cost = _cost([t for t in mine if (t.record.task, t.record.repeat) in passed])
    parts, risen = [], []
    for what, now, before in (("tool calls", mine_cost.tool_calls, theirs_cost.tool_calls),
                              ("tokens", mine_cost.tokens, theirs_cost.tokens)):
        if not before:
            parts.append(f"{what} {now:,.1f} a trial (the start's {before:,.0f}: no ratio)")
            continue
        rise = now / before - 1
        parts.append(f"{what} {now:,.1f} a trial against {before:,.1f} ({100 * rise:+.0f}%)")
        if rise > bound:
            risen.append(f"its {what} a trial rose {100 * rise:+.0f}%")
    return ("; ".join(risen) or None), (f"over the {len(passed)} held-out trials that passed under both, "
                                        f"{'; '.join(parts)}; the bound is {100 * bound:+.0f}%")


def _persuasion_control(plan, setup, seed_path, seed_label, found, acceptance, repeats: int, args) -> None:
    """The accepted variant again in plain wording (wording.py) on the held-out tasks, beside the start: the same
    tasks, seeds and repeats as the look that accepted it, called by the exact test at one look (a control of where
    the gain came from, not a second acceptance)."""
    plain = plain_candidate(acceptance.final)
    if plain == acceptance.final:
        acceptance.persuasion = "its texts have no imperative or promotional wording to strip: nothing to rerun"
        return
    label, path = found.adapter.candidate_file(plain)
    held = ensure(setup, plan.out / ACCEPT_HELD_OUT, [str(seed_path), str(path)], plan.held_out, repeats)
    acceptance.trials_run += held.ran
    acceptance.folders[ACCEPT_HELD_OUT] = sorted(set(acceptance.folders.get(ACCEPT_HELD_OUT, [])) | set(held.folders))
    c = compare_trials(args.model, label, "held_out", _by_label(held, seed_label, repeats),
                       _by_label(held, label, repeats))
    _relink(c, held, label, plan.out, repeats)
    acceptance.plain_held_out = c
    said = f"{100 * c.delta:+.0f} points over {c.tasks} held-out tasks, {c.call} (exact one-sided p {c.p_better:.3g})"
    if c.call == "clearly better":
        acceptance.persuasion = (f"in plain wording ({label}) it is still {said}: the gain is the facts', not the "
                                 f"wording's")
    else:
        acceptance.persuasion = (f"in plain wording ({label}) it is {said}: the gain came from persuasion "
                                 f"(imperative or promotional wording), not from what the texts say")


def rejection(dev, held) -> str:
    """Why the final candidate is not accepted, in the words its held-out result earns: a gain that is there but not
    clear is not "helps only where it was tuned"; that is said only of no gain on held out. Every p said is the exact
    one-sided p that the final is better (the held-out test in looks: its stage-wise p at the look it stopped)."""
    gained = f"{dev.variant} is better on dev ({100 * dev.delta:+.0f} points)"
    if held.delta is None or held.test is None:
        return f"{gained}, but it has no held-out trials to judge it"
    bounds = "" if held.low is None else f" [{100 * held.low:+.0f}, {100 * held.high:+.0f}]"
    measured = f"{100 * held.delta:+.0f} points{bounds} over {held.tasks} held-out tasks"
    seq = held.sequential
    if seq is not None and seq.last is not None:
        measured += f" after {seq.repeats} repeats"
    if not held.test.decidable:
        return f"{gained}; on held out {measured}: {held.call}, so nothing could be accepted"
    if seq is not None and seq.last is not None:
        last = seq.last
        p = f"exact one-sided p {last.p:.3g} that the final is better"
        if held.delta > 0:
            return (f"{gained}; on held out {measured} is not clear ({p}, over the {100 * last.spent:.2f}% the last "
                    f"look may spend): a gain this size needs more held-out tasks or repeats (--looks) to be told "
                    f"from chance")
        stopped = ("the test stopped at look "
                   f"{last.look} of {seq.schedule.looks}" if last.look < seq.schedule.looks else "at the last look")
        if held.delta < 0:
            return f"{gained}; on held out {measured}: lower ({p}), no gain where it was not tuned; {stopped}"
        return (f"{gained}; on held out {measured}: no gain ({p}), so a change that helps only where it was tuned is "
                f"not proposed; {stopped}")
    if held.delta > 0:
        return (f"{gained}; on held out {measured} is not clear (exact one-sided p {held.test.better:.3g}, over "
                f"2.5%): a gain this size needs more held-out tasks or repeats to be told from chance")
    if held.delta < 0 and held.call == "clearly worse":
        return f"{gained}; on held out {measured}: clearly worse; it is worse where it was not tuned"
    if held.delta < 0:  # lower, but not clearly: no gain, and no claim that it does harm
        return (f"{gained}; on held out {measured}: not clear (exact one-sided p {held.test.worse:.3g} for lower), "
                f"and no gain where it was not tuned")
    return (f"{gained}; on held out {measured}: no gain, so a change that helps only where it was tuned is not "
            f"proposed")


def _relink(comparison, trials, label: str, out: Path, repeats: Optional[int] = None) -> None:
    """The comparison's trial links as paths from the hillclimb's folder, where hillclimb.md is written."""
    comparison.trials = {}
    for (surface, task, repeat), t in sorted(trials.by_key.items()):
        if surface == label and (repeats is None or repeat < repeats):
            comparison.trials.setdefault(task, []).append(os.path.relpath(t.path, out))
