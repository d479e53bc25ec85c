"""Web pages shown in WebViews, as Chrome's accessibility tree presents them to UiAutomator.

A page is a small model of its DOM state plus a `nodes()` method that draws it: the WebView is an
`android.webkit.WebView` node whose resource-id is the WebView's testID, each iframe a nested WebView node whose
resource-id is the iframe's id, and each element carries its `data-testid` (or `id`) as resource-id: inputs are
EditText (hint = placeholder), buttons Button, checkboxes CheckBox, paragraphs TextView. CSS pixels are dp (every
page has `width=device-width`), so a 130 px iframe is 130 dp tall.

`evaluate(expression)` runs a small subset of JavaScript (`script`) against the page's DOM (`dom`) and globals
(`formState()`, `passwordIs('…')`, `document.getElementById('…').textContent`, …): what DevTools evaluates.
"""

from __future__ import annotations

from typing import Any, Callable

from ..views import Node
from .dom import Document, document_of, page_globals
from .script import ScriptError as ScriptError
from .script import UnsupportedScript as UnsupportedScript
from .script import evaluate

INK = "#141826"
LINK = "#1A0DAB"


def h1(title: str) -> Node:
    return Node("android.widget.TextView", text=title, height=40, fg=INK)


def p(value: str, id: str = "", height: float | None = None) -> Node:
    return Node("android.widget.TextView", id=id, text=value, height=height, fg=INK)


def label(value: str) -> Node:
    return Node("android.widget.TextView", text=value, height=22, fg="#333333")


def web_button(id: str, caption: str, on_tap: Callable[[], None] | None, *, enabled: bool = True,
               height: float = 40) -> Node:
    return Node("android.widget.Button", id=id, text=caption, clickable=True, focusable=True, enabled=enabled,
                height=height, margin_bottom=8, on_tap=on_tap if enabled else None, bg="#E9E9ED", fg=INK)


def web_input(id: str, value: str, on_text, *, placeholder: str = "", editable: bool = True,
              enabled: bool = True, password: bool = False, height: float = 36) -> Node:
    return Node("android.widget.EditText", id=id, text=value, hint=placeholder, editable=editable and enabled,
                enabled=enabled, focusable=enabled, clickable=enabled, password=password,
                on_text=on_text if editable and enabled else None, height=height, margin_bottom=8,
                bg="#ffffff", fg=INK)


def webview(id: str, children, *, height: float | None = None) -> Node:
    """The WebView (or an iframe): scrolls its document, 16 px body padding."""
    return Node("android.webkit.WebView", id=id, scroll="vertical", height=height, focusable=True, bg="#ffffff",
                children=[Node("android.view.View", padding=16, children=children)])


class WebPage:
    """A page's DOM state. Subclasses draw it (`nodes`), name the globals script may call (`globals`), and may name
    an element's tag and attributes where its node does not say (`tags`, `attrs`: a link is an A with an href)."""

    title = ""
    url = "about:blank"  # inline HTML, loaded with no origin of its own
    tags: dict[str, str] = {}
    attrs: dict[str, dict[str, str]] = {}
    element_texts: dict[str, Callable[[], str]]

    def __init__(self):
        self.element_texts = {}

    def nodes(self) -> list[Node]:  # pragma: no cover - every page overrides it
        raise NotImplementedError

    def globals(self) -> dict[str, Any]:
        return {}

    def document(self, focused: str | None = None) -> Document:
        """The DOM as it stands now; `focused` is the id of the element with keyboard focus, if any."""
        return document_of(self.nodes(), title=self.title, url=self.url, tags=self.tags, attrs=self.attrs,
                           texts=self.element_texts, focused=focused)

    def web_storage(self) -> tuple[dict[str, str], dict[str, str], dict[str, str]] | None:
        """(cookies, localStorage, sessionStorage) by name, or None for a page with no origin, which holds none."""
        return None

    def evaluate(self, expression: str, focused: str | None = None) -> Any:
        """The expression's value in this page (see `script` for the subset); raises ScriptError when it throws,
        UnsupportedScript (a ScriptError) when it is outside the subset."""
        return evaluate(expression, page_globals(self.document(focused), self.globals()))


def link() -> Node:
    return Node("android.widget.TextView", id="link", text="Learn more", clickable=True, on_tap=lambda: None,
                height=24, fg=LINK)


class PlainPage(WebPage):
    title = "Plain page"
    tags = {"link": "A"}
    attrs = {"link": {"href": "https://github.com/mobiumdev"}}

    def __init__(self, heading: str = "Plain page", para: str = "The quick brown fox."):
        super().__init__()
        self.title = heading
        self.para = para
        self.element_texts = {"para": lambda: self.para, "link": lambda: "Learn more"}

    def nodes(self) -> list[Node]:
        return [h1(self.title), p(self.para, "para"), link()]


# ---------------------------------------------------------------------------------------------------------------
# Web form (t18, and t19 on the web)

class FormPage(WebPage):
    title = "Web form"
    tags = {"fArea": "TEXTAREA"}
    attrs = {"fReadonly": {"readonly": ""}, "fAriaReadonly": {"aria-readonly": "true"},
             "fDisabled": {"disabled": ""}}

    def __init__(self):
        super().__init__()
        self.text = ""
        self.email = ""
        self.area = ""
        self.readonly = "fixed"
        self.aria_readonly = ""
        self.disabled = ""
        self.password = ""
        self.checked = False
        self.inputs = 0
        self.changes = 0
        self.element_texts = {"mirror": lambda: self.mirror}

    @property
    def mirror(self) -> str:
        return f"mirror: {self.text}"

    def _setter(self, name: str):
        def set_value(value: str) -> None:
            if getattr(self, name) != value:
                setattr(self, name, value)
                self.inputs += 1
                self.changes += 1
        return set_value

    def toggle(self) -> None:
        self.checked = not self.checked
        self.changes += 1

    def form_state(self) -> dict:
        return {"text": self.text, "email": self.email, "area": self.area, "readonly": self.readonly,
                "ariaReadonly": self.aria_readonly, "disabled": self.disabled,
                "passwordLength": len(self.password), "checked": self.checked, "mirror": self.mirror,
                "inputs": self.inputs, "changes": self.changes}

    def globals(self):
        return {"formState": self.form_state, "passwordIs": lambda s="": self.password == s}

    def nodes(self) -> list[Node]:
        return [
            h1("Web form"),
            label("Text"), web_input("fText", self.text, self._setter("text"), placeholder="text input"),
            p(self.mirror, "mirror"),
            label("Email"), web_input("fEmail", self.email, self._setter("email"), placeholder="email input"),
            label("Notes"), web_input("fArea", self.area, self._setter("area"), placeholder="notes", height=56),
            label("Read-only"), web_input("fReadonly", self.readonly, None, editable=False),
            label("aria-readonly"),
            # aria-readonly is only a hint to assistive technology: the DOM still accepts typing.
            web_input("fAriaReadonly", self.aria_readonly, self._setter("aria_readonly"),
                      placeholder="aria-readonly"),
            label("Disabled"), web_input("fDisabled", self.disabled, None, placeholder="disabled", enabled=False),
            label("Password"), web_input("fPassword", self.password, self._setter("password"),
                                         placeholder="password", password=True),
            Node("android.widget.CheckBox", id="fCheck", text="A checkbox", checkable=True, checked=self.checked,
                 on_tap=self.toggle, height=32, fg=INK),
        ]


# ---------------------------------------------------------------------------------------------------------------
# Frames (t20)

class FramesPage(WebPage):
    title = "Frames"
    # The same-origin frames are inline (srcdoc); the other is a data: URL, whose origin is its own.
    attrs = {"sameFrame": {"srcdoc": "<p>A same-origin frame</p>"}, "nestedFrame": {"srcdoc": "<p>A frame inside</p>"},
             "crossFrame": {"src": "data:text/html,<p>A cross-origin frame</p>"}}

    def __init__(self):
        super().__init__()
        self.last_tap = "none"
        self.typed: str | None = None
        self.cross_value = ""
        self.element_texts = {"frameOutcome": lambda: self.frame_outcome, "frameTyped": lambda: self.frame_typed}

    @property
    def frame_outcome(self) -> str:
        return f"last tap: {self.last_tap}"

    @property
    def frame_typed(self) -> str:
        return "typed: nothing" if self.typed is None else f"typed: {self.typed}"

    def _tap(self, where: str):
        def tap():
            self.last_tap = where
        return tap

    def cross_input(self, value: str) -> None:
        # The frame's oninput posts {frameTyped: value} to the top page, which writes the line.
        self.cross_value = value
        self.typed = value

    def globals(self):
        return {"frameState": lambda: {"lastTap": self.last_tap, "typed": self.typed}}

    def nodes(self) -> list[Node]:
        nested = webview("nestedFrame", [
            p("A frame inside that frame."),
            web_button("nestedBtn", "Tap me", self._tap("the nested frame"), height=32),
        ], height=70)
        same = webview("sameFrame", [
            p("A same-origin frame: the page can see into it."),
            web_button("sameBtn", "Tap me", self._tap("the same-origin frame"), height=32),
            nested,
        ], height=220)
        cross = webview("crossFrame", [
            p("A cross-origin frame (a data: URL): the page cannot see into it.", height=48),
            Node("android.view.View", horizontal=True, height=36, children=[
                Node("android.view.View", width=90, children=[
                    web_button("crossBtn", "Tap me", self._tap("the cross-origin frame"), height=32)]),
                web_input("crossField", self.cross_value, self.cross_input, placeholder="Card number",
                          height=32),
            ]),
        ], height=130)
        return [
            h1("Frames"),
            web_button("pageBtn", "A button on the page itself", self._tap("the page")),
            Node("android.view.View", id="frames", children=[
                Node("android.view.View", margin_bottom=8, children=[same]),
                Node("android.view.View", margin_bottom=8, children=[cross]),
            ]),
            p(self.frame_outcome, "frameOutcome"),
            p(self.frame_typed, "frameTyped"),
        ]


# ---------------------------------------------------------------------------------------------------------------
# Actionability (the web counterpart of the Obstruction Demo)

SLIDE_S = 2.0
ARM_S = 2.0


class ActionabilityPage(WebPage):
    title = "Actionability"

    def __init__(self, now: Callable[[], float]):
        super().__init__()
        self.now = now
        self.taps = 0
        self.last = "nothing yet"
        self.replayed_at = now()
        self.armed_until = -1.0
        self.element_texts = {"out": lambda: f"{self.taps}: {self.last}"}

    def _record(self, what: str):
        def record():
            self.taps += 1
            self.last = what
        return record

    def replay(self) -> None:
        self.replayed_at = self.now()
        self._record("replayed")()

    def slide_tap(self) -> None:
        ms = int(round((self.now() - self.replayed_at) * 1000))
        self._record(f"target wSlide {ms}ms after replay")()

    def arm(self) -> None:
        self.armed_until = self.now() + ARM_S
        self._record("armed")()

    def globals(self):
        return {"actState": lambda: {"taps": self.taps, "last": self.last}}

    def _covered(self, id: str, caption: str, cover: Node) -> Node:
        return Node("android.view.View", children=[web_button(id, caption, self._record(f"target {id}")), cover])

    def nodes(self) -> list[Node]:
        progress = min(1.0, max(0.0, (self.now() - self.replayed_at) / SLIDE_S))
        slide_left = 0.4 * (1.0 - progress)  # margin-left 40% → 0 over 2 s
        enabling = self.now() >= self.armed_until
        cover = Node("android.widget.TextView", id="", text="full cover", overlay=True, fg="#ffffff",
                     bg="#5832FA", on_tap=self._record("cover full"))
        half = Node("android.widget.TextView", text="half cover", overlay=True, width_frac=0.6, fg="#ffffff",
                    bg="#5832FA", on_tap=self._record("cover half"))
        ghost = Node("android.widget.TextView", text="pointer-events: none", overlay=True, touch="pass",
                     bg="#B7A9FD", fg=INK)
        plain = Node("android.view.View", overlay=True, touch="block", bg="#8A8C95")
        return [
            h1("Actionability"),
            p(f"{self.taps}: {self.last}", "out"),
            web_button("wReplay", "Replay the slide", self.replay),
            Node("android.view.View", horizontal=True, height=48, children=[
                Node("android.view.View", width=max(1, int(380 * slide_left)), height=40, touch="pass"),
                Node("android.view.View", children=[web_button("wSlide", "Sliding in", self.slide_tap)]),
            ]),
            web_button("wDisabled", "Always disabled", None, enabled=False),
            web_button("wArm", "Arm: disable the next one for 2 s", self.arm),
            web_button("wEnabling", "Enabled after Arm + 2 s", self._record("target wEnabling"), enabled=enabling),
            web_button("wAria", "aria-disabled", self._record("target wAria")),
            self._covered("wFull", "Fully covered", cover),
            self._covered("wHalf", "Center covered", half),
            self._covered("wPass", "Pass-through", ghost),
            self._covered("wPlain", "Under a plain div", plain),
            Node("android.view.View", height=1400, touch="pass"),
            web_button("wBelow", "Below the fold", self._record("target wBelow")),
        ]


# ---------------------------------------------------------------------------------------------------------------
# Web storage (origin https://mobiumapp.test): cookies and localStorage persist in the app's data

class StoragePage(WebPage):
    title = "Web storage"
    ORIGIN = "https://mobiumapp.test"
    url = ORIGIN + "/"

    def __init__(self, data: dict):
        super().__init__()
        # `data` is the app's persistent storage (wiped by pm clear); sessionStorage lives with the page.
        self.data = data
        self.session: dict[str, str] = {}
        self.element_texts = {"origin": lambda: f"origin: {self.ORIGIN}", "storageBox": self.box}

    @property
    def local(self) -> dict:
        return self.data.setdefault("webview/localStorage", {})

    @property
    def cookies(self) -> dict:
        return self.data.setdefault("webview/cookies", {})

    def web_storage(self):
        return self.cookies, self.local, self.session

    def save_visit(self) -> None:
        n = int(self.local.get("visits", "0")) + 1
        self.local["visits"] = str(n)
        self.session["lastVisit"] = f"visit {n}"
        self.cookies["visited"] = "yes"

    def box(self) -> str:
        def show(d: dict) -> str:
            return "; ".join(f"{k}={v}" for k, v in d.items()) or "none"
        return f"cookies: {show(self.cookies)}\nlocalStorage: {show(self.local)}\nsessionStorage: {show(self.session)}"

    def globals(self):
        return {"storageState": lambda: {
            "origin": self.ORIGIN,
            "cookies": [f"{k}={v}" for k, v in self.cookies.items()],
            "local": [[k, v] for k, v in self.local.items()],
            "session": [[k, v] for k, v in self.session.items()],
        }}

    def nodes(self) -> list[Node]:
        return [
            h1("Web storage"),
            p(f"origin: {self.ORIGIN}", "origin"),
            p(self.box(), "storageBox", height=72),
            web_button("saveVisit", "Save a visit", self.save_visit),
        ]


# ---------------------------------------------------------------------------------------------------------------
# Gesture pages: a double tap is two taps within 300 ms; pinch and rotate need two fingers, which `adb shell
# input` cannot make, so their readings stay at rest.

DOUBLE_TAP_S = 0.3


class DoubleTapPage(WebPage):
    title = "Double Tap"

    def __init__(self, now: Callable[[], float]):
        super().__init__()
        self.now = now
        self.taps = 0
        self.doubles = 0
        self._last: float | None = None
        self.element_texts = {"taps": self.counts_text}

    def counts_text(self) -> str:
        return f"taps {self.taps} / doubles {self.doubles}"

    def tap(self) -> None:
        t = self.now()
        self.taps += 1
        if self._last is not None and t - self._last <= DOUBLE_TAP_S:
            self.doubles += 1
            self._last = None
        else:
            self._last = t

    def globals(self):
        return {"tapCounts": lambda: {"clicks": self.taps, "doubles": self.doubles}}

    def nodes(self) -> list[Node]:
        return [h1("Double Tap"), web_button("tap", "Double-tap me", self.tap, height=120),
                p(self.counts_text(), "taps")]


class MotionPage(WebPage):
    """The Motion Demo's web half: the same slide in CSS (2 s, ease-out, from margin-left 40%), skipped under
    prefers-reduced-motion; a tap says how long after the page's script started it came."""

    title = "Motion"

    def __init__(self, now: Callable[[], float], reduce: bool):
        super().__init__()
        self.now = now
        self.loaded = now()
        self.reduce = reduce
        self.tapped_after = -1
        self.element_texts = {"webOut": self.out_text}

    def out_text(self) -> str:
        return "web: not tapped" if self.tapped_after < 0 else f"web: tapped {self.tapped_after}ms after load"

    def tap(self) -> None:
        self.tapped_after = int(round((self.now() - self.loaded) * 1000))

    def globals(self):
        return {"motionState": lambda: {"reduce": self.reduce, "tappedAfter": self.tapped_after}}

    def nodes(self) -> list[Node]:
        return [p("A web page's version: the same slide, in CSS, which the page skips under "
                  "prefers-reduced-motion \u2014 the only way a page can honor the setting."),
                web_button("webTarget", "Web target", self.tap, height=48),
                p(self.out_text(), "webOut")]
