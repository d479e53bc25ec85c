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
    lead = "One inline page: a heading, a paragraph and a link."
    webview_ids = ("webview",)

    def make_pages(self):
        return [PlainPage()]


class WideCase(WebCase):
    key = "wide"
    lead = "A page laid out at 1200 CSS pixels, wider than the screen."
    webview_ids = ("wideWebview",)

    def make_pages(self):
        return [PlainPage("Wide page", "Laid out at 1200 CSS pixels.")]


class DualCase(WebCase):
    key = "dual"
    lead = "Two WebViews on one screen: two contexts."
    webview_ids = ("webviewTop", "webviewBottom")

    def make_pages(self):
        return [PlainPage(), PlainPage("Second page", "A different page in a second WebView.")]


class ActionableCase(WebCase):
    key = "actionable"
    lead = "Buttons that slide, wait, or sit under something: what does a tap reach?"
    webview_ids = ("actionWebview",)

    def make_pages(self):
        return [ActionabilityPage(self.device.now)]


class FormCase(WebCase):
    key = "webform"
    lead = "A form in a page: text, email, notes, read-only, disabled, password and a checkbox."
    webview_ids = ("formWebview",)

    def make_pages(self):
        return [FormPage()]


class StorageCase(WebCase):
    key = "webstorage"
    lead = "Cookies and web storage for https://mobiumapp.test; clearing the app's data empties them."
    webview_ids = ("storageWebview",)

    def make_pages(self):
        return [StoragePage(self.device.storage(self.app.package))]


class FramesCase(WebCase):
    key = "frames"
    lead = "A page with a same-origin frame, a frame nested in it, and a cross-origin frame."
    webview_ids = ("framesWebview",)

    def make_pages(self):
        return [FramesPage()]


WEB_SCREENS = [WebViewHub, PlainCase, WideCase, DualCase, ActionableCase, FormCase, StorageCase, FramesCase]
