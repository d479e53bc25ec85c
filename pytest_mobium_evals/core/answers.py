"""The answer matchers: the one place free text is graded.

Each answer task builds its rule from one of these matchers and its own strings (the app's message, the count, the
pitches), so the library holds no fact of any app. A rule rejects a *competing* answer (another count, another
version, another pitch, another message), never an answer for carrying extra numbers or context: "60 rows … Row 61
does not exist" is a right count. The rules are code and have been wrong before (the seed's first rules failed four
correct answers), so each matcher has Hypothesis properties in the tests and the local judge re-checks them.

A rule is called with the answer text and a context: the trial's params and the outcome's `observed` string (a
version read from the device, so the rule needs no fixed value).

Over 450 lines on purpose: the matchers share one reading of free text (numbers in words and figures, hedges,
negation, the rival forms `reference+answers` tries), and split apart each would import that reading back."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, replace
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
    # Labelled examples (tasks.LabelledAnswer: text, right, why, truth), checked when the task is declared.
    examples: tuple = ()
    # The competing answers a model might give beside the right one ("61 rows" beside "60 rows"): the
    # `reference+answers` control appends each to the reference's answer, which the rule must then reject.
    rivals: Optional[Callable[[str, AnswerContext], tuple[str, ...]]] = None
    # A figure's unit that the prompt names, so the figure may come bare ("411" for "411dp").
    unit: Optional[str] = None

    def __call__(self, answer: Optional[str], context: Optional[AnswerContext] = None) -> bool:
        if answer is None or not answer.strip():
            return False
        return bool(self.check(normalize(answer), context or AnswerContext(params={})))

    def with_examples(self, *examples: Any) -> "AnswerRule":
        return replace(self, examples=self.examples + tuple(examples))


def normalize(text: str) -> str:
    """Lower case, NFKC, typographic quotes and dashes folded, thousands separators dropped ("1,024" is 1024),
    whitespace collapsed."""
    text = unicodedata.normalize("NFKC", text).lower()
    text = text.replace("\u2019", "'").replace("\u2018", "'").replace("\u201c", '"').replace("\u201d", '"')
    text = re.sub(r"[\u2010-\u2015]", "-", text)
    text = re.sub(r"(?<=\d),(?=\d{3}(?!\d))", "", text)
    return re.sub(r"\s+", " ", text).strip()


# A clause that names a value only to deny it ("411dp, not 1080dp", "rather than 61"): its value does not compete.
_DENIAL = re.compile(r"\b(not|never|instead of|rather than|isn't|wasn't|aren't)\b|\bno longer\b")


def _asserting(clauses: list[str]) -> list[str]:
    return [c for c in clauses if not _DENIAL.search(c)]


_WORD_NUMBERS = {
    "zero": 0, "none": 0, "no": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7,
    "eight": 8, "nine": 9, "ten": 10, "twenty": 20, "forty": 40, "fifty": 50, "sixty": 60, "eighty": 80,
}


def _clauses(text: str) -> list[str]:
    # A clause is where "was"/"before" qualifiers stay attached to their number: split on sentence and list marks,
    # but not on the ":" of "rows: 60" nor the "." inside "15.0".
    return [c for c in re.split(r"[;!?\n]|\.(?!\d)|,(?!\d)|\(|\)| - | but | while | whereas ", text) if c.strip()]


# ---- a message the app shows ----------------------------------------------------------------------------------

_NEGATED = re.compile(r"\b(not|no|never|instead of|rather than)\b")


def app_message(name: str, message: str, *, competing: tuple[str, ...] = ()) -> AnswerRule:
    """The app's own message, quoted or not, with or without its final full stop. Naming one of the app's other
    messages (`competing`) as the answer is wrong; mentioning that one did *not* appear is not."""
    wanted = normalize(message).rstrip(".!")
    rivals = tuple(normalize(c).rstrip(".!") for c in competing)

    def check(answer: str, _: AnswerContext) -> bool:
        if wanted not in answer:
            return False
        for other in rivals:
            for clause in _clauses(answer):
                if other in clause and not _NEGATED.search(clause):
                    return False
        return True

    return AnswerRule(name, f"the app's message: {message}", check,
                      rivals=(lambda _a, _c: tuple(competing[:2])) if competing else None)


# ---- nothing is stored any more -----------------------------------------------------------------------------------

_PAST = re.compile(r"\b(before|was|were|previously|earlier|had|used to|prior|initially|from|originally)\b")
_NOTHING = (r"count:? 0|0 (items?|entries|saves|visits|records|values)|zero|nothing|none|no (data|items?|entries|"
            r"file|saved|stored)|absent|empty|not present|no longer|cleared|deleted|removed|gone")
_STORED_N = re.compile(r"(stored:? ?|count:? ?|count (is|of) |counter (is|at|of) )(\d+)|\b(\d+) (items?|entries|"
                       r"saves|records|times) (are |is )?(stored|saved|left|remain)")


def nothing_stored(name: str, accepts: str, *, empty_lines: tuple[str, ...] = ()) -> AnswerRule:
    """Nothing is stored any more. `empty_lines` are the app's own words for it ("stored: 0"), accepted as such.
    A count other than 0 is a competing answer unless it is said of the past ("it was 3 before the clear"); so is
    saying a file is present."""
    lines = "|".join(re.escape(normalize(line)) for line in empty_lines)
    nothing = re.compile(r"\b(" + (lines + "|" if lines else "") + _NOTHING + r")\b")

    def check(answer: str, _: AnswerContext) -> bool:
        if not nothing.search(answer):
            return False
        for clause in _asserting(_clauses(answer)):  # "…, not 3 items are stored" names a count to deny it
            if _PAST.search(clause):
                continue  # "it was 3 before" describes the state before the clear
            for m in _STORED_N.finditer(clause):
                n = m.group(4) or m.group(5)
                if n is not None and int(n) != 0:
                    return False
            if re.search(r"\bfile(:| is)? present\b", clause) and "not present" not in clause:
                return False
        return True

    return AnswerRule(name, accepts, check, rivals=lambda _a, _c: ("3 items are stored",))


# ---- a count ------------------------------------------------------------------------------------------------------

# A figure that gives a page's size ("three pages of 20", "3 pages × 20"), not a count of the whole.
_NOT_A_PAGE = r"(?<!pages of )(?<!page of )(?<!× )(?<!x )"


def _numbers_as_counts(clause: str, unit: str, others: str) -> list[int]:
    """Numbers the clause gives as a count of `unit`s: "60 rows", "rows: 60", "a total of 60", "there are 60"."""
    single = unit.rstrip("s")
    counts = []
    # "three pages of 20 rows each": a page's size, not a count of the whole
    for m in re.finditer(rf"(?<!{single} ){_NOT_A_PAGE}\b(\d+)\s+({unit}|{others}|{unit} in total)\b"
                         r"(?! each| per| a page)", clause):
        counts.append(int(m.group(1)))
    for m in re.finditer(rf"\b{unit}:?\s*(\d+)\b(?!\s*-\s*\d)", clause):  # not "rows 1-60", a range of rows
        counts.append(int(m.group(1)))
    for m in re.finditer(r"\b(total(?: of| is|:)?|count(?: is|:)?|there are|has|contains|altogether|in all)\s+"
                         r"(\d+)\b", clause):
        counts.append(int(m.group(2)))
    for m in re.finditer(rf"(?<!{single} )\b(\d+)\s+(in total|in all|altogether|total)\b", clause):
        counts.append(int(m.group(1)))
    for word, value in _WORD_NUMBERS.items():
        if value and re.search(rf"\b{word}\s+({unit}|{others})\b", clause):
            counts.append(value)
    return counts


_FUNCTION_WORDS = {"or", "and", "but", "then", "is", "are", "was", "were", "so", "because", "as", "to", "if",
                   "in", "at", "on", "by", "of", "after", "before", "when", "with", "that", "which", "i", "it"}


def _measures_something(rest: str) -> bool:
    """Whether the word right after a number is a unit ("3 scrolls", "12 seconds", "5%"), not a function word."""
    m = re.match(r"\s*([a-z%]+)", rest)
    return bool(m) and m.group(1) not in _FUNCTION_WORDS


def count_of(name: str, expected: int, *, unit: str = "rows",
             synonyms: tuple[str, ...] = ("items", "entries", "cards")) -> AnswerRule:
    """A count of `unit`s: every number the answer gives as such a count must be `expected`. An answer with no
    number phrased as a count may give the bare number, as long as no other bare number competes; a number naming
    one item ("Row 61 does not exist") or measuring something else ("3 scrolls", "12 seconds") is not bare."""
    unit = normalize(unit)
    single = unit.rstrip("s")
    others = "|".join(re.escape(s) for s in synonyms) or unit

    def check(answer: str, _: AnswerContext) -> bool:
        clauses = _asserting(_clauses(answer))
        counts = [n for clause in clauses if not _PAST.search(clause)
                  for n in _numbers_as_counts(clause, unit, others)]
        if counts:
            return all(n == expected for n in counts)
        asserted = " ; ".join(clauses)
        bare = [int(m.group(1)) for m in re.finditer(rf"(?<!{single} ){_NOT_A_PAGE}(?<![\d.])(\d+)(?!\.\d|\d)",
                                                     asserted)
                if not _measures_something(asserted[m.end():])]
        bare += [v for w, v in _WORD_NUMBERS.items()
                 if v for m in re.finditer(rf"\b{w}\b", asserted) if not _measures_something(asserted[m.end():])]
        return expected in bare and all(n == expected for n in bare)

    return AnswerRule(name, f"{expected} {unit}", check, rivals=lambda _a, _c: (f"{expected + 1} {unit}",))


# ---- a version read from the device ---------------------------------------------------------------------------

_COMPETING_VERSION = re.compile(r"\b(android(?: os)?(?: version)?(?: is)?|version(?: is)?|release(?: is)?)\s*:?\s*"
                                r"(\d+)")


#: Numbers as words, as a model writes a version out ("Android fifteen").
NUMBER_WORDS = ("zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven",
                "twelve", "thirteen", "fourteen", "fifteen", "sixteen", "seventeen", "eighteen", "nineteen", "twenty")
_NUMBER_WORD = re.compile(r"\b(" + "|".join(NUMBER_WORDS) + r")\b", re.IGNORECASE)


def digits_for_words(text: str) -> str:
    """The text with each number written as a word (zero to twenty) written in digits."""
    return _NUMBER_WORD.sub(lambda m: str(NUMBER_WORDS.index(m.group(1).lower())), text)


def _android_version(answer: str, context: AnswerContext) -> bool:
    expected = (context.observed or context.params.get("android_version") or "").strip().lower()
    if not expected:
        return False
    answer = digits_for_words(answer)
    major = expected.split(".")[0]
    mentioned = re.search(rf"(?<![\d.]){re.escape(major)}(\.0)*(?![\d])", answer)
    if not mentioned:
        return False
    # A competing version: "Android 14", "version 14", "android version is 14". API levels and build numbers are
    # extra numbers, not competing answers.
    for clause in _asserting(_clauses(answer)):
        for m in _COMPETING_VERSION.finditer(clause):
            if m.group(2) != major:
                return False
    return True


def _other_version(_answer: str, context: AnswerContext) -> tuple[str, ...]:
    major = (context.observed or context.params.get("android_version") or "0").strip().split(".")[0]
    return (f"Android {int(major) - 1 if major.isdigit() and int(major) > 1 else 14}",)


def android_version(name: str = "android_version") -> AnswerRule:
    """The Android version the outcome read from the device (`ro.build.version.release`)."""
    return AnswerRule(name, "the version read from ro.build.version.release", _android_version,
                      rivals=_other_version)


# ---- frequencies -----------------------------------------------------------------------------------------------

def frequencies(name: str, expected_hz: tuple[float, ...]) -> AnswerRule:
    """Exactly these pitches, in Hz or kHz ("0 Hz" is a pause, not a pitch). Bare numbers count only when there
    is no unit anywhere, and then every three- or four-digit number is taken as a pitch."""
    want = {round(e) for e in expected_hz}

    def check(answer: str, _: AnswerContext) -> bool:
        answer = " ; ".join(_asserting(_clauses(answer)))
        found = []
        for m in re.finditer(r"(\d+(?:\.\d+)?)\s*(khz|hz|hertz)\b", answer):
            found.append(float(m.group(1)) * (1000 if m.group(2) == "khz" else 1))
        if not found:
            found = [float(n) for n in re.findall(r"\b(\d{3,4})\b", answer)]
        heard = {round(v) for v in found if v != 0}
        return heard == want

    return AnswerRule(name, " and ".join(f"{e:g} Hz" for e in expected_hz), check,
                      rivals=lambda _a, _c: (f"{max(want) + 220} Hz",))


# ---- a value read from the device --------------------------------------------------------------------------------

def percent(name: str, accepts: str) -> AnswerRule:
    """The percentage the device reports (the outcome's `observed`, digits only), as "37%", "37 percent" or
    "37 per cent". Any other percentage competes, the same level misread as a percentage ("0.37%") among them; the
    fraction given beside it as such ("raw 0.37") does not."""

    def check(answer: str, context: AnswerContext) -> bool:
        want = context.observed.strip()
        if not want.isdigit():
            return False
        asserted = " ; ".join(_asserting(_clauses(answer)))
        given = re.findall(r"(\d+(?:\.\d+)?)\s*(?:%|percent\b|per cent\b)", asserted)
        return bool(given) and all(g == want for g in given)

    def rivals(_answer: str, context: AnswerContext) -> tuple[str, ...]:
        want = context.observed.strip()
        return (f"{(int(want) + 7) % 100}%",) if want.isdigit() else ()

    return AnswerRule(name, accepts, check, rivals=rivals)


def measure(name: str, accepts: str, *, unit: str, bare: bool = False, other_units: tuple[str, ...] = ()
            ) -> AnswerRule:
    """A figure in `unit` ("dp", "px") the device shows: the first one in the outcome's `observed`. Every figure the
    answer gives in that unit ("411dp", "411 dp") must be it, and there must be one; a figure in another unit
    ("1080 px") does not compete. With `bare` (the prompt names the unit), an answer with no figure in any unit may
    give the bare figure ("411"), as long as no other bare figure competes. A clause that denies a figure ("not
    1080dp") does not compete."""
    unit_re = re.escape(normalize(unit))
    figure = re.compile(rf"(?<![\d.])(\d+(?:\.\d+)?)\s*{unit_re}\b")
    units = "|".join(re.escape(normalize(u)) for u in (unit,) + tuple(other_units) + ("px", "dp", "pt", "%"))
    bare_figure = re.compile(rf"(?<![\d.])(\d+(?:\.\d+)?)(?!\.?\d)(?!\s*(?:{units})\b)")

    def check(answer: str, context: AnswerContext) -> bool:
        shown = figure.search(normalize(context.observed))
        if shown is None:
            return False
        asserted = " ; ".join(_asserting(_clauses(answer)))
        given = [float(g) for g in figure.findall(asserted)]
        if not given and bare:
            given = [float(g) for g in bare_figure.findall(asserted)]
        return bool(given) and all(g == float(shown.group(1)) for g in given)

    def rivals(_answer: str, context: AnswerContext) -> tuple[str, ...]:
        shown = figure.search(normalize(context.observed))
        return (f"{float(shown.group(1)) + 10:g}{unit}",) if shown else ()

    return AnswerRule(name, accepts, check, rivals=rivals, unit=unit if bare else None)


def reading(name: str, accepts: str) -> AnswerRule:
    """The reading the device shows (the outcome's `observed`: coordinates, a file size), quoted whole; a second
    reading of the same shape that differs from it competes."""

    def check(answer: str, context: AnswerContext) -> bool:
        want = normalize(context.observed)
        if not want or want not in answer:
            return False
        shape = re.sub(r"\d", r"\\d", re.escape(want)).replace(r"\\d", r"\d")
        # Each reading is held whole while the answer is cut into clauses: the clause marks would cut one with a
        # comma in it ("37.421998,-122.084000") in two, and a rival beside it would then go unseen.
        found = re.findall(shape, answer)
        held = re.sub(shape, lambda m: f"\x00{found.index(m.group(0))}\x00", answer)
        asserted = " ; ".join(_asserting(_clauses(held)))
        given = [normalize(found[int(i)]) for i in re.findall(r"\x00(\d+)\x00", asserted)]
        return bool(given) and all(g == want for g in given)

    def rivals(_answer: str, context: AnswerContext) -> tuple[str, ...]:
        want = context.observed.strip()
        digits = [i for i, ch in enumerate(want) if ch.isdigit()]
        if not digits:
            return ()
        i = digits[-1]
        return (want[:i] + str((int(want[i]) + 3) % 10) + want[i + 1:],)

    return AnswerRule(name, accepts, check, rivals=rivals)


def signed_reading(name: str, accepts: str) -> AnswerRule:
    """A signed decimal the device shows (the outcome's `observed`, such as "-118.0"), sign and places as shown:
    every number of the same places in the answer must be it, so the same size with the other sign competes. A
    dash right after a digit is a range's ("100.0-140.0"), not a minus; "minus 118.0" is a minus."""

    def check(answer: str, context: AnswerContext) -> bool:
        m = re.fullmatch(r"([-+]?)(\d+)(?:\.(\d+))?", context.observed.strip())
        if not m:
            return False
        places = len(m.group(3) or "")
        want = float(context.observed)
        fraction = rf"\.\d{{{places}}}" if places else ""
        shape = rf"(?<![\d.])(?:(?<!\d)(-|\+|minus )\s?)?(\d+{fraction})(?![\d.]\d)"
        asserted = " ; ".join(_asserting(_clauses(answer)))
        given = [(-1 if sign and sign.strip() in ("-", "minus") else 1) * float(number)
                 for sign, number in re.findall(shape, asserted)]
        return bool(given) and all(g == want for g in given)

    def rivals(_answer: str, context: AnswerContext) -> tuple[str, ...]:
        want = context.observed.strip()
        if not re.fullmatch(r"[-+]?\d+(?:\.\d+)?", want):
            return ()
        return (want[1:] if want.startswith("-") else f"-{want.lstrip('+')}",)

    return AnswerRule(name, accepts, check, rivals=rivals)


# ---- refusal reasons ---------------------------------------------------------------------------------------------

def refusal_reason(name: str, accepts: str, *, mentions: str, competing: str) -> AnswerRule:
    """A refusal's reason: it mentions what makes the action impossible (`mentions`, a regex), and is not only
    another reason (`competing`: "not found", "disabled")."""
    wanted, rival = re.compile(mentions), re.compile(competing)

    def check(answer: str, _: AnswerContext) -> bool:
        return bool(wanted.search(answer)) and not (rival.search(answer) and not wanted.search(answer))

    return AnswerRule(name, accepts, check)


def answer_given(status: Optional[str], answer: Optional[str], reason: Optional[str]) -> Optional[str]:
    """What a claim answers: its `answer`; or, when that is empty and it claims done, its `reason`. A reply that
    gives the value only in its reason has still told the user (the prompt asks to be told, not to fill a field),
    so the reason is graded as the answer, by the same rule, rivals and all."""
    if answer is not None and answer.strip():
        return answer
    return reason if status == "done" and reason and reason.strip() else answer


def check_answer(rule: Optional[AnswerRule], answer: Optional[str], params: dict[str, Any],
                 observed: str = "") -> Optional[bool]:
    """The rule's judgement, or None when the task has no rule."""
    if rule is None:
        return None
    return rule(answer, AnswerContext(params=params, observed=observed))


# ---- the forms of one answer (the `reference+answers` control) ------------------------------------------------------

def _with_thousands(text: str) -> str:
    return re.sub(r"(?<![\d.,])(\d{4,})(?![\d.]\d)", lambda m: f"{int(m.group(1)):,}", text)


def accepted_forms(answer: str, rule: AnswerRule) -> list[str]:
    """The reference's answer as models write it, each of which a right rule must accept: other case, other
    spacing, straight or curly quotes around it and inside it, thousands separators, a short sentence around it,
    and with the unit spaced, joined, or (where the prompt names it) left off."""
    a = answer.strip()
    forms = [a.upper(), a.lower(), "  " + a.replace(" ", "  ") + " ", f'"{a}"', f"\u201c{a}\u201d",
             a.replace("'", "\u2019"), a.replace("\u2019", "'"), f"I checked, and it is {a}.",
             f"Done: {a}", _with_thousands(a)]
    if rule.unit:
        unit = re.escape(rule.unit)
        figure = re.compile(rf"(\d+(?:\.\d+)?)\s*{unit}\b", re.IGNORECASE)
        if figure.search(a):
            forms += [figure.sub(lambda m: f"{m.group(1)} {rule.unit}", a),
                      figure.sub(lambda m: f"{m.group(1)}{rule.unit}", a),
                      figure.sub(lambda m: m.group(1), a)]
    return list(dict.fromkeys(f for f in forms if f.strip()))


def rival_forms(answer: str, rule: AnswerRule, context: AnswerContext) -> tuple[list[str], list[str]]:
    """(denied, asserted): the reference's answer with each rival the rule knows of named only to deny it ("…, not
    61 rows"), which a right rule accepts; and with the rival asserted beside it ("…, or 61 rows"), which it must
    reject."""
    if rule.rivals is None:
        return [], []
    a = answer.strip().rstrip(".")
    rivals = [r for r in rule.rivals(answer, context) if r and normalize(r) not in normalize(a)]
    denied = [f"{a}, not {r}." for r in rivals]
    asserted = [f"{a}, or {r}." for r in rivals] + [f"{a}. It could also be {r}." for r in rivals]
    return denied, asserted


# ---- another figure offered as a possibility beside the right one ------------------------------------------------

_HEDGE = re.compile(r"\b(or|maybe|perhaps|possibly|probably|might be|could be|could also be|either)\b(?:\s+(?:maybe|"
                    r"perhaps|possibly|about|around|even|also|be|it is|it's))*\s+(\d+)\b")


def rejecting_hedged(rule: AnswerRule, expected: int, unit: str = "") -> AnswerRule:
    """`rule`, and also no asserting clause may offer another number as a possibility ("60 rows, or maybe 40",
    "possibly 40"): a hedge between two figures answers with both. A number named to deny it does not count, nor
    one that measures something other than `unit` ("2 or 3 seconds a page")."""
    single = normalize(unit).rstrip("s")

    def rival(clause: str, m: re.Match) -> bool:
        rest = clause[m.end():]
        return not _measures_something(rest) or bool(single) and rest.lstrip().startswith(single)

    def check(answer: str, context: AnswerContext) -> bool:
        if not rule.check(answer, context):
            return False
        offered = [int(m.group(2)) for clause in _asserting(_clauses(answer)) for m in _HEDGE.finditer(clause)
                   if rival(clause, m)]
        return all(n == expected for n in offered)

    return replace(rule, check=check)


# ---- a refusal's reason named only to deny it ------------------------------------------------------------------------

# A denial just before the words it denies: "not covered", "isn't really disabled", "nothing covers".
_DENIED_BEFORE = re.compile(r"\b(not|never|isn't|wasn't|aren't|no longer|nothing|nowhere)\s+(?:[\w']+\s+){0,2}$")


def rejecting_denied_reason(rule: AnswerRule, mentions: str) -> AnswerRule:
    """`rule`, and the reason must assert what it mentions at least once: "it is not covered; it is disabled"
    names the cover only to deny it, and gives another reason."""
    wanted = re.compile(mentions)

    def check(answer: str, context: AnswerContext) -> bool:
        if not rule.check(answer, context):
            return False
        return any(not _DENIED_BEFORE.search(answer[:m.start()]) for m in wanted.finditer(answer))

    return replace(rule, check=check)


# ---- what the answer says about something other than its figure -------------------------------------------------

def setting_aside(rule: AnswerRule, clauses: str, phrases: str = "") -> AnswerRule:
    """`rule`, judged without the clauses matching `clauses` (how things looked on the way: "it seemed to stop at
    20 rows", "I first thought 20 rows") and the phrases matching `phrases` (another size: "pages of 20 rows
    each"). The figures they give describe something other than the answer, so they do not compete with it."""
    drop_clause = re.compile(clauses)
    drop_phrase = re.compile(phrases) if phrases else None

    def check(answer: str, context: AnswerContext) -> bool:
        text = " ; ".join(c for c in _clauses(answer) if not drop_clause.search(c))
        if drop_phrase is not None:
            text = drop_phrase.sub(" ", text)
        return rule.check(text, context)

    return replace(rule, check=check)


# ---- coordinates ---------------------------------------------------------------------------------------------------

_PAIR = re.compile(r"(?<![\d.])([-+]?\d{1,3}\.\d+)\s*,\s*([-+]?\d{1,3}\.\d+)(?!\.?\d)")
_NAMED_PAIR = re.compile(r"\blat(?:itude)?\b\s*(?:is|of|=|:)?\s*([-+]?\d{1,3}\.\d+)\b.{0,40}?\blong?(?:itude)?\b\s*"
                         r"(?:is|of|=|:)?\s*([-+]?\d{1,3}\.\d+)(?!\.?\d)")


def coordinates(name: str, accepts: str) -> AnswerRule:
    """The coordinates the device shows (the outcome's `observed`, "lat,lon"), as a pair with or without a space
    after its comma, or named ("latitude 37.421998, longitude -122.084"), trailing zeros or not. Every pair the
    answer asserts must be them, and there must be one; a pair named only to deny it does not compete."""
    fallback = reading(name, accepts)

    def pairs(text: str) -> list[tuple[str, str]]:
        return _NAMED_PAIR.findall(text) or _PAIR.findall(text)

    def check(answer: str, context: AnswerContext) -> bool:
        shown = _PAIR.findall(normalize(context.observed))
        if len(shown) != 1:  # a positive three-digit longitude loses its comma to normalize's thousands rule
            return fallback.check(answer, context)
        want = tuple(float(v) for v in shown[0])
        # Each pair is held whole while the answer is cut into clauses, whose marks include its comma.
        found: list[tuple[str, str]] = []

        def hold(m: re.Match) -> str:
            found.append(m.groups())
            return f"\x00{len(found) - 1}\x00"

        held = _PAIR.sub(hold, _NAMED_PAIR.sub(hold, answer))
        asserted = " ; ".join(_asserting(_clauses(held)))
        given = [tuple(float(v) for v in found[int(i)]) for i in re.findall(r"\x00(\d+)\x00", asserted)]
        return bool(given) and all(g == want for g in given)

    def rivals(_answer: str, context: AnswerContext) -> tuple[str, ...]:
        return fallback.rivals(_answer, context) if fallback.rivals else ()

    return AnswerRule(name, accepts, check, rivals=rivals)


# ---- a rival hedged beside the right figure -----------------------------------------------------------------------

_HEDGING = re.compile(r"\b(or|maybe|possibly|perhaps|might|could|either|probably|likely|unless|otherwise|"
                    r"alternatively)\b")


def without_hedged_rivals(rule: AnswerRule, figures: tuple[str, ...], *, item: str = "",
                          units: tuple[str, ...] = ()) -> AnswerRule:
    """`rule`, which also rejects an answer that hedges between the right figure and another: "60 rows, or maybe
    40", "possibly 80", "(or 40 if the last page failed)". A figure in a hedged clause competes unless it is one of
    `figures`, names one item ("row 61", with `item` "row"), measures something other than `units` ("3 or 4
    scrolls"), or the clause denies it."""
    keep = {normalize(f) for f in figures}
    unit_words = {normalize(u) for u in units}

    def check(answer: str, context: AnswerContext) -> bool:
        if not rule.check(answer, context):
            return False
        for clause in _asserting(_clauses(answer)):
            if not _HEDGING.search(clause):
                continue
            for m in re.finditer(rf"{_NOT_A_PAGE}(?<![\d.])(\d+(?:\.\d+)?)(?![\d.]*\d)", clause):
                if item and re.search(rf"\b{re.escape(item)}s? ?$", clause[:m.start()]):
                    continue
                rest = re.sub(r"^\s*(or|to|-)\s*\d+(\.\d+)?", "", clause[m.end():])  # "3 or 4 scrolls"
                word = re.match(r"\s*([a-z%]+)", rest)
                if word and word.group(1) not in unit_words and _measures_something(rest):
                    continue
                if m.group(1) not in keep:
                    return False
        return True

    return replace(rule, check=check)
