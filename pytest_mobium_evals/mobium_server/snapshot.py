"""One look at the screen: a parsed `uiautomator dump` plus what the dump cannot say (keyboard, foreground).

Everything an answer says about the screen is derived here: which nodes are actionable, their label and role, the
state shown in a map line, which element a cover hides, whether a dialog, a keyboard or a spinner is up. Nothing
here talks to the device; `device.py` fetches the raw strings and this module reads them, so it is testable on
fixture XML."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from typing import Iterator, Optional

Bounds = tuple[int, int, int, int]

_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")

# Android class-name suffixes per role, checked in Mobium's order (roleOf in internal/uitree/snapshot.go).
_ROLE_CLASSES: list[tuple[str, tuple[str, ...]]] = [
    ("input", ("EditText", "AutoCompleteTextView", "SearchView")),
    ("checkbox", ("CheckBox", "CheckedTextView")),
    ("switch", ("Switch", "SwitchCompat", "ToggleButton")),
    ("radio", ("RadioButton",)),
    ("slider", ("SeekBar",)),
    ("button", ("Button", "ImageButton", "CompoundButton")),
    ("image", ("ImageView", "ImageButton")),
    ("list", ("RecyclerView", "ListView", "ScrollView", "NestedScrollView", "ViewPager", "HorizontalScrollView")),
    ("tab", ("TabView", "TabItem")),
]
ROLES = ("button", "checkbox", "image", "input", "link", "list", "password", "progressbar", "radio", "slider",
         "switch", "tab", "text")
DIALOG_IDS = ("android:id/alertTitle", "android:id/message", "android:id/button1", "android:id/button2",
              "android:id/button3")
PERMISSION_PACKAGES = ("com.google.android.permissioncontroller", "com.android.permissioncontroller")
LABEL_MAX = 120


def short_class(cls: str) -> str:
    return cls.rsplit(".", 1)[-1]


def short_id(rid: str) -> str:
    return rid.split(":id/", 1)[-1]


@dataclass(eq=False)
class UiNode:
    cls: str
    text: str
    rid: str
    desc: str
    package: str
    checkable: bool
    checked: bool
    clickable: bool
    enabled: bool
    focusable: bool
    focused: bool
    scrollable: bool
    long_clickable: bool
    password: bool
    selected: bool
    bounds: Bounds
    hint: str
    path: str
    order: int                                   # pre-order position: later nodes are drawn over earlier ones
    parent: Optional["UiNode"] = None
    children: list["UiNode"] = field(default_factory=list)
    frames: tuple[str, ...] = ()                 # iframe ids from the page down to this node (web content only)
    webview: Optional["UiNode"] = None           # the outermost WebView this node belongs to

    # --- geometry ---------------------------------------------------------------------------------------------
    @property
    def empty(self) -> bool:
        x1, y1, x2, y2 = self.bounds
        return x2 <= x1 or y2 <= y1

    @property
    def center(self) -> tuple[int, int]:
        x1, y1, x2, y2 = self.bounds
        return (x1 + x2) // 2, (y1 + y2) // 2

    def contains_point(self, x: int, y: int) -> bool:
        x1, y1, x2, y2 = self.bounds
        return x1 <= x < x2 and y1 <= y < y2

    def is_ancestor_of(self, other: "UiNode") -> bool:
        p = other.parent
        while p is not None:
            if p is self:
                return True
            p = p.parent
        return False

    def descendants(self) -> Iterator["UiNode"]:
        for c in self.children:
            yield c
            yield from c.descendants()

    # --- what it is ---------------------------------------------------------------------------------------------
    @property
    def is_webview(self) -> bool:
        return short_class(self.cls) == "WebView"

    @property
    def editable_class(self) -> bool:
        return any(short_class(self.cls).endswith(s) for s in ("EditText", "AutoCompleteTextView"))

    @property
    def is_slider(self) -> bool:
        return short_class(self.cls).endswith("SeekBar")

    @property
    def is_progress(self) -> bool:
        return short_class(self.cls) == "ProgressBar"

    @property
    def showing_hint(self) -> bool:
        """An empty field: Android reports the placeholder as the text of an empty EditText on some builds."""
        return self.editable_class and (not self.text or (bool(self.hint) and self.text == self.hint))

    @property
    def value(self) -> str:
        """A field's contents ('' when it only shows its placeholder)."""
        return "" if self.showing_hint else self.text

    def class_role(self) -> str:
        name = short_class(self.cls)
        for role, suffixes in _ROLE_CLASSES:
            if any(name.endswith(s) for s in suffixes):
                return role
        return ""

    def role(self) -> str:
        """The role a map line shows: class first, then what the node does."""
        if self.password:
            return "password"
        role = self.class_role()
        if role:
            return role
        if self.scrollable:
            return "list"
        if self.clickable or self.long_clickable:
            return "button"
        return ""

    def locator_roles(self) -> set[str]:
        """Roles a `role=` locator matches: the map's role plus the fallbacks Mobium accepts."""
        roles = {self.role()} - {""}
        name = short_class(self.cls)
        if name.endswith("TextView") and not self.clickable:
            roles.add("text")
        if name.endswith("TextView") and self.clickable:
            roles.add("link")
        if self.is_progress:
            roles.add("progressbar")
        if self.editable_class:
            roles.add("input")
        return roles


@dataclass
class Snapshot:
    nodes: list[UiNode]                       # pre-order, displayed nodes only
    width: int
    height: int
    keyboard: Optional[Bounds] = None         # the IME's touchable region while it is shown
    foreground: str = ""                      # the package in front, when it was read
    xml: str = ""

    # --- windows and system UI ----------------------------------------------------------------------------------
    @property
    def lock_screen(self) -> bool:
        """SystemUI's keyguard is what the dump shows: the device is locked and no app can be reached."""
        return any(n.package == "com.android.systemui" and ":id/keyguard_" in n.rid for n in self.nodes)

    @property
    def dialog_nodes(self) -> list[UiNode]:
        return [n for n in self.nodes if n.rid in DIALOG_IDS or n.package in PERMISSION_PACKAGES]

    @property
    def dialog(self) -> Optional["Dialog"]:
        nodes = self.dialog_nodes
        if not nodes:
            return None
        title = next((n.text for n in self.nodes if n.rid == "android:id/alertTitle" and n.text), "")
        message = next((n.text for n in self.nodes if n.rid == "android:id/message" and n.text), "")
        permission = any(n.package in PERMISSION_PACKAGES for n in nodes)
        if permission and not (title or message):
            texts = [n.text for n in self.nodes if n.package in PERMISSION_PACKAGES and n.text and not n.clickable]
            title = texts[0] if texts else "a permission request"
        # Buttons answer the dialog; a permission prompt's Precise/Approximate radios only qualify the answer.
        buttons = [n for n in self.nodes if n.clickable and not n.checkable
                   and (n.rid in DIALOG_IDS or n.package in PERMISSION_PACKAGES) and (n.text or n.desc)]
        package = next((n.package for n in nodes if n.package), "")
        return Dialog(title=title or message, message=message if title else "", buttons=buttons,
                      permission=permission, package=package)

    def in_keyboard(self, node: UiNode) -> bool:
        if not self.keyboard:
            return False
        x, y = node.center
        x1, y1, x2, y2 = self.keyboard
        return x1 <= x < x2 and y1 <= y < y2

    # --- web content ----------------------------------------------------------------------------------------------
    @property
    def webviews(self) -> list[UiNode]:
        return [n for n in self.nodes if n.is_webview and n.webview is n]

    def context_ids(self) -> list[tuple[str, UiNode]]:
        """One WebView context per WebView on screen, in screen order: the first of an app is WEBVIEW_<package>, the
        next ones WEBVIEW_<package>_2, _3, … (each WebView is its own page, with its own DevTools target)."""
        out: list[tuple[str, UiNode]] = []
        count: dict[str, int] = {}
        for wv in self.webviews:
            pkg = wv.package or self.foreground or "webview"
            count[pkg] = count.get(pkg, 0) + 1
            out.append((f"WEBVIEW_{pkg}" + (f"_{count[pkg]}" if count[pkg] > 1 else ""), wv))
        return out

    def webview_of(self, context: str) -> Optional[UiNode]:
        return next((wv for cid, wv in self.context_ids() if cid == context), None)

    def scope(self, context: str) -> list[UiNode]:
        """The nodes a tool sees in a context: the whole screen natively, that WebView's page in a WebView context."""
        if context == "NATIVE_APP":
            return self.nodes
        wv = self.webview_of(context)
        return [n for n in self.nodes if wv is not None and n.webview is wv and n is not wv and not n.is_webview]


@dataclass
class Dialog:
    title: str
    message: str
    buttons: list[UiNode]
    permission: bool
    package: str

    @property
    def quoted(self) -> str:
        return self.title

    def captions(self) -> list[str]:
        return [b.text or b.desc for b in self.buttons]


# --------------------------------------------------------------------------------------------------------------------
# Parsing

def _b(attrs: dict, key: str) -> bool:
    return attrs.get(key, "false") == "true"


def parse_dump(xml: str, *, keyboard: Optional[Bounds] = None, foreground: str = "") -> Snapshot:
    start = xml.find("<?xml")
    if start < 0:
        start = xml.find("<hierarchy")
    if start < 0:
        raise ValueError("the device's uiautomator dump held no hierarchy: " + xml.strip()[:200])
    end = xml.rfind("</hierarchy>")
    body = xml[start:end + len("</hierarchy>")] if end >= 0 else xml[start:]
    root = ET.fromstring(body.encode("utf-8"))
    nodes: list[UiNode] = []
    width = height = 0

    def walk(el: ET.Element, parent: Optional[UiNode], path: str, frames: tuple[str, ...],
             webview: Optional[UiNode]) -> None:
        nonlocal width, height
        # `uiautomator dump` names every element `node`; the UiAutomator2 server names each by its class
        for i, child in enumerate(c for c in el if c.tag == "node" or "class" in c.attrib):
            a = child.attrib
            m = _BOUNDS.match(a.get("bounds", ""))
            bounds = tuple(int(v) for v in m.groups()) if m else (0, 0, 0, 0)
            node = UiNode(
                cls=a.get("class", ""), text=a.get("text", ""), rid=a.get("resource-id", ""),
                desc=a.get("content-desc", ""), package=a.get("package", ""),
                checkable=_b(a, "checkable"), checked=_b(a, "checked"), clickable=_b(a, "clickable"),
                enabled=a.get("enabled", "true") == "true", focusable=_b(a, "focusable"),
                focused=_b(a, "focused"), scrollable=_b(a, "scrollable"), long_clickable=_b(a, "long-clickable"),
                password=_b(a, "password"), selected=_b(a, "selected"), bounds=bounds,  # type: ignore[arg-type]
                hint=a.get("hint", ""), path=f"{path}/{i}" if path else str(i), order=len(nodes), parent=parent)
            width, height = max(width, node.bounds[2]), max(height, node.bounds[3])
            child_frames, child_webview = frames, webview
            if node.is_webview:
                if webview is None:
                    child_webview = node
                    node.webview = node
                else:
                    # A WebView inside a page is an iframe; Mobium names it by its id ("iframe#crossFrame").
                    node.webview = webview
                    child_frames = frames + (node.rid or node.desc or "frame",)
            else:
                node.webview = webview
            node.frames = frames
            nodes.append(node)
            if parent is not None:
                parent.children.append(node)
            walk(child, node, node.path, child_frames, child_webview)
            if node.is_webview and webview is not None:
                node.frames = frames

    walk(root, None, "", (), None)
    return Snapshot(nodes=nodes, width=width or 1080, height=height or 2400, keyboard=keyboard,
                    foreground=foreground, xml=body)


# --------------------------------------------------------------------------------------------------------------------
# Labels (Mobium's `describe`)

_TAGS = re.compile(r"<[^>]+>")


def clean(text: str) -> str:
    text = _TAGS.sub("", text or "")
    return " ".join(text.split())


def truncate(label: str) -> str:
    if len(label) <= LABEL_MAX:
        return label
    cut = label[:LABEL_MAX]
    space = cut.rfind(" ")
    if space >= LABEL_MAX * 3 // 4:
        cut = cut[:space]
    return cut.rstrip(" ,;:.-") + "…"


def describe(node: UiNode, actionable: set[int] | None = None) -> str:
    if node.password:
        return truncate(short_id(node.rid) or clean(node.desc) or "password field")
    text = clean(node.value if node.editable_class else node.text)
    desc = clean(node.desc)
    if node.is_slider:
        # A seek bar's text is its progress (a value, not a name): name it by its label.
        text = "" if desc or node.hint or node.rid else text
    if text and desc and text.lower() in desc.lower() and len(desc) > len(text):
        return truncate(desc)
    if text:
        return truncate(text)
    if desc:
        return truncate(desc)
    if node.hint:
        return truncate(clean(node.hint))
    if node.editable_class and node.text:          # showing its placeholder as text
        return truncate(clean(node.text))
    if not node.scrollable:
        parts: list[str] = []

        def collect(n: UiNode, depth: int) -> None:
            if depth > 3:
                return
            for c in n.children:
                if actionable is not None and id(c) in actionable:
                    continue
                t = clean(c.text) or clean(c.desc)
                if t and t not in parts:
                    parts.append(t)
                collect(c, depth + 1)

        collect(node, 1)
        if parts:
            return truncate(" ".join(parts))
    if node.rid:
        return truncate(short_id(node.rid))
    return short_class(node.cls)
