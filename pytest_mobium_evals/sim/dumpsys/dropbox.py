"""`dumpsys dropbox [-p|--print] [-f|--file] [YYYY-mm-dd] [HH:MM:SS] [tag]`, as DropBoxManagerService prints it.

Every search term must match an entry (a tag equal to its tag, or a piece of its date line), so a tag and a date
from another tag's entry find nothing. `-p` prints each entry whole under a separator line, `-f` its file's path;
neither gives a one-line preview."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ..commands.base import Ctx
    from ..device.virtual_device import VirtualDevice

SEPARATOR = "=" * 40
LOW_PRIORITY = ("data_app_wtf, keymaster, system_server_wtf, system_app_strictmode, system_app_wtf, "
                "system_server_strictmode, data_app_strictmode, netstats")
PREVIEW_CHARS = 70


def _date(millis: int) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(millis / 1000))


def _dropbox(ctx: "Ctx", d: "VirtualDevice", args: list[str]) -> int:
    printing = any(a in ("-p", "--print") for a in args)
    files = any(a in ("-f", "--file") for a in args)
    terms = [a for a in args if not a.startswith("-")]
    entries = list(d.dropbox)
    ctx.outln(f"Drop box contents: {len(entries)} entries")
    ctx.outln("Max entries: 1000")
    ctx.outln("Low priority rate limit period: 2000 ms")
    ctx.outln(f"Low priority tags: {{{LOW_PRIORITY}}}")
    if terms:
        ctx.outln("Searching for: " + " ".join(terms))
    ctx.outln("")
    found = 0
    for e in entries:
        date = _date(e.millis)
        if not all(t == e.tag or t in date for t in terms):
            continue
        found += 1
        if printing:
            ctx.outln(SEPARATOR)
        ctx.outln(f"{date} {e.tag} (text, {len(e.text.encode())} bytes)")
        if files:
            ctx.outln(e.path if printing else "    " + e.path)
        if printing:
            ctx.out(e.text if e.text.endswith("\n") else e.text + "\n")
            ctx.outln("")
        elif not files:
            ctx.outln("    " + e.text[:PREVIEW_CHARS].replace("\n", " / "))
    if not found:
        ctx.outln("(No entries found.)")
    if not args:
        ctx.outln("")
        ctx.outln("Usage: dumpsys dropbox [--print|--file] [YYYY-mm-dd] [HH:MM:SS] [tag]")
    return 0
