"""The toybox basics of the virtual device's shell: true/false/exit, echo/printf, sleep, sh/exec, cd/pwd, id,
date, uptime, env/export, which, and `test`."""

from __future__ import annotations

import datetime
import re
import time
import zoneinfo

from ..filesystem import fs_exists, fs_isdir, fs_read
from .base import COMMANDS, SH, Ctx, ShellExit, command, quote, sleep_real


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
    if ctx.device.adbd_root:
        # after `adb root` on an emulator image (a public capture of `adb shell id` there)
        ctx.outln("0" if "-u" in args else "uid=0(root) gid=0(root) groups=0(root) context=u:r:su:s0")
        return 0
    if "-u" in args:
        ctx.outln("2000")
        return 0
    ctx.outln("uid=2000(shell) gid=2000(shell) groups=2000(shell),1004(input),1007(log),1011(adb),1015(sdcard_rw),"
              "1028(sdcard_r),1078(ext_data_rw),1079(ext_obb_rw),3001(net_bt_admin),3002(net_bt),3003(inet),"
              "3006(net_bw_stats),3009(readproc),3011(uhid),3012(readtracefs) context=u:r:shell:s0")
    return 0


@command("whoami")
def _whoami(ctx: Ctx, args: list[str]) -> int:
    ctx.outln("root" if ctx.device.adbd_root else "shell")
    return 0


#: toybox date's output format, and its default SET format MMDDhhmm[[CC]YY][.ss].
DATE_FORMAT = "%a %b %e %H:%M:%S %Z %Y"
_DATE_SET = re.compile(r"^(\d{2})(\d{2})(\d{2})(\d{2})(\d{4}|\d{2})?(?:\.(\d{1,2}))?$")


def _zone(ctx: Ctx, utc: bool) -> datetime.tzinfo:
    # bionic's localtime reads persist.sys.timezone (there is no TZ in adb's shell environment)
    if utc:
        return datetime.timezone.utc
    try:
        return zoneinfo.ZoneInfo(ctx.shell.env.get("TZ") or ctx.device.time_zone)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return datetime.timezone.utc


def _parse_set(text: str, now: datetime.datetime) -> datetime.datetime | None:
    """toybox's parse_default: a two-digit year is the one within 50 years of this one; no year keeps this one."""
    m = _DATE_SET.match(text)
    if not m:
        return None
    month, day, hour, minute = (int(g) for g in m.groups()[:4])
    year = now.year
    if m.group(5):
        if len(m.group(5)) == 4:
            year = int(m.group(5))
        else:
            two, century = int(m.group(5)), now.year - now.year % 100
            year = century + two
            if year >= now.year + 50:
                year -= 100
            elif year <= now.year - 50:
                year += 100
    second = int(m.group(6)) if m.group(6) else 0
    try:
        return datetime.datetime(year, month, day, hour, minute, second, tzinfo=now.tzinfo)
    except ValueError:
        return None


@command("date")
def _date(ctx: Ctx, args: list[str]) -> int:
    utc = "-u" in args
    rest = [a for a in args if a != "-u"]
    zone = _zone(ctx, utc)
    now = datetime.datetime.fromtimestamp(ctx.device.clock.wall(), tz=zone)
    fmt = DATE_FORMAT
    if rest and rest[0].startswith("+"):
        fmt = rest[0][1:]
    elif rest:
        target = _parse_set(rest[0], now)
        if target is None:
            ctx.errln(f"date: bad date '{rest[0]}'")
            return 1
        # toybox prints the date it was asked to set whether or not settimeofday let it
        status = 0
        if ctx.device.adbd_root:
            ctx.device.clock.set_wall(target.timestamp())
        else:
            ctx.errln("date: cannot set date: Operation not permitted")
            status = 1
        ctx.outln(_strftime(target, DATE_FORMAT))
        return status
    ctx.outln(_strftime(now, fmt))
    return 0


def _strftime(when: datetime.datetime, fmt: str) -> str:
    fmt = fmt.replace("%s", str(int(when.timestamp())))
    # %e is the day space-padded (toybox, from bionic's strftime), which Python has only on some platforms
    return when.strftime(fmt.replace("%e", f"{when.day:2d}"))


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


@command("test", "[")
def _test(ctx: Ctx, args: list[str]) -> int:
    if ctx.argv0 == "[":
        if not args or args[-1] != "]":
            ctx.errln(f"{SH}: [: missing ]")  # mksh's builtin: a usage error, status 2
            return 2
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
