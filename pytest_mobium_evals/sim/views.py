"""A tiny declarative view tree: apps describe a screen as `Node`s, rebuilt from their state on every frame.

This module turns a tree into placed boxes (`layout`), writes the accessibility dump uiautomator prints (`dump_nodes`)
and finds what a touch at a point lands on (`hit_test`). It knows nothing of devices or windows beyond a box to fill,
scroll offsets to honour and regions to leave out; `device.py` stacks the windows.
"""

from __future__ import annotations

import math
import re
from typing import Any, Callable, Iterable, Iterator

SCREEN_W, SCREEN_H = 1080, 2400
DENSITY = 420
DP = DENSITY / 160  # 2.625 px per dp
STATUS_BAR_BOTTOM = 136
NAV_BAR_TOP = 2337
CONTENT_BOX = (0, STATUS_BAR_BOTTOM, SCREEN_W, NAV_BAR_TOP)
IME_BOX = (0, 1500, SCREEN_W, NAV_BAR_TOP)

# The soft keyboard's keys (label, width in key units) per row, shared by the renderer (what is drawn) and the
# device (what a tap on the keyboard types).
KEYBOARD_ROWS = (
    tuple((k, 1.0) for k in "qwertyuiop"),
    tuple((k, 1.0) for k in "asdfghjkl"),
    (("\u21e7", 1.5),) + tuple((k, 1.0) for k in "zxcvbnm") + (("\u232b", 1.5),),
    (("?123", 1.5), (",", 1.0), ("space", 4.0), (".", 1.0), ("\u23ce", 1.5)),
)


def keyboard_keys(box: tuple[int, int, int, int] = IME_BOX) -> list[tuple[str, tuple[int, int, int, int]]]:
    """Every key of the soft keyboard with its box on screen (the keyboard's box: portrait's by default)."""
    l, t, r, b = box
    inner_w = r - l - 40
    row_h = (b - t - 40) // len(KEYBOARD_ROWS)
    unit = inner_w / 10
    out = []
    for i, row in enumerate(KEYBOARD_ROWS):
        width = sum(w for _, w in row) * unit
        x = l + 20 + (inner_w - width) / 2
        y = t + 20 + i * row_h
        for label, w in row:
            out.append((label, (int(x), y, int(x + w * unit), y + row_h)))
            x += w * unit
    return out


TEXT_LINE_DP = 24
CHARS_PER_FULL_LINE = 40

Box = tuple[int, int, int, int]  # left, top, right, bottom in px


class Node:
    """One view: its class, resource id, text, state flags, size and children, and the callbacks input reaches."""

    __slots__ = (
        "cls", "id", "text", "desc", "hint", "height", "width", "padding", "margin_bottom", "margin_right",
        "horizontal", "scroll", "overlay", "left_frac", "width_frac", "clickable", "long_clickable", "checkable",
        "checked", "enabled", "focusable", "focused", "selected", "password", "editable", "touch", "on_tap",
        "on_long_press", "on_text", "on_submit", "on_drag", "on_touch", "bg", "fg", "visible_to_a11y", "children",
    )

    def __init__(self, cls: str = "android.view.View", *, id: str = "", text: str = "", desc: str = "",
                 hint: str = "", height: float | None = None, width: float | None = None, padding: float = 0,
                 margin_bottom: float = 0, margin_right: float = 0, horizontal: bool = False,
                 scroll: str | None = None, overlay: bool = False, left_frac: float = 0.0,
                 width_frac: float = 1.0, clickable: bool = False, long_clickable: bool = False,
                 checkable: bool = False, checked: bool = False, enabled: bool = True, focusable: bool = False,
                 focused: bool = False, selected: bool = False, password: bool = False, editable: bool = False,
                 touch: str = "auto", on_tap: Callable[[], None] | None = None,
                 on_long_press: Callable[[], None] | None = None, on_text: Callable[[str], None] | None = None,
                 on_submit: Callable[[], None] | None = None, on_drag: Callable[[float], None] | None = None,
                 on_touch: Callable[[Any], None] | None = None, bg: str | None = None, fg: str | None = None,
                 visible_to_a11y: bool = True,
                 children: Iterable["Node | None"] = ()):
        if scroll not in (None, "vertical", "horizontal"):
            raise ValueError(f"Node(scroll=...) must be None, 'vertical' or 'horizontal', got {scroll!r}")
        if touch not in ("auto", "pass", "block"):
            raise ValueError(f"Node(touch=...) must be 'auto', 'pass' or 'block', got {touch!r}")
        self.cls = cls
        self.id = id
        self.text = "" if text is None else str(text)
        self.desc = "" if desc is None else str(desc)
        self.hint = "" if hint is None else str(hint)
        self.height = height
        self.width = width
        self.padding = padding
        self.margin_bottom = margin_bottom
        self.margin_right = margin_right
        self.horizontal = horizontal
        self.scroll = scroll
        self.overlay = overlay
        self.left_frac = left_frac
        self.width_frac = width_frac
        # A node with a handler is clickable to accessibility, as a Pressable is.
        self.clickable = clickable or on_tap is not None or editable
        self.long_clickable = long_clickable or on_long_press is not None
        self.checkable = checkable
        self.checked = checked
        self.enabled = enabled
        self.focusable = focusable or self.clickable or editable
        self.focused = focused
        self.selected = selected
        self.password = password
        self.editable = editable
        self.touch = touch
        self.on_tap = on_tap
        self.on_long_press = on_long_press
        self.on_text = on_text
        self.on_submit = on_submit
        # on_drag(fraction 0..1 across the node's width): a seek bar. Called once for a tap, along the path of a swipe.
        self.on_drag = on_drag
        # on_touch(Touch): a view that reads the raw pointer stream (a PanResponder, a ScrollView's own drag
        # handling, a WebView's touch events) and so decides for itself what a gesture was.
        self.on_touch = on_touch
        self.bg = bg
        self.fg = fg
        self.visible_to_a11y = visible_to_a11y
        # `None` children are dropped so apps can write `cond and Node(...)`-style lists.
        self.children = [c for c in children if c is not None and c is not False]

    def takes_touch(self) -> bool:
        if self.touch == "pass":
            return False
        if self.touch == "block":
            return True
        return bool(self.clickable or self.on_long_press or self.on_drag or self.on_touch or self.editable)

    def __repr__(self) -> str:
        label = self.id or self.text or self.desc
        return f"Node({self.cls.rsplit('.', 1)[-1]} {label!r})"


class Placed:
    """A node placed on screen. `box` is where layout put it; `bounds` is what is visible (clipped), or None."""

    __slots__ = ("node", "box", "bounds", "children", "index", "order", "content_extent", "hit_pass", "parent")

    def __init__(self, node: Node, box: Box, index: int, order: int, parent: "Placed | None"):
        self.node = node
        self.box = box
        self.bounds: Box | None = box
        self.children: list[Placed] = []
        self.index = index
        self.order = order
        self.content_extent = 0  # for scroll containers: the content's length along the scroll axis, px
        self.hit_pass = False
        self.parent = parent

    def walk(self) -> Iterator["Placed"]:
        """Pre-order, which is drawing order: a parent before its children, earlier siblings first."""
        stack = [self]
        while stack:
            p = stack.pop()
            yield p
            stack.extend(reversed(p.children))

    def find(self, node_id: str) -> "Placed | None":
        for p in self.walk():
            if p.node.id == node_id and p.bounds is not None:
                return p
        return None


def _px(dp: float) -> int:
    return int(round(dp * DP))


def _text_height(node: Node, width_px: int) -> int:
    text = node.text or node.hint
    if not text:
        return 0
    per_line = max(1, int(CHARS_PER_FULL_LINE * width_px / SCREEN_W))
    lines = sum(max(1, math.ceil(len(part) / per_line)) for part in text.split("\n"))
    return _px(TEXT_LINE_DP * lines)


class Layout:
    """Places one window's tree. `scroll_offsets` (id -> px) is shared with the device so scrolling persists."""

    def __init__(self, scroll_offsets: dict[str, int]):
        self.scroll_offsets = scroll_offsets
        self._order = 0

    def place_root(self, node: Node, box: Box) -> Placed:
        root = self._place(node, box[0], box[1], box[2] - box[0], index=0, parent=None,
                           fixed_height=box[3] - box[1], avail=box[3] - box[1])
        _clip(root, box, False)
        return root

    def _place(self, node: Node, left: int, top: int, width: int, *, index: int, parent: Placed | None,
               fixed_height: int | None = None, avail: int | None = None) -> Placed:
        self._order += 1
        placed = Placed(node, (left, top, left + width, top), index, self._order, parent)
        pad = _px(node.padding)
        inner_left, inner_width = left + pad, max(0, width - 2 * pad)
        if fixed_height is not None:
            height: int | None = fixed_height
        elif node.height is not None:
            height = _px(node.height)
        elif node.scroll and avail is not None:
            height = max(0, avail)  # a scroll container without a height fills what its parent has left
        else:
            height = None
        inner_avail = None
        if height is not None:
            inner_avail = height - 2 * pad
        elif avail is not None:
            inner_avail = avail - 2 * pad
        if node.scroll:
            inner_avail = None  # content is as long as it is: the container scrolls it
        content = self._place_children(placed, node, inner_left, top + pad, inner_width, inner_avail)
        if height is None:
            height = content + 2 * pad if node.children else max(_text_height(node, inner_width) + 2 * pad, 0)
        placed.box = (left, top, left + width, top + height)
        if node.scroll:
            placed.content_extent = content
            viewport = (height - 2 * pad) if node.scroll == "vertical" else inner_width
            max_offset = max(0, content - viewport)
            key = node.id or f"#{placed.order}"
            offset = min(max(0, self.scroll_offsets.get(key, 0)), max_offset)
            self.scroll_offsets[key] = offset
            if offset:
                dx, dy = (0, -offset) if node.scroll == "vertical" else (-offset, 0)
                for child in placed.children:
                    _translate(child, dx, dy)
        return placed

    def _place_children(self, placed: Placed, node: Node, left: int, top: int, width: int,
                        avail: int | None) -> int:
        """Places the children; returns the content length along the stacking axis (px)."""
        previous: Placed | None = None
        if node.horizontal or node.scroll == "horizontal":
            x = left
            flexible = [c for c in node.children if not c.overlay and c.width is None]
            fixed_w = sum(_px(c.width) + _px(c.margin_right) for c in node.children
                          if not c.overlay and c.width is not None)
            fixed_w += sum(_px(c.margin_right) for c in flexible)
            if node.scroll == "horizontal":
                share = width  # a pager page without a width is one viewport wide
            else:
                share = max(0, (width - fixed_w) // len(flexible)) if flexible else 0
            tallest = 0
            for i, child in enumerate(node.children):
                if child.overlay and previous is not None:
                    placed.children.append(self._place_overlay(child, previous, i, placed))
                    continue
                w = _px(child.width) if child.width is not None else share
                p = self._place(child, x, top, w, index=i, parent=placed, avail=avail)
                placed.children.append(p)
                previous = p
                x += w + _px(child.margin_right)
                tallest = max(tallest, p.box[3] - p.box[1])
            if node.scroll == "horizontal":
                return x - left
            return tallest
        y = top
        for i, child in enumerate(node.children):
            if child.overlay and previous is not None:
                placed.children.append(self._place_overlay(child, previous, i, placed))
                continue
            w = _px(child.width) if child.width is not None else width
            remaining = None if avail is None else max(0, avail - (y - top))
            p = self._place(child, left, y, w, index=i, parent=placed, avail=remaining)
            placed.children.append(p)
            previous = p
            y = p.box[3] + _px(child.margin_bottom)
        return y - top

    def _place_overlay(self, node: Node, under: Placed, index: int, parent: Placed) -> Placed:
        l, t, r, b = under.box
        width = r - l
        left = l + int(round(width * node.left_frac))
        w = int(round(width * node.width_frac))
        return self._place(node, left, t, w, index=index, parent=parent, fixed_height=b - t)


def _translate(p: Placed, dx: int, dy: int) -> None:
    for q in p.walk():
        l, t, r, b = q.box
        q.box = (l + dx, t + dy, r + dx, b + dy)


def _intersect(a: Box, b: Box) -> Box | None:
    l, t = max(a[0], b[0]), max(a[1], b[1])
    r, bt = min(a[2], b[2]), min(a[3], b[3])
    if r <= l or bt <= t:
        return None
    return (l, t, r, bt)


def _clip(p: Placed, clip: Box, passing: bool) -> None:
    p.hit_pass = passing or p.node.touch == "pass"
    p.bounds = _intersect(p.box, clip)
    if p.bounds is None:
        for q in p.walk():
            q.bounds = None
        return
    inner = p.bounds if p.node.scroll else clip
    for child in p.children:
        _clip(child, inner, p.hit_pass)


def layout(node: Node, box: Box, scroll_offsets: dict[str, int]) -> Placed:
    return Layout(scroll_offsets).place_root(node, box)


# ---------------------------------------------------------------------------------------------------------------
# hit-testing

def hit_test(root: Placed, x: int, y: int) -> Placed | None:
    """The node a touch at (x, y) lands on in this window, or None if it falls through every node.

    Later-drawn nodes are on top; `touch="pass"` subtrees are transparent to touches; a node that takes touches
    (a handler, a text field, or `touch="block"`) stops the search even if it will do nothing with it.
    """
    for p in reversed(list(root.walk())):
        b = p.bounds
        if b is None or p.hit_pass:
            continue
        if b[0] <= x < b[2] and b[1] <= y < b[3] and p.node.takes_touch():
            return p
    return None


def scroll_container_at(root: Placed, x: int, y: int, axis: str) -> Placed | None:
    """The innermost scroll container along `axis` under a point (where a swipe starting there scrolls)."""
    best = None
    for p in root.walk():
        b = p.bounds
        if b is None or p.node.scroll != axis:
            continue
        if b[0] <= x < b[2] and b[1] <= y < b[3]:
            best = p  # pre-order: a later match is deeper or drawn later
    return best


# ---------------------------------------------------------------------------------------------------------------
# the uiautomator dump

# A character xml_attribute writes otherwise than as itself; most values (ids, plain labels) hold none.
_ESCAPED = re.compile('[&<>"\x00-\x1f\ud800-\udfff\ufffe\uffff]')


def xml_attribute(value: str, unholdable: str = ".") -> str:
    """An attribute value as KXmlSerializer writes it: markup escaped, whitespace as character references, and each
    character XML 1.0 cannot hold replaced by `unholdable` ('.' as the AOSP dumper does; Appium's UiAutomator2
    server's toSafeString makes it '?')."""
    if not _ESCAPED.search(value):
        return value
    out = []
    for ch in value:
        o = ord(ch)
        if ch == "&":
            out.append("&amp;")
        elif ch == "<":
            out.append("&lt;")
        elif ch == ">":
            out.append("&gt;")
        elif ch == '"':
            out.append("&quot;")
        elif ch in "\t\n\r":
            out.append(f"&#{o};")
        elif o < 0x20 or 0xD800 <= o <= 0xDFFF or o in (0xFFFE, 0xFFFF):
            out.append(unholdable)
        else:
            out.append(ch)
    return "".join(out)


def _b(v: bool) -> str:
    return "true" if v else "false"


def _has_label_below(p: Placed) -> bool:
    for q in p.walk():
        if q is not p and (q.node.text or q.node.desc):
            return True
    return False


def dump_nodes(root: Placed, package: str, out: list[str], exclude: Box | None = None,
               focused_id: str | None = None) -> None:
    """Appends the XML of `root`'s visible subtree (one line, AOSP attribute order) to `out`.

    `exclude` is a region covering the window (the soft keyboard): nodes entirely under it are left out, and nodes
    partly under it report only the part above it, as UiAutomator2 on edge-to-edge Android 15 does.
    """
    _dump(root, package, out, exclude, focused_id)


def _visible(p: Placed, exclude: Box | None) -> Box | None:
    b = p.bounds
    if b is None or not p.node.visible_to_a11y:
        return None
    if exclude is not None and b[1] >= exclude[1] and b[3] <= exclude[3] and b[0] >= exclude[0] \
            and b[2] <= exclude[2]:
        return None
    if exclude is not None and b[3] > exclude[1] and b[1] < exclude[1]:
        b = (b[0], b[1], b[2], exclude[1])
    return b


def _dump(p: Placed, package: str, out: list[str], exclude: Box | None, focused_id: str | None) -> None:
    b = _visible(p, exclude)
    if b is None:
        return
    n = p.node
    text = n.text
    if n.password and text:
        text = "\u2022" * len(text)
    elif n.editable and not text:
        # An empty EditText reports its hint as its text (TextView.getTextForAccessibility), a classic trap.
        text = n.hint
    naf = n.clickable and n.enabled and not text and not n.desc and not _has_label_below(p)
    focused = n.focused or (bool(focused_id) and n.editable and n.id == focused_id)
    out.append("<node ")
    if naf:
        out.append('NAF="true" ')
    out.append(
        f'index="{p.index}" text="{xml_attribute(text)}" resource-id="{xml_attribute(n.id)}" class="{n.cls}" '
        f'package="{package}" content-desc="{xml_attribute(n.desc)}" checkable="{_b(n.checkable)}" '
        f'checked="{_b(n.checked)}" clickable="{_b(n.clickable)}" enabled="{_b(n.enabled)}" '
        f'focusable="{_b(n.focusable)}" focused="{_b(focused)}" scrollable="{_b(bool(n.scroll))}" '
        f'long-clickable="{_b(n.long_clickable)}" password="{_b(n.password)}" selected="{_b(n.selected)}" '
        f'bounds="[{b[0]},{b[1]}][{b[2]},{b[3]}]" drawing-order="{p.index + 1}" hint="{xml_attribute(n.hint)}"')
    kids = [c for c in p.children if _visible(c, exclude) is not None]
    if not kids:
        out.append(" />")
        return
    out.append(">")
    for c in kids:
        # A node hidden from accessibility (importantForAccessibility="no-hide-descendants") takes its subtree
        # with it; a node under the keyboard holds only nodes under the keyboard.
        _dump(c, package, out, exclude, focused_id)
    out.append("</node>")
