"""`mobium-evals export --inspect RUN`: a run folder as an Inspect AI log, so `inspect view` shows it where people
already look at evaluations.

One sample per trial (id task-driver-model, epoch the repeat + 1): the prompt as its input, the transcript as chat
messages with tool calls and the tools' answers, the claim as the last assistant message, the verdict as the score
(1 when the trial succeeded: a pass for the agent, graded as declared for a control) with the verdict as the
score's answer, and the trial's record as metadata. The log's metadata holds the run's facts. The log is written by
inspect-ai's own library (an optional extra: `pip install 'pytest-mobium-evals[inspect]'`)."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from .cli import CliError

INSTALL = "pip install 'pytest-mobium-evals[inspect]'"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--inspect", action="store_true", help="write an Inspect AI log (.eval), for `inspect view`")
    parser.add_argument("run", metavar="RUN", help="the run folder (runs/<run>)")
    parser.add_argument("--out", metavar="FILE", help="the log file (default: RUN/<run>.eval)")


def run(args: argparse.Namespace) -> int:
    if not args.inspect:
        raise CliError("say which format to export: --inspect (an Inspect AI log)")
    try:
        import inspect_ai  # noqa: F401
    except ImportError:
        raise CliError(f"inspect-ai is not installed: {INSTALL}") from None
    from .runfolder import load_run

    run_ = load_run(args.run, require_complete=False)
    out = Path(args.out) if args.out else run_.path / f"{run_.name}.eval"
    log = build_log(run_)
    from inspect_ai.log import write_eval_log

    out.parent.mkdir(parents=True, exist_ok=True)
    write_eval_log(log, str(out))
    problems = "" if run_.complete else f" (an incomplete run: {run_.summary_of_problems()})"
    print(f"wrote {out}: {len(log.samples or [])} samples{problems}; view it with `inspect view --log-dir "
          f"{out.parent}`", file=sys.stderr)
    return 0


def build_log(run_):
    from inspect_ai.log import EvalConfig, EvalDataset, EvalLog, EvalMetric, EvalResults, EvalScore, EvalSpec

    from .reports import summarize_run
    from .runfolder import run_facts

    summaries = summarize_run(run_)
    samples = [_sample(s, t) for s in summaries for t in s.trials]
    rec = run_.record
    agents = [s.setting for s in summaries if not s.setting.is_control]
    model = agents[0].model if len(agents) == 1 else ("several: " + ", ".join(s.short for s in agents)
                                                        if agents else "none/controls")
    figures = {s.setting.label: {"rate": s.figures.rate.rate, "low": s.figures.rate.low, "high": s.figures.rate.high,
                                 "pass_k": s.figures.pass_k_text() or None} for s in summaries}
    metrics = {"success": EvalMetric(name="success", value=sum(t.passed if not t.setting.is_control else
                                                                 t.as_declared for t in run_.trials)
                                     / max(1, len(run_.trials)))}
    from .injection_rates import inspect_metrics, of_summaries

    for r in of_summaries(summaries):  # the four injection rates, one metric each per setting
        metrics.update({f"{r.label}: {k}": EvalMetric(**{**m, "name": f"{r.label}: {k}"})
                        for k, m in inspect_metrics(r).items()})
        figures[r.label]["injection"] = r.to_json()
    spec = EvalSpec(created=str(rec.get("started") or ""), task=f"mobium-evals/{run_.name}",
                    task_id=run_.name, run_id=run_.name,
                    dataset=EvalDataset(name="mobium-evals tasks", samples=len(run_.task_ids),
                                        sample_ids=list(run_.task_ids)),
                    model=model, config=EvalConfig(epochs=rec.get("repeats") if isinstance(rec.get("repeats"), int)
                                                   else None),
                    metadata={"facts": dict(run_facts(run_)), "seed": run_.seed})
    results = EvalResults(total_samples=len(samples), completed_samples=len(samples),
                          scores=[EvalScore(name="verdict", scorer="mobium-evals", metrics=metrics)],
                          metadata={"settings": figures})
    return EvalLog(status="success" if run_.complete else "cancelled", eval=spec, results=results,
                   samples=samples, metadata={"facts": dict(run_facts(run_)), "record": rec})


def _sample(summary, trial):
    from inspect_ai.log import EvalSample
    from inspect_ai.scorer import Score

    from .records import TRANSCRIPT
    from .transcript import claim_text, read_events, steps

    trial_steps = steps(read_events(trial.path / TRANSCRIPT))
    prompt = next((s.text for s in trial_steps if s.role == "prompt"), "")
    success = trial.record.success
    data = trial.record.to_json()
    claim = claim_text(data.get("claim") or {})
    explanation = (f"{trial.verdict}" + (f" (declared {data.get('expected')})" if trial.setting.is_control else "")
                   + f"; claimed {claim}; the device read {data.get('outcome_observed')!r}")
    score = Score(value=1.0 if success else 0.0, answer=trial.verdict, explanation=explanation,
                  metadata={"severity": data.get("severity"), "blockers": trial.blockers})
    return EvalSample(id=f"{trial.task}-{trial.driver}-{trial.model}", epoch=trial.repeat + 1, input=prompt,
                      target=str(data.get("expected") or "pass"), messages=_messages(trial_steps, claim),
                      scores={"verdict": score},
                      metadata={k: v for k, v in data.items() if k not in ("params",)} | {"setting":
                                                                                         summary.setting.label})


def _messages(trial_steps, claim: str) -> list:
    from inspect_ai.model import ChatMessageAssistant, ChatMessageSystem, ChatMessageTool, ChatMessageUser
    from inspect_ai.tool import ToolCall

    messages: list = []
    pending: list = []  # tool steps whose assistant message is not written yet

    def flush() -> None:
        if not pending:
            return
        calls = [ToolCall(id=s.call_id or f"call_{len(messages)}_{i}", function=s.tool or "?",
                          arguments=dict(s.arguments)) for i, s in enumerate(pending)]
        messages.append(ChatMessageAssistant(content="", tool_calls=calls))
        for s, call in zip(pending, calls):
            messages.append(ChatMessageTool(content=s.answer or "", tool_call_id=call.id, function=call.function))
        pending.clear()

    for s in trial_steps:
        if s.role == "tool":
            pending.append(s)
            continue
        flush()
        if s.role == "prompt":
            if s.extra.get("system"):
                messages.append(ChatMessageSystem(content=str(s.extra["system"])))
            messages.append(ChatMessageUser(content=s.text))
        elif s.role == "assistant":
            messages.append(ChatMessageAssistant(content=("(thinking) " if s.extra.get("thinking") else "")
                                                 + s.text))
        elif s.role == "error":
            messages.append(ChatMessageUser(content=f"[error] {s.text}"))
        elif s.role == "final":
            messages.append(ChatMessageAssistant(content=f"Final claim: {s.text}"))
    flush()
    if not any(isinstance(m, ChatMessageAssistant) and str(m.content).startswith("Final claim") for m in messages):
        messages.append(ChatMessageAssistant(content=f"Final claim: {claim}"))
    return messages
