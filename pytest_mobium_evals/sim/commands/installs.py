"""`pm install` and its relatives (`cmd package …` alike), as Android 15's PackageManagerShellCommand answers them.

- `install [-rtdg…] [-S SIZE] [PATH [SPLIT…] | -]`: from a file on the device, or SIZE bytes of stdin (`adb
  install`'s streamed install sends `cmd package install -S SIZE` and the APK after it). `Success`, or
  `Failure [CODE: reason]`, on stdout.
- `install-create [-S TOTAL]` (`Success: created install session [ID]`), `install-write [-S SIZE] ID NAME
  [PATH|-]` (`Success: streamed N bytes`), `install-commit ID`, `install-abandon ID`: the session install
  `adb install-multiple` uses.
- `uninstall [-k] [--user N] PKG`: `Success`, or `Failure [DELETE_FAILED_INTERNAL_ERROR]`, Android's answer for an
  unknown package and for a system app alike.
- `list instrumentation [-f] [TARGET]`: `instrumentation:PKG/RUNNER (target=TARGET)`, by target.

`-r` (replace) is the default on Android 15 and ignored; `-R` refuses a replacement; `-d` allows a downgrade; `-g`
grants every runtime permission the manifest requests; `-t` is accepted (test packages install either way).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..apk import ApkError, read_apk
from ..filesystem import fs_isdir, fs_read
from .base import Ctx, java_exception

# Options of `pm install` / `install-create` that take a value (the next argument).
VALUED = {"-i", "--user", "-p", "--install-location", "--install-reason", "--originating-uri", "--referrer",
          "--abi", "--force-uuid", "--pkg", "--staged-ready-timeout", "--dexopt-compiler-filter", "-S",
          "--update-ownership", "--restrict-permissions"}
INSTALL_VERBS = ("install", "install-create", "install-write", "install-commit", "install-abandon",
                 "install-streaming", "install-incremental")


@dataclass
class InstallOptions:
    size: int | None = None
    grant_runtime: bool = False
    allow_downgrade: bool = False
    no_replace: bool = False
    paths: list[str] = field(default_factory=list)


@dataclass
class Session:
    options: InstallOptions
    apks: dict[str, bytes] = field(default_factory=dict)  # split name -> APK, in write order


class UsageError(Exception):
    pass


def parse_install(args: list[str]) -> InstallOptions:
    opts = InstallOptions()
    i = 0
    while i < len(args):
        a = args[i]
        if a in VALUED:
            if i + 1 >= len(args):
                raise UsageError(f"Error: missing value for {a}")
            if a == "-S":
                if not args[i + 1].isdigit():
                    raise UsageError(f"Error: invalid size {args[i + 1]}")
                opts.size = int(args[i + 1])
            i += 2
            continue
        if a.startswith("--"):
            i += 1  # flags without a value (--instant, --full, --dont-kill, --force-sdk, --no-incremental…)
            continue
        if a.startswith("-") and a != "-":
            for flag in a[1:]:
                if flag == "g":
                    opts.grant_runtime = True
                elif flag == "d":
                    opts.allow_downgrade = True
                elif flag == "R":
                    opts.no_replace = True
                elif flag not in "rtflsv":
                    raise UsageError(f"Error: Unknown option: {a}")
            i += 1
            continue
        opts.paths.append(a)
        i += 1
    return opts


def streamed_size(argv: list[str]) -> int | None:
    """How many bytes of stdin a `[cmd package|pm] install…` command line reads (`-S SIZE` with no path, or
    `-`), so the ADB service reads exactly those before running it; None for any other command."""
    if len(argv) >= 2 and argv[0] == "cmd" and argv[1] == "package":
        argv = argv[2:]
    elif argv and argv[0] == "pm":
        argv = argv[1:]
    else:
        return None
    if not argv or argv[0] not in ("install", "install-write"):
        return None
    try:
        opts = parse_install(argv[1:])
    except UsageError:
        return None
    paths = opts.paths[2:] if argv[0] == "install-write" else opts.paths
    if opts.size is None or (paths and paths != ["-"]):
        return None
    return opts.size


def _sessions(ctx: Ctx) -> dict[int, Session]:
    return ctx.device.__dict__.setdefault("_install_sessions", {})


def _failure(ctx: Ctx, exc: ApkError) -> int:
    ctx.outln(f"Failure [{exc.code}: {exc}]")
    return 1


def _read_path(ctx: Ctx, verb: str, path: str) -> bytes | None:
    full = ctx.path(path)
    data = None if fs_isdir(ctx.device, full) else fs_read(ctx.device, full)
    if data is None:
        java_exception(ctx, verb, "java.lang.IllegalArgumentException", f"Error: Can't open file: {path}",
                       "com.android.server.pm.PackageManagerShellCommand.openFileForSystem"
                       "(PackageManagerShellCommand.java:4512)")
    return data


def _stdin(ctx: Ctx, size: int) -> bytes | ApkError:
    data = ctx.stdin[:size]
    if len(data) < size:
        return ApkError("INSTALL_FAILED_INVALID_APK", f"Partial write: expected {size} bytes, read {len(data)}")
    return data


def _commit(ctx: Ctx, opts: InstallOptions, apks: list[tuple[str, bytes]]) -> int:
    d = ctx.device
    if not apks:
        ctx.errln("Error: no APKs given")
        return 1
    base = [(name, data) for name, data in apks if not _is_split(data)]
    if len(base) != 1:
        return _failure(ctx, ApkError("INSTALL_FAILED_INVALID_APK",
                                      "Full install must include a base package" if not base
                                      else "Split null was defined multiple times"))
    name, data = base[0]
    splits = tuple(data for n, data in apks if n != name)
    try:
        if opts.no_replace:
            package = read_apk(data, name).manifest.package
            if package in d.packages:
                raise ApkError("INSTALL_FAILED_ALREADY_EXISTS",
                               f"Attempt to re-install {package} without first uninstalling.")
        d.install_apk(data, grant_runtime=opts.grant_runtime, allow_downgrade=opts.allow_downgrade,
                      where=name, splits=splits)
    except ApkError as exc:
        return _failure(ctx, exc)
    ctx.outln("Success")
    return 0


def _is_split(data: bytes) -> bool:
    try:
        return read_apk(data).manifest.split is not None
    except ApkError:
        return False


def install_command(ctx: Ctx, verb: str, args: list[str]) -> int:
    try:
        return _install_command(ctx, verb, args)
    except UsageError as exc:
        ctx.errln(str(exc))
        return 1


def _install_command(ctx: Ctx, verb: str, args: list[str]) -> int:
    d = ctx.device
    if verb in ("install", "install-streaming", "install-incremental"):
        opts = parse_install(args)
        if not opts.paths or opts.paths == ["-"]:
            if opts.size is None:
                ctx.errln("Error: must either specify a package size or an APK file")
                return 1
            data = _stdin(ctx, opts.size)
            if isinstance(data, ApkError):
                return _failure(ctx, data)
            return _commit(ctx, opts, [("base.apk", data)])
        apks = []
        for path in opts.paths:
            data = _read_path(ctx, verb, path)
            if data is None:
                return 255
            apks.append((path, data))
        return _commit(ctx, opts, apks)
    sessions = _sessions(ctx)
    if verb == "install-create":
        opts = parse_install(args)
        session_id = int(d.new_hash(), 16)
        sessions[session_id] = Session(opts)
        ctx.outln(f"Success: created install session [{session_id}]")
        return 0
    session_args = [a for a in args if not a.startswith("-") or a == "-"]
    if verb == "install-write":
        opts = parse_install(args)
        if len(opts.paths) < 2:
            ctx.errln("Error: must specify session ID and split name")
            return 1
        session = _session(ctx, verb, sessions, opts.paths[0])
        if session is None:
            return 255
        split_name, source = opts.paths[1], (opts.paths[2] if len(opts.paths) > 2 else "-")
        if source == "-":
            if opts.size is None:
                ctx.errln("Error: must specify a size when writing from stdin")
                return 1
            data = _stdin(ctx, opts.size)
            if isinstance(data, ApkError):
                return _failure(ctx, data)
        else:
            data = _read_path(ctx, verb, source)
            if data is None:
                return 255
        session.apks[split_name] = data
        ctx.outln(f"Success: streamed {len(data)} bytes")
        return 0
    if not session_args:
        ctx.errln("Error: must specify a session ID")
        return 1
    session = _session(ctx, verb, sessions, session_args[0])
    if session is None:
        return 255
    del sessions[int(session_args[0])]
    if verb == "install-abandon":
        ctx.outln("Success")
        return 0
    return _commit(ctx, session.options, list(session.apks.items()))


def _session(ctx: Ctx, verb: str, sessions: dict[int, Session], raw: str) -> Session | None:
    session = sessions.get(int(raw)) if raw.isdigit() else None
    if session is None:
        java_exception(ctx, verb, "java.lang.SecurityException", f"Caller has no access to session {raw}",
                       "com.android.server.pm.PackageInstallerService.openSessionInternal"
                       "(PackageInstallerService.java:1253)")
    return session


def uninstall_command(ctx: Ctx, args: list[str]) -> int:
    keep = "-k" in args
    rest = list(args)
    if "--user" in rest:
        i = rest.index("--user")
        del rest[i:i + 2]
    names = [a for a in rest if not a.startswith("-")]
    if not names:
        ctx.errln("Error: package name not specified")
        return 1
    if names[0] in ctx.device.packages and ctx.device.uninstall(names[0], keep_data=keep):
        ctx.outln("Success")
        return 0
    ctx.outln("Failure [DELETE_FAILED_INTERNAL_ERROR]")
    return 1


def list_instrumentation(ctx: Ctx, args: list[str]) -> int:
    show_path = "-f" in args
    targets = [a for a in args if not a.startswith("-")]
    for inst in ctx.device.instrumentations(targets[0] if targets else None):
        source = ""
        if show_path:
            pkg = ctx.device.packages[inst.package]
            source = f"{ctx.device.apk_path(pkg.name)}="
        ctx.outln(f"instrumentation:{source}{inst.component} (target={inst.target_package})")
    return 0
