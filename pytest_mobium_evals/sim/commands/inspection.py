"""Reading the virtual device: uiautomator dump, screencap, logcat, ps, pidof, dumpsys, plus run-as, reboot and su
as an unrooted user build answers them."""

from __future__ import annotations

import re
import time

from ..dumpsys import dumpsys
from ..filesystem import fs_write
from ..pace import paced_dump, spend
from ..render import screencap_png, screencap_raw
from .base import SH, Ctx, command


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
    xml = paced_dump(d)
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
    spend(ctx.device, ctx.device.pace.screencap)
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
DEFAULT_BUFFERS = frozenset({"main", "system", "crash"})


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
    buffers: set[str] = set()
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
        elif a in ("-b", "--buffer") or a.startswith("--buffer="):
            value = a.partition("=")[2] if "=" in a else next(it, "")
            buffers.update(b.strip() for b in value.split(","))
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

    # No -b reads main, system and crash, as logcat does; `all` is every ring (events and radio hold nothing here).
    wanted = DEFAULT_BUFFERS if not buffers else ({"main", "system", "crash"} if "all" in buffers or
                                                  "default" in buffers else buffers)

    def allowed(e) -> bool:
        if e.buffer not in wanted:
            return False
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
    begun: set[str] = set()
    for e in entries:
        if e.buffer not in begun:  # logcat says so once per ring, where that ring's first line comes
            begun.add(e.buffer)
            ctx.outln(f"--------- beginning of {e.buffer}")
        ctx.outln(format_log(e, fmt))
    if not dump and ctx.is_top_output():
        # Without -d logcat keeps printing new lines until the client hangs up; the ADB server does the
        # following (only when logcat's output goes straight to the client, not into a pipe).
        ctx.shell.follow = (allowed, fmt, d.log_seq, bool(entries))
    return 0


SHELL_UID = 2000


@command("log")
def _log(ctx: Ctx, args: list[str]) -> int:
    """`log [-p PRIORITY] [-t TAG] MESSAGE…`: one line into the main ring, as the shell user."""
    level, tag, words = "I", "log", []
    it = iter(args)
    for a in it:
        if a == "-p":
            level = next(it, "i")[:1].upper() or "I"
        elif a == "-t":
            tag = next(it, "log")
        else:
            words.append(a)
    if level not in LEVELS:
        ctx.errln(f"log: invalid priority '{level.lower()}'")
        return 1
    ctx.device.log(tag, " ".join(words), level, pid=ctx.device.system_pid + 9000, uid=SHELL_UID)
    return 0


def format_log(e, fmt: str) -> str:
    """One line as `logcat -v FORMAT[,MODIFIER…]` prints it; `epoch` stamps seconds since 1970 and `uid` puts the
    logging uid before the pid."""
    ms = int((e.wall % 1) * 1000)
    formats = fmt.split(",")
    fmt = next((f for f in formats if f not in ("epoch", "uid", "color", "printable", "usec", "UTC", "year",
                                                 "zone", "monotonic")), "threadtime")
    # Modifiers (AOSP logprint.cpp): year puts the year first, usec gives six digits of the second, zone adds the
    # time zone's offset (the virtual device runs in UTC); epoch is seconds since 1970.
    fraction = f".{int((e.wall % 1) * 1_000_000):06d}" if "usec" in formats else f".{ms:03d}"
    stamp = time.strftime("%Y-%m-%d %H:%M:%S" if "year" in formats else "%m-%d %H:%M:%S",
                          time.gmtime(e.wall)) + fraction
    if "epoch" in formats:
        stamp = f"{int(e.wall):>10}{fraction}"
    if "zone" in formats and "epoch" not in formats:
        stamp += " +0000"
    if "uid" in formats and fmt == "threadtime":
        return f"{stamp} {e.uid:>5} {e.pid:>5} {e.tid:>5} {e.level} {e.tag:<8}: {e.message}"
    if fmt == "time":
        return f"{stamp} {e.level}/{e.tag:<8}({e.pid:>5}): {e.message}"
    if fmt == "brief":
        return f"{e.level}/{e.tag:<8}({e.pid:>5}): {e.message}"
    if fmt == "raw":
        return e.message
    if fmt == "tag":
        return f"{e.level}/{e.tag:<8}: {e.message}"
    return f"{stamp} {e.pid:>5} {e.tid:>5} {e.level} {e.tag:<8}: {e.message}"


# toybox ps's -o fields: (header, width, right-aligned). The last field of a line is never padded.
PS_FIELDS = {"PID": (5, True), "PPID": (5, True), "USER": (8, False), "UID": (5, True), "VSZ": (10, True),
             "RSS": (6, True), "S": (1, False), "WCHAN": (16, False), "NAME": (0, False), "ARGS": (0, False),
             "CMDLINE": (0, False), "CMD": (0, False), "COMM": (0, False)}


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
    native = getattr(d, "native_programs", None)  # what app_process and screenrecord started (programs.py)
    for program in (native.running.values() if native is not None else ()):
        rows.append(("shell", program.pid, 1, program.name))
    fields: list[tuple[str, str]] | None = None
    want: list[str] = []
    it = iter(args)
    for a in it:
        if a in ("-o", "-O"):
            spec = next(it, None)
            if spec is None:
                ctx.errln("ps: Missing argument to -o (see \"ps --help\")")
                return 1
            fields = fields or []
            for item in spec.split(","):
                name, eq, header = item.partition("=")
                if name.upper() not in PS_FIELDS:
                    ctx.errln(f"ps: bad -o {name}")
                    return 1
                fields.append((name.upper(), header if eq else name.upper()))
        elif not a.startswith("-"):
            want.append(a)
    picked = [r for r in rows if not want or r[3] in want or str(r[1]) in want]
    if fields is None:
        ctx.outln("USER           PID  PPID        VSZ    RSS WCHAN            ADDR S NAME")
        for user, pid, ppid, name in picked:
            ctx.outln(f"{user:<10} {pid:>8} {ppid:>5} {14987104 if ppid == 392 else 10904508:>10} "
                      f"{112340 if ppid == 392 else 5160:>6} {'do_epoll_wait':<16} {0:>16} S {name}")
        return 0
    if any(header for _, header in fields):
        ctx.outln(_ps_line([header for _, header in fields], [f for f, _ in fields]))
    for user, pid, ppid, name in picked:
        values = {"PID": pid, "PPID": ppid, "USER": user, "VSZ": 14987104 if ppid == 392 else 10904508,
                  "RSS": 112340 if ppid == 392 else 5160, "S": "S", "WCHAN": "do_epoll_wait",
                  "UID": 0 if user == "root" else 1000 if user == "system" else 2000 if user == "shell"
                  else 10000 + int(user[4:]) if user.startswith("u0_a") else 1036,
                  "NAME": name, "ARGS": name, "CMDLINE": name,
                  # the kernel's thread name holds 15 bytes, and Android keeps a long process name's tail
                  "CMD": name[-15:], "COMM": name[-15:]}
        ctx.outln(_ps_line([str(values[f]) for f, _ in fields], [f for f, _ in fields]))
    return 0


def _ps_line(cells: list[str], names: list[str]) -> str:
    out = []
    for i, (cell, name) in enumerate(zip(cells, names)):
        width, right = PS_FIELDS[name]
        last = i == len(cells) - 1
        out.append(cell.rjust(width) if right else cell if last else cell.ljust(width))
    return " ".join(out)


@command("pidof")
def _pidof(ctx: Ctx, args: list[str]) -> int:
    pids = [str(p.pid) for a in args for p in [ctx.device.processes.get(a)] if p is not None]
    if not pids:
        return 1
    ctx.outln(" ".join(pids))
    return 0


@command("dumpsys")
def _dumpsys(ctx: Ctx, args: list[str]) -> int:
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
