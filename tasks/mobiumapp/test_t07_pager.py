"""t07 pager: tap a card in the carousel (Pager Demo)."""

from __future__ import annotations

from mobiumapp import line, mobiumapp, open_screen, text_of

from pytest_mobium_evals.tasks import Claim, Outcome
from pytest_mobium_evals.toolserver import Tools


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


@mobiumapp(id="t07", reference=ref_t07, wrong=wrong_t07,
           slug="pager", params=lambda rng: {"card": rng.randint(3, 8)},
           prompt="In MobiumApp's Pager Demo, tap Card {card} in the carousel.")
def test_t07_pager(device, params) -> Outcome:
    got = line(device, "pagerTapped")
    return Outcome(got == f"tapped: Card {params['card']}", observed=got)
