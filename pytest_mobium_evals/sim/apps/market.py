"""Morpho Market (`dev.mobium.morphomarket/.MainActivity`): a small shop, the app task t25's test is about.

Screens: the product list, a product's page (quantity stepper, "Add to cart"), the cart (a line per product with its
quantity and line total, the total, "Checkout"), the checkout (a summary and "Place order") and the confirmation.
Every element a test reaches has a testID (a bare resource-id, as React Native writes it). The cart lives in the
process only: a fresh launch is an empty cart, so each test of a `*.test.json` file starts from the same state.

Builds. Besides the correct build the app carries two planted bugs, chosen per process start:

- ``total_ignores_quantity``: the cart's total (and so the checkout and the confirmation) adds each product's unit
  price once, whatever its quantity. Line totals stay right.
- ``back_drops_item``: leaving the cart with back (its Back button or the system back) drops the line added last.

The build is read at each cold start, from (first that is set):

1. the launch extra ``variant`` (``am start -n dev.mobium.morphomarket/.MainActivity --es variant back_drops_item``),
   for a one-off look at a bug by hand;
2. the system property ``debug.morphomarket.variant`` (``adb shell setprop debug.morphomarket.variant
   total_ignores_quantity``), which the t25 grader sets over ADB: it outlives force-stops, so every relaunch a test
   runner makes (``app_terminate`` + ``app_launch``, which carry no extras) comes back as the same build. An empty
   value or ``correct`` is the correct build.

An unknown name is logged (tag MorphoMarket) and the correct build runs: a misspelt variant must not look like a bug.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..views import Node
from .base import App

PACKAGE = "dev.mobium.morphomarket"
VARIANT_PROPERTY = "debug.morphomarket.variant"
CORRECT = "correct"
TOTAL_IGNORES_QUANTITY = "total_ignores_quantity"
BACK_DROPS_ITEM = "back_drops_item"
VARIANTS = (CORRECT, TOTAL_IGNORES_QUANTITY, BACK_DROPS_ITEM)
BUGS = (TOTAL_IGNORES_QUANTITY, BACK_DROPS_ITEM)

MAX_QUANTITY = 9
# How long "Place order" spins before the confirmation, in device seconds (the device clock's speed scales it).
PLACING_SECONDS = 1.5

INK = "#1B1B2F"
MUTED = "#5C6075"
ACCENT = "#0E7C66"
ACCENT_BUSY = "#7DBDB0"
GROUND = "#FAF8F2"


@dataclass(frozen=True)
class Product:
    slug: str
    name: str
    cents: int
    blurb: str


CATALOG: tuple[Product, ...] = (
    Product("mug", "Morpho Mug", 1250, "Stoneware, 350 ml, a blue morpho on both sides."),
    Product("tote", "Canvas Tote", 800, "Heavy cotton, long handles."),
    Product("print", "Wing Print", 2400, "A3 giclée print of a morpho's wing scales."),
    Product("stickers", "Sticker Pack", 325, "Eight vinyl stickers, dishwasher safe."),
    Product("candle", "Blue Candle", 1575, "Soy wax, cedar and rain, 40 hours."),
    Product("pin", "Enamel Pin", 650, "Hard enamel, gold plated, 30 mm."),
)
BY_SLUG = {p.slug: p for p in CATALOG}


def money(cents: int) -> str:
    return f"${cents // 100}.{cents % 100:02d}"


def items_word(n: int) -> str:
    return "1 item" if n == 1 else f"{n} items"


class Cart:
    """Quantities per product, in the order lines were first added; `last_added` is the line touched last by
    "Add to cart" (what the back_drops_item bug loses)."""

    def __init__(self):
        self.lines: dict[str, int] = {}
        self.last_added: str | None = None

    def add(self, slug: str, quantity: int) -> None:
        self.lines[slug] = min(MAX_QUANTITY, self.lines.get(slug, 0) + quantity)
        self.last_added = slug

    def set(self, slug: str, quantity: int) -> None:
        if quantity <= 0:
            self.lines.pop(slug, None)
            if self.last_added == slug:
                self.last_added = None
        else:
            self.lines[slug] = min(MAX_QUANTITY, quantity)

    def drop_last_added(self) -> None:
        if self.last_added is not None:
            self.lines.pop(self.last_added, None)
            self.last_added = None

    def count(self) -> int:
        return sum(self.lines.values())

    def line_cents(self, slug: str) -> int:
        return BY_SLUG[slug].cents * self.lines[slug]


# ---- building blocks ------------------------------------------------------------------------------------------------

def _text(value: str, id: str = "", *, height: float = 28, muted: bool = False) -> Node:
    return Node("android.widget.TextView", id=id, text=value, height=height, fg=MUTED if muted else INK)


def _button(id: str, label: str, on_tap, *, enabled: bool = True, height: float = 52, width: float | None = None,
            margin_bottom: float = 10, margin_right: float = 0) -> Node:
    """A Pressable with role button: its label is a child Text, its content-desc the same label."""

    def press():
        if enabled:  # a disabled Pressable swallows the touch and does nothing
            on_tap()

    return Node("android.widget.Button", id=id, desc=label, clickable=True, enabled=enabled, height=height,
                width=width, margin_bottom=margin_bottom, margin_right=margin_right, on_tap=press,
                bg=ACCENT if enabled else ACCENT_BUSY,
                children=[Node("android.widget.TextView", text=label, height=height, fg="#ffffff")])


def _header(title: str, *, back=None, cart_count: int | None = None, on_cart=None) -> Node:
    children = []
    if back is not None:
        children.append(_button("backBtn", "Back", back, width=96, height=48, margin_bottom=0, margin_right=12))
    children.append(Node("android.widget.TextView", id="screenTitle", text=title, height=48, fg=INK))
    if cart_count is not None:
        children.append(_button("cartBtn", f"Cart ({cart_count})", on_cart, width=120, height=48, margin_bottom=0))
    return Node("android.view.ViewGroup", horizontal=True, height=48, margin_bottom=16, children=children)


# ---- the app --------------------------------------------------------------------------------------------------------

class MorphoMarket(App):
    package = PACKAGE
    label = "Morpho Market"
    activity = ".MainActivity"
    version_name = "1.4.0"
    version_code = 14
    background = GROUND
    foreground = INK

    def __init__(self, device):
        super().__init__(device)
        self.variant = CORRECT
        self.cart = Cart()
        # The screen stack; the first entry is the product list, which back from it leaves the app.
        self.stack: list[tuple[str, str | None]] = [("list", None)]
        self.quantity = 1  # the product page's stepper
        self.added_note = ""
        self.placing = False
        self.order_number = 1000
        self.last_order: tuple[int, int, int] | None = None  # number, items, cents

    # --- lifecycle --------------------------------------------------------------------------------------------------
    def on_start(self, extras: dict) -> None:
        wanted = (extras or {}).get("variant")
        if wanted is None:
            wanted = _read_property(self.device, VARIANT_PROPERTY)
        wanted = str(wanted or "").strip() or CORRECT
        if wanted not in VARIANTS:
            self.device.log("MorphoMarket", f"unknown variant {wanted!r}; running the correct build "
                                            f"(variants: {', '.join(VARIANTS)})", level="W")
            wanted = CORRECT
        self.variant = wanted
        self.device.log("MorphoMarket", f"build: {self.variant}")

    # --- navigation -------------------------------------------------------------------------------------------------
    @property
    def screen(self) -> str:
        return self.stack[-1][0]

    def push(self, screen: str, slug: str | None = None) -> None:
        if screen == "product":
            self.quantity = 1
            self.added_note = ""
        self.stack.append((screen, slug))

    def back(self) -> bool:
        if self.placing:
            return True  # the order is on its way: back waits, as the real checkout does
        if len(self.stack) <= 1:
            return False
        leaving = self.screen
        self.stack.pop()
        if leaving == "cart" and self.variant == BACK_DROPS_ITEM:
            self.cart.drop_last_added()
        return True

    def on_back(self) -> bool:
        return self.back()

    def open_cart(self) -> None:
        if self.screen != "cart":
            self.push("cart")

    # --- money ------------------------------------------------------------------------------------------------------
    def total_cents(self) -> int:
        if self.variant == TOTAL_IGNORES_QUANTITY:
            return sum(BY_SLUG[slug].cents for slug in self.cart.lines)
        return sum(self.cart.line_cents(slug) for slug in self.cart.lines)

    # --- actions ----------------------------------------------------------------------------------------------------
    def add_to_cart(self, slug: str) -> None:
        self.cart.add(slug, self.quantity)
        self.added_note = f"Added {self.quantity} × {BY_SLUG[slug].name}"

    def place_order(self) -> None:
        if self.placing or not self.cart.lines:
            return
        self.placing = True
        items, cents = self.cart.count(), self.total_cents()

        def placed():
            self.placing = False
            self.order_number += 1
            self.last_order = (self.order_number, items, cents)
            self.cart = Cart()
            self.stack = [("list", None), ("confirmation", None)]

        # The order goes through even if the app leaves the screen meanwhile (home and back), as a request in
        # flight would; a force-stop drops this instance, and the timer with it changes nothing anyone sees.
        self.device.after(PLACING_SECONDS, placed)

    def continue_shopping(self) -> None:
        self.stack = [("list", None)]

    # --- screens ----------------------------------------------------------------------------------------------------
    def render(self) -> Node:
        screen, slug = self.stack[-1]
        body = {
            "list": self._list,
            "product": lambda: self._product(BY_SLUG[slug]),
            "cart": self._cart,
            "checkout": self._checkout,
            "confirmation": self._confirmation,
        }[screen]()
        return Node("android.widget.FrameLayout", padding=20, bg=GROUND, children=[body])

    def _list(self) -> Node:
        rows = []
        for p in CATALOG:
            rows.append(Node(
                "android.view.ViewGroup", id=f"product-{p.slug}", on_tap=lambda s=p.slug: self.push("product", s),
                height=72, margin_bottom=8, bg="#ffffff", horizontal=True, children=[
                    Node("android.widget.TextView", text=p.name, width=220, height=72, fg=INK),
                    Node("android.widget.TextView", id=f"price-{p.slug}", text=money(p.cents), width=100,
                         height=72, fg=MUTED),
                ]))
        return Node("android.view.ViewGroup", children=[
            _header("Morpho Market", cart_count=self.cart.count(), on_cart=self.open_cart),
            Node("android.widget.ScrollView", id="productList", scroll="vertical", children=rows),
        ])

    def _product(self, p: Product) -> Node:
        def step(delta: int):
            def change():
                self.quantity = max(1, min(MAX_QUANTITY, self.quantity + delta))
            return change

        stepper = Node("android.view.ViewGroup", horizontal=True, height=52, margin_bottom=16, children=[
            _button("qtyMinus", "Decrease quantity", step(-1), enabled=self.quantity > 1, width=64,
                    margin_bottom=0, margin_right=12),
            Node("android.widget.TextView", id="qtyValue", text=str(self.quantity), width=64, height=52, fg=INK,
                 margin_right=12),
            _button("qtyPlus", "Increase quantity", step(+1), enabled=self.quantity < MAX_QUANTITY, width=64,
                    margin_bottom=0),
        ])
        return Node("android.view.ViewGroup", children=[
            _header("Product", back=self.back, cart_count=self.cart.count(), on_cart=self.open_cart),
            _text(p.name, "productName", height=36),
            _text(money(p.cents), "productPrice"),
            _text(p.blurb, "productBlurb", height=56, muted=True),
            stepper,
            _button("addToCartBtn", "Add to cart", lambda: self.add_to_cart(p.slug)),
            _text(self.added_note, "addedNote", muted=True) if self.added_note else None,
        ])

    def _cart(self) -> Node:
        children = [_header("Your cart", back=self.back)]
        if not self.cart.lines:
            children.append(_text("Your cart is empty", "cartEmpty"))
        for slug, qty in self.cart.lines.items():
            p = BY_SLUG[slug]

            def change(delta: int, s: str = slug):
                return lambda: self.cart.set(s, self.cart.lines.get(s, 0) + delta)

            children.append(Node("android.view.ViewGroup", id=f"cartItem-{slug}", margin_bottom=12, children=[
                _text(p.name, f"cartName-{slug}"),
                Node("android.view.ViewGroup", horizontal=True, height=48, children=[
                    _button(f"cartMinus-{slug}", f"Remove one {p.name}", change(-1), width=56, height=48,
                            margin_bottom=0, margin_right=8),
                    Node("android.widget.TextView", id=f"cartQty-{slug}", text=str(qty), width=48, height=48,
                         fg=INK, margin_right=8),
                    _button(f"cartPlus-{slug}", f"Add one {p.name}", change(+1), enabled=qty < MAX_QUANTITY,
                            width=56, height=48, margin_bottom=0, margin_right=16),
                    Node("android.widget.TextView", id=f"cartLine-{slug}", text=money(self.cart.line_cents(slug)),
                         width=120, height=48, fg=INK),
                ]),
            ]))
        children += [
            _text(items_word(self.cart.count()), "cartCount", muted=True),
            _text(f"Total: {money(self.total_cents())}", "cartTotal", height=36),
            _button("checkoutBtn", "Checkout", lambda: self.push("checkout"), enabled=bool(self.cart.lines)),
        ]
        return Node("android.widget.ScrollView", id="cartScroll", scroll="vertical", children=children)

    def _checkout(self) -> Node:
        label = "Placing order…" if self.placing else "Place order"
        return Node("android.view.ViewGroup", children=[
            _header("Checkout", back=self.back),
            _text(f"{items_word(self.cart.count())} · Total: {money(self.total_cents())}", "checkoutSummary"),
            _text("Paid with the card ending 4242", "checkoutPayment", muted=True),
            _button("placeOrderBtn", label, self.place_order, enabled=not self.placing),
            Node("android.widget.ProgressBar", id="placingSpinner", desc="Placing order", height=36, width=36)
            if self.placing else None,
        ])

    def _confirmation(self) -> Node:
        number, items, cents = self.last_order or (self.order_number, 0, 0)
        return Node("android.view.ViewGroup", children=[
            _header("Thank you"),
            _text(f"Order #{number} placed", "orderConfirmation", height=36),
            _text(f"Paid {money(cents)} for {items_word(items)}", "orderSummary"),
            _button("continueBtn", "Continue shopping", self.continue_shopping),
        ])


def _read_property(device, name: str) -> str:
    """A system property as `getprop` would print it ("" when unset)."""
    getprop = getattr(device, "getprop", None)
    if callable(getprop):
        return getprop(name) or ""
    props = getattr(device, "props", None)
    if isinstance(props, dict):
        return str(props.get(name, "") or "")
    return ""

APPS = [MorphoMarket]
