"""Reading the virtual device: uiautomator dump, screencap, ps, pidof, dumpsys, plus run-as, reboot and su
as an unrooted user build answers them."""

from __future__ import annotations

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
