"""How the tools shape answers: articles for argument kinds, boxes and bounds, durations, masked passwords in a
source dump, and the notifications parsed out of `dumpsys notification`."""

from __future__ import annotations

import re
from typing import Optional


def article(kind: Optional[str]) -> str:
    return {"string": "a string", "integer": "an integer", "number": "a number", "boolean": "true or false",
            "array": "a list", "object": "an object"}.get(kind or "", "a value")


def box_text(b) -> str:
    return f"[{b[0]},{b[1]}][{b[2]},{b[3]}]"


def bounds_json(b) -> dict:
    return {"x1": b[0], "y1": b[1], "x2": b[2], "y2": b[3]}


def duration_text(ms: int) -> str:
    return f"{ms}ms" if ms < 1000 else f"{ms / 1000:.3f}s"


def mask_passwords(xml: str) -> str:
    def fix(m: re.Match) -> str:
        node = m.group(0)
        if 'password="true"' not in node:
            return node
        return re.sub(r'text="([^"]*)"', lambda t: f'text="{"•" * len(t.group(1))}"', node, count=1)
    return re.sub(r"<node [^>]*>", fix, xml)


_NREC = re.compile(r"NotificationRecord\(0x[0-9a-f]+: pkg=(\S+)")


def parse_notifications(out: str) -> list[dict]:
    """Posted notifications from `dumpsys notification --noredact`: app, title, text (newest first, as listed)."""
    items: list[dict] = []
    cur: Optional[dict] = None
    for line in out.splitlines():
        m = _NREC.search(line)
        if m:
            cur = {"app": m.group(1), "title": "", "text": ""}
            k = re.search(r"\bkey=(\S+?)[:\s]", line)
            if k:
                cur["key"] = k.group(1)
            items.append(cur)
            continue
        if cur is None:
            continue
        t = re.search(r"android\.title=\w+ \((.*)\)\s*$", line)
        if t:
            cur["title"] = t.group(1)
        x = re.search(r"android\.text=\w+ \((.*)\)\s*$", line)
        if x:
            cur["text"] = x.group(1)
    seen, out_items = set(), []
    for it in items:
        k = (it["app"], it["title"], it["text"], it.get("key"))
        if k not in seen:
            seen.add(k)
            out_items.append(it)
    return out_items

