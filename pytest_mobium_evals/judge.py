"""`mobium-evals judge RUN`: a second grader for answers, a local model through Ollama.

The answer rules in answers.py are code and have been wrong before, so a judge checks them; it does not replace
them. Like every grader here it is measured before it counts: it first grades labelled control answers for the
answer tasks (t02, t06, t08, t22, t23), near misses included, and only when it calls every one of them right — the
same way on both asks — is its agreement with the rules shown. Each answer is asked twice; two different verdicts
are a split, which is never counted as agreement.

Decided labels worth knowing (and kept in CONTROLS with the reason):
- "Android 15 (API 35)" is right: the API level is an extra number, not a competing version.
- "API 35" alone is wrong: the task asks for the Android version a user reads in Settings (15); the API level is
  another number that needs a lookup table to become the version. answers.py rejects it as well, so judge and
  rules are measured on the same meaning.
- "Row 61 does not exist" next to "60 rows" is right: it names a row, it is not a competing count."""

from __future__ import annotations

import argparse
import json
import os
import sys
from dataclasses import dataclass
from typing import Callable, Optional

from .cli import CliError
from .runfolder import Run, Trial, load_run, write_text_atomic

JUDGE_REPORT = "judge.md"
DEFAULT_MODEL = "llama3.1:8b"
ASKS = 2

#: What each answer task asks, and the true value when it does not depend on the device.
QUESTIONS = {
    "t02": ("Sign in with a wrong password and report the message the app shows.",
            "Incorrect username or password."),
    "t06": ("Clear the app's data, then report what the app's storage screen says is stored.",
            "Nothing is stored: stored: 0, file: absent."),
    "t08": ("Count the rows of the feed, which loads more rows as it is scrolled, to its end.", "60 rows"),
    "t22": ("Report the Android version the device runs.", None),  # read from the device: outcome_observed
    "t23": ("Play the sequence on the audio screen and report its two pitches.", "440 Hz and 880 Hz"),
}
DEFAULT_ANDROID_VERSION = "15"


@dataclass(frozen=True)
class Control:
    task: str
    answer: str
    right: bool
    why: str  # why the label is what it is: the near misses are the point
    truth: Optional[str] = None  # for t22, the device's version


CONTROLS: tuple[Control, ...] = (
    Control("t02", "The app says: Incorrect username or password.", True, "the app's message, quoted"),
    Control("t02", "Incorrect username or password", True, "the message without its full stop"),
    Control("t02", "Sign-in failed with 'Incorrect username or password.' and no notice about the password's "
                   "length appeared.", True, "names another notice only to say it did not appear"),
    Control("t02", "It showed 'Password must be at least 6 characters'.", False, "another message of the app"),
    Control("t02", "Invalid credentials.", False, "a paraphrase is not the message the app shows"),
    Control("t06", "stored: 0, file: absent", True, "the screen's own lines"),
    Control("t06", "Nothing is stored any more: the count is 0 and the file is absent. Before clearing it was "
                   "stored: 3.", True, "the 3 describes the state before the clear"),
    Control("t06", "stored: 3, file: present", False, "the state before the clear"),
    Control("t06", "The screen still shows stored: 1.", False, "a competing count"),
    Control("t08", "60", True, "the count alone"),
    Control("t08", "The feed has 60 rows in total. Row 61 does not exist.", True,
            "Row 61 names a row; it is not a competing count"),
    Control("t08", "60 rows, loaded as three pages of 20.", True, "20 is the page size, not a count of the feed"),
    Control("t08", "59 rows", False, "off by one"),
    Control("t08", "There are 20 rows.", False, "the first page only"),
    Control("t22", "Android 15", True, "the version", "15"),
    Control("t22", "15", True, "the version alone", "15"),
    Control("t22", "Android 15 (API 35)", True, "the API level is an extra number, not a competing version", "15"),
    Control("t22", "The device runs Android 14.", False, "another version", "15"),
    Control("t22", "API 35", False, "an API level is not the Android version the task asks for", "15"),
    Control("t23", "440 Hz and 880 Hz", True, "both pitches"),
    Control("t23", "First 440 Hz, then after a one-second pause 880 Hz.", True, "both pitches, with the pause"),
    Control("t23", "440 Hz and 660 Hz", False, "660 Hz is the alarm, not the sequence"),
    Control("t23", "Only one tone: 440 Hz.", False, "misses the second pitch"),
)

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


def run(args: argparse.Namespace) -> int:
    run_ = load_run(args.run)
    answers = answered_trials(run_)
    host = args.host or os.environ.get("OLLAMA_HOST") or "http://127.0.0.1:11434"
    ask = ollama_asker(args.model, host)
    report = judge_run(run_, answers, ask, progress=_progress)
    text = render(run_, report, args.model, host)
    write_text_atomic(run_.path / JUDGE_REPORT, text)
    sys.stdout.write(text)
    print(f"wrote {run_.path / JUDGE_REPORT}", file=sys.stderr)
    if report.failed_controls:
        print(f"mobium-evals judge: the judge failed {len(report.failed_controls)} of {len(CONTROLS)} controls: "
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
    try:
        import ollama
    except ImportError:
        raise CliError("judge needs the ollama client (pip install ollama)") from None
    client = ollama.Client(host=host)

    def ask(question: str, truth: str, answer: str, index: int) -> Optional[bool]:
        try:
            reply = client.chat(model=model, messages=build_messages(question, truth, answer), format=REPLY_SCHEMA,
                                options={"seed": index + 1, "temperature": 0.3})
        except ollama.ResponseError as exc:
            if exc.status_code == 404:
                raise CliError(f"model {model} is not available on {host}: run `ollama pull {model}`") from None
            raise CliError(f"Ollama at {host} answered with an error: {exc.error}") from None
        except (ConnectionError, OSError) as exc:
            raise CliError(f"cannot reach Ollama at {host}: {exc}") from None
        except Exception as exc:  # httpx's transport errors do not share a base with the ones above
            if type(exc).__module__.startswith("httpx"):
                raise CliError(f"cannot reach Ollama at {host}: {exc}") from None
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


def answered_trials(run_: Run) -> list[Trial]:
    return [t for t in run_.trials if t.task in QUESTIONS and (t.data.get("claim") or {}).get("answer")]


def truth_for(task: str, observed: Optional[str] = None) -> str:
    question, fixed = QUESTIONS[task]
    if fixed is not None:
        return fixed
    return f"Android {(observed or '').strip() or DEFAULT_ANDROID_VERSION}"


def _ask_all(ask: Asker, task: str, truth: str, answer: str) -> Judged:
    return Judged(tuple(ask(QUESTIONS[task][0], truth, answer, i) for i in range(ASKS)))


def judge_run(run_: Run, trials: list[Trial], ask: Asker, progress=lambda m: None) -> JudgeReport:
    controls = []
    for i, control in enumerate(CONTROLS, 1):
        progress(f"judge: control {i}/{len(CONTROLS)} ({control.task})")
        truth = truth_for(control.task, control.truth)
        controls.append(ControlResult(control, _ask_all(ask, control.task, truth, control.answer)))
    report = JudgeReport(controls, [])
    if report.failed_controls:
        return report
    for i, trial in enumerate(trials, 1):
        progress(f"judge: answer {i}/{len(trials)} ({trial.name})")
        truth = truth_for(trial.task, trial.data.get("outcome_observed"))
        answer = trial.data["claim"]["answer"]
        report.answers.append(AnswerResult(trial, truth, trial.data.get("answer_ok"),
                                           _ask_all(ask, trial.task, truth, answer)))
    return report


# --- judge.md ---------------------------------------------------------------------------------------------------

def _cell(text: object) -> str:
    return str(text).replace("|", "\\|").replace("\n", " ")


def render(run_: Run, report: JudgeReport, model: str, host: str) -> str:
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
        lines.append("The run has no answers to the answer tasks (" + ", ".join(QUESTIONS) + "): nothing to judge.")
    disagreements = [a for a in report.answers if not a.agrees]
    lines += ["", f"## Disagreements ({len(disagreements)})", ""]
    if disagreements:
        lines += ["Read each one: either the rule or the judge is wrong.", "",
                  "| Trial | Answer | True value | Rules | Judge |", "| --- | --- | --- | --- | --- |"]
        for a in disagreements:
            rules = {True: "right", False: "wrong", None: "no rule"}[a.rules_ok]
            lines.append(f"| {a.trial.name} | {_cell(repr(a.trial.data['claim']['answer']))} | {_cell(a.truth)} "
                         f"| {rules} | {a.judged.describe()} |")
    else:
        lines.append("None.")
    lines += ["", "## Controls", "", "| Task | Answer | Label | Judge | Why the label |",
              "| --- | --- | --- | --- | --- |"]
    for c in report.controls:
        lines.append(f"| {c.control.task} | {_cell(c.control.answer)} | {'right' if c.control.right else 'wrong'} "
                     f"| {c.judged.describe()} | {_cell(c.control.why)} |")
    return "\n".join(lines) + "\n"
