"""The map: which nodes are elements, how each is named and what state its line shows; locators and matching.

Mobium's rules (internal/uitree/snapshot.go, locator.go), restated:
- actionable = on screen and (clickable, long-clickable, checkable, scrollable, a text field, or a slider);
- nodes with the same bounds (±2 px) nested in one another are one element;
- a locator is `kind=value[,role=R]`, matched case-insensitively as a substring unless it is exact (the locators
  stored behind refs are); `testid=` prefers an exact id; a whole match beats partial ones.

Two things Mobium gets from a UiAutomator2 server that a plain `uiautomator dump` lacks are derived here:
- a slider's value: the dump has only the bar's progress in the bar's own units (0–10 for a 0–100 volume in steps
  of 10). The map shows the value the app displays instead: a text on screen that names the slider's label with a
  number ("volume: 70" → 70); failing that, a number-only text beside the bar; only then the raw progress. Reading
  the bar's units was one of the failures mobium-evals found ("A slider's value was in the seek bar's own units").
- a covered element: the dump's order is the drawing order, so a clickable node drawn later over every point of an
  element is a cover, and the element's line says `covered by "…"`.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Optional

from .errors import invalid
from .snapshot import ROLES, Snapshot, UiNode, clean, describe, short_class, short_id

KINDS = ("text", "label", "testid", "role", "class", "path")


@dataclass(frozen=True)
class Locator:
    kind: str
    value: str
    exact: bool = False
    role: str = ""

    def __str__(self) -> str:
        s = f"{self.kind}={self.value}"
        return f"{s},role={self.role}" if self.role else s

    def to_json(self) -> dict:
        out = {"kind": self.kind, "value": self.value, "exact": self.exact}
        if self.role:
            out["role"] = self.role
        return out


def parse_locator(text: str) -> Locator:
    text = text.strip()
    if not text:
        raise invalid("the target is empty — give a ref from app_map (\"@e5\") or a locator (\"text=Sign In\")")
    role = ""
    m = re.search(r",role=([A-Za-z]+)$", text)
    if m and "=" in text[: m.start()]:
        role, text = m.group(1).lower(), text[: m.start()]
    if "=" not in text:
        return Locator("text", text, role=role)
    kind, value = text.split("=", 1)
    kind = kind.strip().lower()
    if kind not in KINDS:
        raise invalid(f'unknown locator kind "{kind}" (want text, label, testid, role, class or path)',
                      "write the locator as kind=value, e.g. testid=submit or text=Sign In", locator=text)
    if kind == "role":
        value = value.strip().lower()
    for r in ([value] if kind == "role" else []) + ([role] if role else []):
        if r not in ROLES:
            raise invalid(f'unknown role "{r}" (roles: {", ".join(ROLES)})', "use one of the roles listed",
                          locator=text)
    return Locator(kind, value, role=role)


# --------------------------------------------------------------------------------------------------------------------
# Elements

@dataclass(eq=False)
class Element:
    node: UiNode                  # the node a touch goes to (the innermost clickable of a collapsed group)
    label: str
    role: str
    locator: Optional[Locator] = None
    ref: str = ""
    value: Optional[str] = None   # sliders: the value the app displays
    covered: str = ""             # the label of a control drawn over every point of it
    frames: tuple[str, ...] = ()
    context: str = ""

    @property
    def bounds(self):
        return self.node.bounds

    def state(self) -> list[str]:
        parts = [self.role] if self.role else []
        n = self.node
        # A page's map (Mobium reads it over DevTools) names a checkbox's role only: "A checkbox (checkbox)".
        if (self.role in ("checkbox", "radio", "switch") or n.checkable) and not self.context:
            parts.append("checked" if n.checked else "unchecked")
        if n.selected:
            parts.append("selected")
        if not n.enabled:
            parts.append("disabled")
        if self.value is not None:
            parts.append(self.value)
        if self.covered:
            parts.append(f'covered by "{self.covered}"')
        return parts

    def line(self) -> str:
        head = f"{self.ref} {self.label}" if self.ref else f"(no ref) {self.label}"
        parts = self.state()
        out = f"{head} ({', '.join(parts)})" if parts else head
        if self.frames:
            out += " in " + " >> ".join(f"iframe#{f}" for f in self.frames)
        return out

    def to_json(self) -> dict:
        x1, y1, x2, y2 = self.node.bounds
        out: dict = {"ref": self.ref, "label": self.label}
        if self.role:
            out["role"] = self.role
        if self.locator is not None:
            out["locator"] = self.locator.to_json()
        out["bounds"] = {"x1": x1, "y1": y1, "x2": x2, "y2": y2}
        if self.context:
            out["context"] = self.context
        if self.role in ("checkbox", "radio", "switch") or self.node.checkable:
            out["checked"] = self.node.checked
        if self.node.selected:
            out["selected"] = True
        if not self.node.enabled:
            out["disabled"] = True
        if self.value is not None:
            out["value"] = self.value
        if self.covered:
            out["covered"] = self.covered
        if self.frames:
            out["frames"] = list(self.frames)
        return out


def is_actionable(n: UiNode) -> bool:
    if n.empty or n.is_webview and n.webview is not n:
        return False
    if n.desc == "mobium-mailbox":
        return False
    return (n.clickable or n.long_clickable or n.checkable or n.scrollable or n.editable_class or n.is_slider
            or (n.focusable and n.class_role() == "input"))


def _same_box(a: UiNode, b: UiNode) -> bool:
    return all(abs(p - q) <= 2 for p, q in zip(a.bounds, b.bounds))


def build_elements(snap: Snapshot, context: str = "NATIVE_APP") -> list[Element]:
    scope = snap.scope(context)
    in_scope = {id(n) for n in scope}
    act = [n for n in scope if is_actionable(n)]
    act_ids = {id(n) for n in act}
    # Collapse nested nodes with the same box into one element: touch the innermost clickable, name it by the first
    # node of the group that has words of its own.
    groups: list[list[UiNode]] = []
    for n in act:
        for g in groups:
            if _same_box(g[0], n) and (g[-1].is_ancestor_of(n) or g[0].is_ancestor_of(n)):
                g.append(n)
                break
        else:
            groups.append([n])
    elements: list[Element] = []
    for g in groups:
        clickable = [n for n in g if n.clickable or n.editable_class or n.checkable]
        target = clickable[-1] if clickable else g[-1]
        named = next((n for n in g if n.text or n.desc or n.password), target)
        label = describe(named, act_ids)
        if context != "NATIVE_APP" and (named.password or named.editable_class) and named.hint:
            # A page's field is named by its placeholder, as Mobium's page map (over DevTools) names it: what is
            # typed into it is its value, not its name.
            label = clean(named.hint)
        role = target.role() or named.role()
        # Frames are the page's notion, named in a WebView context's map; NATIVE_APP reads the accessibility tree,
        # where a frame's controls are plain nodes of the WebView.
        web = context != "NATIVE_APP"
        el = Element(node=target, label=label, role=role, frames=target.frames if web else (),
                     context=context if web else "")
        if target.is_slider:
            el.value = slider_value(snap, target, label)
        elements.append(el)
    for el in elements:
        el.covered = cover_label(snap, el.node, in_scope)
    return elements


# --------------------------------------------------------------------------------------------------------------------
# Sliders

_NUMBER = r"(-?\d+(?:\.\d+)?%?)"


def slider_value(snap: Snapshot, bar: UiNode, label: str) -> str:
    """The value the app shows for a slider; see the module docstring for why not the bar's own progress."""
    name = re.escape(clean(label).lower())
    best: tuple[int, str] | None = None
    cx, cy = bar.center
    for n in snap.nodes:
        if n is bar or not n.text or n.empty:
            continue
        m = re.search(rf"(?<![a-z]){name}\s*[:=]\s*{_NUMBER}", n.text.lower())
        if m:
            dist = abs(n.center[1] - cy)
            if best is None or dist < best[0]:
                best = (dist, m.group(1))
    if best:
        return best[1]
    # A number-only text in the same row as the bar (a value readout beside it).
    for n in snap.nodes:
        if n is not bar and n.text and re.fullmatch(_NUMBER, n.text.strip()) and \
                n.bounds[1] < cy < n.bounds[3]:
            return n.text.strip()
    return bar.text or ""


# --------------------------------------------------------------------------------------------------------------------
# Covers and aiming

def _drawn_over(snap: Snapshot, target: UiNode, scope_ids: set[int] | None = None) -> list[UiNode]:
    """Nodes drawn after `target` (and not inside it) that overlap it: what a touch on it may hit first."""
    out = []
    x1, y1, x2, y2 = target.bounds
    for n in snap.nodes[target.order + 1:]:
        if n.empty or target.is_ancestor_of(n) or n.is_ancestor_of(target):
            continue
        if scope_ids is not None and id(n) not in scope_ids:
            continue
        a1, b1, a2, b2 = n.bounds
        if a1 < x2 and a2 > x1 and b1 < y2 and b2 > y1:
            out.append(n)
    return out


def _takes_touch(n: UiNode) -> bool:
    return n.clickable or n.long_clickable or n.checkable or n.editable_class


def _points(b) -> list[tuple[int, int]]:
    x1, y1, x2, y2 = b
    xs = [x1 + (x2 - x1) * f // 20 for f in range(1, 20)]
    ys = [y1 + (y2 - y1) * f // 8 for f in range(1, 8)]
    cx, cy = (x1 + x2) // 2, (y1 + y2) // 2
    pts = [(x, y) for y in ys for x in xs]
    pts.sort(key=lambda p: (abs(p[0] - cx) + abs(p[1] - cy)))
    return pts


def cover_label(snap: Snapshot, target: UiNode, scope_ids: set[int] | None = None) -> str:
    """The label of a control drawn over every point of `target`, or ''."""
    over = [n for n in _drawn_over(snap, target, scope_ids) if _takes_touch(n)]
    if not over:
        return ""
    for x, y in _points(target.bounds):
        if not any(n.contains_point(x, y) for n in over):
            return ""
    top = max((n for n in over if n.contains_point(*target.center)), key=lambda n: n.order, default=over[-1])
    return describe(top)


@dataclass
class Aim:
    x: int
    y: int
    note: str = ""
    cover: dict = field(default_factory=dict)


def aim_at(snap: Snapshot, target: UiNode) -> Aim | None:
    """Where to touch `target`: its center, or a clear point when a control covers the center. None when controls
    cover every point of it (a touch there would press the cover)."""
    over = _drawn_over(snap, target)
    controls = [n for n in over if _takes_touch(n)]
    cx, cy = target.center
    hit = [n for n in controls if n.contains_point(cx, cy)]
    if hit:
        for x, y in _points(target.bounds):
            if not any(n.contains_point(x, y) for n in controls):
                cov = max(hit, key=lambda n: n.order)
                return Aim(x, y, f'its center is covered by "{describe(cov)}", so it was touched at a clear point',
                           {"label": describe(cov), "control": True})
        return None
    # Something with words of its own drawn over the point that is not a control: it may swallow the touch, or let
    # it through; say so rather than refuse (Mobium's "may take the touch").
    plain = [n for n in over if n.contains_point(cx, cy) and (n.text or n.desc) and not target.is_ancestor_of(n)
             and not any(n.is_ancestor_of(m) and _takes_touch(m) for m in [target])]
    plain = [n for n in plain if not n.is_ancestor_of(target)]
    if plain:
        top = max(plain, key=lambda n: n.order)
        label = clean(top.desc) or clean(top.text)
        return Aim(cx, cy, f'"{label}" is drawn over that point and is not a control — it may take the touch',
                   {"label": label, "control": False})
    return Aim(cx, cy)


# --------------------------------------------------------------------------------------------------------------------
# Matching

def _norm(s: str) -> str:
    return " ".join((s or "").split()).lower()


def node_matches(n: UiNode, loc: Locator) -> bool:
    v = loc.value
    if not v:
        return False
    if loc.kind == "text":
        # The node's text as Android reports it: an empty field's is its placeholder, so text=username finds the
        # empty username field, as it does on a device. A password's text is never matched.
        hay = "" if n.password else n.text
        ok = (_norm(hay) == _norm(v)) if loc.exact else (_norm(v) in _norm(hay))
    elif loc.kind == "label":
        ok = (_norm(n.desc) == _norm(v)) if loc.exact else (_norm(v) in _norm(n.desc))
    elif loc.kind == "testid":
        if not n.rid:
            return False
        ids = (n.rid.lower(), short_id(n.rid).lower())
        ok = (v.lower() in ids) if loc.exact else any(v.lower() in i for i in ids)
    elif loc.kind == "role":
        ok = v in n.locator_roles()
    elif loc.kind == "class":
        ok = v.lower() in n.cls.lower()
    elif loc.kind == "path":
        ok = n.path == v
    else:
        ok = False
    if ok and loc.role:
        ok = loc.role in n.locator_roles()
    return ok


def find(snap: Snapshot, loc: Locator, context: str = "NATIVE_APP") -> list[UiNode]:
    scope = [n for n in snap.scope(context) if not n.empty]
    hits = [n for n in scope if node_matches(n, loc)]
    if loc.kind == "testid" and not loc.exact and len(hits) > 1:
        exact = [n for n in hits if loc.value.lower() in (n.rid.lower(), short_id(n.rid).lower())]
        if len(exact) == 1:
            hits = exact
    if loc.kind in ("text", "label") and len(hits) > 1:
        # A node inside another match at the same box is the same thing (a Button and its caption).
        hits = [n for n in hits if not any(o is not n and o.is_ancestor_of(n) and _same_box(o, n) for o in hits)]
        # The caption TextView of a matched control, and the control: keep the control.
        if len(hits) > 1 and not loc.exact:
            whole = [n for n in hits if _norm(n.desc if loc.kind == "label" else n.text) == _norm(loc.value)]
            if whole and len(whole) < len(hits):
                hits = whole
    if len(hits) > 1:
        # One element, two nodes: a control and the words inside it (same kind of match on both).
        hits = [n for n in hits if not any(o is not n and o.is_ancestor_of(n) and (o.clickable or o.checkable)
                                           for o in hits)]
    return hits


def derive_locator(snap: Snapshot, node: UiNode, context: str, role: str) -> Locator:
    """The locator a ref stands for: the first of testid, label, text (then each narrowed by role) that finds
    exactly this node; else its path."""
    cands: list[Locator] = []
    if node.rid:
        cands.append(Locator("testid", node.rid, exact=True))
    if node.desc:
        cands.append(Locator("label", node.desc, exact=True))
    text = "" if node.password else (node.value if node.editable_class else node.text)
    if text:
        cands.append(Locator("text", text, exact=True))
    base = list(cands)
    if role in ("button", "input", "checkbox", "switch", "radio", "slider", "password"):
        cands += [Locator(c.kind, c.value, True, role) for c in base]
    for c in cands:
        hits = find(snap, c, context)
        if len(hits) == 1 and hits[0] is node:
            return c
    return Locator("path", node.path, exact=True)


def element_of(node: UiNode, elements: list[Element]) -> Optional[Element]:
    """The map element that is this node: itself, or the element its same-box group collapsed into (a Button and
    its caption are one element)."""
    for e in elements:
        if e.node is node or (_same_box(e.node, node) and (e.node.is_ancestor_of(node) or
                                                           node.is_ancestor_of(e.node))):
            return e
    return None


def element_for(snap: Snapshot, node: UiNode, elements: list[Element]) -> Optional[Element]:
    """The map element a node belongs to (itself, or the nearest mapped ancestor)."""
    by_node = {id(e.node): e for e in elements}
    n: Optional[UiNode] = node
    while n is not None:
        if id(n) in by_node:
            return by_node[id(n)]
        n = n.parent
    # A node in a collapsed group that is not the touch target (an outer wrapper with the same box).
    for e in elements:
        if _same_box(e.node, node) and (e.node.is_ancestor_of(node) or node.is_ancestor_of(e.node)):
            return e
    return None


def spinners(snap: Snapshot, context: str = "NATIVE_APP") -> list[UiNode]:
    return [n for n in snap.scope(context) if n.is_progress and not n.empty]


def short(node: UiNode) -> str:
    return clean(node.desc) or clean(node.text) or short_id(node.rid) or short_class(node.cls)
