"""t26 feed-end: tap the feed's very last row and say how many rows it has (Feed Demo, slow pages)."""

from __future__ import annotations

import re
from dataclasses import replace

from pytest_mobium_evals.core import answers
from pytest_mobium_evals.core.tasks import Claim, Controls, JudgeSpec, LabelledAnswer, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .suite import line, mobiumapp, open_screen, text_of


def ref_t26(tools: Tools, params: dict) -> Claim:
    """Follow the feed to its end (scroll_to waits out each 2.5 s page), tap the last row, read the state."""
    open_screen(tools, "Feed Demo")
    tools.call("app_scroll_to", target="testid=feedEnd", direction="down")
    tools.call("app_scroll_to", target="label=Row 60", direction="up")
    tools.call("app_tap", target="label=Row 60")
    tools.call("app_scroll_to", target="testid=feedState", direction="up")
    state = text_of(tools, "feedState")
    rows = re.search(r"rows: (\d+)", state)
    return Claim("done", f"{rows.group(1) if rows else state} rows; tapped Row 60", state)


def wrong_t26(tools: Tools, params: dict) -> Claim:
    """Scrolls until the list stops moving while the next page loads, and takes the row it sees last for the end."""
    open_screen(tools, "Feed Demo")
    tools.call("app_scroll_to", target="label=Row 20", direction="down")
    tools.call("app_tap", target="label=Row 20")
    return Claim("done", "20 rows; tapped Row 20, the last one", "the list stopped moving at Row 20")


def near_t26_second_pause(tools: Tools, params: dict) -> Claim:
    """Waits out the first page's pause but takes the second for the end: the list stops again at Row 40 while
    the last page loads."""
    open_screen(tools, "Feed Demo")
    tools.call("app_scroll_to", target="label=Row 40", direction="down")
    tools.call("app_tap", target="label=Row 40")
    return Claim("done", "40 rows; tapped Row 40, the last one", "the list stopped moving again at Row 40")


# The pauses at Row 20 and Row 40 are the counts a model gives beside the right one ("60 rows, or maybe 40"). The
# same pauses are what a right answer tells of on the way ("it seemed to stop at 20 rows"), and a page's size
# ("pages of 20 rows each") is not a count of the list.
ANSWER = answers.rejecting_hedged(answers.setting_aside(
    replace(answers.count_of("feed_rows", 60, unit="rows"),
            rivals=lambda _a, _c: ("20 rows", "40 rows", "61 rows")),
    clauses=r"\b(looked|seemed|appeared|thought|paused|stopped)\b",
    phrases=r"\b(pages?|batches|chunks) of \d+( rows)?( each)?\b|\b\d+ rows? (each|at a time|per page)\b|"
            r"\bfirst \d+ rows\b"), 60, unit="rows")
JUDGE = JudgeSpec(
    question="Tap the last row of the Feed Demo's list (it loads more rows as it scrolls) and say how many rows "
             "the list has.",
    truth="60 rows; the last is Row 60.",
    answers=(
        LabelledAnswer("60 rows; tapped Row 60", True, "the count and the row"),
        LabelledAnswer("The feed ends at Row 60, so it has 60 rows.", True, "the row named is the count"),
        LabelledAnswer("20 rows", False, "the first page, which looked like the end while the next loaded"),
        LabelledAnswer("It has 40 rows.", False, "two pages of three"),
        LabelledAnswer("60 rows, or maybe 40; it paused there too", False, "offers the second pause as well"),
        LabelledAnswer("60 rows, not 40: it only paused at Row 40 while the last page loaded", True,
                       "names the pause only to deny it"),
        LabelledAnswer("It looked like it ended at 20 rows, but it has 60 rows.", True,
                       "tells of the first pause on the way to the count"),
        LabelledAnswer("The list has 60 rows, loaded in 3 pages of 20 rows each.", True, "a page's size is not "
                       "the count"),
        LabelledAnswer("The list stopped at 20 rows, so it has 20 rows.", False, "the first page's pause taken "
                       "for the end"),
    ))


@mobiumapp(id="t26", reference=ref_t26, wrong=wrong_t26, tier="hard", slug="feed-end",
           aims_at="a loading list that looks ended (the seed's baseline failure): the feed stops moving for "
                   "2.5 s at each page, and only 'End of feed' says it has ended",
           answer=ANSWER, judge=JUDGE,
           prompt="In MobiumApp's Feed Demo, tap the very last row of the list, then say how many rows the list "
                  "has in all, and leave the Feed Demo showing.",
           evidence="screen",
           evidence_reason="the Feed Demo's rows and its tapped row are screen state, reset each time it opens",
           controls=Controls(reasons={"wrong": "taps Row 20, taking the first page's pause for the end"}),
           near_misses=(NearMiss("second-page-pause", script=near_t26_second_pause, verdict="false_success",
                                 why="waits out the first pause but takes the second, at Row 40, for the end: "
                                     "the feed has 20 more rows and the tapped one is not the last"),),
           grader_history=(
               (2, "read feedState from whatever screen showed, so a model that went back to the menu after "
                   "tapping Row 60 was a false success; now the Feed Demo is declared the evidence (it forgets "
                   "its rows when left) and the prompt says to leave it showing"),
               (5, "'60 rows, or maybe 40' passed: a count beside a bare figure offered as a possibility was "
                   "not seen; now a hedged other figure fails, and the pauses (20, 40 rows) are the rule's "
                   "rivals"),
               (4, "a right count that told of the pause on the way ('it looked like it ended at 20 rows, but "
                   "it has 60 rows', 'pages of 20 rows each') failed, the pause's figure read as a second count; "
                   "now how the list looked on the way and a page's size are set aside")))
def test_t26_feed_end(device, params) -> Outcome:
    state = line(device, "feedState")
    return Outcome("rows: 60, end" in state and state.endswith("tapped: Row 60"), observed=state)
