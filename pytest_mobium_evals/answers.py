"""The answer rules: the one place free text is graded.

Each answer task declares what it accepts. A rule rejects a *competing* answer (another count, another version,
another pitch, another message), never an answer for carrying extra numbers or context: "60 rows … Row 61 does not
exist" is a right count. The rules are code and have been wrong before (the seed's first rules failed four correct
answers), so each has Hypothesis properties in tests/plugin/test_answers.py and the local judge re-checks them.

A rule is called with the answer text and a context: the trial's params and the outcome's `observed` string (for
t22 that is the version read from the device, so the rule needs no fixed value)."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass
from typing import Any, Callable, Optional


@dataclass(frozen=True)
class AnswerContext:
    params: dict
    observed: str = ""


@dataclass(frozen=True)
class AnswerRule:
    name: str
    accepts: str  # one line for reports: what a right answer says
    check: Callable[[str, AnswerContext], bool]

    def __call__(self, answer: Optional[str], context: Optional[AnswerContext] = None) -> bool:
        if answer is None or not answer.strip():
            return False
        return bool(self.check(normalize(answer), context or AnswerContext(params={})))


def normalize(text: str) -> str:
    """Lower case, NFKC, typographic quotes and dashes folded, whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text).lower()
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    text = re.sub(r"[\u2010-\u2015]", "-", text)
    return re.sub(r"\s+", " ", text).strip()


_WORD_NUMBERS = {
    "zero": 0, "none": 0, "no": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "twenty": 20, "forty": 40, "fifty": 50, "sixty": 60, "eighty": 80,
}


def _clauses(text: str) -> list[str]:
    # A clause is where "was"/"before" qualifiers stay attached to their number: split on sentence and list marks,
    # but not on the ":" of "rows: 60" nor the "." inside "15.0".
    return [c for c in re.split(r"[;!?\n]|\.(?!\d)|,(?!\d)|\(|\)| - | but | while | whereas ", text) if c.strip()]


# ---- t02: the app's message for a wrong password ------------------------------------------------------------------

_LOGIN_MESSAGE = "incorrect username or password"
_OTHER_LOGIN_MESSAGES = (
    "enter your username", "enter your password", "username must be at least", "password must be at least",
    "username can contain only",
)


def _login_message(answer: str, _: AnswerContext) -> bool:
    if _LOGIN_MESSAGE not in answer:
        return False
    # Naming a field notice as the message is a competing answer; mentioning that it did *not* appear is not.
    for other in _OTHER_LOGIN_MESSAGES:
        for clause in _clauses(answer):
            if other in clause and not re.search(r"\b(not|no|never|instead of|rather than)\b", clause):
                return False
    return True


LOGIN_MESSAGE = AnswerRule("login_message", "the app's message: Incorrect username or password.", _login_message)


# ---- t06: what the app has stored after its data was cleared ------------------------------------------------------

_PAST = re.compile(r"\b(before|was|were|previously|earlier|had|used to|prior|initially|from|originally)\b")
_NOTHING = re.compile(
    r"\b(stored:? 0|count:? 0|0 (items?|entries|saves|visits|records|values)|zero|nothing|none|no (data|items?|"
    r"entries|file|saved|stored)|absent|empty|file: absent|not present|no longer|cleared|deleted|removed|gone)\b")
_STORED_N = re.compile(r"(stored:? ?|count:? ?|count (is|of) |counter (is|at|of) )(\d+)|\b(\d+) (items?|entries|"
                       r"saves|records|times) (are |is )?(stored|saved|left|remain)")


def _stored_nothing(answer: str, _: AnswerContext) -> bool:
    if not _NOTHING.search(answer):
        return False
    for clause in _clauses(answer):
        if _PAST.search(clause):
            continue  # "it was 3 before" describes the state before the clear
        for m in _STORED_N.finditer(clause):
            n = m.group(4) or m.group(5)
            if n is not None and int(n) != 0:
                return False
        if re.search(r"\bfile(:| is)? present\b", clause) and "not present" not in clause:
            return False
    return True


STORED_NOTHING = AnswerRule("stored_nothing", "nothing is stored: stored: 0, file: absent", _stored_nothing)


# ---- t08: the number of rows in the feed --------------------------------------------------------------------------

def _numbers_as_counts(clause: str) -> list[int]:
    """Numbers the clause gives as a count of rows: "60 rows", "rows: 60", "a total of 60", "there are 60"."""
    counts = []
    for m in re.finditer(r"(?<!row )\b(\d+)\s+(rows|items|entries|cards|rows in total)\b", clause):
        counts.append(int(m.group(1)))
    for m in re.finditer(r"\brows:?\s*(\d+)\b", clause):
        counts.append(int(m.group(1)))
    for m in re.finditer(r"\b(total(?: of| is|:)?|count(?: is|:)?|there are|has|contains|altogether|in all)\s+"
                         r"(\d+)\b", clause):
        counts.append(int(m.group(2)))
    for m in re.finditer(r"(?<!row )\b(\d+)\s+(in total|in all|altogether|total)\b", clause):
        counts.append(int(m.group(1)))
    for word, value in _WORD_NUMBERS.items():
        if value and re.search(rf"\b{word}\s+(rows|items|entries)\b", clause):
            counts.append(value)
    return counts


_FUNCTION_WORDS = {"or", "and", "but", "then", "is", "are", "was", "were", "so", "because", "as", "to", "if",
                   "in", "at", "on", "by", "of", "after", "before", "when", "with", "that", "which", "i", "it"}


def _measures_something(rest: str) -> bool:
    """Whether the word right after a number is a unit ("3 scrolls", "12 seconds", "5%"), not a function word."""
    m = re.match(r"\s*([a-z%]+)", rest)
    return bool(m) and m.group(1) not in _FUNCTION_WORDS


def _row_count(expected: int) -> Callable[[str, AnswerContext], bool]:
    def check(answer: str, _: AnswerContext) -> bool:
        counts = [n for clause in _clauses(answer) if not _PAST.search(clause) for n in _numbers_as_counts(clause)]
        if counts:
            return all(n == expected for n in counts)
        # No number phrased as a count: a bare "60" is the answer, as long as no other bare number competes.
        # A number naming a row ("Row 61 does not exist") or measuring something else ("3 scrolls", "12 seconds")
        # is not bare.
        bare = [int(m.group(1)) for m in re.finditer(r"(?<!row )(?<![\d.])(\d+)(?!\.\d|\d)", answer)
                if not _measures_something(answer[m.end():])]
        bare += [v for w, v in _WORD_NUMBERS.items()
                 if v for m in re.finditer(rf"\b{w}\b", answer) if not _measures_something(answer[m.end():])]
        return expected in bare and all(n == expected for n in bare)

    return check


FEED_ROWS = AnswerRule("feed_rows", "60 rows", _row_count(60))


# ---- t22: the device's Android version ----------------------------------------------------------------------------

def _android_version(answer: str, context: AnswerContext) -> bool:
    expected = (context.observed or context.params.get("android_version") or "").strip().lower()
    if not expected:
        return False
    major = expected.split(".")[0]
    mentioned = re.search(rf"(?<![\d.]){re.escape(major)}(\.0)*(?![\d])", answer)
    if not mentioned:
        return False
    # A competing version: "Android 14", "version 14", "android version is 14". API levels and build numbers are
    # extra numbers, not competing answers.
    competing = r"\b(android(?: os)?(?: version)?(?: is)?|version(?: is)?|release(?: is)?)\s*:?\s*(\d+)"
    for m in re.finditer(competing, answer):
        if m.group(2) != major:
            return False
    return True


ANDROID_VERSION = AnswerRule("android_version", "the version read from ro.build.version.release", _android_version)


# ---- t23: the two pitches of the sequence --------------------------------------------------------------------------

def _pitches(expected: tuple[float, ...]) -> Callable[[str, AnswerContext], bool]:
    def check(answer: str, _: AnswerContext) -> bool:
        found = []
        for m in re.finditer(r"(\d+(?:\.\d+)?)\s*(khz|hz|hertz)\b", answer):
            value = float(m.group(1)) * (1000 if m.group(2) == "khz" else 1)
            found.append(value)
        if not found:
            # Bare numbers: accept only when both pitches are there and nothing else looks like a pitch.
            found = [float(n) for n in re.findall(r"\b(\d{3,4})\b", answer)]
        heard = {round(v) for v in found if v != 0}  # "0 Hz" is the pause between them
        return set(round(e) for e in expected) <= heard and heard <= set(round(e) for e in expected)

    return check


TWO_PITCHES = AnswerRule("two_pitches", "440 Hz and 880 Hz", _pitches((440.0, 880.0)))


# ---- refusal reasons ---------------------------------------------------------------------------------------------

def _reason(pattern: str, competing: str) -> Callable[[str, AnswerContext], bool]:
    wanted, rival = re.compile(pattern), re.compile(competing)

    def check(answer: str, _: AnswerContext) -> bool:
        return bool(wanted.search(answer)) and not (rival.search(answer) and not wanted.search(answer))

    return check


COVERED_REASON = AnswerRule(
    "covered_reason", "the target is covered (by the full cover) so a tap would not reach it",
    _reason(r"cover|obscur|obstruct|overlay|overlaid|on top of|underneath|beneath|hidden behind|blocked|blocking|"
            r"intercept|behind",
            r"not found|does not exist|doesn't exist|disabled|no such"))

READONLY_REASON = AnswerRule(
    "readonly_reason", "the field is read-only (not editable)",
    _reason(r"read[- ]?only|not editable|non[- ]editable|uneditable|cannot be edited|can't be edited|"
            r"can ?not be (typed|changed|modified)|not a text field|editable=false|disabled|locked|not (allow|accept)",
            r"not found|does not exist|covered|keyboard"))


RULES: dict[str, AnswerRule] = {r.name: r for r in (LOGIN_MESSAGE, STORED_NOTHING, FEED_ROWS, ANDROID_VERSION,
                                                      TWO_PITCHES, COVERED_REASON, READONLY_REASON)}


def rule_by_name(name: str) -> AnswerRule:
    try:
        return RULES[name]
    except KeyError:
        raise KeyError(f"no answer rule named {name!r}; known: {', '.join(sorted(RULES))}") from None


def check_answer(rule: Optional[AnswerRule], answer: Optional[str], params: dict[str, Any],
                 observed: str = "") -> Optional[bool]:
    """The rule's judgement, or None when the task has no rule."""
    if rule is None:
        return None
    return rule(answer, AnswerContext(params=params, observed=observed))
