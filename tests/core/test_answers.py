"""The answer rules: right answers pass with any extra context or numbers; a competing answer fails."""

from __future__ import annotations

import pytest
from hypothesis import assume, given
from hypothesis import strategies as st

from pytest_mobium_evals.core import answers
from pytest_mobium_evals.core.answers import AnswerContext, check_answer
from pytest_mobium_evals.suites.catalog import default_task_paths, load_task_definitions

# The rules as the shipped tasks build them from the library's matchers and their own strings.
TASKS = load_task_definitions(default_task_paths())
LOGIN_MESSAGE, STORED_NOTHING, FEED_ROWS = TASKS["t02"].answer, TASKS["t06"].answer, TASKS["t08"].answer
ANDROID_VERSION, TWO_PITCHES = TASKS["t22"].answer, TASKS["t23"].answer
COVERED_REASON, READONLY_REASON = TASKS["t13"].refusal_reason, TASKS["t19"].refusal_reason

filler = st.sampled_from(["", "I scrolled to the end.", "The list stopped at the footer.", "Done!",
                          "It took 3 scrolls and 12 seconds.", "(checked twice)", "Row 61 does not exist."])


@given(before=filler, after=filler, form=st.sampled_from(["60", "60 rows", "rows: 60", "a total of 60 rows",
                                                          "sixty rows", "There are 60 rows"]))
def test_feed_right_counts_pass_with_any_context(before, after, form):
    assert FEED_ROWS(f"{before} {form}. {after}")


@given(n=st.integers(0, 200), before=filler)
def test_feed_a_competing_count_fails(n, before):
    assume(n != 60)
    assert not FEED_ROWS(f"{before} The feed has {n} rows.")
    assert not FEED_ROWS(f"{n} rows")
    assert not FEED_ROWS(f"60 rows, or maybe {n} rows")


def test_feed_the_seed_examples():
    assert FEED_ROWS("60 rows … Row 61 does not exist")
    assert not FEED_ROWS("20")
    assert not FEED_ROWS("20 or 60")
    assert FEED_ROWS("60. It took 3 scrolls and 12 seconds.")
    assert not FEED_ROWS("")
    assert not FEED_ROWS(None)


@given(version=st.integers(8, 16), api=st.integers(21, 40), other=st.integers(8, 16), extra=filler)
def test_android_version(version, api, other, extra):
    ctx = AnswerContext(params={}, observed=str(version))
    assert ANDROID_VERSION(f"Android {version} (API level {api}). {extra}", ctx)
    assert ANDROID_VERSION(f"{version}", ctx)
    assert ANDROID_VERSION(f"The device runs Android {version}.0", ctx)
    assume(other != version)
    assert not ANDROID_VERSION(f"Android {other}", ctx)
    assert not ANDROID_VERSION(f"Android {version}, or version {other}", ctx)


def test_android_version_needs_the_device_value():
    assert not ANDROID_VERSION("Android 15", AnswerContext(params={}, observed=""))
    assert check_answer(ANDROID_VERSION, "Android 15", {}, "15") is True
    assert check_answer(None, "anything", {}) is None


@given(extra=filler, order=st.booleans(), unit=st.sampled_from(["Hz", "hz", " Hz", " hertz"]))
def test_two_pitches(extra, order, unit):
    a, b = ("440", "880") if order else ("880", "440")
    assert TWO_PITCHES(f"{a}{unit} and {b}{unit}, with 1 s of silence between. {extra}")
    assert TWO_PITCHES("A4 (440 Hz) then A5 (0.88 kHz), 2 s each")


@given(other=st.integers(20, 20000))
def test_two_pitches_a_competing_pitch_fails(other):
    assume(other not in (440, 880))
    assert not TWO_PITCHES(f"440 Hz and {other} Hz")
    assert not TWO_PITCHES(f"440 Hz, {other} Hz and 880 Hz")
    assert not TWO_PITCHES("440 Hz")


@given(extra=filler, quote=st.sampled_from(['"{}"', "“{}”", "{}", "'{}'"]))
def test_login_message(extra, quote):
    assert LOGIN_MESSAGE(f"The app said {quote.format('Incorrect username or password.')} {extra}")
    assert not LOGIN_MESSAGE("Password must be at least 6 characters.")
    assert not LOGIN_MESSAGE("Signing in…")
    assert not LOGIN_MESSAGE("Incorrect username or password, and Password must be at least 6 characters.")


@given(n=st.integers(1, 9), extra=filler)
def test_stored_nothing(n, extra):
    assert STORED_NOTHING(f"stored: 0, file: absent. {extra}")
    assert STORED_NOTHING(f"Nothing is stored any more; before the clear it was stored: {n}.")
    assert not STORED_NOTHING(f"stored: {n}, file: present")
    assert not STORED_NOTHING(f"The app has {n} items stored")


@pytest.mark.parametrize("reason,ok", [
    ("The target is fully covered by another view (full cover)", True),
    ("tap refused: \"Fully covered\" is covered by \"full cover\"", True),
    ("the element was not found", False),
    ("I don't know", False)])
def test_covered_reason(reason, ok):
    assert COVERED_REASON(reason) is ok


@pytest.mark.parametrize("reason,ok", [
    ("The field is read-only", True), ("it is not editable", True), ("cannot be edited", True),
    ("the field is covered by the keyboard", False), ("not found", False)])
def test_readonly_reason(reason, ok):
    assert READONLY_REASON(reason) is ok


@given(n=st.integers(1, 500), unit=st.sampled_from(["rows", "cards", "photos"]))
def test_count_of_takes_its_count_and_unit_from_the_task(n, unit):
    rule = answers.count_of("n", n, unit=unit, synonyms=())
    assert rule(f"There are {n} {unit}.") and rule(f"{unit}: {n}")
    assert not rule(f"There are {n + 1} {unit}.")


def test_every_labelled_answer_of_every_task_agrees_with_its_rule():
    """A task whose labels and rule disagree does not load at all (tasks.py checks it); this shows the shipped
    ones have labels, near misses included."""
    labelled = {tid: t.judge.answers for tid, t in TASKS.items() if t.judge is not None}
    assert set(labelled) >= {"t02", "t06", "t08", "t22", "t23"}
    for tid, given_answers in labelled.items():
        assert {a.right for a in given_answers} == {True, False}, tid


@given(tenths=st.integers(-3600, 3600), extra=filler, other=st.integers(-3600, 3600))
def test_signed_reading_keeps_the_sign(tenths, extra, other):
    rule = answers.signed_reading("angle", "the angle shown")
    shown = f"{tenths / 10:.1f}"
    context = AnswerContext(params={}, observed=shown)
    assert rule(f"{extra} The page shows {shown} degrees turned.", context)
    assert not rule(f"{abs(tenths) / 10:.1f}" if tenths < 0 else f"-{shown}", context) or tenths == 0
    assume(other != tenths)
    assert not rule(f"{shown}, or was it {other / 10:.1f}?", context)


def test_signed_reading_words_and_ranges():
    rule = answers.signed_reading("angle", "the angle shown")
    assert rule("minus 118.0 degrees", AnswerContext(params={}, observed="-118.0"))
    assert not rule("118.0", AnswerContext(params={}, observed="-118.0"))
    assert not rule("120", AnswerContext(params={}, observed="118.0"))  # no reading of the shape at all
    assert rule("the page shows 118.0 degrees turned (range 100-140)", AnswerContext(params={}, observed="118.0"))


@given(shown=st.integers(100, 1200), other=st.integers(100, 1200), before=filler,
       form=st.sampled_from(["{n}dp", "{n} dp", "{n}DP", "a width of {n} dp", "window {n}dp"]))
def test_measure_takes_the_first_figure_in_its_unit_the_device_shows(shown, other, before, form):
    rule = answers.measure("width", "the width in dp", unit="dp")
    context = AnswerContext(params={}, observed=f"window {shown}dp, narrow target {shown // 8}dp")
    assert rule(f"{before} {form.format(n=shown)}", context)
    assert rule(f"{form.format(n=shown)} (the screen is 1080 px across)", context)
    assume(other != shown)
    assert not rule(f"{before} {form.format(n=other)}", context)
    assert not rule(f"{shown}dp in portrait, {other}dp in landscape", context)
    assert not rule(f"{shown}", context), "a bare number is not a figure in dp"
    assert not rule(f"{shown}dp", AnswerContext(params={}, observed="no Layout Demo on screen"))


@given(n=st.integers(2, 500), other=st.integers(1, 500),
       hedge=st.sampled_from(["or {o}", "or maybe {o}", "possibly {o}", "it could also be {o}", "perhaps {o} rows"]))
def test_rejecting_hedged_fails_another_figure_offered_beside_the_count(n, other, hedge):
    rule = answers.rejecting_hedged(answers.count_of("rows", n, unit="rows"), n, unit="rows")
    context = AnswerContext(params={})
    assert rule(f"{n} rows", context)
    assert rule(f"{n} rows, not {other}", context), "a figure named to deny it does not compete"
    assert rule(f"{n} rows, or {n} in all", context)
    assert rule(f"{n} rows; each page took 2 or 3 seconds", context), "a figure of something else is no rival"
    assume(other != n)
    assert not rule(f"{n} rows, {hedge.format(o=other)}", context)


@pytest.mark.parametrize("reason, ok", [
    ("The button is covered by a scrim.", True),
    ("It is not a bug: the button is covered.", True),
    ("The scrim would receive the touch, not the button.", True),
    ("It is not covered; it is disabled.", False),
    ("It isn't really covered, it is disabled.", False),
    ("Nothing covers it, but it ignores taps.", False),
    ("It is not covered by anything visible, yet a translucent cover takes the tap.", True),
])
def test_rejecting_denied_reason_needs_the_reason_asserted(reason, ok):
    mentions = r"scrim|cover"
    rule = answers.rejecting_denied_reason(
        answers.refusal_reason("r", "covered", mentions=mentions, competing=r"disabled"), mentions)
    assert rule(reason) is ok


def test_setting_aside_drops_what_the_answer_tells_of_on_the_way():
    rule = answers.setting_aside(answers.count_of("rows", 60, unit="rows"), clauses=r"\b(seemed|stopped)\b",
                                 phrases=r"\bpages of \d+ rows\b")
    assert rule("It seemed to stop at 20 rows, but it has 60 rows.")
    assert rule("60 rows, in 3 pages of 20 rows")
    assert not rule("It stopped at 20 rows, so it has 20 rows.")
    assert not rule("It seemed to have 60 rows.")  # nothing is left that gives the count


def test_reading_with_a_comma_inside_sees_a_rival_beside_it():
    # Coordinates carry a comma before a minus sign, where the clause marks would cut them in two.
    rule = answers.reading("coords", "the coordinates shown")
    context = answers.AnswerContext(params={}, observed="37.421998,-122.084000")
    assert rule("37.421998,-122.084000", context)
    assert rule("It shows 37.421998,-122.084000, not 37.421998,-122.084003.", context)
    assert not rule("37.421998,-122.084000, or 37.421998,-122.084003.", context)
    assert not rule("It is not 37.421998,-122.084000.", context)


@pytest.mark.parametrize("text, right", [
    ("37.421998,-122.084000", True),
    ("37.421998, -122.084000", True),
    ("Latitude 37.421998, longitude -122.084.", True),
    ("It shows 37.421998,-122.084000 (not 48.8566, 2.3522).", True),
    ("unknown", False),
    ("37.421998, -122.084003", False),
    ("37.421998,-122.084000, or 37.421998, -122.084003.", False),
    ("It is not 37.421998,-122.084000.", False),
])
def test_coordinates_are_compared_as_a_pair(text, right):
    rule = answers.coordinates("coords", "the coordinates shown")
    assert rule(text, answers.AnswerContext(params={}, observed="37.421998,-122.084000")) is right


@given(n=st.integers(0, 200), hedge=st.sampled_from(["or maybe {n}", "possibly {n}", "though it might be {n}",
                                                      "(or {n} if a page was still loading)", "maybe {n} rows"]))
def test_feed_a_count_hedged_beside_the_right_one_fails(n, hedge):
    assume(n != 60)
    assert not FEED_ROWS("60 rows, " + hedge.format(n=n))


@pytest.mark.parametrize("answer", ["60 rows: three pages of 20 rows each.", "I scrolled 3 or 4 times: 60 rows.",
                                    "60 rows, not 40.", "Probably 60 rows.", "60 rows, or row 61 if you count "
                                    "the footer, which is not a row."])
def test_feed_a_hedge_or_a_page_size_alone_is_not_a_rival(answer):
    assert FEED_ROWS(answer)


@given(n=st.integers(1, 50))
def test_stored_nothing_a_count_named_to_deny_it_is_not_stored(n):
    assert STORED_NOTHING(f"stored: 0, file: absent, not {n} items are stored.")
    assert not STORED_NOTHING(f"stored: 0, file: absent, or {n} items are stored.")


@pytest.mark.parametrize("answer", ["60 (three pages of 20)", "60 (3 pages × 20)", "60 - 3 pages of 20 rows",
                                    "Rows 1–60: 60 in total", "60 rows, probably three pages of 20"])
def test_feed_a_page_size_or_a_range_of_rows_is_not_a_count(answer):
    assert FEED_ROWS(answer)
