"""The WebViews hub and its seven cases (t18 web form, t20 frames). Back from a case returns to the hub."""

from __future__ import annotations

from ...views import Node
from ..web import ActionabilityPage, FormPage, FramesPage, PlainPage, StoragePage, WebPage, webview
from .screen import Screen
from .ui import CONTENT_HEIGHT_DP, Theme, back_btn, btn, h1, note, page

CASES = [
    ("webview", "webviewBtn", "Plain page"),
    ("wide", "wideBtn", "Wide viewport"),
    ("dual", "dualBtn", "Two WebViews"),
    ("actionable", "actionableBtn", "Actionability"),
    ("webform", "webformBtn", "Web form"),
    ("webstorage", "webstorageBtn", "Web storage"),
    ("frames", "framesBtn", "Frames"),
]


class WebViewHub(Screen):
    key = "webviewhub"

    def render(self, t: Theme) -> Node:
        return page(t, [
            back_btn(t, self.app), h1(t, "WebViews"),
            note(t, "Web pages shown inside the app. An automation tool reaches into each one as a context of its "
                    "own, then reads and taps the page itself, not the pixels over it. Each case isolates one "
                    "thing that goes wrong."),
            *[btn(t, id, label, (lambda key=key: self.app.go(key))) for key, id, label in CASES],
        ], id="webviewList")


HEADER_DP = 12 + 61 + 48 + 12  # padding, Back with its margin, the two-line lead, padding


class WebCase(Screen):
    """A case screen: Back and a lead above one WebView (two for Two WebViews) that fills the rest."""

    parent = "webviewhub"
    lead = ""
    webview_ids: tuple[str, ...] = ()

    def make_pages(self) -> list[WebPage]:  # pragma: no cover - every case overrides it
        raise NotImplementedError

    def __init__(self, app):
        super().__init__(app)
        self.pages = self.make_pages()

    def webview_page(self, webview_id: str) -> WebPage:
        return self.pages[self.webview_ids.index(webview_id)]

    def web_pages(self) -> dict[str, WebPage]:
        return dict(zip(self.webview_ids, self.pages))

    def _document(self, pg: WebPage) -> list[Node]:
        """The page's nodes; a focused input is scrolled into view above the keyboard, as Chrome does."""
        nodes = pg.nodes()
        stack = list(nodes)
        while stack:
            node = stack.pop()
            if node.editable and node.id and node.on_tap is None:
                node.on_tap = (lambda nid=node.id: self.reveal(nid))
            stack.extend(node.children)
        room = self.keyboard_room()
        return nodes + ([room] if room is not None else [])

    def render(self, t: Theme) -> Node:
        each = int((CONTENT_HEIGHT_DP - HEADER_DP) / len(self.pages))
        last = len(self.pages) - 1
        # flex:1 each; the last one takes what is left (a scroll container without a height fills it).
        views = [webview(wid, self._document(pg), height=None if i == last else each)
                 for i, (wid, pg) in enumerate(zip(self.webview_ids, self.pages))]
        return Node("android.view.ViewGroup", bg=t.ground, children=[
            Node("android.view.ViewGroup", padding=12, children=[
                back_btn(t, self.app),
                Node("android.widget.TextView", text=self.lead, height=48, fg=t.muted),
            ]),
            *views,
        ])


class PlainCase(WebCase):
    key = "webview"
    lead = (
        "One page in one WebView — the simplest case, and the control for the others. Switch into its context "
        "(app_contexts lists it), read the paragraph, and tap the Learn more link.")
    webview_ids = ("webview",)

    def make_pages(self):
        return [PlainPage()]


class WideCase(WebCase):
    key = "wide"
    lead = (
        "This page is laid out 1200 CSS pixels wide and shrunk to fit the screen, so a CSS pixel is about a "
        "quarter of a screen pixel. A tool that converts page positions with the wrong viewport taps the "
        "wrong place — correct only on ordinary pages, where the two agree.")
    webview_ids = ("wideWebview",)

    def make_pages(self):
        return [PlainPage("Wide page", "Laid out at 1200 CSS pixels.")]


class DualCase(WebCase):
    key = "dual"
    lead = (
        "Two pages alive at once, one above the other. A tool has to list them as two contexts and act on the "
        "one you chose, not whichever it found first.")
    webview_ids = ("webviewTop", "webviewBottom")

    def make_pages(self):
        return [PlainPage(), PlainPage("Second page", "A different page in a second WebView.")]


class ActionableCase(WebCase):
    key = "actionable"
    lead = (
        "Targets a page makes hard to tap: one sliding in, disabled ones, covered ones, one under a layer "
        "that takes no touches, one under a plain div, and one below the fold. The line at the top says what "
        "a tap really reached.")
    webview_ids = ("actionWebview",)

    def make_pages(self):
        return [ActionabilityPage(self.device.now)]


class FormCase(WebCase):
    key = "webform"
    lead = (
        "Fields in a page to type into: plain, email and multi-line ones, ones that must refuse text — "
        "read-only, aria-readonly and disabled — a password field, and a checkbox, which is not a text field "
        "at all. The page says what each one holds.")
    webview_ids = ("formWebview",)

    def make_pages(self):
        return [FormPage()]


class StorageCase(WebCase):
    key = "webstorage"
    lead = (
        "A page with an origin of its own, so it can hold cookies and web storage — every other page here is "
        "inline HTML with no origin, which holds neither. Save a visit writes a cookie and a localStorage "
        "entry; the box shows everything the page holds, read again every second, so a tool that saves, "
        "clears or restores it can be checked against what the page itself sees.")
    webview_ids = ("storageWebview",)

    def make_pages(self):
        return [StoragePage(self.device.storage(self.app.package))]


class FramesCase(WebCase):
    key = "frames"
    lead = (
        "One page holding frames: one from its own origin, one nested inside that, and one from another "
        "origin. Tap each button and the line at the bottom says which frame the tap reached. Whether a tool "
        "can see into each frame, and tap inside it, is what this measures.")
    webview_ids = ("framesWebview",)

    def make_pages(self):
        return [FramesPage()]


WEB_SCREENS = [WebViewHub, PlainCase, WideCase, DualCase, ActionableCase, FormCase, StorageCase, FramesCase]
