"""The text filters of the virtual device's shell: grep (basic and extended regexes), head, tail, wc, sort."""

from __future__ import annotations

import re

from ..filesystem import fs_read
from .base import Ctx, command


@command("grep", "egrep")
def _grep(ctx: Ctx, args: list[str]) -> int:
    if ctx.argv0 == "egrep":
        args = ["-E", *args]
    opts = {"i": False, "v": False, "o": False, "q": False, "c": False, "n": False, "w": False, "F": False,
            "E": False, "l": False, "s": False, "h": False, "x": False}
    patterns: list[str] = []
    rest: list[str] = []
    max_count = before = after = None
    it = iter(args)
    for a in it:
        if a == "--":
            rest.extend(it)
            break
        if a.startswith("--"):
            if a in ("--color=never", "--color", "--line-buffered", "--color=auto"):
                continue
            ctx.errln(f"grep: Unknown option '{a[2:]}'")
            return 2
        if a.startswith("-") and len(a) > 1:
            body = a[1:]
            j = 0
            while j < len(body):
                f = body[j]
                if f == "e":
                    val = body[j + 1:] or next(it, None)
                    if val is None:
                        ctx.errln("grep: option requires an argument -- e")
                        return 2
                    patterns.append(val)
                    break
                if f in "mABC":
                    # options with a number: -A 3, -A3, -m 1
                    raw = body[j + 1:] or next(it, None)
                    try:
                        num = int(raw or "")
                    except ValueError:
                        ctx.errln(f"grep: invalid number '{raw}'")
                        return 2
                    if f == "m":
                        max_count = num
                    elif f == "A":
                        after = num
                    elif f == "B":
                        before = num
                    else:
                        after = before = num
                    break
                if f not in opts:
                    ctx.errln(f"grep: Unknown option '{f}'")
                    return 2
                opts[f] = True
                j += 1
            continue
        rest.append(a)
    if not patterns:
        if not rest:
            ctx.errln("usage: grep [-EFHIabcdhilnoqrsvwxz] [-ABCm NUM] [-M GLOB] [-e REGEX]... [-f REGEXFILE] "
                      "[FILE]...")
            return 2
        patterns.append(rest.pop(0))
    flags = re.IGNORECASE if opts["i"] else 0
    try:
        regexes = []
        for p in patterns:
            src = re.escape(p) if opts["F"] else _posix_regex(p, extended=opts["E"])
            if opts["w"]:
                src = rf"\b(?:{src})\b"
            if opts["x"]:
                src = rf"^(?:{src})$"
            regexes.append(re.compile(src, flags))
    except re.error:
        ctx.errln(f"grep: bad regex '{patterns[0]}'")
        return 2
    sources: list[tuple[str, bytes]] = []
    status_err = False
    if rest:
        for f in rest:
            data = fs_read(ctx.device, ctx.path(f))
            if data is None:
                if not opts["s"]:
                    ctx.errln(f"grep: {f}: No such file or directory")
                status_err = True
                continue
            sources.append((f, data))
    else:
        sources.append(("(standard input)", ctx.stdin))
    show_name = len(rest) > 1 and not opts["h"]
    context = (before or 0, after or 0)
    found = False
    for name, data in sources:
        count = 0
        lines = data.decode(errors="replace").split("\n")
        if lines and lines[-1] == "":
            lines.pop()
        last_printed = -1
        trailing = 0
        for idx, text in enumerate(lines):
            lineno = idx + 1
            if max_count is not None and count >= max_count:
                break
            hits = [m for r in regexes for m in r.finditer(text)]
            matched = bool(hits)
            if matched == opts["v"]:
                if trailing > 0 and not (opts["c"] or opts["l"] or opts["o"]):
                    ctx.outln((f"{name}-" if show_name else "") + (f"{lineno}-" if opts["n"] else "") + text)
                    last_printed = idx
                    trailing -= 1
                continue
            count += 1
            found = True
            if opts["q"]:
                return 0
            if opts["c"] or opts["l"]:
                continue
            if context != (0, 0) and not opts["o"]:
                start = max(last_printed + 1, idx - context[0])
                if last_printed >= 0 and start > last_printed + 1:
                    ctx.outln("--")
                for k in range(start, idx):
                    ctx.outln((f"{name}-" if show_name else "") + (f"{k + 1}-" if opts["n"] else "") + lines[k])
                trailing = context[1]
            prefix = (f"{name}:" if show_name else "") + (f"{lineno}:" if opts["n"] else "")
            if opts["o"] and not opts["v"]:
                for m in sorted(hits, key=lambda m: m.start()):
                    if m.group(0):
                        ctx.outln(prefix + m.group(0))
            else:
                ctx.outln(prefix + text)
            last_printed = idx
        if opts["c"]:
            ctx.outln((f"{name}:" if show_name else "") + str(count))
        if opts["l"] and count:
            ctx.outln(name)
    if status_err and not found:
        return 2
    return 0 if found else 1


def _posix_regex(p: str, extended: bool) -> str:
    """toybox grep uses POSIX regexes; Python's syntax is close enough once basic-regex escapes are swapped."""
    if extended:
        return p
    # BRE: \| \( \) \{ \} \+ \? are operators, the bare characters are literals
    out = []
    i = 0
    while i < len(p):
        c = p[i]
        if c == "\\" and i + 1 < len(p) and p[i + 1] in "|(){}+?":
            out.append(p[i + 1])
            i += 2
            continue
        if c in "|(){}+?":
            out.append("\\" + c)
        else:
            out.append(c)
            if c == "\\" and i + 1 < len(p):
                out.append(p[i + 1])
                i += 1
        i += 1
    return "".join(out)


def _count_arg(args: list[str], default: int) -> tuple[int, list[str]]:
    """-> (count, files); a byte count (-c N) comes back negative so callers can tell it from a line count."""
    n = default
    files = []
    it = iter(args)
    for a in it:
        if a == "-c":
            n = -int(next(it, default))
        elif re.fullmatch(r"-c\d+", a):
            n = -int(a[2:])
        elif a == "-n":
            n = int(next(it, default))
        elif re.fullmatch(r"-n\d+", a):
            n = int(a[2:])
        elif re.fullmatch(r"-\d+", a):
            n = int(a[1:])
        else:
            files.append(a)
    return n, files


def _input_lines(ctx: Ctx, files: list[str], name: str) -> list[bytes] | None:
    if files:
        data = fs_read(ctx.device, ctx.path(files[0]))
        if data is None:
            ctx.errln(f"{name}: {files[0]}: No such file or directory")
            return None
    else:
        data = ctx.stdin
    return data.splitlines(keepends=True)


@command("head")
def _head(ctx: Ctx, args: list[str]) -> int:
    try:
        n, files = _count_arg(args, 10)
    except ValueError:
        ctx.errln("head: bad -n")
        return 1
    lines = _input_lines(ctx, files, "head")
    if lines is None:
        return 1
    if n < 0 or (n == 0 and "-c" in args):
        ctx.out(b"".join(lines)[:-n])
        return 0
    ctx.out(b"".join(lines[:n]))
    return 0


@command("tail")
def _tail(ctx: Ctx, args: list[str]) -> int:
    try:
        n, files = _count_arg(args, 10)
    except ValueError:
        ctx.errln("tail: bad -n")
        return 1
    lines = _input_lines(ctx, files, "tail")
    if lines is None:
        return 1
    if n < 0:
        ctx.out(b"".join(lines)[n:])
        return 0
    ctx.out(b"".join(lines[-n:] if n else []))
    return 0


@command("wc")
def _wc(ctx: Ctx, args: list[str]) -> int:
    flags = "".join(a[1:] for a in args if a.startswith("-"))
    files = [a for a in args if not a.startswith("-")]
    if files:
        data = fs_read(ctx.device, ctx.path(files[0]))
        if data is None:
            ctx.errln(f"wc: {files[0]}: No such file or directory")
            return 1
    else:
        data = ctx.stdin
    counts = {"l": data.count(b"\n"), "w": len(data.split()), "c": len(data)}
    chosen = [c for c in "lwc" if c in flags] or ["l", "w", "c"]
    fields = [str(counts[c]) for c in chosen]
    if len(chosen) == 1 and not files:
        ctx.outln(fields[0])
    else:
        ctx.outln(" ".join(f"{f:>7}" for f in fields) + (f" {files[0]}" if files else ""))
    return 0


@command("sort")
def _sort(ctx: Ctx, args: list[str]) -> int:
    lines = ctx.stdin.decode(errors="replace").splitlines()
    lines.sort(reverse="-r" in args)
    ctx.out("".join(line + "\n" for line in lines))
    return 0
