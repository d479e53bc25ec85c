"""`mobium-evals judge RUN`: a second grader for answers, a local model through Ollama.

The answer rules in answers.py are code and have been wrong before, so a judge checks them; it does not replace
them. Like every grader here it is measured before it counts: it first grades the labelled answers each answer task
declares (its `judge=JudgeSpec(...)`: the question, the true value, and answers labelled right or wrong with why,
near misses included), and only when it calls every one of them right — the same way on both asks — is its
agreement with the rules shown. Each answer is asked twice; two different verdicts are a split, which is never
counted as agreement. The questions and labels are the tasks' own, so this module holds no fact of any app."""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from pytest_mobium_evals.core.errors import UsageError
from pytest_mobium_evals.runfolder.files import atomic_write_text
from pytest_mobium_evals.runfolder.layout import JUDGE
from pytest_mobium_evals.runfolder.reading import Run, Trial, load_run
from pytest_mobium_evals.suites.catalog import default_task_paths, load_task_definitions

DEFAULT_MODEL = "llama3.1:8b"
ASKS = 2

@dataclass(frozen=True)
class Control:
    """A labelled answer of a task, put to the judge before anything else."""

    task: str
    answer: str
    right: bool
    why: str  # why the label is what it is: the near misses are the point
    truth: Optional[str] = None  # where the task's truth is read from the device: the value it read


@dataclass(frozen=True)
class JudgeBook:
    """What the judge is asked, from the tasks: task id -> (question, true value or a "{observed}" template), and
    every task's labelled answers as controls."""

    questions: dict
    controls: tuple[Control, ...]

    @classmethod
    def from_tasks(cls, tasks: dict) -> "JudgeBook":
        questions, controls = {}, []
        for tid, task in sorted(tasks.items()):
            spec = getattr(task, "judge", None)
            if spec is None:
                continue
            questions[tid] = (spec.question, spec.truth)
            controls += [Control(tid, a.text, a.right, a.why, a.truth) for a in spec.answers]
        return cls(questions, tuple(controls))

    def truth_for(self, task: str, observed: Optional[str] = None) -> str:
        _, truth = self.questions[task]
        if truth is None:
            return (observed or "").strip()
        return truth.format(observed=(observed or "").strip()) if "{observed}" in truth else truth


SYSTEM_PROMPT = (
    "You check one answer that an agent gave after operating an Android app. You are told the task, the true value, "
    "and the agent's answer. The answer is right when it states the true value. Extra details, or numbers that are "
    "not a competing answer (a page size, an API level next to the version, a state before a change), do not make "
    "it wrong. A different value of the kind asked for (another count, version, message or pitch), a paraphrase "
    "instead of a message that must be quoted, or a missing part of the value makes it wrong. "
    'Reply with JSON only: {"right": true or false, "why": "<one short sentence>"}.'
)
REPLY_SCHEMA = {"type": "object", "properties": {"right": {"type": "boolean"}, "why": {"type": "string"}},
                "required": ["right", "why"]}


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("run", metavar="RUN", help="the run folder whose answers are judged")
    parser.add_argument("--model", default=DEFAULT_MODEL, help=f"the Ollama model (default {DEFAULT_MODEL})")
    parser.add_argument("--host", default=None,
                        help="the Ollama server (default: $OLLAMA_HOST, else http://127.0.0.1:11434)")
    parser.add_argument("--tasks-path", metavar="PATH", action="append",
                        help="a task suite whose judge questions apply (repeatable; default: ./tasks)")


def run(args: argparse.Namespace) -> int:
    run_ = load_run(args.run)
    paths = [Path(p) for p in args.tasks_path] if args.tasks_path else default_task_paths()
    book = JudgeBook.from_tasks(load_task_definitions(paths))
    if not book.controls:
        raise UsageError("judge: no task in " + ", ".join(map(str, paths)) + " declares a judge question "
                       "(judge=JudgeSpec(...)); give the suites with --tasks-path")
    answers = answered_trials(run_, book)
    host = args.host or os.environ.get("OLLAMA_HOST") or "http://127.0.0.1:11434"
    ask = ollama_asker(args.model, host)
    report = judge_run(run_, answers, ask, book, progress=_progress)
    text = render(run_, report, args.model, host, book)
    atomic_write_text(run_.path / JUDGE, text)
    sys.stdout.write(text)
    print(f"wrote {run_.path / JUDGE}", file=sys.stderr)
    if report.failed_controls:
        print(f"mobium-evals judge: the judge failed {len(report.failed_controls)} of {len(book.controls)} controls: "
              + "; ".join(f"{c.control.task} {c.control.answer!r}" for c in report.failed_controls)
              + " — no agreement figure", file=sys.stderr)
        return 1
    return 0


def _progress(message: str) -> None:
    print(message, file=sys.stderr, flush=True)


# --- asking -----------------------------------------------------------------------------------------------------

#: ask(task_question, truth, answer, ask_index) -> True (right), False (wrong) or None (no usable reply)
Asker = Callable[[str, str, str, int], Optional[bool]]


def build_messages(question: str, truth: str, answer: str) -> list[dict]:
    return [{"role": "system", "content": SYSTEM_PROMPT},
            {"role": "user", "content": f"Task: {question}\nTrue value: {truth}\nAgent's answer: {answer}"}]


def parse_reply(content: str) -> Optional[bool]:
    try:
        data = json.loads(content)
    except (json.JSONDecodeError, TypeError):
        return None
    if isinstance(data, dict) and isinstance(data.get("right"), bool):
        return data["right"]
    return None


def ollama_asker(model: str, host: str) -> Asker:
    import ollama  # noqa: PLC0415  ollama, only when the judge runs

    client = ollama.Client(host=host)

    def ask(question: str, truth: str, answer: str, index: int) -> Optional[bool]:
        try:
            reply = client.chat(model=model, messages=build_messages(question, truth, answer), format=REPLY_SCHEMA,
                                options={"seed": index + 1, "temperature": 0.3})
        except ollama.ResponseError as exc:
            if exc.status_code == 404:
                raise UsageError(f"model {model} is not available on {host}: run `ollama pull {model}`") from None
            raise UsageError(f"Ollama at {host} answered with an error: {exc.error}") from None
        except (ConnectionError, OSError) as exc:
            raise UsageError(f"cannot reach Ollama at {host}: {exc}") from None
        except Exception as exc:  # httpx's transport errors do not share a base with the ones above
            if type(exc).__module__.startswith("httpx"):
                raise UsageError(f"cannot reach Ollama at {host}: {exc}") from None
            raise
        return parse_reply(reply.message.content or "")

    return ask


# --- judging ----------------------------------------------------------------------------------------------------

@dataclass
class Judged:
    verdicts: tuple[Optional[bool], ...]  # one per ask

    @property
    def decided(self) -> Optional[bool]:
        """The judge's verdict when every ask gave the same usable one; None for a split or an unusable reply."""
        first = self.verdicts[0]
        return first if first is not None and all(v == first for v in self.verdicts) else None

    def describe(self) -> str:
        words = ["right" if v else "wrong" if v is False else "no reply" for v in self.verdicts]
        return words[0] if self.decided is not None else "split (" + " / ".join(words) + ")"


@dataclass
class ControlResult:
    control: Control
    judged: Judged

    @property
    def ok(self) -> bool:
        return self.judged.decided == self.control.right


@dataclass
class AnswerResult:
    trial: Trial
    truth: str
    rules_ok: Optional[bool]
    judged: Judged

    @property
    def agrees(self) -> bool:
        return self.judged.decided is not None and self.judged.decided == bool(self.rules_ok)


@dataclass
class JudgeReport:
    controls: list[ControlResult]
    answers: list[AnswerResult]  # empty when the controls failed: an unvalidated judge is not asked

    @property
    def failed_controls(self) -> list[ControlResult]:
        return [c for c in self.controls if not c.ok]


def answered_trials(run_: Run, book: JudgeBook) -> list[Trial]:
    return [t for t in run_.trials if t.record.task in book.questions and t.record.answer]


def _ask_all(ask: Asker, book: JudgeBook, task: str, truth: str, answer: str) -> Judged:
    return Judged(tuple(ask(book.questions[task][0], truth, answer, i) for i in range(ASKS)))


def judge_run(run_: Run, trials: list[Trial], ask: Asker, book: JudgeBook, progress=lambda m: None) -> JudgeReport:
    controls = []
    for i, control in enumerate(book.controls, 1):
        progress(f"judge: control {i}/{len(book.controls)} ({control.task})")
        truth = book.truth_for(control.task, control.truth)
        controls.append(ControlResult(control, _ask_all(ask, book, control.task, truth, control.answer)))
    report = JudgeReport(controls, [])
    if report.failed_controls:
        return report
    for i, trial in enumerate(trials, 1):
        progress(f"judge: answer {i}/{len(trials)} ({trial.name})")
        truth = book.truth_for(trial.record.task, trial.record.outcome_observed)
        answer = trial.record.answer
        report.answers.append(AnswerResult(trial, truth, trial.record.answer_ok,
                                           _ask_all(ask, book, trial.record.task, truth, answer)))
    return report


# --- judge.md ---------------------------------------------------------------------------------------------------

def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render(run_: Run, report: JudgeReport, model: str, host: str, book: JudgeBook) -> str:
    passed = len(report.controls) - len(report.failed_controls)
    lines = [f"# Judge of {run_.name}", "",
             f"- Judge: {model} through Ollama at {host}, each answer asked {ASKS} times.",
             f"- Controls: {passed} of {len(report.controls)} called right.", ""]
    if report.failed_controls:
        lines += ["**The judge failed its controls: no agreement figure is shown, and the run's answers were not "
                  "judged.**", "", "| Task | Control answer | Label | Judge said | Why the label |",
                  "| --- | --- | --- | --- | --- |"]
        for c in report.failed_controls:
            lines.append(f"| {c.control.task} | {_cell(c.control.answer)} | {'right' if c.control.right else 'wrong'}"
                         f" | {c.judged.describe()} | {_cell(c.control.why)} |")
        return "\n".join(lines) + "\n"
    total = len(report.answers)
    agree = sum(a.agrees for a in report.answers)
    if total:
        lines.append(f"**Agreement with the answer rules: {agree} of {total} answers "
                     f"({round(100 * agree / total)}%).**")
    else:
        lines.append("The run has no answers to the answer tasks (" + ", ".join(book.questions)
                     + "): nothing to judge.")
    disagreements = [a for a in report.answers if not a.agrees]
    lines += ["", f"## Disagreements ({len(disagreements)})", ""]
    if disagreements:
        lines += ["Read each one: either the rule or the judge is wrong.", "",
                  "| Trial | Answer | True value | Rules | Judge |", "| --- | --- | --- | --- | --- |"]
        for a in disagreements:
            rules = {True: "right", False: "wrong", None: "no rule"}[a.rules_ok]
            lines.append(f"| {a.trial.name} | {_cell(repr(a.trial.record.answer))} | {_cell(a.truth)} "
                         f"| {rules} | {a.judged.describe()} |")
    else:
        lines.append("None.")
    lines += ["", "## Controls", "", "| Task | Answer | Label | Judge | Why the label |",
              "| --- | --- | --- | --- | --- |"]
    for c in report.controls:
        lines.append(f"| {c.control.task} | {_cell(c.control.answer)} | {'right' if c.control.right else 'wrong'} "
                     f"| {c.judged.describe()} | {_cell(c.control.why)} |")
    return "\n".join(lines) + "\n"
