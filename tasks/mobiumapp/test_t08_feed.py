"""t08 feed: count the rows of a feed that loads as it scrolls (Feed Demo)."""

from __future__ import annotations

import re

from mobiumapp import FOUND_RANGE, mobiumapp, open_screen, text_of

from pytest_mobium_evals import answers
from pytest_mobium_evals.tasks import Claim, JudgeSpec, LabelledAnswer, Outcome
from pytest_mobium_evals.toolserver import Tools


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


#: The feed's size, a fact of the app: three pages of 20 rows, each page loading as the list reaches its end.
FEED_ROWS = 60
ANSWER = answers.count_of("feed_rows", FEED_ROWS, unit="rows")
JUDGE = JudgeSpec(
    question="Count the rows of the feed, which loads more rows as it is scrolled, to its end.",
    truth=f"{FEED_ROWS} rows",
    answers=(
        LabelledAnswer("60", True, "the count alone"),
        LabelledAnswer("The feed has 60 rows in total. Row 61 does not exist.", True,
                       "Row 61 names a row; it is not a competing count"),
        LabelledAnswer("60 rows, loaded as three pages of 20.", True, "20 is the page size, not a count of the feed"),
        LabelledAnswer("59 rows", False, "off by one"),
        LabelledAnswer("There are 20 rows.", False, "the first page only"),
    ))


@mobiumapp(id="t08", reference=ref_t08, wrong=wrong_t08,
           slug="feed", answer=ANSWER, judge=JUDGE, regression=True,
           prompt="Open MobiumApp's Feed Demo and count how many rows the feed has in all, loading every page. "
                  "Answer with the number of rows.",
           found="a loading feed looked like a feed that had ended: map said nothing of the spinner, so agents "
                 f"counted the first page ({FOUND_RANGE})")
def test_t08_feed(device, params) -> Outcome:
    # The count is a fact of the app (3 pages of 20), not a state the driver leaves behind: the answer is graded.
    return Outcome(True, observed=f"the feed holds {FEED_ROWS} rows (3 pages of 20)")
