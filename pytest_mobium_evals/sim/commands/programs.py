"""Native programs on the virtual device: what `app_process` starts from a pushed dex (mobilecli's DeviceServer, the
on-device half of mobile-mcp), `nohup`, the toybox process tools that find and stop them (`pgrep`, `pkill`, `kill`),
`md5sum`/`sha256sum`, and `screenrecord`.

A program lives until it is killed: it has a pid and a command line (`ps -A`, `pgrep -f`), and what it listens on
is in the device's listener registry (sim/listeners.py), reached through `adb forward` as on a device.

mobilecli's DeviceServer (checked against mobilecli's source: devices/android_device_server.go, agent.go, and
agents/android/java/DeviceServer.java) answers JSON-RPC 2.0 over HTTP POST on localabstract:mobilecli-server:
`device.version` → {dexSha256} (the dex it was started from: a server from another build is replaced),
`device.clipboard.get|set|clear`, `device.apps.list` (PackageLister: [{packageName, appName, version,
versionCode}]), `device.io.tap|longpress|swipe|text|button`; anything else is JSON-RPC's "Method
not found" (-32601), on which mobilecli falls back to adb (its UI dump goes through `uiautomator dump`)."""

from __future__ import annotations

import hashlib
import http.server
import itertools
import json
import re
import socket
import threading
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable, Optional

from ..filesystem import fs_read, fs_write
from ..keycodes import KEY_NAMES
from ..render import screencap_png
from .base import COMMANDS, Ctx, command

if TYPE_CHECKING:
    from ..device import VirtualDevice

MOBILECLI_SERVER_CLASS = "com.mobilenext.mobilecli.DeviceServer"
MOBILECLI_SOCKET = "localabstract:mobilecli-server"
SIGNALS = {"HUP": 1, "INT": 2, "QUIT": 3, "KILL": 9, "TERM": 15, "STOP": 19, "CONT": 18, "USR1": 10, "USR2": 12}


@dataclass
class Program:
    """A native process: its pid, the command line `ps`/`pgrep -f` show, and what stopping it does."""

    pid: int
    name: str
    cmdline: str
    on_signal: Callable[[int], bool] = lambda signal: True  # -> whether the signal ended it
    done: threading.Event = field(default_factory=threading.Event)


class Programs:
    """The device's native programs (one registry per device, made on first use)."""

    def __init__(self) -> None:
        self._pids = itertools.count(6100, 7)
        self.running: dict[int, Program] = {}

    def start(self, name: str, cmdline: str, on_signal: Optional[Callable[[int], bool]] = None) -> Program:
        program = Program(next(self._pids), name, cmdline)
        if on_signal is not None:
            program.on_signal = on_signal
        self.running[program.pid] = program
        return program

    def signal(self, pid: int, signal: int) -> bool:
        program = self.running.get(pid)
        if program is None:
            return False
        if program.on_signal(signal) or signal == 9:
            self.running.pop(pid, None)
            program.done.set()
        return True

    def matching(self, pattern: str, full: bool) -> list[Program]:
        try:
            regex = re.compile(pattern)
        except re.error:
            return []
        return [p for p in self.running.values() if regex.search(p.cmdline if full else p.name)]


class Held:
    """A program in the foreground of its adb session (the shell's `hold`: the ADB server keeps the session open
    and calls wait): it lasts while `running()` says so, asked every 50 ms with the device's timers run; a client
    that hangs up sends it SIGHUP, which ends it (a screenrecord still writes its file)."""

    def __init__(self, device: "VirtualDevice", program: Program, running: Callable[[], bool]) -> None:
        self.device, self.program, self.running = device, program, running

    def wait(self, hung_up: Callable[[float], bool]) -> str:
        while True:
            with self.device.lock:
                self.device.run_due()
                if not self.running():
                    return ""
            if hung_up(0.05):
                with self.device.lock:
                    programs(self.device).signal(self.program.pid, 1)
                    self.running()
                return ""


def programs(device: "VirtualDevice") -> Programs:
    registry = getattr(device, "native_programs", None)
    if registry is None:
        registry = device.native_programs = Programs()
    return registry


# -- nohup, app_process ----------------------------------------------------------------------------------------------

@command("nohup")
def _nohup(ctx: Ctx, args: list[str]) -> int:
    """Runs the command immune to hangups (toybox nohup). Here nothing hangs up a program anyway; an unknown
    command is 127 as from the shell."""
    if not args:
        ctx.errln("usage: nohup COMMAND [ARG...]")
        return 127
    fn = COMMANDS.get(args[0].rsplit("/", 1)[-1])
    if fn is None:
        ctx.errln(f"nohup: {args[0]}: No such file or directory")
        return 127
    ctx.argv0 = args[0].rsplit("/", 1)[-1]
    return fn(ctx, args[1:])


@command("app_process", "app_process64")
def _app_process(ctx: Ctx, args: list[str]) -> int:
    """`app_process [VM-OPTIONS] CMD-DIR CLASS [ARGS…]` with CLASSPATH naming the dex: the virtual device runs the
    programs it knows by class, when their dex is where CLASSPATH says."""
    rest = [a for a in args if not a.startswith("-X")]
    if len(rest) < 2:
        ctx.errln("Usage: app_process [java-options] cmd-dir start-class-name [options]")
        return 1
    class_name = rest[1]
    classpath = ctx.shell.env.get("CLASSPATH", "")
    dex = fs_read(ctx.device, ctx.path(classpath)) if classpath else None
    starter = PROGRAMS.get(class_name)
    if starter is None or dex is None:
        ctx.errln(f'Exception in thread "main" java.lang.ClassNotFoundException: Didn\'t find class '
                  f'"{class_name}" on path: DexPathList[[zip file "{classpath}"],nativeLibraryDirectories=[]]')
        return 1
    return starter(ctx, dex, " ".join(["app_process", *args]), rest[2:])


def _start_mobilecli_server(ctx: Ctx, dex: bytes, cmdline: str, args: list[str]) -> int:
    device = ctx.device
    listeners = device.listeners
    if listeners.is_listening(MOBILECLI_SOCKET):
        # The class's main() binds its socket first: a second one fails to bind and exits (pkill clears the old).
        ctx.errln("Error: java.io.IOException: Address already in use")
        return 1
    server = _MobilecliServer(device, hashlib.sha256(dex).hexdigest())

    def stop(signal: int) -> bool:
        listeners.close(MOBILECLI_SOCKET)
        return True

    programs(device).start("app_process", f"{cmdline}", stop)
    listeners.listen(MOBILECLI_SOCKET, server.serve)
    return 0


# class → start(ctx, dex, command line, the class's arguments) -> exit status; u2_server.py adds openatx's agent
PROGRAMS: dict[str, Callable[[Ctx, bytes, str, list[str]], int]] = {MOBILECLI_SERVER_CLASS: _start_mobilecli_server}


class _MobilecliServer:
    """The DeviceServer's JSON-RPC methods over the virtual device: each one does what the on-device program does
    through UiAutomation (input through the device's own touch and key paths, the clipboard the device's)."""

    def __init__(self, device: "VirtualDevice", dex_sha256: str) -> None:
        self.device = device
        self.dex_sha256 = dex_sha256

    def serve(self, sock: socket.socket) -> None:
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"  # keep-alive: Go's client reuses its connection

            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                length = int(self.headers.get("Content-Length") or 0)
                body = server.answer(self.rfile.read(length))
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args) -> None:
                pass

        try:
            Handler(sock, ("127.0.0.1", 0), None)
        except OSError:
            pass  # the client hung up mid-request

    def answer(self, raw: bytes) -> bytes:
        try:
            request = json.loads(raw or b"{}")
        except ValueError:
            return _rpc_error(None, -32700, "Parse error")
        if not isinstance(request, dict) or request.get("jsonrpc") != "2.0" or not request.get("method"):
            return _rpc_error(request.get("id") if isinstance(request, dict) else None, -32600,
                              "'jsonrpc' must be '2.0' and 'method' is required")
        rid, method = request.get("id"), str(request["method"])
        params = request.get("params") if isinstance(request.get("params"), dict) else {}
        handler = getattr(self, "m_" + method.replace(".", "_"), None)
        if handler is None:
            return _rpc_error(rid, -32601, f"Method not found: {method}")
        try:
            result = handler(params)
        except (KeyError, TypeError, ValueError) as exc:
            return _rpc_error(rid, -32602, f"Invalid params: {exc}")
        return json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}).encode()

    def m_device_version(self, params: dict) -> dict:
        return {"dexSha256": self.dex_sha256}

    def m_device_clipboard_get(self, params: dict) -> dict:
        with self.device.lock:
            return {"text": self.device.clipboard or ""}

    def m_device_clipboard_set(self, params: dict) -> dict:
        with self.device.lock:
            self.device.clipboard = str(params["text"])
        return {"ok": True}

    def m_device_clipboard_clear(self, params: dict) -> dict:
        with self.device.lock:
            self.device.clipboard = ""
        return {"ok": True}

    def m_device_apps_list(self, params: dict) -> list:
        """PackageLister: every installed package with its label and version, in one answer."""
        with self.device.lock:
            return [{"packageName": p.name, "appName": p.label, "version": p.version_name,
                     "versionCode": p.version_code} for p in self.device.packages.values()]

    def m_device_io_tap(self, params: dict) -> dict:
        self.device.tap(int(params["x"]), int(params["y"]))
        return {"ok": True}

    def m_device_io_longpress(self, params: dict) -> dict:
        x, y = int(params["x"]), int(params["y"])
        self.device.swipe(x, y, x, y, int(params.get("duration") or 500))  # a held finger, as UiAutomation's
        return {"ok": True}

    def m_device_io_swipe(self, params: dict) -> dict:
        self.device.swipe(int(params["x1"]), int(params["y1"]), int(params["x2"]), int(params["y2"]),
                          int(params.get("duration") or 1000))
        return {"ok": True}

    def m_device_io_text(self, params: dict) -> dict:
        with self.device.lock:
            self.device.type_text(str(params["text"]))
        return {"ok": True}

    def m_device_io_button(self, params: dict) -> dict:
        code = KEY_NAMES[str(params["button"]).upper().removeprefix("KEYCODE_")]
        with self.device.lock:
            self.device.key(code)
        return {"ok": True}


def _rpc_error(rid, code: int, message: str) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}).encode()


# -- finding and stopping processes (toybox) -------------------------------------------------------------------------

def _app_matches(ctx: Ctx, pattern: str) -> list[int]:
    try:
        regex = re.compile(pattern)
    except re.error:
        return []
    return [p.pid for name, p in ctx.device.processes.items() if regex.search(name)]


def _pgrep_args(ctx: Ctx, args: list[str], tool: str) -> tuple[Optional[str], bool, int, bool]:
    """-> (pattern, -f given, signal, -l given); pattern None after printing a usage error."""
    full, listing, signal, pattern = False, False, 15, None
    for a in args:
        if a == "-f":
            full = True
        elif a == "-l":
            listing = True
        elif tool == "pkill" and a.startswith("-") and (a[1:].upper() in SIGNALS or a[1:].isdigit()):
            signal = SIGNALS.get(a[1:].upper(), int(a[1:]) if a[1:].isdigit() else 15)
        elif a.startswith("-"):
            continue
        else:
            pattern = a
    if pattern is None:
        ctx.errln(f"{tool}: Needs 1 argument")
    return pattern, full, signal, listing


@command("pgrep")
def _pgrep(ctx: Ctx, args: list[str]) -> int:
    pattern, full, _signal, listing = _pgrep_args(ctx, args, "pgrep")
    if pattern is None:
        return 2
    found = [(p.pid, p.name) for p in programs(ctx.device).matching(pattern, full)]
    found += [(pid, name) for pid, name in ((pid, next(n for n, p in ctx.device.processes.items() if p.pid == pid))
                                            for pid in _app_matches(ctx, pattern))]
    for pid, name in sorted(found):
        ctx.outln(f"{pid} {name}" if listing else str(pid))
    return 0 if found else 1


@command("pkill")
def _pkill(ctx: Ctx, args: list[str]) -> int:
    """Signals every process matching (the shell user may signal its own: native programs it started; an app's
    process belongs to another uid: Operation not permitted, as toybox says)."""
    pattern, full, signal, _listing = _pgrep_args(ctx, args, "pkill")
    if pattern is None:
        return 2
    registry = programs(ctx.device)
    hits = registry.matching(pattern, full)
    for program in hits:
        registry.signal(program.pid, signal)
    denied = _app_matches(ctx, pattern)
    for pid in denied:
        ctx.errln(f"pkill: {pid}: Operation not permitted")
    return 0 if hits else 1


@command("kill")
def _kill(ctx: Ctx, args: list[str]) -> int:
    signal, status = 15, 0
    pids = []
    for a in args:
        if a.startswith("-") and len(a) > 1:
            name = a[1:].upper().removeprefix("SIG")
            if a == "-s":
                continue
            signal = SIGNALS.get(name, int(name) if name.isdigit() else 15)
        else:
            pids.append(a)
    if not pids:
        ctx.errln("kill: Needs 1 argument")
        return 1
    registry = programs(ctx.device)
    app_pids = {p.pid for p in ctx.device.processes.values()}
    for text in pids:
        pid = int(text) if text.isdigit() else -1
        if registry.signal(pid, signal):
            continue
        ctx.errln(f"kill: {text}: {'Operation not permitted' if pid in app_pids else 'No such process'}")
        status = 1
    return status


# -- checksums (toybox md5sum / sha*sum) -----------------------------------------------------------------------------

def _checksum(ctx: Ctx, args: list[str], tool: str, algorithm: str) -> int:
    files = [a for a in args if not a.startswith("-")]
    status = 0
    if not files:
        ctx.outln(f"{hashlib.new(algorithm, ctx.stdin).hexdigest()}  -")
        return 0
    for name in files:
        data = fs_read(ctx.device, ctx.path(name))
        if data is None:
            ctx.errln(f"{tool}: {name}: No such file or directory")
            status = 1
            continue
        ctx.outln(f"{hashlib.new(algorithm, data).hexdigest()}  {name}")
    return status


@command("md5sum")
def _md5sum(ctx: Ctx, args: list[str]) -> int:
    return _checksum(ctx, args, "md5sum", "md5")


@command("sha256sum")
def _sha256sum(ctx: Ctx, args: list[str]) -> int:
    return _checksum(ctx, args, "sha256sum", "sha256")


@command("sha1sum")
def _sha1sum(ctx: Ctx, args: list[str]) -> int:
    return _checksum(ctx, args, "sha1sum", "sha1")


# -- screenrecord ----------------------------------------------------------------------------------------------------

SCREENRECORD_DEFAULT_LIMIT_S = 180  # screenrecord's own default --time-limit


@command("screenrecord")
def _screenrecord(ctx: Ctx, args: list[str]) -> int:
    """Records until its time limit (180 s by default, in device time) or a SIGINT, then writes the file, as
    screenrecord finalizes its file only when it stops (why callers signal it rather than kill it); the shell
    session stays open while it records. The file is an MP4 container (ftyp, mdat) whose media data are the screen
    as PNG at the start and at the stop: the virtual device has no H.264 encoder, so it is not a playable video."""
    limit, path = SCREENRECORD_DEFAULT_LIMIT_S, None
    it = iter(args)
    for a in it:
        if a == "--time-limit":
            value = next(it, "")
            if not value.isdigit() or not 0 < int(value) <= SCREENRECORD_DEFAULT_LIMIT_S:
                ctx.errln(f"Invalid time limit '{value}'")
                return 2
            limit = int(value)
        elif a in ("--size", "--bit-rate", "--bugreport", "--verbose", "--rotate", "--display-id"):
            if a in ("--size", "--bit-rate", "--display-id"):
                next(it, "")
        elif a.startswith("-"):
            continue
        else:
            path = a
    if path is None:
        ctx.errln("Must specify output file (see --help).")
        return 2
    target = ctx.path(path)
    device = ctx.device
    if not fs_write(device, target, b"", append=False):
        ctx.errln(f"Unable to open '{path}': Permission denied")
        return 1
    program = programs(device).start("screenrecord", " ".join(["screenrecord", *args]),
                                     lambda signal: signal in (1, 2, 15, 9))
    started = device.now()
    frames = bytearray(screencap_png(device))

    def finish() -> None:
        seconds = max(0.0, device.now() - started)
        ftyp = b"\x00\x00\x00\x18ftypisom\x00\x00\x02\x00isomiso2"
        with device.lock:
            frames.extend(screencap_png(device))
            mdat = (8 + len(frames)).to_bytes(4, "big") + b"mdat" + bytes(frames)
            fs_write(device, target, ftyp + mdat, append=False)
            device.log("ScreenRecord", f"Recording stopped after {seconds:.1f}s", pid=program.pid)

    def running() -> bool:
        if not program.done.is_set() and device.now() - started >= limit:
            programs(device).signal(program.pid, 15)
        if program.done.is_set():
            finish()
            return False
        return True

    device.log("ScreenRecord", f"Recording to {path}", pid=program.pid)
    ctx.shell.hold = Held(device, program, running)
    return 0
