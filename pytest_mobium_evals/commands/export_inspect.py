"""`mobium-evals export --inspect RUN`: a run folder as an Inspect AI log, so `inspect view` shows it where people
already look at evaluations.

One sample per trial: its id is the trial's name without the repeat (task-driver-model, and a near miss's name),
its epoch the repeat + 1, and the dataset lists those ids. A sample carries:
- the prompt as its input, and the conversation as chat messages;
- a transcript of events in the order they happened: for each step of the driver, a model event (what the model
  was given and what it answered, with its tokens and how long it took; a scripted control's "model" is its
  script, with no tokens) and a tool event per tool call (arguments, the answer, an error, its start and end);
  then the score. Calls one reply made together stay one turn; calls made one after the other are turns of their
  own.
- its start, end, total and working time, and its tokens by model;
- the final screen the outcome was read on, as an image (Inspect keeps it as an attachment);
- the verdict as the score (1 when the trial succeeded: a pass for the agent, graded as declared for a control),
  with the verdict as the score's answer, and the trial's record as metadata.

The results hold one metric per setting (a control driver, or the agent under one model setting), never one rate
over reference, null and wrong together, and the injection rates per setting. The log's metadata holds the run's
facts. The log is written by inspect-ai's own library (an optional extra: `pip install
'pytest-mobium-evals[inspect]'`)."""

from __future__ import annotations

import argparse
import base64
import sys
from datetime import datetime, timezone
from pathlib import Path

from pytest_mobium_evals.analysis.injection_rates import inspect_metrics, of_summaries
from pytest_mobium_evals.core.errors import UsageError
from pytest_mobium_evals.core.transcript import claim_text, steps
from pytest_mobium_evals.report.facts import run_facts
from pytest_mobium_evals.report.view import summarize_run
from pytest_mobium_evals.runfolder.layout import SCREEN, TRANSCRIPT, inspect_log
from pytest_mobium_evals.runfolder.reading import load_run, read_events

INSTALL = "pip install 'pytest-mobium-evals[inspect]'"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--inspect", action="store_true", help="write an Inspect AI log (.eval), for `inspect view`")
    parser.add_argument("run", metavar="RUN", help="the run folder (runs/<run>)")
    parser.add_argument("--out", metavar="FILE", help=f"the log file (default: RUN/{inspect_log('<run>')})")


def run(args: argparse.Namespace) -> int:
    if not args.inspect:
        raise UsageError("say which format to export: --inspect (an Inspect AI log)")
    try:
        import inspect_ai  # noqa: F401
    except ImportError:
        raise UsageError(f"inspect-ai is not installed: {INSTALL}") from None

    run_ = load_run(args.run, require_complete=False)
    out = Path(args.out) if args.out else run_.path / inspect_log(run_.name)
    log = build_log(run_)
    from inspect_ai.log import write_eval_log

    out.parent.mkdir(parents=True, exist_ok=True)
    write_eval_log(log, str(out))
    problems = "" if run_.complete else f" (an incomplete run: {run_.summary_of_problems()})"
    print(f"wrote {out}: {len(log.samples or [])} samples{problems}; view it with `inspect view --log-dir "
          f"{out.parent}`", file=sys.stderr)
    return 0


def build_log(run_):
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalMetric, EvalResults, EvalScore, EvalSpec, EvalStats

    summaries = summarize_run(run_)
    samples = [_sample(s, t, run_) for s in summaries for t in s.trials]
    rec = run_.record
    agents = [s.setting for s in summaries if not s.setting.is_control]
    model = agents[0].model if len(agents) == 1 else ("several: " + ", ".join(s.short for s in agents)
                                                        if agents else "none/controls")
    figures = {s.setting.label: {"rate": s.figures.rate.rate, "low": s.figures.rate.low, "high": s.figures.rate.high,
                                 "pass_k": s.figures.pass_k_text() or None} for s in summaries}
    metrics = {}
    for s in summaries:  # one rate per setting: a control's "as declared" is not an agent's pass rate
        f = s.figures
        name = f"{s.setting.label}: {f.what}"
        metrics[name] = EvalMetric(name=name, value=f.rate.rate, metadata={
            "low": f.rate.low, "high": f.rate.high, "successes": f.successes, "trials": f.trials,
            "tasks": f.rate.tasks, "interval": "95%, bootstrapped over tasks"})
    for r in of_summaries(summaries):  # the four injection rates, one metric each per setting
        metrics.update({f"{r.label}: {k}": EvalMetric(**{**m, "name": f"{r.label}: {k}"})
                        for k, m in inspect_metrics(r).items()})
        figures[r.label]["injection"] = r.to_json()
    ids = list(dict.fromkeys(str(sample.id) for sample in samples))
    facts = dict(run_facts(run_))
    spec = EvalSpec(created=_utc(rec.started) or "", task=f"mobium-evals/{run_.name}",
                    task_id=run_.name, run_id=run_.name,
                    dataset=EvalDataset(name="mobium-evals trials", samples=len(ids), sample_ids=ids),
                    model=model, config=EvalConfig(epochs=rec.repeats if isinstance(rec.repeats, int)
                                                   else None),
                    metadata={"facts": facts, "seed": run_.seed})
    usage: dict = {}
    for sample in samples:
        for name, u in (sample.model_usage or {}).items():
            usage[name] = u if name not in usage else usage[name] + u
    results = EvalResults(total_samples=len(samples), completed_samples=len(samples),
                          scores=[EvalScore(name="verdict", scorer="mobium-evals", metrics=metrics)],
                          metadata={"settings": figures})
    stats = EvalStats(started_at=_utc(rec.started) or "", completed_at=_utc(rec.ended) or "",
                      model_usage=usage)
    return EvalLog(status="success" if run_.complete else "cancelled", eval=spec, results=results, stats=stats,
                   samples=samples, metadata={"facts": facts, "record": rec.to_json()})


def sample_id(trial) -> str:
    """The trial's name without its repeat: one id for all the repeats (the epochs) of one task under one driver."""
    return trial.name.removesuffix(f"-r{trial.record.repeat}")


def _sample(summary, trial, run_):
    from inspect_ai.event import ScoreEvent
    from inspect_ai.log import EvalSample
    from inspect_ai.model import ModelUsage
    from inspect_ai.scorer import Score

    trial_steps = steps(read_events(trial.path / TRANSCRIPT))
    prompt = next((s.text for s in trial_steps if s.role == "prompt"), "")
    record = trial.record
    claim = claim_text(record.claim)
    total = _seconds(record.timings.total_s if record.timings else None)
    reset = _seconds(record.timings.reset_s if record.timings else None) or 0.0
    start = _start(trial, trial_steps, reset, run_)
    end = start + total if start is not None and total is not None else _last_time(trial_steps)
    model = _model_name(trial)
    clock = _Clock(start if start is not None else _first_time(trial_steps))
    # the driver begins once the device is reset: the first turn is counted from there
    driving = start + reset if start is not None else None
    messages, events = _conversation(trial_steps, claim, model, clock, driving, scripted=trial.record.is_control)
    screen = _screen_message(trial.path / SCREEN)
    if screen is not None:
        messages.append(screen)
    explanation = (f"{trial.record.verdict}"
                   + (f" (declared {record.expected})" if record.is_control else "")
                   + f"; claimed {claim}; the device read {record.outcome_observed!r}")
    score = Score(value=1.0 if trial.record.success else 0.0, answer=trial.record.verdict, explanation=explanation,
                  metadata={"severity": record.severity, "blockers": trial.record.blocker_lines})
    target = str(record.expected or "pass")
    events.append(ScoreEvent(score=score, target=target, timestamp=clock.at(end), working_start=clock.since(end)))
    tokens_in, tokens_out = (int(record.tokens.input or 0), int(record.tokens.output or 0)) if record.tokens else (0, 0)
    usage = {model: ModelUsage(input_tokens=tokens_in, output_tokens=tokens_out, total_tokens=tokens_in + tokens_out,
                               total_cost=record.cost_usd)}
    working = sum(e.working_time or 0.0 for e in events if e.event in ("model", "tool"))
    return EvalSample(id=sample_id(trial), epoch=trial.record.repeat + 1, input=prompt, target=target,
                      messages=messages, scores={"verdict": score}, events=events, model_usage=usage,
                      started_at=_iso(start), completed_at=_iso(end), total_time=total,
                      working_time=round(working, 3) if events else total,
                      metadata={k: v for k, v in record.to_json().items() if k != "params"} | {"setting":
                                                                                         summary.setting.label})


def _model_name(trial) -> str:
    """The model the agent used, or for a control its script ("mobium-evals/reference"): Inspect's events name one."""
    if trial.record.is_control:
        return f"mobium-evals/{trial.record.driver}"
    return str(trial.record.model or trial.record.setting.label)


class _Clock:
    """Wall-clock seconds as Inspect's events want them: an aware datetime, and seconds since the sample began."""

    def __init__(self, origin):
        self.origin = origin

    def at(self, t):
        return datetime.fromtimestamp(t if t is not None else self.origin or 0.0, timezone.utc)

    def since(self, t) -> float:
        if t is None or self.origin is None:
            return 0.0
        return max(0.0, round(t - self.origin, 3))


def _conversation(trial_steps, claim: str, model: str, clock: _Clock, driving, scripted: bool):
    """The chat messages and the events, in order. A turn is one model reply: what it said and the tool calls it
    made. Where the transcript marks each reply (its "model" steps, with tokens), turns follow the marks; else a
    tool call made after the previous call's answer came begins a turn of its own."""
    from inspect_ai.event import InfoEvent
    from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageUser

    messages: list = []
    events: list = []
    marked = any(s.role == "model" for s in trial_steps)
    turn: dict | None = None
    last = driving if driving is not None else clock.origin  # when the last thing happened: an unmarked turn
    # begins there

    def close() -> None:
        nonlocal turn, last
        if turn is not None:
            last = _emit(turn, messages, events, model, clock, scripted) or last
            turn = None

    def begin(start, tokens=None) -> dict:
        return {"start": start, "out": None, "content": [], "calls": [], "tokens": tokens}

    for s in trial_steps:
        if s.role == "prompt":
            close()
            if s.extra.get("system"):
                messages.append(ChatMessageSystem(content=str(s.extra["system"])))
            messages.append(ChatMessageUser(content=s.text))
            last = s.started if s.started is not None else last
        elif s.role == "model":
            close()
            took = _seconds(s.extra.get("seconds"))
            start = s.started - took if s.started is not None and took is not None else last
            turn = begin(start, s.extra.get("tokens"))
            turn["out"] = s.started
        elif s.role in ("assistant", "tool"):
            answered_before = turn is not None and any(c.answered is not None and c.answered < s.opened
                                                        for c in turn["calls"])
            if turn is None or (not marked and answered_before):
                close()
                turn = begin(last)
            if turn["out"] is None:
                turn["out"] = s.started
            if s.role == "tool":
                turn["calls"].append(s)
            else:
                turn["content"].append(s)
        elif s.role == "error":
            close()
            messages.append(ChatMessageUser(content=f"[error] {s.text}"))
            when = s.started if s.started is not None else last
            events.append(InfoEvent(source="mobium-evals", data={"error": s.text}, timestamp=clock.at(when),
                                    working_start=clock.since(when)))
        elif s.role == "final":
            close()
            messages.append(ChatMessageAssistant(content=f"Final claim: {s.text}", model=model))
    close()
    if not any(isinstance(m, ChatMessageAssistant) and str(m.content).startswith("Final claim") for m in messages):
        messages.append(ChatMessageAssistant(content=f"Final claim: {claim}", model=model))
    return messages, events


def _emit(turn: dict, messages: list, events: list, model: str, clock: _Clock, scripted: bool):
    """One turn as a model event (its input the conversation so far) and a tool event per call, its messages
    appended; returns when the turn's last call was answered (or its reply came)."""
    from inspect_ai.event import ModelEvent, ToolEvent
    from inspect_ai.model import (
        ChatCompletionChoice,
        ChatMessageAssistant,
        ChatMessageTool,
        ContentReasoning,
        ContentText,
        GenerateConfig,
        ModelOutput,
        ModelUsage,
    )
    from inspect_ai.tool import ToolCall, ToolCallError

    content: list = []
    for s in turn["content"]:
        content.append(ContentReasoning(reasoning=s.text) if s.extra.get("thinking") else ContentText(text=s.text))
    calls = [ToolCall(id=s.call_id or f"call_{len(messages)}_{i}", function=s.tool or "?",
                      arguments=dict(s.arguments)) for i, s in enumerate(turn["calls"])]
    reply = ChatMessageAssistant(content=content or "", tool_calls=calls or None, model=model)
    tokens = turn["tokens"]
    usage = None
    if tokens is not None or scripted:
        tokens = tokens or {}
        usage = ModelUsage(input_tokens=int(tokens.get("input") or 0), output_tokens=int(tokens.get("output") or 0),
                           total_tokens=int(tokens.get("input") or 0) + int(tokens.get("output") or 0))
    start = turn["start"]
    out = turn["out"] if turn["out"] is not None else start
    if start is None:
        start = out
    took = max(0.0, out - start) if start is not None and out is not None else None
    events.append(ModelEvent(model=model, input=list(messages), tools=[], tool_choice="auto",
                             config=GenerateConfig(), timestamp=clock.at(start), completed=clock.at(out),
                             working_start=clock.since(start), working_time=_round(took),
                             output=ModelOutput(model=model, usage=usage, time=_round(took),
                                                choices=[ChatCompletionChoice(
                                                    message=reply, stop_reason="tool_calls" if calls else "stop")])))
    messages.append(reply)
    done = out
    for s, call in zip(turn["calls"], calls):
        error = ToolCallError("unknown", s.answer or "") if s.is_error else None
        ended = s.ended if s.ended is not None else s.started
        events.append(ToolEvent(id=call.id, function=call.function, arguments=call.arguments,
                                result=s.answer or "", error=error, timestamp=clock.at(s.started),
                                completed=clock.at(ended), working_start=clock.since(s.started),
                                working_time=_round(ended - s.started) if None not in (s.started, ended) else None))
        messages.append(ChatMessageTool(content=s.answer or "", tool_call_id=call.id, function=call.function,
                                        error=error))
        done = ended if ended is not None else done
    return done


def _screen_message(path: Path):
    """The final screen the outcome was read on, as a message of its own (the driver never saw it)."""
    from inspect_ai.model import ChatMessageUser, ContentImage, ContentText

    try:
        png = path.read_bytes()
    except OSError:
        return None
    return ChatMessageUser(content=[
        ContentText(text="The final screen, as the harness captured it to read the outcome (not shown to the "
                         "driver)."),
        ContentImage(image="data:image/png;base64," + base64.b64encode(png).decode("ascii"))],
        metadata={"mobium_evals": "final screen"})


def _round(seconds):
    return None if seconds is None else max(0.0, round(seconds, 3))


def _seconds(value):
    return float(value) if isinstance(value, (int, float)) else None


def _first_time(trial_steps):
    return next((s.started for s in trial_steps if s.started is not None), None)


def _last_time(trial_steps):
    times = [t for s in trial_steps for t in (s.started, s.ended) if t is not None]
    return max(times) if times else None


def _start(trial, trial_steps, reset: float, run_):
    """When the trial began: its record says (since it records it), else its first timed step less the reset, else
    the run's start."""
    recorded = _utc(trial.record.started_at)
    if recorded:
        return datetime.fromisoformat(recorded).timestamp()
    first = _first_time(trial_steps)
    if first is not None:
        return first - reset
    started = _utc(run_.record.started)
    return datetime.fromisoformat(started).timestamp() if started else None


def _iso(t):
    return None if t is None else datetime.fromtimestamp(t, timezone.utc).isoformat()


def _utc(text):
    """An ISO 8601 time from a record, as Inspect wants it (with its zone), or None."""
    if not isinstance(text, str) or not text:
        return None
    try:
        when = datetime.fromisoformat(text.replace("Z", "+00:00"))
    except ValueError:
        return None
    return (when if when.tzinfo else when.replace(tzinfo=timezone.utc)).isoformat()
