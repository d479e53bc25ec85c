"""`app_map` with `diff`: what changed on the screen since the device's last map, as Mobium answers it.

Refs are renumbered by every map, so elements are paired across two maps by what does not renumber, most trusted
first: a locator that names the element itself (testid or label), then the same role and label, then the same role
in nearly the same place (a relabelled element). A pair that differs is a change; what does not pair appeared or
went away. An agent that has just acted reads what its action did without a whole map burying it."""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from typing import Optional

# A centre that moved less than this is a relayout's rounding, not a move; two centres this close pair a relabelled
# element with its old self.
MOVED_BY = 8
NEARLY_PLACED = 16


@dataclass(frozen=True)
class Seen:
    """One element of a map, kept for the next diff."""
    ref: str
    label: str
    role: str
    key: str                    # testid=… or label=…, or "" when the locator says where, not what
    state: tuple[str, ...]      # checked/unchecked, disabled, a slider's value … (the map line's state after role)
    checked: Optional[bool]
    value: Optional[str]
    bounds: tuple[int, int, int, int]
    view: dict = field(hash=False, compare=False)

    def line(self, with_ref: bool) -> str:
        parts = ([self.role] if self.role else []) + list(self.state)
        text = f"{self.label} ({', '.join(parts)})" if parts else self.label
        return f"{self.ref} {text}" if with_ref else text

    @property
    def center(self) -> tuple[int, int]:
        x1, y1, x2, y2 = self.bounds
        return (x1 + x2) // 2, (y1 + y2) // 2

    @property
    def size(self) -> tuple[int, int]:
        x1, y1, x2, y2 = self.bounds
        return x2 - x1, y2 - y1


@dataclass
class LastMap:
    elements: list[Seen]
    taken: float


def seen_of(el) -> Seen:
    """An `elements.Element` as the diff keeps it."""
    loc = el.locator
    key = f"{loc.kind}={loc.value}" if loc is not None and loc.kind in ("testid", "label") else ""
    state = tuple(el.state()[1:] if el.role else el.state())
    checked = el.node.checked if (el.role in ("checkbox", "radio", "switch") or el.node.checkable) else None
    return Seen(el.ref, el.label, el.role, key, state, checked, el.value, tuple(el.node.bounds), el.to_json())


def _distance(a: Seen, b: Seen) -> int:
    (ax, ay), (bx, by) = a.center, b.center
    return max(abs(ax - bx), abs(ay - by))


def _resized(a: Seen, b: Seen) -> bool:
    (aw, ah), (bw, bh) = a.size, b.size
    return abs(aw - bw) > MOVED_BY or abs(ah - bh) > MOVED_BY


def pair(before: list[Seen], after: list[Seen]) -> tuple[list[Seen], list[Seen], list[tuple[Seen, Seen, list[str]]]]:
    """(added, removed, changed): changed holds (before, after, what) with what among label, checked, value,
    resized, moved."""
    taken_b: set[int] = set()
    pairs: dict[int, int] = {}
    tests = (lambda b, a: a.key != "" and a.key == b.key,
             lambda b, a: a.role == b.role and a.label == b.label,
             lambda b, a: a.role == b.role and _distance(a, b) <= NEARLY_PLACED)
    for test in tests:
        for ai, a in enumerate(after):
            if ai in pairs:
                continue
            for bi, b in enumerate(before):
                if bi not in taken_b and test(b, a):
                    pairs[ai] = bi
                    taken_b.add(bi)
                    break
    added, changed = [], []
    for ai, a in enumerate(after):
        if ai not in pairs:
            added.append(a)
            continue
        b = before[pairs[ai]]
        what = []
        if a.label != b.label:
            what.append("label")
        if a.checked != b.checked:
            what.append("checked")
        if a.value != b.value:
            what.append("value")
        if _resized(a, b):
            what.append("resized")
        elif _distance(a, b) > MOVED_BY:
            what.append("moved")
        if what:
            changed.append((b, a, what))
    removed = [b for bi, b in enumerate(before) if bi not in taken_b]
    return added, removed, changed


def _was(b: Seen, what: str) -> str:
    if what == "label":
        return f'was "{b.label}"'
    if what == "checked":
        return "was " + ("checked" if b.checked else "unchecked") if b.checked is not None else "was not checkable"
    if what == "value":
        return f"was {b.value}"
    if what == "moved":
        return f"moved from ({b.center[0]}, {b.center[1]})"
    w, h = b.size
    return f"resized from {w}x{h}"


def _direction(dx: int, dy: int) -> str:
    parts = []
    if dy:
        parts.append(f"down {dy}px" if dy > 0 else f"up {-dy}px")
    if dx:
        parts.append(f"right {dx}px" if dx > 0 else f"left {-dx}px")
    return " and ".join(parts)


def diff(last: Optional[LastMap], now: list[Seen]) -> tuple[str, dict]:
    """The diff's text and its structured view (first, since, added, removed, changed)."""
    if last is None:
        text = "no earlier map on this device to compare with: every element is new"
        lines = [text] + ["+ " + s.line(True) for s in now]
        return "\n".join(lines), {"first": True, "added": [s.view for s in now], "removed": [], "changed": []}
    added, removed, changed = pair(last.elements, now)
    view = {"since": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime(last.taken)),
            "added": [s.view for s in added], "removed": [s.view for s in removed],
            "changed": [{"before": b.view, "after": a.view, "what": what} for b, a, what in changed]}
    lines = ["- " + s.line(False) for s in removed] + ["+ " + s.line(True) for s in added]
    # Elements that only moved, all by the same amount, are one line: a layout that shifted, not many changes.
    shifts: dict[tuple[int, int], list[Seen]] = {}
    for b, a, what in changed:
        if what == ["moved"]:
            shifts.setdefault((a.center[0] - b.center[0], a.center[1] - b.center[1]), []).append(a)
    for b, a, what in changed:
        if what == ["moved"] and len(shifts[(a.center[0] - b.center[0], a.center[1] - b.center[1])]) > 1:
            continue
        lines.append(f"~ {a.line(True)} — " + ", ".join(_was(b, w) for w in what))
    for (dx, dy), group in shifts.items():
        if len(group) > 1:
            lines.append(f"~ {len(group)} elements moved together, {_direction(dx, dy)}: "
                         + ", ".join(f"{s.ref} {s.label}" for s in group))
    if not lines:
        return f"nothing changed since the last map: the same {len(now)} elements, in the same places", view
    return "\n".join(lines), view
