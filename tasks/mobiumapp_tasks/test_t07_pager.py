"""t07 pager: tap a card in the carousel (Pager Demo)."""

from __future__ import annotations

from pytest_mobium_evals.core.tasks import Claim, NearMiss, Outcome
from pytest_mobium_evals.reach.toolserver import Tools

from .suite import line, mobiumapp, open_screen, text_of


def ref_t07(tools: Tools, params: dict) -> Claim:
    """Tap Card N in the Pager Demo's carousel: scroll right until it is on screen, then tap it."""
    open_screen(tools, "Pager Demo")
    tools.call("app_scroll_to", target=f"label=Card {params['card']}", direction="right")
    tools.call("app_tap", target=f"label=Card {params['card']}")
    return Claim("done", None, text_of(tools, "pagerTapped"))


def wrong_t07(tools: Tools, params: dict) -> Claim:
    """Taps the first card on screen instead of scrolling to the asked one."""
    open_screen(tools, "Pager Demo")
    tools.call("app_tap", target="label=Card 1")
    return Claim("done", None, f"tapped Card {params['card']}")


def near_t07_card_beside(tools: Tools, params: dict) -> Claim:
    """Scrolls to the asked card but taps its neighbour (the next one, or the one before Card 8)."""
    card = params["card"]
    beside = card + 1 if card < 8 else card - 1
    open_screen(tools, "Pager Demo")
    tools.call("app_scroll_to", target=f"label=Card {card}", direction="right")
    tools.call("app_scroll_to", target=f"label=Card {beside}", direction="right" if beside > card else "left")
    tools.call("app_tap", target=f"label=Card {beside}")
    return Claim("done", None, f"tapped Card {card}")


@mobiumapp(id="t07", reference=ref_t07, wrong=wrong_t07,
           slug="pager", params=lambda rng: {"card": rng.randint(3, 8)},
           prompt="In MobiumApp's Pager Demo, tap Card {card} in the carousel, and leave the Pager Demo showing.",
           evidence="screen",
           evidence_reason="the tapped card is the Pager Demo's own state, back to 'tapped: none' each time it is "
                           "opened",
           near_misses=(NearMiss("card-beside", script=near_t07_card_beside, verdict="false_success",
                                 why="the card next to the asked one, which shares the screen with it once scrolled "
                                     "there"),),
           grader_history=((2, "read pagerTapped from whatever screen showed, so a right tap followed by a return "
                               "to the menu was graded false_success; now the prompt asks for the Pager Demo to be "
                               "left showing (evidence='screen')"),))
def test_t07_pager(device, params) -> Outcome:
    got = line(device, "pagerTapped")
    return Outcome(got == f"tapped: Card {params['card']}", observed=got)
