"""The commands of the virtual device's shell: Android's (settings, am, pm, input, uiautomator, …) and the toybox
ones the harness and its parsers pipe through (cat, grep, ls, …). Output formats and exit statuses follow
/work/shared/reference/android-shell-outputs.md (Android 15)."""

from __future__ import annotations

import posixpath
import re
import time
from typing import Callable

from .device import LAUNCHER_PACKAGE, VirtualDevice, VirtualDeviceError
from .shell import KEY_NAMES, SH, Ctx, ShellExit, sleep_real

COMMANDS: dict[str, Callable[[Ctx, list[str]], int]] = {}


def command(*names: str):
    def deco(fn):
        for n in names:
            COMMANDS[n] = fn
        return fn
    return deco


def java_exception(ctx: Ctx, sub: str, exc_class: str, message: str, where: str) -> int:
    """Android's shell-command exception print (stderr): blank line, header, exception, a short stack."""
    ctx.err(f"\nException occurred while executing '{sub}':\n{exc_class}: {message}\n"
            f"\tat {where}\n"
            f"\tat com.android.modules.utils.BasicShellCommandHandler.exec(BasicShellCommandHandler.java:97)\n"
            f"\tat android.os.ShellCommand.exec(ShellCommand.java:38)\n"
            f"\tat android.os.Binder.shellCommand(Binder.java:1092)\n"
            f"\tat android.os.Binder.onTransact(Binder.java:912)\n")
    return 255


# ---------------------------------------------------------------------------------------------------------------
# the file system: /sdcard (shared storage), /data/local/tmp, and a few read-only system files

ALIASES = (("/storage/emulated/0", "/sdcard"), ("/storage/self/primary", "/sdcard"), ("/mnt/sdcard", "/sdcard"),
           ("/mnt/user/0/primary", "/sdcard"))
WRITABLE = ("/sdcard/", "/data/local/tmp/")


def fs_norm(path: str) -> str:
    if not path:
        return ""
    if not path.startswith("/"):
        path = "/" + path  # the shell's working directory is /
    path = posixpath.normpath(path)
    if path.startswith("//"):
        path = path[1:]
    for prefix, target in ALIASES:
        if path == prefix or path.startswith(prefix + "/"):
            path = target + path[len(prefix):]
    return path


def _system_file(device: VirtualDevice, path: str) -> bytes | None:
    if path == "/system/build.prop":
        return "".join(f"{k}={v}\n" for k, v in sorted(device.props.items()) if k.startswith("ro.")).encode()
    if path == "/proc/version":
        return (b"Linux version 6.6.30-android15-8-gdd9c02ccfe27-ab11987101 (kleaf@build-host) (Android (11368308, "
                b"+pgo, +bolt, +lto, +mlgo, based on r510928) clang version 18.0.0) #1 SMP PREEMPT Fri Jun 28 "
                b"2024\n")
    if path == "/proc/uptime":
        up = device.now()
        return f"{up:.2f} {up * 1.8:.2f}\n".encode()
    if path == "/proc/meminfo":
        return b"MemTotal:        2015464 kB\nMemFree:          312580 kB\nMemAvailable:    1034812 kB\n"
    if path == "/proc/net/unix":
        return b"Num       RefCount Protocol Flags    Type St Inode Path\n"
    return None


def fs_read(device: VirtualDevice, path: str) -> bytes | None:
    if path in device.files:
        return device.files[path]
    return _system_file(device, path)


def fs_isdir(device: VirtualDevice, path: str) -> bool:
    if path in device.dirs:
        return True
    prefix = path.rstrip("/") + "/"
    return any(p.startswith(prefix) for p in device.files)


def fs_exists(device: VirtualDevice, path: str) -> bool:
    return fs_isdir(device, path) or fs_read(device, path) is not None


def fs_listdir(device: VirtualDevice, path: str) -> list[str] | None:
    if not fs_isdir(device, path):
        return None
    prefix = "/" if path == "/" else path.rstrip("/") + "/"
    names = set()
    for p in list(device.files) + list(device.dirs):
        if p.startswith(prefix) and p != path:
            rest = p[len(prefix):]
            if rest:
                names.add(rest.split("/", 1)[0])
    return sorted(names)


def fs_writable(path: str) -> bool:
    return any(path.startswith(w) for w in WRITABLE)


def fs_write(device: VirtualDevice, path: str, data: bytes, *, append: bool) -> bool:
    if not fs_writable(path) or fs_isdir(device, path):
        return False
    parent = posixpath.dirname(path)
    if not fs_isdir(device, parent):
        return False
    device.files[path] = (device.files.get(path, b"") + data) if append else data
    return True


# ---------------------------------------------------------------------------------------------------------------
# toybox basics

@command("true")
def _true(ctx: Ctx, args: list[str]) -> int:
    return 0


@command("false")
def _false(ctx: Ctx, args: list[str]) -> int:
    return 1


@command("exit")
def _exit(ctx: Ctx, args: list[str]) -> int:
    status = ctx.shell.status
    if args:
        try:
            status = int(args[0])
        except ValueError:
            ctx.errln(f"{SH}: exit: {args[0]}: bad number")
            status = 1
    raise ShellExit(status & 0xFF)


@command("echo")
def _echo(ctx: Ctx, args: list[str]) -> int:
    newline, escapes = True, False
    while args and re.fullmatch(r"-[neE]+", args[0]):
        flags = args.pop(0)
        newline = newline and "n" not in flags
        escapes = "e" in flags or escapes
    text = " ".join(args)
    if escapes:
        text = text.encode().decode("unicode_escape", errors="replace")
    ctx.out(text + ("\n" if newline else ""))
    return 0


@command("printf")
def _printf(ctx: Ctx, args: list[str]) -> int:
    if not args:
        ctx.errln("printf: Need 1 argument")
        return 1
    fmt, rest = args[0], args[1:]
    fmt = fmt.encode().decode("unicode_escape", errors="replace")
    out = []
    while True:
        i = 0

        def repl(m: re.Match) -> str:
            nonlocal i
            if m.group(0) == "%%":
                return "%"
            val = rest[i] if i < len(rest) else ""  # noqa: B023 (called within this iteration only)
            i += 1
            if m.group(1) == "d":
                try:
                    return str(int(val or 0))
                except ValueError:
                    return "0"
            return val
        out.append(re.sub(r"%%|%([sd])", repl, fmt))
        rest = rest[i:]
        if not rest or i == 0:
            break
    ctx.out("".join(out))
    return 0


@command("sleep")
def _sleep(ctx: Ctx, args: list[str]) -> int:
    if not args:
        ctx.errln("sleep: Needs 1 argument")
        return 1
    try:
        seconds = float(args[0].rstrip("s"))
    except ValueError:
        ctx.errln(f"sleep: invalid number '{args[0]}'")
        return 1
    sleep_real(ctx.device, seconds)
    return 0


@command("sh")
def _sh(ctx: Ctx, args: list[str]) -> int:
    if args and args[0] == "-c":
        if len(args) < 2:
            ctx.errln(f"{SH}: -c: option requires an argument")
            return 1
        try:
            return ctx.shell._run_src(args[1], ctx.stdin, ctx._out, ctx._err)
        except ShellExit as e:
            return e.status
    if args:
        content = fs_read(ctx.device, ctx.path(args[0]))
        if content is None:
            ctx.errln(f"{SH}: {args[0]}: No such file or directory")
            return 127
        src = content.decode(errors="replace")
    else:
        src = ctx.stdin.decode(errors="replace")
    try:
        return ctx.shell._run_src(src, b"", ctx._out, ctx._err)
    except ShellExit as e:
        return e.status


@command("exec")
def _exec(ctx: Ctx, args: list[str]) -> int:
    """`exec CMD…` (what `adb logcat` sends: `export ANDROID_LOG_TAGS="" ; exec logcat`): runs CMD in place."""
    if not args:
        return 0
    from .shell import quote
    try:
        return ctx.shell._run_src(quote(args), ctx.stdin, ctx._out, ctx._err)
    except ShellExit as e:
        return e.status


@command("cd")
def _cd(ctx: Ctx, args: list[str]) -> int:
    target = ctx.path(args[0]) if args else "/"
    if not fs_isdir(ctx.device, target):
        ctx.errln(f"{SH}: cd: {args[0]}: No such file or directory")
        return 2
    ctx.shell.cwd = target
    return 0


@command("pwd")
def _pwd(ctx: Ctx, args: list[str]) -> int:
    ctx.outln(ctx.shell.cwd)
    return 0


@command("id")
def _id(ctx: Ctx, args: list[str]) -> int:
    if "-u" in args:
        ctx.outln("2000")
        return 0
    ctx.outln("uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),1007(log),1011(adb),1015(sdcard_rw),"
              "1028(sdcard_r),1078(ext_data_rw),1079(ext_obb_rw),3001(net_bt_admin),3002(net_bt),3003(inet),"
              "3006(net_bw_stats),3009(readproc),3011(uhid),3012(readtracefs) context=u:r:shell:s0")
    return 0


@command("whoami")
def _whoami(ctx: Ctx, args: list[str]) -> int:
    ctx.outln("shell")
    return 0


@command("date")
def _date(ctx: Ctx, args: list[str]) -> int:
    wall = ctx.device.clock.wall()
    fmt = next((a[1:] for a in args if a.startswith("+")), None)
    if fmt is not None:
        if "%s" in fmt:
            fmt = fmt.replace("%s", str(int(wall)))
        ctx.outln(time.strftime(fmt, time.gmtime(wall)))
    else:
        ctx.outln(time.strftime("%a %b %e %H:%M:%S UTC %Y", time.gmtime(wall)))  # toybox: day space-padded
    return 0


@command("uptime")
def _uptime(ctx: Ctx, args: list[str]) -> int:
    up = int(ctx.device.now())
    wall = time.strftime("%H:%M:%S", time.gmtime(ctx.device.clock.wall()))
    ctx.outln(f" {wall} up {up // 86400} days, {up % 86400 // 3600:2d}:{up % 3600 // 60:02d},  0 users,  "
              f"load average: 0.52, 0.41, 0.33")
    return 0


@command("env", "printenv")
def _env(ctx: Ctx, args: list[str]) -> int:
    if args:
        v = ctx.shell.env.get(args[0])
        if v is None:
            return 1
        ctx.outln(v)
        return 0
    for k in sorted(ctx.shell.env):
        ctx.outln(f"{k}={ctx.shell.env[k]}")
    return 0


@command("export")
def _export(ctx: Ctx, args: list[str]) -> int:
    for a in args:
        if "=" in a:
            k, v = a.split("=", 1)
            ctx.shell.env[k] = v
    return 0


@command("which", "command")
def _which(ctx: Ctx, args: list[str]) -> int:
    args = [a for a in args if not a.startswith("-")]
    status = 0
    for a in args:
        if a in COMMANDS:
            ctx.outln(f"/system/bin/{a}")
        else:
            status = 1
    return status


@command("cat")
def _cat(ctx: Ctx, args: list[str]) -> int:
    files = [a for a in args if a != "-" and not (a.startswith("-") and len(a) > 1)]
    if not files:
        ctx.out(ctx.stdin)
        return 0
    status = 0
    for f in files:
        path = ctx.path(f)
        if fs_isdir(ctx.device, path):
            ctx.errln(f"cat: {f}: Is a directory")
            status = 1
            continue
        data = fs_read(ctx.device, path)
        if data is None:
            ctx.errln(f"cat: {f}: No such file or directory")
            status = 1
            continue
        ctx.out(data)
    return status


@command("ls")
def _ls(ctx: Ctx, args: list[str]) -> int:
    flags = "".join(a[1:] for a in args if a.startswith("-") and len(a) > 1)
    paths = [a for a in args if not (a.startswith("-") and len(a) > 1)] or ["."]
    long, show_all, directory = "l" in flags, "a" in flags, "d" in flags
    status = 0
    many = len(paths) > 1
    for n, p in enumerate(paths):
        path = ctx.path(p)
        if not fs_exists(ctx.device, path):
            ctx.errln(f"ls: {p}: No such file or directory")
            status = 1
            continue
        if fs_isdir(ctx.device, path) and not directory:
            names = fs_listdir(ctx.device, path) or []
            if show_all:
                names = [".", ".."] + names
            if many:
                ctx.outln(("" if n == 0 else "\n") + f"{p}:")
            if long:
                ctx.outln(f"total {len(names) * 4}")
            for name in names:
                full = path.rstrip("/") + "/" + name if name not in (".", "..") else path
                ctx.outln(_ls_line(ctx.device, full, name) if long else name)
        else:
            ctx.outln(_ls_line(ctx.device, path, p) if long else p)
    return status


def _ls_line(device: VirtualDevice, path: str, name: str) -> str:
    stamp = time.strftime("%Y-%m-%d %H:%M", time.gmtime(device.clock.boot_wall))
    if fs_isdir(device, path):
        return f"drwxrws--- 2 u0_a175 media_rw 4096 {stamp} {name}"
    size = len(fs_read(device, path) or b"")
    return f"-rw-rw---- 1 u0_a175 media_rw {size:>4} {stamp} {name}"


@command("rm")
def _rm(ctx: Ctx, args: list[str]) -> int:
    flags = "".join(a[1:] for a in args if a.startswith("-") and len(a) > 1)
    force, recursive = "f" in flags, "r" in flags or "R" in flags
    status = 0
    for a in (x for x in args if not (x.startswith("-") and len(x) > 1)):
        path = ctx.path(a)
        if fs_isdir(ctx.device, path):
            if not recursive:
                ctx.errln(f"rm: {a}: is a directory")
                status = 1
                continue
            if not fs_writable(path + "/"):
                ctx.errln(f"rm: {a}: Permission denied")
                status = 1
                continue
            for f in [f for f in ctx.device.files if f.startswith(path + "/")]:
                del ctx.device.files[f]
            ctx.device.dirs = {d for d in ctx.device.dirs if not (d == path or d.startswith(path + "/"))} \
                | ({path} if path in ("/sdcard", "/data/local/tmp") else set())
            continue
        if path not in ctx.device.files:
            if not force:
                ctx.errln(f"rm: {a}: No such file or directory")
                status = 1
            continue
        if not fs_writable(path):
            ctx.errln(f"rm: {a}: Permission denied")
            status = 1
            continue
        del ctx.device.files[path]
    return status


@command("mkdir")
def _mkdir(ctx: Ctx, args: list[str]) -> int:
    parents = "-p" in args
    status = 0
    for a in (x for x in args if not x.startswith("-")):
        path = ctx.path(a)
        if not fs_writable(path + "/"):
            ctx.errln(f"mkdir: '{a}': Permission denied")
            status = 1
            continue
        if fs_isdir(ctx.device, path):
            if not parents:
                ctx.errln(f"mkdir: '{a}': File exists")
                status = 1
            continue
        parent = posixpath.dirname(path)
        if not fs_isdir(ctx.device, parent) and not parents:
            ctx.errln(f"mkdir: '{a}': No such file or directory")
            status = 1
            continue
        while path not in ctx.device.dirs and path != "/":
            ctx.device.dirs.add(path)
            path = posixpath.dirname(path)
    return status


@command("touch")
def _touch(ctx: Ctx, args: list[str]) -> int:
    status = 0
    for a in (x for x in args if not x.startswith("-")):
        path = ctx.path(a)
        if path not in ctx.device.files and not fs_write(ctx.device, path, b"", append=True):
            ctx.errln(f"touch: '{a}': Permission denied" if not fs_writable(path)
                      else f"touch: '{a}': No such file or directory")
            status = 1
    return status


@command("cp", "mv")
def _cp(ctx: Ctx, args: list[str]) -> int:
    files = [a for a in args if not a.startswith("-")]
    if len(files) != 2:
        ctx.errln("cp: Need 2 arguments")
        return 1
    src, dst = ctx.path(files[0]), ctx.path(files[1])
    data = fs_read(ctx.device, src)
    if data is None:
        ctx.errln(f"cp: {files[0]}: No such file or directory")
        return 1
    if fs_isdir(ctx.device, dst):
        dst = dst.rstrip("/") + "/" + posixpath.basename(src)
    if not fs_write(ctx.device, dst, data, append=False):
        ctx.errln(f"cp: {files[1]}: Permission denied")
        return 1
    return 0


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


@command("test", "[")
def _test(ctx: Ctx, args: list[str]) -> int:
    if args and args[-1] == "]":
        args = args[:-1]
    neg = False
    if args and args[0] == "!":
        neg, args = True, args[1:]
    result = False
    if len(args) == 2 and args[0] in ("-e", "-f", "-d", "-s", "-n", "-z"):
        op, val = args
        path = ctx.path(val)
        result = {"-e": lambda: fs_exists(ctx.device, path),
                  "-f": lambda: fs_read(ctx.device, path) is not None,
                  "-d": lambda: fs_isdir(ctx.device, path),
                  "-s": lambda: bool(fs_read(ctx.device, path)),
                  "-n": lambda: val != "", "-z": lambda: val == ""}[op]()
    elif len(args) == 3 and args[1] in ("=", "==", "!=", "-eq", "-ne", "-gt", "-lt", "-ge", "-le"):
        a, op, b = args
        if op in ("=", "=="):
            result = a == b
        elif op == "!=":
            result = a != b
        else:
            try:
                x, y = int(a), int(b)
            except ValueError:
                ctx.errln("test: bad number")
                return 2
            result = {"-eq": x == y, "-ne": x != y, "-gt": x > y, "-lt": x < y, "-ge": x >= y, "-le": x <= y}[op]
    elif len(args) == 1:
        result = args[0] != ""
    return 0 if result != neg else 1


# ---------------------------------------------------------------------------------------------------------------
# properties and settings

@command("getprop")
def _getprop(ctx: Ctx, args: list[str]) -> int:
    props = ctx.device.props
    if not args:
        for k in sorted(props):
            ctx.outln(f"[{k}]: [{props[k]}]")
        return 0
    ctx.outln(props.get(args[0], args[1] if len(args) > 1 else ""))
    return 0


@command("setprop")
def _setprop(ctx: Ctx, args: list[str]) -> int:
    if len(args) != 2:
        ctx.errln("usage: setprop NAME VALUE")
        return 1
    name, value = args
    if name.startswith("ro.") and name in ctx.device.props:
        ctx.errln(f"Failed to set property '{name}' to '{value}'.\nSee dmesg for error reason.")
        return 1
    ctx.device.props[name] = value
    return 0


SETTINGS_USAGE = """Settings provider (settings) commands:
  help
      Print this help text.
  get [--user <USER_ID> | current] NAMESPACE KEY
      Retrieve the current value of KEY.
  put [--user <USER_ID> | current] NAMESPACE KEY VALUE [TAG] [default]
      Change the contents of KEY to VALUE.
  delete [--user <USER_ID> | current] NAMESPACE KEY
      Delete the entry for KEY.
  reset [--user <USER_ID> | current] NAMESPACE {PACKAGE_NAME | RESET_MODE}
      Reset the global/secure table for a package with mode.
  list [--user <USER_ID> | current] [-d] [-s] NAMESPACE
      Print all defined keys.
      NAMESPACE is one of {system, secure, global}, case-insensitive
"""


@command("settings")
def _settings(ctx: Ctx, args: list[str]) -> int:
    args = list(args)
    user_given = False
    if args and args[0] == "--user":
        user_given = True
        args = args[2:]
    if not args or args[0] in ("help", "-h"):
        ctx.out(SETTINGS_USAGE)
        return 255 if not args else 0
    verb, rest = args[0], args[1:]
    if len(rest) >= 2 and rest[0] == "--user":
        user_given = True
        rest = rest[2:]
    if verb not in ("get", "put", "delete", "list", "reset"):
        ctx.errln(f"Invalid command: {verb}")
        return 255
    if not rest:
        ctx.errln("Bad arguments")
        return 255
    ns = rest[0].lower()
    if ns not in ("global", "secure", "system"):
        ctx.errln(f"Invalid namespace '{rest[0]}'")
        return 255
    table = ctx.device.settings(ns)
    if verb == "list":
        if user_given:
            ctx.errln("--user not supported for delete and list.")
            return 255
        for line in sorted(f"{k}={v}" for k, v in table.items()):
            ctx.outln(line)
        return 0
    if verb == "get":
        if len(rest) != 2:
            ctx.errln("Bad arguments" if len(rest) < 2 else "Too many arguments")
            return 255
        ctx.outln(table.get(rest[1], "null"))
        return 0
    if verb == "put":
        if len(rest) < 3:
            ctx.errln("Bad arguments")
            return 255
        if len(rest) > 5:
            ctx.errln("Too many arguments")
            return 255
        table[rest[1]] = rest[2]
        return 0
    if verb == "delete":
        if user_given:
            ctx.errln("--user not supported for delete and list.")
            return 255
        if len(rest) != 2:
            ctx.errln("Bad arguments")
            return 255
        existed = table.pop(rest[1], None) is not None
        ctx.outln(f"Deleted {1 if existed else 0} rows")
        return 0
    # reset: back to the emulator's defaults
    from .device import default_settings
    defaults = default_settings(ctx.device.serial)[ns]
    table.clear()
    table.update(defaults)
    return 0


# ---------------------------------------------------------------------------------------------------------------
# svc and cmd

@command("svc")
def _svc(ctx: Ctx, args: list[str]) -> int:
    d = ctx.device
    if len(args) == 2 and args[1] in ("enable", "disable"):
        on = args[1] == "enable"
        if args[0] == "wifi":
            d.set_wifi(on)
            return 0
        if args[0] == "bluetooth":
            d.set_bluetooth(on)
            return 0
        if args[0] == "data":
            d.set_mobile_data(on)
            return 0
        if args[0] == "nfc":
            ctx.errln("NFC is not supported on this device")
            return 1
    if args and args[0] == "power" and len(args) >= 2:
        return 0
    if args and args[0] in ("wifi", "bluetooth", "data", "nfc", "usb", "power"):
        what = {"wifi": "Wi-Fi manager", "bluetooth": "Bluetooth", "data": "mobile data connectivity",
                "nfc": "NFC functionality", "usb": "USB", "power": "power manager"}[args[0]]
        ctx.outln(f"Control the {what}\n\nusage: svc {args[0]} [enable|disable]\n")
        return 1
    ctx.outln("Available commands:\n    help     Show information about the subcommands\n"
              "    power    Control the power manager\n    data     Control mobile data connectivity\n"
              "    wifi     Control the Wi-Fi manager\n    usb      Control Usb state\n"
              "    nfc      Control NFC functions\n    bluetooth Control Bluetooth service\n")
    return 0 if not args or args[0] == "help" else 1


SERVICES = ("activity", "package", "settings", "input", "uimode", "connectivity", "wifi", "statusbar",
            "bluetooth_manager", "notification", "window", "power", "display", "battery", "input_method",
            "clipboard", "phone", "media_session", "audio", "location", "appops", "permissionmgr")


@command("cmd")
def _cmd(ctx: Ctx, args: list[str]) -> int:
    if args and args[0] == "-w":
        args = args[1:]
    if not args:
        ctx.errln("cmd: No service specified; use -l to list all running services. Use -w to start and wait "
                  "for a service.")
        return 20
    if args[0] == "-l":
        ctx.outln("Currently running services:")
        for s in sorted(SERVICES):
            ctx.outln(f"  {s}")
        return 0
    service, rest = args[0], args[1:]
    if service == "activity":
        return _am(ctx, rest)
    if service == "package":
        return _pm(ctx, rest)
    if service == "settings":
        return _settings(ctx, rest)
    if service == "input":
        return _input(ctx, rest)
    if service == "uimode":
        return _uimode(ctx, rest)
    if service == "connectivity":
        return _connectivity(ctx, rest)
    if service == "wifi":
        return _wifi(ctx, rest)
    if service == "statusbar":
        return _statusbar(ctx, rest)
    if service == "bluetooth_manager":
        if rest and rest[0] in ("enable", "disable"):
            ctx.device.set_bluetooth(rest[0] == "enable")
            return 0
        ctx.outln("Bluetooth Manager Commands:\n  enable\n  disable\n  wait-for-state:<STATE_OFF|STATE_ON>")
        return 255 if rest else 0
    if service == "notification":
        if rest and rest[0] == "set_dnd":
            return _set_dnd(ctx, rest[1:])
        return _notification_cmd(ctx, rest)
    if service == "location":
        return _location_cmd(ctx, rest)
    if service in SERVICES:
        if not rest:
            ctx.errln("No shell command implementation.")
            return 255
        ctx.outln(f"Unknown command: {rest[0]}")
        return 255
    ctx.errln(f"cmd: Can't find service: {service}")
    return 20


#: `cmd notification set_dnd` words and the zen_mode each writes (Settings.Global.ZEN_MODE_*).
ZEN_MODES = {"off": "0", "on": "1", "priority": "1", "none": "2", "alarms": "3", "all": "0"}


def _set_dnd(ctx: Ctx, args: list[str]) -> int:
    if len(args) != 1 or args[0] not in ZEN_MODES:
        ctx.errln("usage: cmd notification set_dnd [on|none (same)|priority|alarms|all|off (same)]")
        return 255
    ctx.device.settings("global")["zen_mode"] = ZEN_MODES[args[0]]
    return 0


def _location_cmd(ctx: Ctx, args: list[str]) -> int:
    """`cmd location set-location-enabled true|false` and `is-location-enabled`, over secure location_mode (3 is
    "high accuracy", what turning location on restores; 0 is off)."""
    secure = ctx.device.settings("secure")
    if args[:1] == ["is-location-enabled"]:
        ctx.outln("true" if secure.get("location_mode", "0") != "0" else "false")
        return 0
    if args[:1] == ["set-location-enabled"] and len(args) >= 2 and args[1] in ("true", "false"):
        secure["location_mode"] = "3" if args[1] == "true" else "0"
        return 0
    ctx.outln("Location service commands:\n  help or -h\n    Print this help text.\n"
              "  is-location-enabled [--user <USER_ID>]\n    Gets the master location switch enabled state.\n"
              "  set-location-enabled [--user <USER_ID>] true|false\n    Sets the master location switch "
              "enabled state.")
    return 0 if not args or args[0] in ("help", "-h") else 255


def _notification_cmd(ctx: Ctx, args: list[str]) -> int:
    """`cmd notification post [-t TITLE] [-S STYLE] [-v] TAG TEXT`: a notification from the shell user."""
    if not args or args[0] in ("help", "-h"):
        ctx.outln("usage: cmd notification SUBCMD [args]\n\nSUBCMDs:\n  allow_listener COMPONENT [user_id]\n"
                  "  post [--help | flags] TAG TEXT")
        return 0 if args else 255
    if args[0] != "post":
        ctx.outln(f"Unknown command: {args[0]}")
        return 255
    title = None
    rest: list[str] = []
    it = iter(args[1:])
    for a in it:
        if a in ("-t", "--title"):
            title = next(it, None)
        elif a in ("-S", "--style", "-i", "--icon", "-I", "--large-icon", "-c", "--content-intent", "-m",
                   "--message"):
            next(it, None)
        elif a in ("-v", "--verbose", "--wait"):
            continue
        elif a.startswith("-") and a != "-":
            ctx.errln(f"Error: unknown flag: {a}")
            return 255
        else:
            rest.append(a)
    if len(rest) < 2:
        return java_exception(ctx, "post", "java.lang.IllegalArgumentException",
                              "Argument expected after \"post\"" if not rest else "Argument expected",
                              "com.android.server.notification.NotificationShellCmd.doNotify"
                              "(NotificationShellCmd.java:612)")
    tag, text = rest[0], " ".join(rest[1:])
    ctx.device.post_notification("com.android.shell", title if title is not None else "", text, tag=tag)
    return 0


def _uimode(ctx: Ctx, args: list[str]) -> int:
    d = ctx.device
    if not args:
        ctx.outln("UiModeManager service (uimode) commands:\n  help\n    Print this help text.\n"
                  "  night [yes|no|auto|custom_schedule|custom_bedtime]\n"
                  "    Set or read night mode.\n  car [yes|no]\n    Set or read car mode.")
        return 255
    if args[0] != "night":
        if args[0] in ("help", "-h"):
            return _uimode(ctx, [])
        if args[0] == "car":
            ctx.outln("Car mode: no")
            return 0
        ctx.outln(f"Unknown command: {args[0]}")
        return 255
    if len(args) > 1:
        mode = args[1]
        if mode not in ("yes", "no", "auto"):
            if mode in ("custom_schedule", "custom_bedtime"):
                mode = "auto"
            else:
                ctx.errln("Error: mode must be 'yes', 'no', or 'auto', or 'custom_schedule', or "
                          "'custom_bedtime'")
                return 255
        d.set_night_mode(mode)
    current = {"2": "yes", "1": "no", "0": "auto"}.get(d.settings("secure").get("ui_night_mode", "1"), "unknown")
    ctx.outln(f"Night mode: {current}")
    return 0


def _connectivity(ctx: Ctx, args: list[str]) -> int:
    d = ctx.device
    if args and args[0] == "airplane-mode":
        if len(args) == 1:
            ctx.outln("enabled" if d.airplane_mode else "disabled")
            return 0
        if args[1] in ("enable", "disable"):
            d.set_airplane(args[1] == "enable")
            return 0
        ctx.errln(f"Unsupported command: airplane-mode {args[1]}")
        return 255
    if not args or args[0] in ("help", "-h"):
        ctx.outln("Connectivity service commands:\n  help\n    Print this help text.\n"
                  "  airplane-mode [enable|disable]\n    Turn airplane mode on or off.\n  airplane-mode\n"
                  "    Get airplane mode.")
        return 0 if args else 255
    ctx.outln(f"Unknown command: {args[0]}")
    return 255


def _wifi(ctx: Ctx, args: list[str]) -> int:
    d = ctx.device
    if not args:
        ctx.outln("Wi-Fi (wifi) commands:\n  help or -h\n    Print this help text.\n"
                  "  set-wifi-enabled enabled|disabled\n    Enables/disables Wifi on this device.\n"
                  "  status\n    Current wifi status")
        return 255
    if args[0] == "status":
        if d.wifi_enabled:
            ctx.outln("Wifi is enabled\nWifi scanning is only available when wifi is enabled\n"
                      "==== Primary ClientModeManager instance ====\n"
                      'Wifi is connected to "AndroidWifi"\n'
                      'WifiInfo: SSID: "AndroidWifi", BSSID: 00:13:10:85:fe:01, MAC: 02:00:00:00:00:00, '
                      "IP: /10.0.2.16, Security type: 0, Supplicant state: COMPLETED, Wi-Fi standard: 4, "
                      "RSSI: -50, Link speed: 1Mbps, Tx Link speed: 1Mbps, Max Supported Tx Link speed: 11Mbps, "
                      "Rx Link speed: -1Mbps, Max Supported Rx Link speed: 11Mbps, Frequency: 2447MHz")
        else:
            ctx.outln("Wifi is disabled\nWifi scanning is only available when wifi is enabled")
        return 0
    if args[0] == "set-wifi-enabled":
        if len(args) < 2 or args[1] not in ("enabled", "disabled"):
            ctx.errln("Invalid argument: set-wifi-enabled needs 'enabled' or 'disabled'")
            return 255
        d.set_wifi(args[1] == "enabled")
        return 0
    ctx.outln(f"Unknown command: {args[0]}")
    return 255


def _statusbar(ctx: Ctx, args: list[str]) -> int:
    d = ctx.device
    if args and args[0] in ("expand-notifications", "expand-settings"):
        d.shade_expanded = True
        d.keyboard_shown = False
        return 0
    if args and args[0] == "collapse":
        d.shade_expanded = False
        return 0
    ctx.outln("Status bar commands:\n  help\n    Print this help text.\n\n  expand-notifications\n"
              "    Open the notifications panel.\n\n  expand-settings\n    Open the notifications panel and "
              "expand quick settings if present.\n\n  collapse\n    Collapse the notifications and settings "
              "panel.")
    return 0 if not args or args[0] == "help" else 255


# ---------------------------------------------------------------------------------------------------------------
# am

AM_USAGE = """Activity manager (activity) commands:
  help
      Print this help text.
  start-activity [-D] [-N] [-W] [-P <FILE>] [--start-profiler <FILE>]
          [--sampling INTERVAL] [--streaming] [-R COUNT] [-S]
          [--track-allocation] [--user <USER_ID> | current] <INTENT>
      Start an Activity.
  force-stop [--user <USER_ID> | all | current] <PACKAGE>
      Completely stop the given application package.
  broadcast [--user <USER_ID> | all | current] <INTENT>
      Send a broadcast Intent.
  stack list
      List all of the activity stacks and their sizes.
"""


class Intent:
    def __init__(self) -> None:
        self.action: str | None = None
        self.categories: list[str] = []
        self.data: str | None = None
        self.mime: str | None = None
        self.component: str | None = None
        self.package: str | None = None
        self.flags: int | None = None
        self.extras: dict = {}

    def describe(self, short_cmp: str | None = None, flags: int | None = None) -> str:
        parts = []
        if self.action:
            parts.append(f"act={self.action}")
        if self.categories:
            parts.append(f"cat=[{','.join(self.categories)}]")
        if self.data:
            parts.append(f"dat={self.data}")
        if self.mime:
            parts.append(f"typ={self.mime}")
        f = flags if flags is not None else self.flags
        if f:
            parts.append(f"flg=0x{f:x}")
        if self.package and not self.component:
            parts.append(f"pkg={self.package}")
        if short_cmp or self.component:
            parts.append(f"cmp={short_cmp or self.component}")
        s = " ".join(parts)
        if self.extras:
            s += " (has extras)"
        return s


class UsageError(Exception):
    pass


def parse_intent(args: list[str]) -> tuple[Intent, dict]:
    """Intent options as `am` reads them; returns the intent and the non-intent options."""
    intent = Intent()
    opts = {"W": False, "S": False, "user": None}
    it = iter(args)

    def need(opt: str) -> str:
        v = next(it, None)
        if v is None:
            raise UsageError(f'Argument expected after "{opt}"')
        return v

    for a in it:
        if a == "-a":
            intent.action = need(a)
        elif a == "-c":
            intent.categories.append(need(a))
        elif a == "-d":
            intent.data = need(a)
        elif a == "-t":
            intent.mime = need(a)
        elif a == "-n":
            intent.component = need(a)
        elif a == "-p":
            intent.package = need(a)
        elif a == "-f":
            v = need(a)
            try:
                intent.flags = int(v, 0)
            except ValueError:
                raise UsageError(f"Bad flags: {v}") from None
        elif a in ("--ez",):
            k, v = need(a), need(a)
            if v.lower() in ("true", "t", "1"):
                intent.extras[k] = True
            elif v.lower() in ("false", "f", "0"):
                intent.extras[k] = False
            else:
                raise UsageError(f"Invalid boolean value: {v}")
        elif a in ("--es", "-e"):
            k, v = need(a), need(a)
            intent.extras[k] = v
        elif a == "--esn":
            intent.extras[need(a)] = None
        elif a in ("--ei", "--el"):
            k, v = need(a), need(a)
            try:
                intent.extras[k] = int(v)
            except ValueError:
                raise UsageError(f"Invalid integer value: {v}") from None
        elif a in ("--ef", "--ed"):
            k, v = need(a), need(a)
            try:
                intent.extras[k] = float(v)
            except ValueError:
                raise UsageError(f"Invalid float value: {v}") from None
        elif a in ("--eu",):
            k, v = need(a), need(a)
            intent.extras[k] = v
        elif a in ("--esa", "--eia", "--ela"):
            k, v = need(a), need(a)
            intent.extras[k] = v.split(",")
        elif a == "-W":
            opts["W"] = True
        elif a == "-S":
            opts["S"] = True
        elif a in ("-D", "-N", "--track-allocation", "--streaming", "--activity-clear-top",
                   "--activity-clear-task", "--activity-new-task", "--activity-single-top",
                   "--activity-no-history", "--activity-reorder-to-front", "--receiver-foreground",
                   "--activity-brought-to-front", "--windowingMode", "--grant-read-uri-permission"):
            if a == "--activity-clear-task":
                opts["clear_task"] = True
            if a == "--windowingMode":
                need(a)
        elif a in ("--user", "-R", "-P", "--start-profiler", "--sampling", "--display", "--activityType",
                   "--task"):
            v = need(a)
            if a == "--user":
                opts["user"] = v
        elif a.startswith("-"):
            raise UsageError(f"Unknown option: {a}")
        else:
            # a bare argument: a component, or an intent URI
            if "/" in a and not re.match(r"^[a-z]+:", a):
                intent.component = a
            else:
                intent.data = a
    return intent, opts


def _resolve_intent(device: VirtualDevice, intent: Intent) -> tuple[str | None, str | None]:
    """-> (component "pkg/full.Class", short form) or (None, None) when nothing answers the intent."""
    if intent.component:
        name, cls = intent.component.split("/", 1) if "/" in intent.component else (intent.component, "")
        full = name + cls if cls.startswith(".") else cls
        pkg = device.packages.get(name)
        short = pkg.short(full) if pkg else (f"{name}/{cls}" if cls.startswith(".") else f"{name}/{full}")
        if full.startswith(name + "."):
            short = f"{name}/{full[len(name):]}"
        return f"{name}/{full}", short
    if intent.action == "android.intent.action.MAIN" and "android.intent.category.HOME" in intent.categories:
        pkg = device.packages[LAUNCHER_PACKAGE]
        cls = next(iter(pkg.activities))
        return f"{pkg.name}/{cls}", pkg.short(cls)
    if intent.action in (None, "android.intent.action.MAIN") and intent.package:
        pkg = device.packages.get(intent.package)
        if pkg and pkg.launcher_activity:
            return f"{pkg.name}/{pkg.launcher_activity}", pkg.short(pkg.launcher_activity)
        return None, None
    if intent.action:
        for pkg in device.packages.values():
            if intent.package and pkg.name != intent.package:
                continue
            for cls, app in pkg.activities.items():
                if intent.action in getattr(app, "actions", ()):
                    return f"{pkg.name}/{cls}", pkg.short(cls)
        if intent.action == "android.intent.action.VIEW" and intent.data and \
                re.match(r"^https?://", intent.data) and "com.android.chrome" in device.packages:
            pkg = device.packages["com.android.chrome"]
            return f"{pkg.name}/{pkg.launcher_activity}", pkg.short(pkg.launcher_activity or "")
    return None, None


@command("am")
def _am(ctx: Ctx, args: list[str]) -> int:
    d = ctx.device
    if not args or args[0] in ("help", "-h"):
        ctx.out(AM_USAGE)
        return 0 if args else 255
    sub, rest = args[0], args[1:]
    if sub in ("start", "start-activity"):
        return _am_start(ctx, rest)
    if sub == "force-stop":
        pkgs = [a for a in rest if not a.startswith("--")]
        if "--user" in rest:
            pkgs = pkgs[1:]
        if not pkgs:
            return java_exception(ctx, "force-stop", "java.lang.IllegalArgumentException",
                                  'Argument expected after "force-stop"',
                                  "com.android.server.am.ActivityManagerShellCommand.runForceStop"
                                  "(ActivityManagerShellCommand.java:1376)")
        d.force_stop(pkgs[0])
        return 0
    if sub == "kill":
        pkgs = [a for a in rest if not a.startswith("--")]
        if pkgs and pkgs[0] in d.processes:
            rec = d.current_activity()
            if rec is None or rec.package.name != pkgs[0]:
                d.kill_process(pkgs[0], reason="kill background")
        return 0
    if sub == "stack":
        return _am_stack(ctx, rest)
    if sub == "broadcast":
        return _am_broadcast(ctx, rest)
    if sub == "get-current-user":
        ctx.outln("0")
        return 0
    if sub == "get-config":
        ctx.outln("config: en-rUS-ldltr-sw411dp-w411dp-h866dp-normal-long-notround-lowdr-nowidecg-port-"
                  f"{'night' if d.night_mode else 'notnight'}-420dpi-finger-keysexposed-nokeys-navhidden-nonav-v35")
        return 0
    if sub == "instrument":
        ctx.errln("INSTRUMENTATION_FAILED: " + (rest[-1] if rest else ""))
        ctx.errln("java.lang.SecurityException: Unable to find instrumentation info for: ComponentInfo{"
                  + (rest[-1] if rest else "") + "}")
        return 1
    ctx.outln(f"Unknown command: {sub}")
    return 255


def _am_start(ctx: Ctx, args: list[str]) -> int:
    d = ctx.device
    t0 = time.perf_counter()
    try:
        intent, opts = parse_intent(args)
    except UsageError as e:
        return java_exception(ctx, "start", "java.lang.IllegalArgumentException", str(e),
                              "android.content.Intent.parseCommandArgs(Intent.java:11891)")
    if not (intent.component or intent.action or intent.data or intent.package):
        return java_exception(ctx, "start", "java.lang.IllegalArgumentException", "No intent supplied",
                              "com.android.server.am.ActivityManagerShellCommand.makeIntent"
                              "(ActivityManagerShellCommand.java:588)")
    wait = opts["W"]
    err = ctx.outln if wait else ctx.errln
    component, short = _resolve_intent(d, intent)
    if intent.data and intent.data.startswith("package:"):
        intent.extras.setdefault("package", intent.data[len("package:"):])
    if opts["S"] and component:
        pkg_name = component.split("/", 1)[0]
        ctx.outln(f"Stopping: {pkg_name}")
        d.force_stop(pkg_name)
    shown = Intent()
    shown.__dict__.update(intent.__dict__)
    ctx.outln(f"Starting: Intent {{ {shown.describe(short)} }}")
    if component is None:
        err(f"Error: Activity not started, unable to resolve Intent {{ {shown.describe(None, 0x10000000)} }}")
        return 1
    launch_extras = dict(intent.extras)
    if intent.data and "data" not in launch_extras:
        launch_extras["data"] = intent.data
    launch_intent = shown.describe(short, 0x10000000 | (intent.flags or 0)).replace(" (has extras)", "")
    try:
        state = d.start_activity(component, launch_extras, intent=launch_intent,
                                 clear_top=bool(opts.get("clear_task")))
    except VirtualDeviceError as e:
        err("Error type 3")
        err(f"Error: {e}")
        return 1
    if state == "DELIVERED":
        err("Warning: Activity not started, intent has been delivered to currently running top-most instance.")
    elif state == "HOT" and component.split("/", 1)[0] != LAUNCHER_PACKAGE:
        err("Warning: Activity not started, its current task has been brought to the front")
    if wait:
        rec = d.current_activity()
        elapsed = int((time.perf_counter() - t0) * 1000)
        total = {"COLD": 380, "WARM": 120, "HOT": 45}.get(state, -1)
        ctx.outln("Status: ok")
        ctx.outln(f"LaunchState: {state if state in ('COLD', 'WARM', 'HOT') else 'UNKNOWN (0)'}")
        if rec is not None:
            ctx.outln(f"Activity: {rec.short}")
        if total >= 0:
            ctx.outln(f"TotalTime: {total}")
        ctx.outln(f"WaitTime: {total + 3 if total >= 0 else elapsed + 1}")
        ctx.outln("Complete")
    return 0


def _am_stack(ctx: Ctx, args: list[str]) -> int:
    d = ctx.device
    if args and args[0] == "list":
        visible_task = d.tasks[0] if d.tasks else None
        for _n, task in enumerate(d.tasks):
            root_id = 1 if task.kind == "home" else task.id
            ctx.outln(f"RootTask id={root_id} bounds=[0,0][1080,2400] displayId=0 userId=0")
            ctx.outln(" configuration={1.0 310mcc260mnc [en_US] ldltr sw411dp w411dp h914dp 420dpi nrml long "
                      f"{'night' if d.night_mode else 'notnight'} port finger -keyb/v/h -nav/h display=0}}")
            top = task.top
            if top is None:
                continue
            base = task.activities[0]
            vis = "true" if task is visible_task else "false"
            ctx.outln(f"  taskId={task.id}: {base.full} bounds=[0,0][1080,2400] userId=0 visible={vis} "
                      f"topActivity=ComponentInfo{{{top.full}}}")
            ctx.outln("")
        return 0
    if args and args[0] == "remove" and len(args) > 1:
        try:
            tid = int(args[1])
        except ValueError:
            return java_exception(ctx, "stack", "java.lang.NumberFormatException",
                                  f'For input string: "{args[1]}"', "java.lang.Integer.parseInt(Integer.java:781)")
        for task in list(d.tasks):
            if task.id == tid and task.kind != "home":
                for rec in task.activities:
                    d._stopped(rec)
                d.tasks.remove(task)
                nxt = d.current_activity()
                if nxt is not None:
                    nxt.state = "RESUMED"
        return 0
    ctx.outln(f"Unknown command: stack {' '.join(args)}".rstrip())
    return 255


def _am_broadcast(ctx: Ctx, args: list[str]) -> int:
    try:
        intent, _ = parse_intent(args)
    except UsageError as e:
        return java_exception(ctx, "broadcast", "java.lang.IllegalArgumentException", str(e),
                              "android.content.Intent.parseCommandArgs(Intent.java:11891)")
    ctx.outln(f"Broadcasting: Intent {{ {intent.describe(None, 0x400000)} }}")
    if intent.action == "android.intent.action.AIRPLANE_MODE":
        # A protected broadcast: Android 15 refuses it from the shell user.
        return java_exception(
            ctx, "broadcast", "java.lang.SecurityException",
            "Permission Denial: not allowed to send broadcast android.intent.action.AIRPLANE_MODE from pid="
            f"{ctx.device.system_pid + 9000}, uid=2000",
            "com.android.server.am.BroadcastController.broadcastIntentLocked(BroadcastController.java:1001)")
    if intent.action == "clipper.set" or intent.action == "clipper.get":
        if intent.action == "clipper.set":
            ctx.device.clipboard = str(intent.extras.get("text", ""))
            ctx.outln('Broadcast completed: result=-1, data="Text is copied into clipboard."')
        else:
            ctx.outln(f'Broadcast completed: result=-1, data="{ctx.device.clipboard}"')
        return 0
    ctx.outln("Broadcast completed: result=0")
    return 0


# ---------------------------------------------------------------------------------------------------------------
# monkey

@command("monkey")
def _monkey(ctx: Ctx, args: list[str]) -> int:
    d = ctx.device
    for a in args:
        ctx.outln(f"  bash arg: {a}")
    ctx.errln(f"args: [{', '.join(args)}]")
    for a in args:
        ctx.errln(f' arg: "{a}"')
    pkgs: list[str] = []
    cats: list[str] = []
    count = None
    it = iter(args)
    for a in it:
        if a == "-p":
            pkgs.append(next(it, ""))
        elif a == "-c":
            cats.append(next(it, ""))
        elif a in ("-s", "--throttle", "--pct-touch", "--pct-motion", "--pct-syskeys", "--pct-appswitch"):
            next(it, None)
        elif a.startswith("-"):
            continue
        else:
            try:
                count = int(a)
            except ValueError:
                ctx.errln(f"** Error: Invalid argument: {a}")
                return 1
    for p in pkgs + cats:
        ctx.errln(f'data="{p}"')
    for line in [f"args: [{', '.join(args)}]"] + [f'data="{p}"' for p in pkgs + cats]:
        d.log("Monkey", line, "W", pid=d.system_pid + 9100)
    if count is None:
        ctx.errln("** Error: Count not specified")
        return 1
    targets = [d.packages[p] for p in pkgs if p in d.packages and d.packages[p].launcher_activity]
    if not targets:
        ctx.errln("** No activities found to run, monkey aborted.")
        return 252
    ctx.errln("** SYS_KEYS has no physical keys but with factor 2.0%.")
    d.launch(targets[0].name)
    ctx.outln("Events injected: 1")
    ms = 64
    ctx.outln(f"## Network stats: elapsed time={ms}ms (0ms mobile, 0ms wifi, {ms}ms not connected)")
    return 0


# ---------------------------------------------------------------------------------------------------------------
# pm

@command("pm")
def _pm(ctx: Ctx, args: list[str]) -> int:
    d = ctx.device
    if not args or args[0] in ("help", "-h"):
        ctx.outln("Package manager (package) commands:\n  help\n    Print this help text.\n"
                  "  path [--user USER_ID] PACKAGE\n  list packages [-f] [-d] [-e] [-s] [-3] [-i] [-l] [-u] "
                  "[-U] [--show-versioncode] [FILTER]\n  clear [--user USER_ID] PACKAGE\n"
                  "  grant [--user USER_ID] PACKAGE PERMISSION\n  revoke [--user USER_ID] PACKAGE PERMISSION\n"
                  "  reset-permissions [-p PACKAGE]\n  resolve-activity [--brief] INTENT")
        return 0 if args else 255
    sub, rest = args[0], list(args[1:])
    if "--user" in rest:
        i = rest.index("--user")
        del rest[i:i + 2]
    if sub == "list":
        if not rest or rest[0] not in ("packages", "package"):
            what = rest[0] if rest else ""
            if what in ("permissions", "features", "libraries", "users", "instrumentation"):
                return _pm_list_other(ctx, what)
            ctx.errln(f"Error: unknown list type '{what}'")
            return 255
        return _pm_list_packages(ctx, rest[1:])
    if sub == "path":
        if not rest:
            ctx.errln("Error: no package specified")
            return 255
        if rest[0] not in d.packages:
            return 1
        ctx.outln(f"package:{d.apk_path(rest[0])}")
        return 0
    if sub == "clear":
        pkgs = [a for a in rest if not a.startswith("-")]
        if not pkgs:
            ctx.errln("Error: no package specified")
            return 255
        if d.clear_data(pkgs[0]):
            ctx.outln("Success")
            return 0
        ctx.errln("Failed")
        return 1
    if sub in ("grant", "revoke"):
        return _pm_grant(ctx, sub, [a for a in rest if not a.startswith("-")])
    if sub == "reset-permissions":
        if rest and rest[0] == "-p" and len(rest) > 1:
            d.reset_permissions(rest[1])
        else:
            d.reset_permissions()
        return 0
    if sub == "resolve-activity":
        return _resolve_activity(ctx, rest)
    if sub == "dump":
        from .dumpsys import dumpsys
        return dumpsys(ctx, ["package"] + rest)
    if sub in ("install", "install-create", "install-streaming"):
        ctx.errln("Error: APK content must be streamed")
        return 1
    if sub == "uninstall":
        ctx.outln("Failure [DELETE_FAILED_INTERNAL_ERROR]")
        return 1
    if sub in ("enable", "disable", "disable-user", "disable-until-used"):
        pkgs = [a for a in rest if not a.startswith("-")]
        if not pkgs:
            ctx.errln("Error: no package or component specified")
            return 255
        # The virtual device keeps every package enabled: refuse the way Android refuses it for protected ones.
        return java_exception(ctx, sub, "java.lang.SecurityException",
                              f"Shell cannot change component state for {pkgs[0]} to "
                              f"{ {'enable': 1, 'disable': 2, 'disable-user': 3}.get(sub, 4) }",
                              "com.android.server.pm.PackageManagerService.setEnabledSetting"
                              "(PackageManagerService.java:4203)")
    ctx.outln(f"Unknown command: {sub}")
    return 255


def _pm_list_other(ctx: Ctx, what: str) -> int:
    if what == "users":
        ctx.outln("Users:\n\tUserInfo{0:Owner:c13} running")
    elif what == "features":
        for f in ("android.hardware.touchscreen", "android.hardware.wifi", "android.hardware.bluetooth",
                  "android.hardware.camera", "android.hardware.location.gps", "android.software.webview"):
            ctx.outln(f"feature:{f}")
    elif what == "permissions":
        ctx.outln("All Permissions:\n")
        from .device import PERMISSION_QUESTIONS
        for p in sorted(PERMISSION_QUESTIONS):
            ctx.outln(f"permission:{p}")
    return 0


def _pm_list_packages(ctx: Ctx, args: list[str]) -> int:
    d = ctx.device
    flags = set()
    filt = None
    for a in args:
        if a.startswith("--"):
            flags.add(a)
        elif a.startswith("-"):
            flags.update(a[1:])
        else:
            filt = a
    rows = []
    for pkg in d.packages.values():
        if "3" in flags and pkg.system:
            continue
        if "s" in flags and not pkg.system:
            continue
        if "d" in flags:
            continue  # nothing is disabled
        if filt and filt not in pkg.name:
            continue
        line = "package:"
        if "f" in flags:
            line += d.apk_path(pkg.name) + "="
        line += pkg.name
        if "--show-versioncode" in flags:
            line += f" versionCode:{pkg.version_code}"
        if "U" in flags:
            line += f" uid:{pkg.uid}"
        if "i" in flags:
            line += " installer=" + ("null" if pkg.system else "com.android.shell")
        rows.append(line)
    for line in rows:
        ctx.outln(line)
    return 0


def _pm_grant(ctx: Ctx, verb: str, args: list[str]) -> int:
    d = ctx.device
    where = ("com.android.server.pm.permission.PermissionManagerServiceImpl.grantRuntimePermissionInternal"
             "(PermissionManagerServiceImpl.java:1352)")
    if len(args) < 2:
        return java_exception(ctx, verb, "java.lang.IllegalArgumentException",
                              "Error: no package specified" if not args else "Error: no permission specified",
                              "com.android.server.pm.PackageManagerShellCommand.runGrantRevokePermission"
                              "(PackageManagerShellCommand.java:2591)")
    pkg_name, perm = args[0], args[1]
    pkg = d.packages.get(pkg_name)
    if pkg is None:
        return java_exception(ctx, verb, "java.lang.IllegalArgumentException", f"Unknown package: {pkg_name}",
                              where)
    from .device import PERMISSION_QUESTIONS
    if perm not in pkg.permissions:
        if perm not in PERMISSION_QUESTIONS and not perm.startswith("android.permission."):
            return java_exception(ctx, verb, "java.lang.IllegalArgumentException", f"Unknown permission: {perm}",
                                  where)
        return java_exception(ctx, verb, "java.lang.SecurityException",
                              f"Package {pkg_name} has not requested permission {perm}", where)
    d.grant(pkg_name, perm, granted=verb == "grant")
    if verb == "revoke" and pkg_name in d.processes:
        # revoking a runtime permission kills the app, as on a device
        d.kill_process(pkg_name, reason="permissions revoked")
    return 0


def _resolve_activity(ctx: Ctx, args: list[str]) -> int:
    d = ctx.device
    brief = "--brief" in args
    args = [a for a in args if a not in ("--brief", "--components")]
    try:
        intent, _ = parse_intent(args)
    except UsageError as e:
        return java_exception(ctx, "resolve-activity", "java.lang.IllegalArgumentException", str(e),
                              "android.content.Intent.parseCommandArgs(Intent.java:11891)")
    if intent.data and "/" not in intent.data and ":" not in intent.data and not intent.package:
        intent.package, intent.data = intent.data, None
    if intent.component is None and intent.action is None:
        intent.action = "android.intent.action.MAIN"
    component, short = _resolve_intent(d, intent)
    if component is None:
        ctx.outln("No activity found")
        return 0
    ctx.outln("priority=0 preferredOrder=0 match=0x108000 specificIndex=-1 isDefault=false")
    if brief:
        ctx.outln(short or component)
        return 0
    name, cls = component.split("/", 1)
    pkg = d.packages.get(name)
    ctx.outln("ActivityInfo:")
    ctx.outln(f"  name={cls}")
    ctx.outln(f"  packageName={name}")
    ctx.outln("  enabled=true exported=true directBootAware=false")
    ctx.outln(f"  taskAffinity={name} targetActivity=null persistableMode=PERSIST_ROOT_ONLY")
    if pkg is not None:
        ctx.outln(f"  processName={name}")
        ctx.outln(f"  sourceDir={d.apk_path(name)}")
    return 0


# ---------------------------------------------------------------------------------------------------------------
# wm, input

@command("wm")
def _wm(ctx: Ctx, args: list[str]) -> int:
    d = ctx.device
    overrides = d.__dict__.setdefault("_wm_overrides", {})
    if not args:
        ctx.outln("Window manager (window) commands:\n  help\n      Print this help text.\n"
                  "  size [reset|WxH|WdpxHdp] [-d DISPLAY_ID]\n      Return or override display size.\n"
                  "  density [reset|DENSITY] [-d DISPLAY_ID]\n      Return or override display density.")
        return 255
    sub, rest = args[0], [a for a in args[1:] if a != "-d"]
    if sub == "size":
        if rest and rest[0] == "reset":
            overrides.pop("size", None)
        elif rest:
            if not re.fullmatch(r"\d+x\d+", rest[0]):
                ctx.errln(f"Error: bad size {rest[0]}")
                return 255
            overrides["size"] = rest[0]
        else:
            ctx.outln("Physical size: 1080x2400")
            if "size" in overrides:
                ctx.outln(f"Override size: {overrides['size']}")
        return 0
    if sub in ("dismiss-keyguard", "user-rotation", "fixed-to-user-rotation"):
        return 0  # no keyguard on the virtual device; rotation stays portrait
    if sub == "density":
        if rest and rest[0] == "reset":
            overrides.pop("density", None)
        elif rest:
            if not rest[0].isdigit():
                ctx.errln(f"Error: bad number {rest[0]}")
                return 255
            overrides["density"] = rest[0]
        else:
            ctx.outln("Physical density: 420")
            if "density" in overrides:
                ctx.outln(f"Override density: {overrides['density']}")
        return 0
    ctx.outln(f"Unknown command: {sub}")
    return 255


INPUT_USAGE = """Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]

The sources are:
      dpad
      keyboard
      mouse
      touchpad
      gamepad
      touchnavigation
      joystick
      touchscreen
      stylus
      trackball

-d: specify the display ID.
      (Default: -1 for key event, 0 for motion event if not specified.)
The commands and default sources are:
      text <string> (Default: keyboard)
      keyevent [--longpress|--duration <duration to hold key down in ms>] [--doubletap] [--async] [--delay <duration between keycodes in ms>] <key code number or name> ... (Default: keyboard)
      tap <x> <y> (Default: touchscreen)
      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      draganddrop <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      press (Default: trackball)
      roll <dx> <dy> (Default: trackball)
      motionevent <DOWN|UP|MOVE|CANCEL> <x> <y> (Default: touchscreen)
      keycombination [-t duration(ms)] <key code 1> <key code 2> ... (Default: keyboard, the key order is important here.)
"""  # noqa: E501  (Android's own usage text, verbatim)
SOURCES = ("dpad", "keyboard", "mouse", "touchpad", "gamepad", "touchnavigation", "joystick", "touchscreen",
           "stylus", "trackball")


def keycode(name: str) -> int:
    """KeyEvent.keyCodeFromString: a number, KEYCODE_NAME, or NAME; anything else is KEYCODE_UNKNOWN (0)."""
    s = name.strip()
    if s.upper().startswith("KEYCODE_"):
        s = s[8:]
    if s.isdigit():
        return int(s)
    return KEY_NAMES.get(s.upper(), 0)


@command("input")
def _input(ctx: Ctx, args: list[str]) -> int:
    d = ctx.device
    args = list(args)
    if args and args[0] in SOURCES:
        args = args[1:]
    if len(args) >= 2 and args[0] == "-d":
        if not re.fullmatch(r"-?\d+", args[1]):
            return java_exception(ctx, args[2] if len(args) > 2 else "input", "java.lang.IllegalArgumentException",
                                  "Error: Invalid arguments for display ID.",
                                  "com.android.server.input.InputShellCommand.onCommand(InputShellCommand.java:239)")
        args = args[2:]
    if not args or args[0] in ("help", "-h"):
        ctx.out(INPUT_USAGE)
        return 0 if args else 255
    sub, rest = args[0], args[1:]

    def bad(message: str | None = None) -> int:
        return java_exception(ctx, sub, "java.lang.IllegalArgumentException",
                              message or f"Error: Invalid arguments for command: {sub}",
                              f"com.android.server.input.InputShellCommand.run{sub.title()}"
                              "(InputShellCommand.java:402)")

    def coords(values: list[str]) -> list[int] | None:
        try:
            return [int(float(v)) for v in values]
        except ValueError:
            return None

    if sub == "tap":
        if len(rest) < 2:
            return bad(f'Argument expected after "{(["tap"] + rest)[-1]}"')
        xy = coords(rest[:2])
        if xy is None:
            return bad()
        d.tap(*xy)
        return 0
    if sub in ("swipe", "draganddrop"):
        if len(rest) < 4:
            return bad(f'Argument expected after "{([sub] + rest)[-1]}"')
        pts = coords(rest[:4])
        dur = coords(rest[4:5]) if len(rest) > 4 else [300]
        if pts is None or dur is None:
            return bad()
        d.swipe(*pts, duration_ms=dur[0] if dur else 300)
        return 0
    if sub == "text":
        if not rest:
            return bad('Argument expected after "text"')
        text = " ".join(rest).replace("%s", " ")
        typed = "".join(ch for ch in text if 32 <= ord(ch) < 127 or ch == "\n")
        if typed:
            d.type_text(typed)
        return 0
    if sub == "keyevent":
        longpress = False
        codes = []
        it = iter(rest)
        for a in it:
            if a == "--longpress":
                longpress = True
            elif a in ("--doubletap", "--async"):
                continue
            elif a in ("--delay", "--duration"):
                next(it, None)
            else:
                codes.append(keycode(a))
        if not codes:
            return bad('Argument expected after "keyevent"')
        for c in codes:
            d.key(c, longpress=longpress)
        return 0
    if sub == "keycombination":
        codes = []
        it = iter(rest)
        for a in it:
            if a == "-t":
                next(it, None)  # the hold duration
            else:
                codes.append(keycode(a))
        if 113 in codes or 114 in codes:  # CTRL_LEFT / CTRL_RIGHT with a letter: the text field's shortcuts
            if 29 in codes:
                d.select_all()
            elif 50 in codes:  # CTRL+V
                d.type_text(d.clipboard)
            elif 31 in codes:  # CTRL+C
                pass
        return 0
    if sub == "motionevent":
        if len(rest) < 3 or rest[0].upper() not in ("DOWN", "UP", "MOVE", "CANCEL"):
            return bad()
        xy = coords(rest[1:3])
        if xy is None:
            return bad()
        state = d.__dict__.setdefault("_motion", {})
        kind = rest[0].upper()
        if kind == "DOWN":
            state["down"] = (xy, d.now())
        elif kind == "UP" and "down" in state:
            (x0, y0), t0 = state.pop("down")
            dur = int((d.now() - t0) * 1000)
            d.swipe(x0, y0, xy[0], xy[1], duration_ms=dur)
        elif kind == "CANCEL":
            state.pop("down", None)
        return 0
    if sub in ("press", "roll"):
        return 0
    ctx.errln(f"Error: Unknown command: {sub}")
    ctx.out(INPUT_USAGE)
    return 255


# ---------------------------------------------------------------------------------------------------------------
# uiautomator, screencap, logcat, ps, dumpsys

@command("uiautomator")
def _uiautomator(ctx: Ctx, args: list[str]) -> int:
    d = ctx.device
    if not args or args[0] != "dump":
        if args and args[0] in ("runtest", "events"):
            ctx.errln(f"Error: {args[0]} is not available on this device")
            return 1
        ctx.outln("Usage: uiautomator <subcommand> [options]\n\nAvailable subcommands:\n\nhelp: displays help "
                  "message\n\nruntest: executes UI automation tests\n    runtest <class spec> [options]\n\n"
                  "dump: creates an XML dump of current UI hierarchy\n    dump [--verbose][file]\n"
                  "      [--compressed]: dumps compressed layout information.\n"
                  "      [file]: the location where the dumped XML should be stored, default is\n      "
                  "/sdcard/window_dump.xml\n\nevents: prints out accessibility events until terminated")
        return 0 if not args else 1
    path = "/sdcard/window_dump.xml"
    for a in args[1:]:
        if not a.startswith("-"):
            path = a
    xml = d.dump_xml()
    target = ctx.path(path)
    if target in ("/dev/tty", "/dev/stdout"):
        ctx.out(xml)
    elif not fs_write(d, target, xml.encode(), append=False):
        # the dumper logs the IOException and still reports success, as the real one does
        d.log("UiAutomator", f"java.io.FileNotFoundException: {path}: open failed: EACCES (Permission denied)",
              "E", pid=d.system_pid + 9200)
    ctx.outln(f"UI hierchary dumped to: {path}")
    return 0


@command("screencap")
def _screencap(ctx: Ctx, args: list[str]) -> int:
    from .render import screencap_png, screencap_raw
    png = "-p" in args
    rest = []
    it = iter(args)
    for a in it:
        if a in ("-d",):
            next(it, None)
        elif a in ("-p", "-j", "-a"):
            continue
        elif a.startswith("-"):
            ctx.errln(f"screencap: invalid option -- '{a.lstrip('-')}'")
            return 1
        else:
            rest.append(a)
    if rest:
        path = ctx.path(rest[0])
        data = screencap_png(ctx.device) if (png or path.endswith(".png")) else screencap_raw(ctx.device)
        if not fs_write(ctx.device, path, data, append=False):
            ctx.errln(f"Error opening file: {rest[0]} (Permission denied)")
            return 1
        return 0
    ctx.out(screencap_png(ctx.device) if png else screencap_raw(ctx.device))
    return 0


LEVELS = "VDIWEF"


@command("logcat")
def _logcat(ctx: Ctx, args: list[str]) -> int:
    d = ctx.device
    fmt = "threadtime"
    dump = False
    tail = None
    specs: list[tuple[str, str]] = []
    silent_default = False
    regex = None
    pid_filter = None
    it = iter(args)
    for a in it:
        if a in ("-c", "--clear"):
            d.logs.clear()
            return 0
        if a == "-d":
            dump = True
        elif a == "-v":
            fmt = next(it, "threadtime")
        elif a.startswith("-v") and len(a) > 2:
            fmt = a[2:]
        elif a == "-s":
            silent_default = True
        elif a in ("-t", "-T"):
            v = next(it, "0")
            dump = dump or a == "-t"
            try:
                tail = int(v)
            except ValueError:
                tail = None
        elif a in ("-b", "--buffer"):
            next(it, None)
        elif a == "-e" or a == "--regex":
            regex = next(it, None)
        elif a.startswith("--pid="):
            pid_filter = int(a.split("=", 1)[1]) if a.split("=", 1)[1].isdigit() else -1
        elif a == "--pid":
            v = next(it, "")
            pid_filter = int(v) if v.isdigit() else -1
        elif a.startswith("-"):
            if a in ("-g", "--buffer-size"):
                ctx.outln("main: ring buffer is 256 KiB (252 KiB consumed), max entry is 5120 B, max payload is "
                          "4068 B")
                return 0
            continue
        else:
            tag, _, level = a.partition(":")
            specs.append((tag, (level or "V").upper()[:1]))
    entries = list(d.logs)
    try:
        r = re.compile(regex) if regex else None
    except re.error:
        ctx.errln(f"logcat: invalid regex {regex}")
        return 1

    def allowed(e) -> bool:
        if r is not None and not r.search(e.message):
            return False
        if pid_filter is not None and e.pid != pid_filter:
            return False
        for tag, level in specs:
            if tag == e.tag or tag == "*":
                if level == "S":
                    return False
                return LEVELS.find(e.level) >= LEVELS.find(level)
        return not silent_default
    entries = [e for e in entries if allowed(e)]
    if tail is not None:
        entries = entries[-tail:] if tail else []
    if entries:
        ctx.outln("--------- beginning of main")
    for e in entries:
        ctx.outln(format_log(e, fmt))
    if not dump and ctx.is_top_output():
        # Without -d logcat keeps printing new lines until the client hangs up; the ADB server does the
        # following (only when logcat's output goes straight to the client, not into a pipe).
        ctx.shell.follow = (allowed, fmt, d.log_seq, bool(entries))
    return 0


def format_log(e, fmt: str) -> str:
    ms = int((e.wall % 1) * 1000)
    stamp = time.strftime("%m-%d %H:%M:%S", time.gmtime(e.wall)) + f".{ms:03d}"
    if fmt == "time":
        return f"{stamp} {e.level}/{e.tag:<8}({e.pid:>5}): {e.message}"
    if fmt == "brief":
        return f"{e.level}/{e.tag:<8}({e.pid:>5}): {e.message}"
    if fmt == "raw":
        return e.message
    if fmt == "tag":
        return f"{e.level}/{e.tag:<8}: {e.message}"
    return f"{stamp} {e.pid:>5} {e.tid:>5} {e.level} {e.tag:<8}: {e.message}"


@command("ps")
def _ps(ctx: Ctx, args: list[str]) -> int:
    d = ctx.device
    rows = [("root", 1, 0, "init"), ("root", 2, 0, "[kthreadd]"), ("root", 310, 1, "ueventd"),
            ("logd", 342, 1, "logd"), ("root", 392, 1, "zygote64"), ("system", d.system_pid, 392, "system_server"),
            ("shell", 418, 1, "adbd")]
    users = {"com.android.systemui": "u0_a120", "com.google.android.apps.nexuslauncher": "u0_a131",
             "com.google.android.inputmethod.latin": "u0_a137"}
    for name, pid in (("com.android.systemui", d.system_pid + 412), ("com.google.android.inputmethod.latin",
                                                                      d.system_pid + 997)):
        rows.append((users[name], pid, 392, name))
    for proc in d.processes.values():
        pkg = d.packages[proc.package]
        user = "system" if pkg.uid == 1000 else f"u0_a{pkg.uid - 10000}"
        rows.append((user, proc.pid, 392, proc.package))
    ctx.outln("USER           PID  PPID        VSZ    RSS WCHAN            ADDR S NAME")
    want = [a for a in args if not a.startswith("-")]
    for user, pid, ppid, name in rows:
        if want and name not in want and str(pid) not in want:
            continue
        ctx.outln(f"{user:<10} {pid:>8} {ppid:>5} {14987104 if ppid == 392 else 10904508:>10} "
                  f"{112340 if ppid == 392 else 5160:>6} {'do_epoll_wait':<16} {0:>16} S {name}")
    return 0


@command("pidof")
def _pidof(ctx: Ctx, args: list[str]) -> int:
    pids = [str(p.pid) for a in args for p in [ctx.device.processes.get(a)] if p is not None]
    if not pids:
        return 1
    ctx.outln(" ".join(pids))
    return 0


@command("dumpsys")
def _dumpsys(ctx: Ctx, args: list[str]) -> int:
    from .dumpsys import dumpsys
    return dumpsys(ctx, args)


@command("run-as")
def _run_as(ctx: Ctx, args: list[str]) -> int:
    if not args:
        ctx.errln("run-as: usage: run-as <package-name> [--user <uid>] <command> [<args>]")
        return 1
    if args[0] not in ctx.device.packages:
        ctx.errln(f"run-as: unknown package: {args[0]}")
        return 1
    ctx.errln(f"run-as: package not debuggable: {args[0]}")
    return 1


@command("reboot")
def _reboot(ctx: Ctx, args: list[str]) -> int:
    ctx.errln("reboot: Operation not permitted")
    return 1


@command("su")
def _su(ctx: Ctx, args: list[str]) -> int:
    ctx.errln(f"{SH}: su: inaccessible or not found")
    return 127
