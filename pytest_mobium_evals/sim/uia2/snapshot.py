"""The screen as Appium's UiAutomator2 server sees it: a snapshot of the active window's views with the server's own
attributes, written as its page source and searched by its locator strategies.

Its page source differs from `uiautomator dump`'s: each element is named by its class (`<android.widget.Button …>`,
not `<node …>`), the root is `<hierarchy index="0" class="hierarchy" rotation width height>`, the output is indented
two spaces a level, `resource-id`, `content-desc` and `hint` are left out when the view has none, and every element
carries `displayed`, `a11y-important`, `drawing-order`, `showing-hint`, `window-id` and the other attributes the
server's `UiElementSnapshot` lists, in its order (checked against a page source the server returned on an Android 15
emulator, kept in mobiumdev/mobium's `internal/mobiumdriver/testdata/enroll-agree-uia2.xml`). A toast on screen is an
extra `android.widget.Toast` child of the root, as the server's notification listener adds it.

Which views are in it is what `uiautomator dump` holds (views.py's visibility rule), so the two readings agree.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from .. import views
from ..views import Placed

if TYPE_CHECKING:  # pragma: no cover
    from ..device import VirtualDevice
    from ..device.records import Frame

# The accessibility window ids an Android 15 emulator hands out; the app's, its dialog's and SystemUI's differ.
WINDOW_IDS = {"app": 18, "dialog": 23, "shade": 3, "keyguard": 3}
TYPE_TEXT, TYPE_PASSWORD = 0x1, 0x81  # InputType.TYPE_CLASS_TEXT, … | TYPE_TEXT_VARIATION_PASSWORD


@dataclass
class UiNode:
    """One element of the snapshot: its XML name and attributes (in the server's order), and where it came from."""

    tag: str
    attrs: dict[str, str]
    children: list["UiNode"] = field(default_factory=list)
    placed: Placed | None = None      # None for the root and a toast
    package: str = ""
    window: str = ""                  # the window's kind: app, dialog, shade, keyguard
    path: tuple[int, ...] = ()        # child positions from the root of the snapshot
    bounds: tuple[int, int, int, int] = (0, 0, 0, 0)

    def walk(self):
        stack = [self]
        while stack:
            n = stack.pop()
            yield n
            stack.extend(reversed(n.children))

    def attr(self, name: str) -> str:
        return self.attrs.get(name, "")

    @property
    def editable(self) -> bool:
        return self.placed is not None and self.placed.node.editable


def _b(value: bool) -> str:
    return "true" if value else "false"


def _element(p: Placed, b: tuple[int, int, int, int], package: str, window: str, focused_id: str | None,
             path: tuple[int, ...]) -> UiNode:
    n = p.node
    showing_hint = n.editable and not n.text and bool(n.hint)
    if n.password and n.text:
        text = "\u2022" * len(n.text)
    elif showing_hint:
        text = n.hint  # an empty EditText reads its hint as its text, as AccessibilityNodeInfo.getText does
    else:
        text = n.text
    focused = n.focused or (bool(focused_id) and n.editable and (n.id or f"#{p.order}") == focused_id)
    a: dict[str, str] = {"index": str(p.index), "package": package, "class": n.cls, "text": text}
    if n.desc:
        a["content-desc"] = n.desc
    if n.id:
        a["resource-id"] = n.id
    a.update({"checkable": _b(n.checkable), "checked": _b(n.checked), "clickable": _b(n.clickable),
              "enabled": _b(n.enabled), "focusable": _b(n.focusable), "focused": _b(focused),
              "long-clickable": _b(n.long_clickable), "password": _b(n.password),
              "scrollable": _b(bool(n.scroll))})
    if n.editable:
        end = str(len(n.text))
        a["selection-start"] = end
        a["selection-end"] = end
    a["selected"] = _b(n.selected)
    a["bounds"] = f"[{b[0]},{b[1]}][{b[2]},{b[3]}]"
    a["displayed"] = "true"
    if n.hint:
        a["hint"] = n.hint  # AccessibilityNodeInfo.getHintText: whatever view set one
    important = bool(n.text or n.desc or n.clickable or n.editable or n.scroll or n.checkable)
    a.update({"a11y-important": _b(important), "screen-reader-focusable": "false"})
    if n.editable:
        a["input-type"] = str(TYPE_PASSWORD if n.password else TYPE_TEXT)
    a.update({"drawing-order": str(p.index + 1), "showing-hint": _b(showing_hint), "text-entry-key": "false",
              "dismissable": "false", "a11y-focused": "false", "heading": "false", "live-region": "0",
              "context-clickable": "false", "content-invalid": "false",
              "window-id": str(WINDOW_IDS.get(window, 18))})
    return UiNode(n.cls, a, placed=p, package=package, window=window, path=path, bounds=b)


def _build(p: Placed, package: str, window: str, exclude, focused_id, path: tuple[int, ...]) -> UiNode | None:
    b = views._visible(p, exclude)
    if b is None:
        return None
    node = _element(p, b, package, window, focused_id, path)
    for child in p.children:
        built = _build(child, package, window, exclude, focused_id, path + (len(node.children),))
        if built is not None:
            node.children.append(built)
    return node


def take(device: "VirtualDevice", frame: "Frame | None" = None) -> UiNode:
    """The snapshot of what is on screen now: the active window (the one `uiautomator dump` reads) and a toast."""
    with device.lock:
        frame = frame or device.frame()
        screen = frame.display
        root = UiNode("hierarchy", {"index": "0", "class": "hierarchy", "rotation": str(device.rotation),
                                    "width": str(screen.width), "height": str(screen.height)})
        win = frame.top
        if win.root is not None and frame.screen_on:
            exclude = screen.ime_box if (frame.ime and win.kind == "app") else None
            focused = device.focused_id if win.kind == "app" else None
            package = win.package if win.activity is None or win.kind != "app" else win.activity.package.name
            built = _build(win.root, package, win.kind, exclude, focused, (0,))
            if built is not None:
                root.children.append(built)
        if frame.toast is not None:
            toast = UiNode("android.widget.Toast", {"text": frame.toast.text, "class": "android.widget.Toast",
                                                    "package": "com.android.settings", "displayed": "true",
                                                    "index": str(len(root.children))},
                           window="toast", path=(len(root.children),))
            root.children.append(toast)
        return root


# ---------------------------------------------------------------------------------------------------------------
# the page source

def _safe(value: str) -> str:
    """An attribute value as the server writes it, after its toSafeString: what XML 1.0 cannot hold becomes '?'."""
    return views.xml_attribute(value, unholdable="?")


def page_source(root: UiNode) -> str:
    lines = ["<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>"]

    def write(node: UiNode, depth: int) -> None:
        pad = "  " * depth
        attrs = " ".join(f'{k}="{_safe(v)}"' for k, v in node.attrs.items())
        if not node.children:
            lines.append(f"{pad}<{node.tag} {attrs} />")
            return
        lines.append(f"{pad}<{node.tag} {attrs}>")
        for child in node.children:
            write(child, depth + 1)
        lines.append(f"{pad}</{node.tag}>")

    write(root, 0)
    return "\n".join(lines)
