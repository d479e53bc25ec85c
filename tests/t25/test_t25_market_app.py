"""Morpho Market on the virtual device, in process: its screens and ids, the two planted bugs and how a build is
chosen. Touches go through the device's own hit-testing (a tap at a node's centre), so a node that is drawn but
cannot be touched would fail here too."""

from __future__ import annotations

import re

import pytest

from pytest_mobium_evals.sim.apps.market import (
    BACK_DROPS_ITEM,
    PACKAGE,
    PLACING_SECONDS,
    TOTAL_IGNORES_QUANTITY,
    VARIANT_PROPERTY,
)
from pytest_mobium_evals.sim.clock import Clock
from pytest_mobium_evals.sim.device import VirtualDevice


class Market:
    """A Morpho Market session on a fresh virtual device."""

    def __init__(self, variant: str | None = None, extras: dict | None = None):
        self.clock = Clock()
        self.device = VirtualDevice(clock=self.clock)
        if variant is not None:
            self.device.props[VARIANT_PROPERTY] = variant
        self.device.launch(PACKAGE, extras)

    @property
    def app(self):
        return self.device.current_app()

    def node(self, testid: str):
        root = self.device.frame().app_window.root
        placed = root.find(testid) if root is not None else None
        return placed

    def ids(self) -> list[str]:
        return re.findall(r'resource-id="([^"]+)"', self.device.dump_xml())

    def text(self, testid: str) -> str:
        placed = self.node(testid)
        assert placed is not None, f"{testid} is not on screen; on screen: {self.ids()}"
        return placed.node.text or placed.node.desc

    def tap(self, testid: str) -> None:
        placed = self.node(testid)
        assert placed is not None, f"{testid} is not on screen; on screen: {self.ids()}"
        l, t, r, b = placed.bounds
        self.device.tap((l + r) // 2, (t + b) // 2)

    def back(self) -> None:
        self.device.key_back()

    def add(self, slug: str, quantity: int = 1, back: bool = True) -> None:
        self.tap(f"product-{slug}")
        for _ in range(quantity - 1):
            self.tap("qtyPlus")
        self.tap("addToCartBtn")
        if back:
            self.tap("backBtn")


def test_the_list_shows_every_product_with_its_price_and_an_empty_cart():
    m = Market()
    assert m.app.variant == "correct"
    assert m.text("cartBtn") == "Cart (0)"
    assert m.text("price-mug") == "$12.50" and m.text("price-stickers") == "$3.25"
    assert {"product-mug", "product-tote", "product-print", "product-stickers", "product-candle",
            "product-pin"} <= set(m.ids())


def test_a_products_page_steps_its_quantity_between_one_and_nine():
    m = Market()
    m.tap("product-mug")
    assert (m.text("productName"), m.text("productPrice"), m.text("qtyValue")) == ("Morpho Mug", "$12.50", "1")
    assert m.node("qtyMinus").node.enabled is False
    for _ in range(12):
        m.tap("qtyPlus")
    assert m.text("qtyValue") == "9" and m.node("qtyPlus").node.enabled is False


def test_the_cart_lists_quantities_line_totals_and_the_total():
    m = Market()
    m.add("mug", 3)
    m.add("tote", 1, back=False)
    assert m.text("addedNote") == "Added 1 × Canvas Tote"
    m.tap("cartBtn")
    assert (m.text("cartQty-mug"), m.text("cartLine-mug")) == ("3", "$37.50")
    assert (m.text("cartQty-tote"), m.text("cartLine-tote")) == ("1", "$8.00")
    assert m.text("cartCount") == "4 items" and m.text("cartTotal") == "Total: $45.50"
    m.tap("cartMinus-tote")
    assert m.node("cartItem-tote") is None and m.text("cartTotal") == "Total: $37.50"


def test_checkout_confirms_the_order_after_it_is_placed():
    m = Market()
    m.add("mug", 2)
    m.add("stickers", back=False)
    m.tap("cartBtn")
    m.tap("checkoutBtn")
    assert m.text("checkoutSummary") == "3 items · Total: $28.25"
    m.tap("placeOrderBtn")
    assert m.text("placeOrderBtn") == "Placing order…" and m.node("placeOrderBtn").node.enabled is False
    m.back()  # the order is on its way: back waits
    assert m.node("placeOrderBtn") is not None
    m.clock.advance(PLACING_SECONDS)
    m.device.run_due()
    assert m.text("orderConfirmation") == "Order #1001 placed"
    assert m.text("orderSummary") == "Paid $28.25 for 3 items"
    m.tap("continueBtn")
    assert m.text("cartBtn") == "Cart (0)"


def test_an_empty_cart_cannot_check_out():
    m = Market()
    m.tap("cartBtn")
    assert m.text("cartEmpty") == "Your cart is empty" and m.text("cartTotal") == "Total: $0.00"
    assert m.node("checkoutBtn").node.enabled is False


def test_going_back_from_the_cart_keeps_every_line_in_the_correct_build():
    m = Market()
    m.add("mug")
    m.add("print", back=False)
    m.tap("cartBtn")
    m.tap("backBtn")
    m.back()
    m.tap("cartBtn")
    assert m.node("cartItem-mug") is not None and m.node("cartItem-print") is not None


def test_bug_total_ignores_quantity_adds_each_unit_price_once():
    m = Market(TOTAL_IGNORES_QUANTITY)
    m.add("mug", 3)
    m.add("tote", back=False)
    m.tap("cartBtn")
    assert m.text("cartLine-mug") == "$37.50"  # the line is right
    assert m.text("cartTotal") == "Total: $20.50"  # the total is not: 12.50 + 8.00


@pytest.mark.parametrize("leave", ["button", "system back"])
def test_bug_back_drops_item_loses_the_line_added_last(leave):
    m = Market(BACK_DROPS_ITEM)
    m.add("mug")
    m.add("print", back=False)
    m.tap("cartBtn")
    assert m.node("cartItem-print") is not None  # still there while the cart is open
    m.tap("backBtn") if leave == "button" else m.back()
    m.back()
    m.tap("cartBtn")
    assert m.node("cartItem-mug") is not None and m.node("cartItem-print") is None
    assert m.text("cartTotal") == "Total: $12.50"


def test_a_launch_extra_chooses_the_build_over_the_property():
    m = Market(variant=BACK_DROPS_ITEM, extras={"variant": TOTAL_IGNORES_QUANTITY})
    assert m.app.variant == TOTAL_IGNORES_QUANTITY


def test_the_build_is_read_again_at_each_cold_start():
    m = Market()
    m.device.props[VARIANT_PROPERTY] = BACK_DROPS_ITEM
    assert m.app.variant == "correct"  # a running app keeps its build
    m.device.force_stop(PACKAGE)
    m.device.launch(PACKAGE)
    assert m.app.variant == BACK_DROPS_ITEM


def test_an_unknown_build_name_runs_the_correct_build_and_says_so():
    m = Market(variant="total_ignore_quantity")
    assert m.app.variant == "correct"
    assert any(e.tag == "MorphoMarket" and "unknown variant 'total_ignore_quantity'" in e.message
               for e in m.device.logs)
