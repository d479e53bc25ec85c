"""t08 feed: count the rows of a feed that loads as it scrolls (Feed Demo)."""

from __future__ import annotations

import re

from pytest_mobium_evals.core import answers
from pytest_mobium_evals.core.tasks import Claim, JudgeSpec, LabelledAnswer, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .suite import FOUND_RANGE, mobiumapp, open_screen, text_of


def ref_t08(tools: Tools, params: dict) -> Claim:
    """Scroll the feed to its true end (scroll_to waits out the loading spinner between pages) and count."""
    open_screen(tools, "Feed Demo")
    tools.call("app_scroll_to", target="testid=feedEnd", direction="down")
    state = text_of(tools, "feedState")
    rows = re.search(r"rows: (\d+)", state)
    return Claim("done", rows.group(1) if rows else state, state)


def wrong_t08(tools: Tools, params: dict) -> Claim:
    """Counts the first page, taking a list that has stopped moving while it loads for the end."""
    open_screen(tools, "Feed Demo")
    state = text_of(tools, "feedState")
    rows = re.search(r"rows: (\d+)", state)
    return Claim("done", rows.group(1) if rows else "20", "scrolled to the bottom")


def near_t08_two_pages(tools: Tools, params: dict) -> Claim:
    """Scrolls to the first page's end, sees one more page load, and counts that as the end: two pages of three."""
    open_screen(tools, "Feed Demo")
    tools.call("app_scroll_to", target="testid=feedRow20", direction="down")
    tools.call("app_swipe", direction="up")
    state = tools.call("app_wait_for", target="testid=feedState", condition="text", text="rows: 40",
                       timeout_ms=10000).text
    return Claim("done", "40", state)


#: The feed's size, a fact of the app: three pages of 20 rows, each page loading as the list reaches its end.
FEED_ROWS = 60
ANSWER = answers.without_hedged_rivals(answers.count_of("feed_rows", FEED_ROWS, unit="rows"), (str(FEED_ROWS),),
                                      item="row", units=("rows", "items", "entries"))
JUDGE = JudgeSpec(
    question="Count the rows of the feed, which loads more rows as it is scrolled, to its end.",
    truth=f"{FEED_ROWS} rows",
    answers=(
        LabelledAnswer("60", True, "the count alone"),
        LabelledAnswer("The feed has 60 rows in total. Row 61 does not exist.", True,
                       "Row 61 names a row; it is not a competing count"),
        LabelledAnswer("60 rows, loaded as three pages of 20.", True, "20 is the page size, not a count of the feed"),
        LabelledAnswer("60 rows: three pages of 20 rows each.", True, "20 rows each is a page's size"),
        LabelledAnswer("60 (three pages of 20)", True, "the bare 20 is a page's size too"),
        LabelledAnswer("60 rows, or maybe 40.", False, "hedges between the feed and two pages of it"),
        LabelledAnswer("It has 60 rows (or 80 if another page was still loading).", False,
                       "a second count given as possible"),
        LabelledAnswer("59 rows", False, "off by one"),
        LabelledAnswer("There are 20 rows.", False, "the first page only"),
    ))


@mobiumapp(id="t08", reference=ref_t08, wrong=wrong_t08,
           slug="feed", answer=ANSWER, judge=JUDGE, regression=True,
           prompt="Open MobiumApp's Feed Demo and count how many rows the feed has in all, loading every page. "
                  "Answer with the number of rows.",
           found="a loading feed looked like a feed that had ended: map said nothing of the spinner, so agents "
                 f"counted the first page ({FOUND_RANGE})",
           near_misses=(NearMiss("two-pages", script=near_t08_two_pages, verdict="false_success",
                                 why="one page loaded after the first, then taken for the end: 40 of 60 rows"),),
           grader_history=(
               (5, "a rival count beside the right one passed unless it was phrased as a count (\"60 rows, or "
                   "maybe 40\", \"possibly 80\"); now a figure hedged beside 60 competes"),
               (4, "a page's size or a range of rows was read as a rival count, so \"three pages of 20 rows "
                   "each\", \"60 (three pages of 20)\" and \"Rows 1–60: 60 in total\" were rejected; neither "
                   "competes now")))
def test_t08_feed(device, params) -> Outcome:
    # The count is a fact of the app (3 pages of 20), not a state the driver leaves behind: the answer is graded.
    return Outcome(True, observed=f"the feed holds {FEED_ROWS} rows (3 pages of 20)")
