"""What a hillclimb leaves, readable as a Mobium change to propose: `hillclimb.md` (the decision and why, the
before/after tables of the dev check and the held-out test, the diff from `baseline`, the rounds, the run folders,
the cost), `result.json`, and the final candidate as `accepted.toml` or `rejected.toml`."""

from __future__ import annotations

import math
import os
from pathlib import Path

from pytest_mobium_evals.core.errors import UsageError
from pytest_mobium_evals.report.surfaces import table_markdown
from pytest_mobium_evals.runfolder.files import atomic_write_bytes, atomic_write_json, read_json
from pytest_mobium_evals.runfolder.reading import is_run, load_run
from pytest_mobium_evals.surface.variants import load

from .components import components_of, diff, render_toml, variant_of
from .search import ACCEPT_DEV, ACCEPT_HELD_OUT, ROUNDS, SEARCH, MinibatchGate

RESULT = "result.json"
REPORT = "hillclimb.md"
P_SIDE = "exact, one-sided: the final better than the start"


def looks_of(acceptance) -> dict:
    seq = acceptance.held_out.sequential
    if seq is None:
        return {}
    return {"repeats": seq.repeats, "decision": seq.decision,
            "looks": [{"look": k.look, "repeats": k.repeats, "total": k.total, "p": k.p, "level_spent": k.spent,
                       "clear_from": None if math.isinf(k.boundary) else k.boundary} for k in seq.looks]}


def _cost(folders: list[Path]) -> tuple[int, float, int]:
    """Trials, task-model dollars and tokens over every run folder (each trial once)."""
    trials, dollars, tokens = 0, 0.0, 0
    for folder in folders:
        try:
            run = load_run(folder, require_complete=False)
        except UsageError:
            continue
        for t in run.trials:
            trials += 1
            dollars += t.record.cost_usd or 0.0
            tokens += t.record.tokens.total if t.record.tokens is not None else 0
    return trials, dollars, tokens


def _run_folders(out: Path) -> dict[str, list[Path]]:
    found = {}
    for phase in (SEARCH, ACCEPT_DEV, ACCEPT_HELD_OUT):
        folder = out / phase
        # the search's run folders are under one folder per round's seed
        found[phase] = sorted(p for p in folder.glob("*/*" if phase == SEARCH else "*")
                              if is_run(p)) if folder.is_dir() else []
    return found


def cost_section(acceptance, bound: float) -> list[str]:
    """hillclimb.md's cost check, whatever the decision: what it measured, or the step that ended the hillclimb
    before there was a held-out result to weigh."""
    rule = (f"A variant whose tool calls or tokens a trial rise past {100 * bound:+.0f}% (--max-cost-rise), over the "
            f"held-out trials that passed under both, is not accepted, however much it gains.")
    held = acceptance.held_out
    if held is None:
        said = "not reached: the hillclimb ended before the held-out test, so there is no held-out cost to weigh"
    elif held.call != "clearly better":
        said = (f"measured, not applied (the held-out test did not call the final clearly better, so there is no "
                f"gain to weigh): {acceptance.cost_check or 'no held-out trials'}")
    else:
        said = f"applied: {acceptance.cost_check or 'not checked'}"
    return ["## Cost check", "", f"{rule} {said[0].upper()}{said[1:]}.", ""]


def persuasion_section(acceptance) -> list[str]:
    """hillclimb.md's persuasion control, whatever the decision: its rerun in plain wording, or why it was not run."""
    rule = ("Every accepted variant is run again with its imperative and promotional wording taken out "
            "(\"IMPORTANT:\", \"always\", \"best\", \"must\", capitals; wording.py), on the same held-out tasks "
            "and seeds; if its gain does not hold, the gain came from persuasion.")
    if acceptance.accepted:
        lines = ["## Persuasion control", "", f"{rule} This one: {acceptance.persuasion}.", ""]
        if acceptance.plain_held_out is not None:
            lines += [table_markdown([acceptance.plain_held_out]), ""]
        return lines
    return ["## Persuasion control", "", f"{rule} Not run: no variant was accepted, so there is no gain to test "
                                         "for persuasion.", ""]


def held_out_looks(acceptance) -> list[str]:
    """hillclimb.md's account of the held-out test in looks: its schedule and outlook, said before its first trial,
    and what each look found."""
    seq = acceptance.held_out.sequential
    lines = ["### The held-out test, look by look", "",
             f"Fixed before its first trial: {acceptance.schedule.words()}. \"Clearly better\" is the exact one-sided "
             f"p (the final better: the share of the 2^{seq.tasks} sign flips of whole held-out tasks that reach the "
             f"observed total by this look, or would have stopped at an earlier one) at most the level spent by the "
             f"look reached; a look at which the final is not ahead stops the test. Its power, said before it ran: "
             f"{acceptance.outlook}.", "",
             "| look | repeats | total (final − start passes) | clear from | one-sided p | level spent | decision |",
             "| --- | --- | --- | --- | --- | --- | --- |"]
    for look in seq.looks:
        last = look is seq.last
        decision = (seq.decision or "undecided") if last else "undecided: the next look"
        bound = "no total" if math.isinf(look.boundary) else f"{look.boundary:+.0f}"
        lines.append(f"| {look.look} of {seq.schedule.looks} | {look.repeats} | {look.total:+d} | {bound} | "
                     f"{look.p:.3g} | {100 * look.spent:.2f}% | {decision} |")
    return lines + [""]


def rounds_section(out: Path) -> list[str]:
    """Every round: what was proposed, the gate's decision with both minibatch totals (and what the rule before
    issue 40 would have decided), gepa's outcome, and the trials the round ran."""
    lines = ["## Rounds", "",
             f"The gate: {MinibatchGate.RULE}; \"old rule\" is the one before it (no task fell and one rose), "
             "recorded for comparison.", "",
             "| round | proposed for | minibatch totals (parent → proposal) | gate | old rule | kept | trials "
             "(minibatch + dev) |", "| --- | --- | --- | --- | --- | --- | --- |"]
    for path in sorted((out / ROUNDS).glob("*.json")):
        r = read_json(path, "a round")
        o, gate, trials = r.get("outcome") or {}, r.get("gate") or {}, r.get("trials") or {}
        if gate:
            totals = f"{gate['total_before']:g} → {gate['total_after']:g}"
            passed, old = ("passed" if gate["kept"] else "refused"), ("yes" if gate["none_fell_and_one_rose"]
                                                                      else "no")
        elif o:
            totals, passed, old = f"{o.get('old_score', o.get('score', 0)):g} → {o.get('new_score', 0):g}", "–", "–"
        else:
            totals, passed, old = "skipped (no failure in the minibatch)", "–", "–"
        spent = f"{trials.get('minibatch', 0)} + {trials.get('dev', 0)}" if trials else "–"
        lines.append(f"| {r['round']} | {', '.join(r.get('proposed') or {}) or '–'} | {totals} | {passed} | {old} | "
                     f"{'yes' if o.get('kept') else 'no'} | {spent} |")
    return lines


def p_of(comparison) -> dict:
    """The one p the hillclimb says, and its side, for result.json."""
    return {"p": comparison.p_better, "p_side": P_SIDE}


def write(plan, setup, start, seed, found, acceptance, reflection, args) -> None:
    out = plan.out
    folders = _run_folders(out)
    trials, dollars, tokens = _cost([p for ps in folders.values() for p in ps])
    final = acceptance.final
    baseline = components_of(load("baseline", setup.root), plan.tools)
    name = "accepted.toml" if acceptance.accepted else "rejected.toml"
    for stale in ("accepted.toml", "rejected.toml"):
        if stale != name and (out / stale).exists():
            (out / stale).unlink()
    if final is not None:
        about = (f"hillclimb from {plan.start_label}: " + ("accepted" if acceptance.accepted else "rejected") +
                 f" ({acceptance.why})")
        atomic_write_bytes(out / name, render_toml(
            variant_of(final, start, about),
            f"mobium-evals hillclimb, {out}: {'accepted' if acceptance.accepted else 'rejected'} by the paired test "
            f"on held-out tasks").encode("utf-8"))
    reflection_cost = (f"${reflection.total_cost:.4f}" if reflection.cost_known
                       else f"${reflection.total_cost:.4f} counted, the provider reporting no price for some calls")
    lines = [f"# Hillclimb from `{plan.start_label}`: {'ACCEPTED' if acceptance.accepted else 'not accepted'}", "",
             acceptance.why + ".", "",
             f"- Command: `{read_json(out / 'hillclimb.json', 'the hillclimb settings')['command']}`",
             f"- Task model: {args.model}; reflection model: {reflection.label}; seed {args.seed}",
             f"- Dev tasks (search and dev check): {', '.join(plan.dev)}",
             f"- Held-out tasks (the acceptance only; the search never ran them): {', '.join(plan.held_out)}",
             f"- Components: {', '.join(seed)}",
             f"- Search: {found.rounds} rounds, {len(found.candidates)} candidates in gepa's pool (the start "
             f"included), stopped by {found.stopped_by}",
             f"- Cost: {trials} task trials recorded ({found.adapter.trials_run + acceptance.trials_run} run by this "
             f"invocation), ${dollars:.4f} and {tokens:,} tokens of the task model; reflection "
             f"{len(reflection.entries)} answers recorded ({len(reflection.calls) - reflection.replayed} asked by "
             f"this invocation), {reflection.total_tokens_in:,} tokens in and "
             f"{reflection.total_tokens_out:,} out, {reflection_cost}", ""]
    if final is not None:
        lines += [f"## The change: `{name}`", "",
                  f"The final candidate `{acceptance.final_label}` as a variant file (laid over `{plan.start_label}`).",
                  "", "### Diff from `baseline` (the texts the agent reads)", "", "```diff",
                  diff(baseline, final, "baseline", acceptance.final_label) or "(no difference)", "```", ""]
        if plan.start_label != "baseline":
            lines += [f"### Diff from `{plan.start_label}`, where the search began", "", "```diff",
                      diff(seed, final, plan.start_label, acceptance.final_label) or "(no difference)", "```", ""]
    column = ("" if plan.start_label == "baseline" else
              f"The tables' \"baseline\" column is `{plan.start_label}`, the variant the search began from. ")
    if acceptance.held_out is not None:
        seq = acceptance.held_out.sequential
        lines += [f"## Held out: `{acceptance.final_label}` against `{plan.start_label}` "
                  f"({seq.repeats if seq is not None else args.repeats} repeats)", "",
                  column + "The same tasks and seeds under both; the held-out tasks were not run before this.", "",
                  table_markdown([acceptance.held_out], one_sided=True), ""]
        if seq is not None:
            lines += held_out_looks(acceptance)
    lines += cost_section(acceptance, args.max_cost_rise) + persuasion_section(acceptance)
    if acceptance.dev:
        lines += [f"## Dev check: every kept candidate against `{plan.start_label}` ({args.repeats} repeats)", "",
                  column + "On dev a gain only picks the final candidate (\"tuning only\").", "",
                  table_markdown(acceptance.dev, one_sided=True), ""]
    lines += rounds_section(out)
    lines += ["", "## Run folders", ""]
    for phase, paths in folders.items():
        lines += [f"- {phase}: " + (", ".join(f"`{os.path.relpath(p, out)}`" for p in paths) or "none")]
    atomic_write_bytes(out / REPORT, ("\n".join(lines) + "\n").encode("utf-8"))
    atomic_write_json(out / RESULT, {
        "accepted": acceptance.accepted, "why": acceptance.why, "start": plan.start_label,
        "final": acceptance.final_label, "final_file": name if final is not None else None,
        "dev": [{"variant": c.variant, "delta": c.delta, "low": c.low, "high": c.high, "call": c.call}
                for c in acceptance.dev],
        "held_out": None if acceptance.held_out is None else {
            "delta": acceptance.held_out.delta, "low": acceptance.held_out.low, "high": acceptance.held_out.high,
            "call": acceptance.held_out.call, **p_of(acceptance.held_out), "better": acceptance.held_out.better,
            "worse": acceptance.held_out.worse, **looks_of(acceptance)},
        "held_out_outlook": None if acceptance.schedule is None else {
            "schedule": acceptance.schedule.words(), "said": acceptance.outlook, **(acceptance.outlook_figures or {})},
        "cost_check": acceptance.cost_check, "persuasion": acceptance.persuasion,
        "plain_held_out": None if acceptance.plain_held_out is None else {
            "variant": acceptance.plain_held_out.variant, "delta": acceptance.plain_held_out.delta,
            "call": acceptance.plain_held_out.call, **p_of(acceptance.plain_held_out)},
        "rounds": found.rounds, "candidates": len(found.candidates), "stopped_by": found.stopped_by,
        "trials_recorded": trials, "task_cost_usd": dollars, "task_tokens": tokens,
        "reflection": {"calls": len(reflection.entries), "tokens_in": reflection.total_tokens_in,
                       "tokens_out": reflection.total_tokens_out, "cost_usd": reflection.total_cost}})
    verdict = "accepted" if acceptance.accepted else "not accepted"
    print(f"hillclimb: {verdict}: {acceptance.why}")
    print(f"hillclimb: {out / REPORT}" + (f", {out / name}" if final is not None else "")
          + f"; {trials} trials, reflection {reflection.total_tokens:,} tokens")
