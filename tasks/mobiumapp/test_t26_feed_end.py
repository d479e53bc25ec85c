"""t26 feed-end: tap the feed's very last row and say how many rows it has (Feed Demo, slow pages)."""

from __future__ import annotations

import re

from mobiumapp import line, mobiumapp, open_screen, text_of

from pytest_mobium_evals import answers
from pytest_mobium_evals.tasks import Claim, Controls, JudgeSpec, LabelledAnswer, Outcome
from pytest_mobium_evals.toolserver import Tools


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


ANSWER = answers.count_of("feed_rows", 60, unit="rows")
JUDGE = JudgeSpec(
    question="Tap the last row of the Feed Demo's list (it loads more rows as it scrolls) and say how many rows "
             "the list has.",
    truth="60 rows; the last is Row 60.",
    answers=(
        LabelledAnswer("60 rows; tapped Row 60", True, "the count and the row"),
        LabelledAnswer("The feed ends at Row 60, so it has 60 rows.", True, "the row named is the count"),
        LabelledAnswer("20 rows", False, "the first page, which looked like the end while the next loaded"),
        LabelledAnswer("It has 40 rows.", False, "two pages of three"),
    ))


@mobiumapp(id="t26", reference=ref_t26, wrong=wrong_t26, tier="hard", slug="feed-end",
           aims_at="a loading list that looks ended (the seed's baseline failure): the feed stops moving for "
                   "2.5 s at each page, and only 'End of feed' says it has ended",
           answer=ANSWER, judge=JUDGE,
           prompt="In MobiumApp's Feed Demo, tap the very last row of the list, then say how many rows the list "
                  "has in all.",
           controls=Controls(reasons={"wrong": "taps Row 20, taking the first page's pause for the end"}))
def test_t26_feed_end(device, params) -> Outcome:
    state = line(device, "feedState")
    return Outcome("rows: 60, end" in state and state.endswith("tapped: Row 60"), observed=state)
