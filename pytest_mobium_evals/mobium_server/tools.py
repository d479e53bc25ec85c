"""The tools: Mobium's names, arguments and answers, implemented over ADB.

`Mobium.call(name, arguments) -> Result` is the whole interface (the MCP server and app_batch both use it). A tool
returns a `Result` or raises `MobiumError`; nothing else leaves this module.

Behaviour shared by every action with a target (`_acquire`), after Mobium's resolution pipeline:
1. `@eN` is looked up in the device's ref table (a stored locator, re-resolved now); anything else is a locator.
2. The screen is read every 250 ms for up to 2 s until exactly one node matches, is enabled, holds still between two
   reads, and has a clear point to touch. More than one match is refused (ambiguous_locator), never guessed.
3. No match: an open dialog or keyboard is named as the cause; otherwise the scroll container is scrolled down (at
   most 15 swipes) looking for it.
4. A target under the keyboard or under a control drawn over all of it is refused with details.check.
"""

from __future__ import annotations

import threading
from typing import Optional

from .acting import ActingTools
from .apps import AppTools
from .crash_reports import CrashTools
from .device import AdbLink, device_list
from .device_settings import DeviceSettingTools
from .diagnostics import DiagnosticTools
from .elements import Element, derive_locator
from .errors import MobiumError, invalid
from .files import FileTools
from .gestures import GestureTools
from .location import LocationTools
from .multitouch import MultiTouchTools
from .out_of_reach import OutOfReachTools
from .packages import PackageTools
from .reading import ReadingTools
from .resolution import Resolution
from .schemas import TOOLS
from .sessions import SessionTools
from .shapes import article
from .snapshot import Snapshot
from .system_ui import SystemUiTools
from .tool_state import NATIVE, DeviceState, RefEntry, Result, without_nulls
from .waiting import WaitingTools
from .webview_eval import WebViewEvalTools
from .webview_storage import WebViewStorageTools

# How long closing waits for a call in flight before ending the sessions under it (Mobium's closeGrace, server.go).
CLOSE_GRACE = 2.0


class Mobium(Resolution, ReadingTools, ActingTools, WaitingTools, AppTools, SystemUiTools, SessionTools,
             GestureTools, MultiTouchTools, DiagnosticTools, CrashTools, FileTools, PackageTools, DeviceSettingTools,
             LocationTools, WebViewEvalTools, WebViewStorageTools, OutOfReachTools):
    """The tool implementations for one server process (one ref table per device, as `mobium mcp` keeps)."""

    def __init__(self, adb_host: str = "127.0.0.1", adb_port: int = 5037, device: Optional[str] = None):
        self.host, self.port, self.pinned = adb_host, adb_port, device
        self.devices: dict[str, DeviceState] = {}
        self.lock = threading.Lock()
        self.tools = TOOLS
        self._closing = threading.Lock()
        self._closed = False

    def end_all(self) -> None:
        """The server is going: every open session ends as app_session end ends one (Mobium's Handlers.Close): the
        app its start launched stopped, its route stopped, what it changed put back. A device that no longer
        answers has nothing to put back to."""
        for st in list(self.devices.values()):
            if not st.session_open:
                continue
            try:
                self.end_session(st)
            except Exception:  # noqa: BLE001 - best effort on the way out; the device may be gone
                continue

    def close(self, grace: float = CLOSE_GRACE) -> None:
        """End every session once, whichever way the server goes (its stdin closed, its client detached, the daemon
        stopped), waiting at most `grace` seconds for a call in flight, as Mobium's Server.Close does."""
        in_flight_done = self.lock.acquire(timeout=grace)
        try:
            with self._closing:
                if not self._closed:
                    self._closed = True
                    self.end_all()
        finally:
            if in_flight_done:
                self.lock.release()

    # ================================================================================================================
    # Dispatch and argument checking

    def call(self, name: str, arguments: Optional[dict] = None) -> Result:
        with self.lock:
            return self._call(name, without_nulls(arguments))

    def _call(self, name: str, args: dict) -> Result:
        spec = self.tools.get(name)
        if spec is None:
            raise invalid(f'unknown tool "{name}" (have: {", ".join(self.tools)})', "call one of the tools listed")
        self.check_args(name, args)
        return getattr(self, "t_" + name)(args)

    def check_args(self, name: str, args: dict, where: str = "") -> None:
        spec = self.tools[name]
        props = spec.schema["properties"]
        for key, value in args.items():
            if key not in props:
                takes = ", ".join(sorted(props)) or "nothing"
                raise invalid(f'{where}{name} has no argument "{key}" (it takes: {takes})',
                              f"call {name} with only the arguments it takes", argument=key)
            want = props[key].get("type")
            ok = {"string": isinstance(value, str), "integer": isinstance(value, int) and not isinstance(value, bool),
                  "number": isinstance(value, (int, float)) and not isinstance(value, bool),
                  "boolean": isinstance(value, bool), "array": isinstance(value, list),
                  "object": isinstance(value, dict)}.get(want, True)
            if key == "permissions" and isinstance(value, str):
                ok = True
            if not ok:
                raise invalid(f"{where}{name}: {key} must be {article(want)}, got {type(value).__name__} {value!r}",
                              f"pass {key} as {article(want)}", argument=key)
            enum = props[key].get("enum")
            if enum and value not in enum:
                raise invalid(f'{where}{name}: {key} must be one of {", ".join(map(str, enum))}, got "{value}"',
                              f"pass one of {', '.join(map(str, enum))}", argument=key)

    # ================================================================================================================
    # Devices and screens

    def state(self, args: dict, open_session: bool = True) -> DeviceState:
        """The device a call acts on; its session opens here, on the first use, as Mobium's sessionFor opens one
        (app_session's end and status look without opening one)."""
        driver = args.get("driver")
        if driver == "wda":
            raise MobiumError("unsupported", "this server drives Android over ADB; the wda driver (iOS) is not "
                              "available here", "omit driver, or use uiautomator2")
        serial = args.get("device") or self.pinned
        if not serial:
            devs = [s for s, st in device_list(self.host, self.port) if st == "device"]
            if not devs:
                raise MobiumError("no_device", "no device is connected: no Android device or emulator is running "
                                  "— start one", "start an emulator, then run app_devices")
            if len(devs) > 1:
                raise invalid(f"{len(devs)} devices are connected ({', '.join(devs)}); name one with device",
                              "pass device, e.g. \"" + devs[0] + "\"", devices=devs)
            serial = devs[0]
        st = self.devices.get(serial)
        if st is None:
            link = AdbLink(serial, self.host, self.port)
            if link.state() != "device":
                raise MobiumError("no_device", f"no device with serial {serial} (see `mobium devices`)",
                                  "run app_devices and pass one of its ids as device", {"device": serial})
            st = self.devices[serial] = DeviceState(link)
        if open_session:
            st.session_open = True
        return st

    def snap(self, st: DeviceState) -> Snapshot:
        s = st.link.snapshot()
        st.last = s
        return s

    def drop_refs(self, st: DeviceState) -> None:
        st.refs = None

    def _context_ok(self, st: DeviceState, snap: Snapshot) -> str:
        if st.context != NATIVE and snap.webview_of(st.context) is None:
            ctx = st.context
            st.context = NATIVE
            raise MobiumError("no_such_context", f"the context {ctx} is gone: no WebView is on screen now, so this "
                              "server switched back to NATIVE_APP", "run app_map again (native), or app_contexts",
                              {"context": ctx})
        return st.context

    def _remember(self, st: DeviceState, snap: Snapshot, elements: list[Element], context: str) -> None:
        table: dict[str, RefEntry] = {}
        for i, el in enumerate(elements, 1):
            el.ref = f"@e{i}"
            el.locator = derive_locator(snap, el.node, context, el.role)
            table[el.ref] = RefEntry(el.locator, context, el.label, el.bounds)
            st.seen[str(el.locator)] = el.bounds
        st.refs = table
