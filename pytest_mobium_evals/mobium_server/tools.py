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

import base64
import re
import shlex
import threading
import time
from dataclasses import dataclass, field
from typing import Any, Callable, Optional

from .device import AdbLink, device_list, wait_until
from .elements import (
    Aim,
    Element,
    Locator,
    aim_at,
    build_elements,
    derive_locator,
    element_for,
    element_of,
    find,
    parse_locator,
    slider_value,
    spinners,
)
from .errors import KEYBOARD_HIDE, KEYBOARD_REMEDY, MobiumError, failed_check, invalid
from .snapshot import Snapshot, UiNode, clean, describe, short_id

IMPLICIT_WAIT = 2.0
POLL = 0.25
SETTLE_LIMIT = 5.0
NATIVE = "NATIVE_APP"
PASSWORD_NOTE = "hidden: this is a password field"

KEYCODES = {"back": 4, "home": 3, "recents": 187, "volume-up": 24, "volume-down": 25}
KEYBOARD_KEYS = {"enter": 66, "delete": 67, "space": 62}

# Mobium's permission names and the Android runtime permissions each stands for.
PERMISSION_SETS = {
    "location": ["ACCESS_FINE_LOCATION", "ACCESS_COARSE_LOCATION"],
    "location-always": ["ACCESS_FINE_LOCATION", "ACCESS_COARSE_LOCATION", "ACCESS_BACKGROUND_LOCATION"],
    "notifications": ["POST_NOTIFICATIONS"],
    "camera": ["CAMERA"],
    "microphone": ["RECORD_AUDIO"],
    "contacts": ["READ_CONTACTS", "WRITE_CONTACTS", "GET_ACCOUNTS"],
    "calendar": ["READ_CALENDAR", "WRITE_CALENDAR"],
    "reminders": ["READ_CALENDAR", "WRITE_CALENDAR"],
    "phone": ["READ_PHONE_STATE", "CALL_PHONE"],
    "sms": ["SEND_SMS", "RECEIVE_SMS", "READ_SMS"],
    "photos": ["READ_MEDIA_IMAGES", "READ_MEDIA_VIDEO"],
    "photos-add": ["READ_MEDIA_IMAGES", "READ_MEDIA_VIDEO"],
    "media-library": ["READ_MEDIA_AUDIO"],
    "bluetooth": ["BLUETOOTH_CONNECT", "BLUETOOTH_SCAN"],
    "motion": ["ACTIVITY_RECOGNITION"],
}
NON_EDITABLE_ROLES = ("button", "checkbox", "radio", "switch", "link", "image", "text", "tab", "list")


@dataclass
class Result:
    text: str
    data: Optional[dict] = None
    image: Optional[bytes] = None


@dataclass
class RefEntry:
    locator: Locator
    context: str
    label: str
    bounds: tuple


@dataclass
class DeviceState:
    link: AdbLink
    refs: Optional[dict[str, RefEntry]] = None         # None: no map yet (or refs were dropped)
    context: str = NATIVE
    seen: dict[str, tuple] = field(default_factory=dict)   # locator -> last bounds it was seen at
    rules: list[dict] = field(default_factory=list)
    last: Optional[tuple[float, Snapshot]] = None
    session_app: Optional[str] = None
    session_open: bool = False


class Mobium:
    """The tool implementations for one server process (one ref table per device, as `mobium mcp` keeps)."""

    def __init__(self, adb_host: str = "127.0.0.1", adb_port: int = 5037, device: Optional[str] = None):
        self.host, self.port, self.pinned = adb_host, adb_port, device
        self.devices: dict[str, DeviceState] = {}
        self.lock = threading.Lock()
        from .schemas import TOOLS  # the table refers back to the handlers below
        self.tools = TOOLS

    # ================================================================================================================
    # Dispatch and argument checking

    def call(self, name: str, arguments: Optional[dict] = None) -> Result:
        with self.lock:
            return self._call(name, dict(arguments or {}))

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
                raise invalid(f"{where}{name}: {key} must be {_a(want)}, got {type(value).__name__} {value!r}",
                              f"pass {key} as {_a(want)}", argument=key)
            enum = props[key].get("enum")
            if enum and value not in enum:
                raise invalid(f'{where}{name}: {key} must be one of {", ".join(map(str, enum))}, got "{value}"',
                              f"pass one of {', '.join(map(str, enum))}", argument=key)

    # ================================================================================================================
    # Devices and screens

    def state(self, args: dict) -> DeviceState:
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
        return st

    def snap(self, st: DeviceState) -> Snapshot:
        s = st.link.snapshot()
        st.last = (time.monotonic(), s)
        return s

    def drop_refs(self, st: DeviceState) -> None:
        st.refs = None

    def _context_ok(self, st: DeviceState, snap: Snapshot) -> str:
        if st.context != NATIVE and not snap.webviews:
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

    # ================================================================================================================
    # Resolution (the auto-wait)

    def _target(self, st: DeviceState, target: str) -> tuple[Locator, str]:
        """(locator, subject): the subject is what messages call the target (a ref's stored locator)."""
        target = target.strip()
        if target.startswith("@") and len(target) >= 2:
            if st.refs is None:
                raise invalid(f"no map for {st.link.serial} yet — run app_map first",
                              "run app_map, then use a ref from it", ref=target)
            entry = st.refs.get(target)
            if entry is None:
                refs = list(st.refs)
                if not refs:
                    have = "the last map found no elements"
                elif len(refs) <= 8:
                    have = "the last map has " + " ".join(refs)
                else:
                    have = f"the last map has {len(refs)} refs, {refs[0]} through {refs[-1]}"
                raise invalid(f"unknown ref {target} — {have}", "run app_map again and use one of its refs",
                              ref=target)
            if entry.context != st.context:
                raise invalid(f"{target} was mapped in {entry.context}, and the current context is {st.context}",
                              f"app_context {entry.context}, or run app_map again", ref=target)
            return entry.locator, str(entry.locator)
        loc = parse_locator(target)
        return loc, str(loc)

    def _miss(self, st: DeviceState, snap: Snapshot, loc: Locator, subject: str) -> MobiumError:
        dialog = snap.dialog
        if dialog is not None:
            return MobiumError(
                "device_not_ready",
                f"a dialog is over the app — \"{dialog.title}\" — and nothing on it matches {subject}; if the target "
                "is behind it, answer the dialog first, and if it is one of the dialog's buttons, take its ref from "
                "app_map", "app_map for the dialog's buttons, or app_alert with accept or dismiss",
                {"locator": subject, "dialog": dialog.title, "buttons": dialog.captions()})
        if snap.keyboard:
            seen = st.seen.get(str(loc))
            if seen and seen[3] > snap.keyboard[1]:
                return failed_check(subject, "receivesEvents", "the keyboard is over it", KEYBOARD_HIDE,
                                    code="device_not_ready", remedy=KEYBOARD_REMEDY, locator=subject)
            return MobiumError("no_such_element", f"no element matches {subject}, and the keyboard is up — it may "
                               f"be covering it; hide it and try again: {KEYBOARD_HIDE}", KEYBOARD_REMEDY,
                               {"locator": subject})
        hint = ""
        if loc.kind in ("text", "label", "testid") and not loc.exact:
            for other in ("text", "label", "testid"):
                if other != loc.kind and find(snap, Locator(other, loc.value, role=loc.role), st.context):
                    hint = f", but {other}={loc.value} does"
                    break
        if hint:
            return MobiumError("no_such_element", f"no element matches {subject}{hint}",
                               f"use {hint[6:].split(' does')[0]}", {"locator": subject})
        return MobiumError("no_such_element",
                           f"no element matches {subject} on the current screen — the screen may have changed, run "
                           "app_map again", "run app_map again, or app_scroll_to if it may be off screen",
                           {"locator": subject})

    def _ambiguous(self, loc: Locator, subject: str, count: int) -> MobiumError:
        if loc.kind == "role" or loc.role:
            hint = "use a ref from app_map"
        else:
            hint = "narrow it by appending \",role=button\" (or whichever role), or use a ref from app_map"
        return MobiumError("ambiguous_locator", f"{subject} matches {count} elements — {hint}", hint,
                           {"locator": subject, "matches": count})

    def _fire_rules(self, st: DeviceState, snap: Snapshot, handled: list[dict]) -> bool:
        dialog = snap.dialog
        if dialog is None or not st.rules or len(handled) >= 3:
            return False
        words = (dialog.title + " " + dialog.message).lower()
        for rule in st.rules:
            if rule["when"].lower() in words:
                button = next((b for b in dialog.buttons if (b.text or b.desc).lower() == rule["press"].lower()),
                              None)
                if button is None:
                    raise MobiumError("no_such_element", f'a rule says to press "{rule["press"]}" on '
                                      f'"{dialog.title}", and the dialog\'s buttons are '
                                      + ", ".join(f'"{c}"' for c in dialog.captions()),
                                      "change the rule's press to one of the dialog's buttons (app_dialogs)")
                st.link.tap(*button.center)
                rule["hits"] += 1
                handled.append({"dialog": dialog.title, "press": button.text or button.desc})
                self.drop_refs(st)
                wait_until(lambda: (self.snap(st).dialog or None) is None, 2.0, 0.1)
                return True
        return False

    def _acquire(self, st: DeviceState, target: str, *, kind: str = "tap",
                 handled: Optional[list] = None) -> tuple[Snapshot, UiNode, Aim, str]:
        """Find the one node `target` names and where to touch it, waiting as Mobium's auto-wait does."""
        loc, subject = self._target(st, target)
        handled = handled if handled is not None else []
        deadline = time.monotonic() + IMPLICIT_WAIT
        settle_deadline = time.monotonic() + SETTLE_LIMIT
        covered_since: Optional[float] = None
        scrolled = False
        prev: Optional[tuple[float, Snapshot]] = st.last
        while True:
            snap = self.snap(st)
            context = self._context_ok(st, snap)
            if self._fire_rules(st, snap, handled):
                continue
            hits = find(snap, loc, context)
            now = time.monotonic()
            if len(hits) > 1:
                if now < deadline:
                    time.sleep(POLL)
                    prev = st.last
                    continue
                raise self._ambiguous(loc, subject, len(hits))
            if not hits:
                if now < deadline:
                    time.sleep(POLL)
                    prev = st.last
                    continue
                if not scrolled and snap.dialog is None and not snap.keyboard and context == NATIVE \
                        and loc.kind != "path":
                    scrolled = True
                    found = self._scroll_search(st, snap, loc, "down")
                    if found is not None:
                        deadline = time.monotonic() + IMPLICIT_WAIT
                        prev = None
                        continue
                    snap = st.last[1] if st.last else snap
                raise self._miss(st, snap, loc, subject)
            node = hits[0]
            st.seen[str(loc)] = node.bounds
            if kind in ("type", "fill"):
                self._check_editable(node, target, kind)
            if node.empty:
                raise failed_check(subject, "visible", "it is in the hierarchy but not on screen",
                                   "app_scroll_to with a direction brings it into view", code="element_not_reachable",
                                   remedy="app_scroll_to with a direction", locator=subject)
            if not node.enabled:
                if now < deadline:
                    time.sleep(POLL)
                    prev = st.last
                    continue
                raise failed_check(subject, "enabled", "it is disabled, and stayed disabled for 2s",
                                   "a disabled control ignores input; do what enables it, or wait for it with "
                                   "app_wait_for and condition \"enabled\"", code="timeout",
                                   remedy="app_wait_for with condition \"enabled\", or do what enables it first",
                                   locator=subject)
            # Settle: the same node at the same place in an earlier read taken moments ago.
            still = False
            if prev is not None and now - prev[0] < 3.0 and prev[1] is not snap:
                before = find(prev[1], loc, context)
                still = len(before) == 1 and before[0].bounds == node.bounds
            if not still:
                if now < settle_deadline:
                    prev = st.last
                    time.sleep(0.06)
                    continue
                raise failed_check(subject, "stable", f"it is still moving after {SETTLE_LIMIT:g}s — it is now at "
                                   f"{_box(node.bounds)}", "something on this screen animates continuously, so act "
                                   "on it with app_tap x/y if that is expected", code="timeout", remedy="",
                                   locator=subject)
            if snap.in_keyboard(node):
                raise failed_check(subject, "receivesEvents", "the keyboard is over it", KEYBOARD_HIDE,
                                   code="device_not_ready", remedy=KEYBOARD_REMEDY, locator=subject)
            aim = aim_at(snap, node)
            if aim is None:
                covered_since = covered_since or now
                if now - covered_since < IMPLICIT_WAIT:
                    time.sleep(POLL)
                    prev = st.last
                    continue
                from .elements import cover_label
                cover = cover_label(snap, node) or "another control"
                raise failed_check(subject, "receivesEvents", f'it is covered by "{cover}", and was for 2s',
                                   "a touch there would press that instead; wait for it to go, dismiss it, or tap "
                                   "its own ref from app_map if it is what you meant", code="element_not_reachable",
                                   remedy="dismiss what is over it, wait for it to go, or tap the cover's own ref "
                                   "from app_map", locator=subject, cover=cover)
            return snap, node, aim, subject

    def _check_editable(self, node: UiNode, target: str, tool: str) -> None:
        if node.is_slider:
            raise failed_check(target, "editable", "it is a slider, not a text field",
                               "a slider is set with app_fill and a position from 0 to 1, e.g. 0.5 for the middle",
                               code="invalid_argument", remedy="app_fill with a position from 0 to 1")
        if node.editable_class:
            if not node.enabled or not node.focusable:
                raise failed_check(target, "editable", "it is a read-only field — the device says it cannot take "
                                   "focus or input", "app_type types into a field that accepts text; this one only "
                                   "shows it (read it with app_text)", code="invalid_argument",
                                   remedy="app_text to read it; app_type for a field that accepts input")
            return
        if node.webview is not None and node is not node.webview and node.focusable and \
                node.role() in ("input", "password"):
            return
        role = node.role() or "text"
        what = {"list": "a scrolling list"}.get(role, f"a {role}")
        raise failed_check(target, "editable", f"it is {what}, not a text field",
                           "app_type types into a field; to press it, use app_tap", code="invalid_argument",
                           remedy="app_tap for a button; app_type for a text field")

    def _scroll_container(self, snap: Snapshot, direction: str, context: str = NATIVE) -> Optional[UiNode]:
        lists = [n for n in snap.scope(context) if n.scrollable and not n.empty]
        if not lists:
            return None
        horiz = direction in ("left", "right")

        def fits(n: UiNode) -> bool:
            wide = "Horizontal" in n.cls or (n.bounds[2] - n.bounds[0]) > 2 * (n.bounds[3] - n.bounds[1])
            return wide == horiz

        cands = [n for n in lists if fits(n)] or lists
        return max(cands, key=lambda n: (n.bounds[2] - n.bounds[0]) * (n.bounds[3] - n.bounds[1]))

    def _swipe_in(self, st: DeviceState, box, direction: str, keyboard=None) -> None:
        x1, y1, x2, y2 = box
        if keyboard:
            y2 = min(y2, keyboard[1])
        w, h = x2 - x1, y2 - y1
        cx, cy = x1 + w // 2, y1 + h // 2
        # Scrolling "down" brings what is below into view: the finger moves up, as on a phone.
        if direction == "down":
            st.link.swipe(cx, y1 + int(h * 0.8), cx, y1 + int(h * 0.3), 400)
        elif direction == "up":
            st.link.swipe(cx, y1 + int(h * 0.3), cx, y1 + int(h * 0.8), 400)
        elif direction == "right":
            st.link.swipe(x1 + int(w * 0.8), cy, x1 + int(w * 0.2), cy, 400)
        else:
            st.link.swipe(x1 + int(w * 0.2), cy, x1 + int(w * 0.8), cy, 400)

    @staticmethod
    def _signature(snap: Snapshot, box) -> tuple:
        x1, y1, x2, y2 = box
        return tuple((n.rid, n.text, n.desc, n.bounds) for n in snap.nodes
                     if n.bounds[0] >= x1 and n.bounds[2] <= x2 and n.bounds[1] >= y1 and n.bounds[3] <= y2)

    def _scroll_search(self, st: DeviceState, snap: Snapshot, loc: Locator, direction: str,
                       limit: int = 15) -> Optional[tuple[Snapshot, int]]:
        """Swipe the screen's scroll container until `loc` matches; None at the end of the list (a list whose
        spinner is up is waited out first: a loading page end is not the end) or after `limit` swipes."""
        self.scrolls = 0
        self.scroll_end = False
        context = st.context
        while self.scrolls < limit:
            box = self._scroll_container(snap, direction, context)
            if box is None:
                return None
            before = self._signature(snap, box.bounds)
            self._swipe_in(st, box.bounds, direction, snap.keyboard)
            self.scrolls += 1
            snap = self.snap(st)
            if find(snap, loc, context):
                return snap, self.scrolls
            if self._signature(snap, box.bounds) == before:
                # Did not move: the end, unless something is still loading.
                if spinners(snap, context):
                    wait_until(lambda: not spinners(self.snap(st), context), 15.0, POLL)
                    snap = st.last[1]
                    if find(snap, loc, context):
                        return snap, self.scrolls
                    continue
                self.scroll_end = True
                return None
        return None

    # ================================================================================================================
    # Reading the screen

    def t_app_devices(self, args: dict) -> Result:
        devs = device_list(self.host, self.port)
        if not devs:
            return Result("No devices found. Start an Android emulator or an iOS simulator, then try again.",
                          {"devices": []})
        lines, views = [], []
        for serial, state in devs:
            view: dict[str, Any] = {"id": serial, "platform": "android", "state": state,
                                    "emulator": serial.startswith("emulator-")}
            desc = "android"
            if state == "device":
                link = AdbLink(serial, self.host, self.port)
                release = link.getprop("ro.build.version.release")
                sdk = link.getprop("ro.build.version.sdk")
                model = link.getprop("ro.product.model")
                view.update({"android_version": release, "sdk": sdk, "model": model,
                             "runtime": f"Android {release}" if release else ""})
                desc = f"android {release}" + (f" (API {sdk})" if sdk else "") + \
                       (", emulator" if view["emulator"] else "") + f", model: {model}"
            lines.append(f"{serial:<38} {state:<10} ({desc})")
            views.append(view)
        return Result("\n".join(lines), {"devices": views})

    def t_app_map(self, args: dict) -> Result:
        st = self.state(args)
        snap = self.snap(st)
        context = self._context_ok(st, snap)
        elements = build_elements(snap, context)
        self._remember(st, snap, elements, context)
        lines = [el.line() for el in elements]
        data: dict[str, Any] = {"elements": [el.to_json() for el in elements], "context": context,
                                "device": st.link.serial}
        notes = self._screen_notes(snap, context, data)
        text = "\n".join(lines) if lines else "No actionable elements found"
        if notes:
            text += "\n" + "\n".join(notes)
        return Result(text, data)

    def _screen_notes(self, snap: Snapshot, context: str, data: dict) -> list[str]:
        notes = []
        busy = spinners(snap, context)
        if busy:
            names = [clean(n.desc) or clean(n.text) or short_id(n.rid) or "a spinner" for n in busy]
            data["loading"] = names
            notes.append("loading… " + ", ".join(f'"{n}"' for n in names) + " is on screen: content is still "
                         "arriving, so what is listed may not be all there is — wait for it to go "
                         "(app_wait_for role=progressbar, condition hidden)")
        if snap.keyboard:
            focus = next((n for n in snap.nodes if n.focused and n.editable_class), None)
            data["keyboard"] = {"shown": True, "region": _bounds_json(snap.keyboard),
                                "focused": describe(focus) if focus else None}
            notes.append(f"the keyboard is up over {_box(snap.keyboard)}" +
                         (f", focus on {describe(focus)}" if focus else "") +
                         " — anything under it is left out of this map; app_keyboard with hide puts it away")
        dialog = snap.dialog
        if dialog is not None:
            data["dialog"] = {"title": dialog.title, "message": dialog.message, "buttons": dialog.captions(),
                              "package": dialog.package}
            notes.append(f'a dialog is on screen: "{dialog.title}" — only the dialog can be reached until it is '
                         "answered: tap one of its buttons, or app_alert")
        return notes

    def t_app_find(self, args: dict) -> Result:
        st = self.state(args)
        if "locator" not in args:
            raise invalid("app_find needs a locator (\"role=button\", \"text=Sign In\")")
        loc = parse_locator(args["locator"])
        snap = self.snap(st)
        context = self._context_ok(st, snap)
        elements = build_elements(snap, context)
        self._remember(st, snap, elements, context)
        hits = find(snap, loc, context)
        out, lines, used = [], [], set()
        for n in hits:
            el = element_of(n, elements)
            if el is not None:
                if id(el) in used:
                    continue
                used.add(id(el))
                out.append(el.to_json())
                lines.append(el.line())
            else:
                x1, y1, x2, y2 = n.bounds
                label = describe(n)
                out.append({"ref": "", "label": label, "bounds": {"x1": x1, "y1": y1, "x2": x2, "y2": y2}})
                lines.append(f"(no ref) {label} {_box(n.bounds)}")
        data = {"elements": out, "context": context, "device": st.link.serial}
        return Result("\n".join(lines) if lines else f"No element matches {loc}", data)

    def _read_value(self, node: UiNode) -> str:
        if node.password:
            n = len(node.value)
            return f"{'•' * n} ({n} characters, {PASSWORD_NOTE})" if n else "(empty, showing its placeholder)"
        if node.editable_class:
            return node.value if node.value else ("(empty, showing its placeholder)" if node.text else "")
        if node.text:
            return node.text
        if node.desc:
            return node.desc
        # A container: the words inside it.
        parts = []
        for d in node.descendants():
            t = d.text or d.desc
            if t and t not in parts and not d.password:
                parts.append(t)
        return "\n".join(parts)

    def t_app_text(self, args: dict) -> Result:
        st = self.state(args)
        target = args.get("target")
        if not target:
            snap = self.snap(st)
            context = self._context_ok(st, snap)
            seen, parts = set(), []
            for n in snap.scope(context):
                if n.empty:
                    continue
                if n.password:
                    t = self._read_value(n) if n.value else ""
                else:
                    t = (n.value if n.editable_class else n.text).strip() or n.desc.strip()
                if t and t not in seen:
                    seen.add(t)
                    parts.append(t)
            text = "\n".join(parts)
            return Result(text, {"text": text})
        if st.context != NATIVE:
            raise MobiumError("unsupported", "app_text with a target works on the native context — switch back with "
                              "app_context NATIVE_APP, or read the page with app_text and no target",
                              "app_text with no target reads the page")
        loc, subject = self._target(st, target)
        deadline = time.monotonic() + IMPLICIT_WAIT
        while True:
            snap = self.snap(st)
            hits = find(snap, loc, NATIVE)
            if len(hits) == 1:
                value = self._read_value(hits[0])
                return Result(value, {"text": value, "target": target})
            if time.monotonic() >= deadline:
                if hits:
                    raise self._ambiguous(loc, subject, len(hits))
                raise self._miss(st, snap, loc, subject)
            time.sleep(POLL)

    def t_app_source(self, args: dict) -> Result:
        st = self.state(args)
        snap = self.snap(st)
        xml = _mask_passwords(snap.xml)
        return Result(xml, {"source": xml, "format": "uiautomator", "context": st.context,
                            "device": st.link.serial})

    def t_app_screenshot(self, args: dict) -> Result:
        st = self.state(args)
        png = st.link.shell_bytes("screencap -p")
        if not png.startswith(b"\x89PNG"):
            raise MobiumError("device_server", "screencap returned no PNG", "try again", retryable=True)
        path = args.get("path")
        if path:
            try:
                with open(path, "wb") as fh:
                    fh.write(png)
            except OSError as exc:
                raise invalid(f"cannot write the screenshot to {path}: {exc.strerror}",
                              "give a writable path") from None
            import os
            full = os.path.abspath(path)
            return Result(f"saved {full} ({len(png)} bytes)", {"path": full, "bytes": len(png)})
        return Result("", None, image=png)

    # ================================================================================================================
    # Acting

    def _result_note(self, aim: Aim) -> str:
        return f"; {aim.note}" if aim.note else ""

    def t_app_tap(self, args: dict) -> Result:
        target, x, y = args.get("target"), args.get("x"), args.get("y")
        double, fingers = args.get("double", False), args.get("fingers", 1)
        if target and (x is not None or y is not None):
            raise invalid("give either target or x/y, not both")
        if (x is None) != (y is None):
            raise invalid("x and y must be given together")
        if not target and x is None:
            raise invalid('app_tap needs a target ("@e5" or "text=Sign In") or x and y')
        if double and fingers != 1:
            raise invalid("a double tap with several fingers is not supported — give double or fingers, not both")
        if not 1 <= fingers <= 5:
            raise invalid(f"fingers is how many touch at once, 1 to 5, got {fingers}")
        if fingers > 1:
            raise MobiumError("unsupported", "adb input cannot touch with several fingers at once",
                              "tap with one finger")
        st = self.state(args)
        action = "double_tap" if double else "tap"
        verb = "double-tapped" if double else "tapped"
        if target is None:
            st.link.tap(x, y)
            if double:
                st.link.tap(x, y)
            return Result(f"{verb} ({x}, {y})", {"action": action, "x": x, "y": y})
        handled: list[dict] = []
        snap, node, aim, subject = self._acquire(st, target, handled=handled)
        st.link.tap(aim.x, aim.y)
        if double:
            st.link.tap(aim.x, aim.y)
        data: dict[str, Any] = {"action": action, "target": target, "x": aim.x, "y": aim.y}
        if st.context != NATIVE:
            data["context"] = st.context
        if aim.cover:
            data["cover"] = aim.cover
        text = f"{verb} {subject} at ({aim.x}, {aim.y}){self._result_note(aim)}"
        return self._with_rules(Result(text, data), handled)

    def _with_rules(self, res: Result, handled: list[dict]) -> Result:
        if handled:
            for h in handled:
                res.text += f'\nanswered by a dialog rule on the way: "{h["dialog"]}" — pressed "{h["press"]}"'
            res.data["dialogs_handled"] = handled
        return res

    def t_app_long_press(self, args: dict) -> Result:
        target, x, y = args.get("target"), args.get("x"), args.get("y")
        ms = args.get("duration_ms", 800)
        if target is None and (x is None or y is None):
            raise invalid("app_long_press needs a target or both x and y")
        if target is not None and (x is not None or y is not None):
            raise invalid("give either target or x/y, not both")
        st = self.state(args)
        if target is None:
            st.link.swipe(x, y, x, y, ms)
            return Result(f"long-pressed ({x}, {y}) for {ms}ms", {"action": "long_press", "x": x, "y": y})
        snap, node, aim, subject = self._acquire(st, target)
        st.link.swipe(aim.x, aim.y, aim.x, aim.y, ms)
        return Result(f"long-pressed {subject} at ({aim.x}, {aim.y}) for {ms}ms{self._result_note(aim)}",
                      {"action": "long_press", "target": target, "x": aim.x, "y": aim.y})

    def _focus(self, st: DeviceState, node: UiNode, aim: Aim) -> None:
        if not node.focused:
            st.link.tap(aim.x, aim.y)

    def _typing(self, st: DeviceState, args: dict, tool: str) -> Result:
        target, text = args.get("target"), args.get("text")
        if not target:
            raise invalid(f'{tool} needs a target ("@e3" or "testid=search")')
        if text is None:
            raise invalid(f'{tool} needs text (pass "" to clear the field)')
        fill = tool == "app_fill"
        loc, subject0 = self._target(st, target)
        # A slider is filled with a position; check the position before anything moves.
        snap0 = self.snap(st)
        pre = find(snap0, loc, st.context)
        if fill and len(pre) == 1 and pre[0].is_slider:
            return self._fill_slider(st, target, text)
        snap, node, aim, subject = self._acquire(st, target, kind="fill" if fill else "type")
        if node.is_slider:
            return self._fill_slider(st, target, text)
        held = node.value
        if node.password and held and not fill and text:
            raise MobiumError("unsupported", f"{subject} is a password field that already holds "
                              f"{len(held)} characters; its contents cannot be read back to add to them",
                              "app_fill replaces a password's contents")
        self._focus(st, node, aim)
        clear = fill or text == ""
        if clear and held:
            st.link.key(123)                        # MOVE_END: delete from the end, whatever the cursor did
            st.link.key(*([67] * len(held)))
        elif not clear:
            st.link.key(123)
        if text:
            st.link.text(text)
        # Read the field back.
        after = self.snap(st)
        again = find(after, loc, st.context)
        if not again and node.rid:
            again = [n for n in after.nodes if n.rid == node.rid]
        now = again[0].value if len(again) == 1 else None
        action = "type" if text and not fill else ("fill" if text else "clear")
        data = {"action": action, "target": target, "x": 0, "y": 0}
        if node.password:
            if not text:
                return Result(f"cleared {subject}", data)
            return Result(f"typed {len(text)} characters into {subject}, a password field — not echoed", data)
        if not text:
            msg = f"cleared {subject}"
            if now:
                msg += f"; it still holds {now!r}"
            return Result(msg, data)
        msg = f'typed "{text}" into {subject}'
        want = text if fill else held + text
        if now is not None and now != want:
            msg += f'; it now holds "{now}"'
        return Result(msg, data)

    def t_app_type(self, args: dict) -> Result:
        self._typing_args(args, "app_type")
        return self._typing(self.state(args), args, "app_type")

    def t_app_fill(self, args: dict) -> Result:
        self._typing_args(args, "app_fill")
        return self._typing(self.state(args), args, "app_fill")

    @staticmethod
    def _typing_args(args: dict, tool: str) -> None:
        if not args.get("target"):
            raise invalid(f'{tool} needs a target ("@e3" or "testid=search")')
        if args.get("text") is None:
            raise invalid(f'{tool} needs text (pass "" to clear the field)')

    def _fill_slider(self, st: DeviceState, target: str, text: str) -> Result:
        try:
            pos = float(text)
        except ValueError:
            pos = -1.0
        if not 0.0 <= pos <= 1.0 or text.strip() == "":
            raise invalid(f'a slider is filled with its position, a number from 0 (the start of its track) to 1 '
                          f'(the end), not "{text}"; map shows the value it reads now',
                          "app_fill with a number from 0 to 1, e.g. 0.5 for the middle", target=target)
        snap, node, aim, subject = self._acquire(st, target)
        label = describe(node)
        was = slider_value(snap, node, label)
        x1, y1, x2, y2 = node.bounds
        # The track spans the bar's bounds (the virtual device maps a touch across the whole width; a real
        # SeekBar insets it by its padding, which the dump does not give).
        pad = 0
        x = int(round(x1 + pad + pos * (x2 - x1 - 2 * pad)))
        x = max(x1, min(x2 - 1, x))
        st.link.swipe(x, (y1 + y2) // 2, x, (y1 + y2) // 2, 60)
        after = self.snap(st)
        loc, _ = self._target(st, target)
        again = find(after, loc, st.context)
        now = slider_value(after, again[0], label) if len(again) == 1 else "?"
        return Result(f'moved {subject} to position {pos:g} — it reads "{now}", was "{was}"',
                      {"action": "fill", "target": target, "value": now, "was": was, "position": pos, "x": 0, "y": 0})

    def t_app_check(self, args: dict) -> Result:
        st = self.state(args)
        target = args.get("target")
        if not target:
            raise invalid('app_check needs a target ("@e3" or "testid=termsCheck")')
        if st.context != NATIVE:
            raise MobiumError("unsupported", "app_check works on the native context; in a page, tap the box",
                              "app_tap the checkbox, then app_map to read it")
        wanted = args.get("checked", True)
        snap, node, aim, subject = self._acquire(st, target)
        role = node.role()
        if not (node.checkable or role in ("checkbox", "radio", "switch")):
            raise invalid(f"{subject} is not a checkbox, radio or switch, so it has no checked state to set — "
                          "app_tap is what acts on it", "app_tap to press it", target=target)
        if role == "radio" and not wanted:
            raise invalid(f"a radio button cannot be unchecked — choose a different one in the group instead, "
                          f"which clears {subject}", "app_tap another radio in the group", target=target)
        state = "checked" if wanted else "unchecked"
        base = {"target": target, "role": role, "wanted": wanted}
        if node.checked == wanted:
            return Result(f"{subject} is already {state}", {**base, "checked": wanted, "changed": False})
        st.link.tap(aim.x, aim.y)
        loc, _ = self._target(st, target)

        def flipped():
            hits = find(self.snap(st), loc, st.context)
            return len(hits) == 1 and hits[0].checked == wanted

        if not wait_until(flipped, 1.5, 0.1):
            raise MobiumError("not_confirmed", f"tapped {subject} to make it {state} and it is still "
                              f"{'unchecked' if wanted else 'checked'} — the control did not respond, so nothing "
                              "here can make it", "read the screen with app_map; something may be in the way",
                              {"target": target})
        return Result(f"{subject} is now {state}", {**base, "checked": wanted, "changed": True})

    def t_app_swipe(self, args: dict) -> Result:
        d = args.get("direction", "")
        coords = [args.get(k) for k in ("x1", "y1", "x2", "y2")]
        ms = args.get("duration_ms", 300)
        if d and any(c is not None for c in coords):
            raise invalid("give a direction or x1/y1/x2/y2, not both")
        if any(c is not None for c in coords) and not all(c is not None for c in coords):
            raise invalid("an exact swipe needs all four of x1, y1, x2, y2")
        if not d and not any(c is not None for c in coords):
            raise invalid("app_swipe needs a direction (up, down, left, right) or all four of x1, y1, x2, y2; "
                          'got direction=""')
        st = self.state(args)
        if all(c is not None for c in coords):
            st.link.swipe(*coords, ms)
            return Result(f"swiped ({coords[0]},{coords[1]}) to ({coords[2]},{coords[3]}) over {ms}ms",
                          {"action": "swipe", "x": coords[2], "y": coords[3]})
        if d not in ("up", "down", "left", "right"):
            raise invalid("app_swipe needs a direction (up, down, left, right) or all four of x1, y1, x2, y2; "
                          f'got direction="{d}"')
        if args.get("target"):
            snap, node, aim, subject = self._acquire(st, args["target"])
            x1, y1, x2, y2 = node.bounds
        else:
            snap = st.last[1] if st.last else self.snap(st)
            x1, y1, x2, y2 = 0, 0, snap.width, snap.height
        w, h = x2 - x1, y2 - y1
        fr = {"up": (0.5, 0.7, 0.5, 0.3), "down": (0.5, 0.3, 0.5, 0.7), "left": (0.7, 0.5, 0.3, 0.5),
              "right": (0.3, 0.5, 0.7, 0.5)}[d]
        a, b = (x1 + int(w * fr[0]), y1 + int(h * fr[1])), (x1 + int(w * fr[2]), y1 + int(h * fr[3]))
        st.link.swipe(a[0], a[1], b[0], b[1], ms)
        return Result(f"swiped {d}: ({a[0]},{a[1]}) to ({b[0]},{b[1]})",
                      {"action": "swipe", "target": d, "x": b[0], "y": b[1]})

    def t_app_scroll_to(self, args: dict) -> Result:
        st = self.state(args)
        target = args.get("target")
        if not target:
            raise invalid('app_scroll_to needs a target ("label=Row 55")')
        direction = args.get("direction", "down")
        if st.context != NATIVE:
            raise MobiumError("unsupported", "app_scroll_to works on the native context — switch back with "
                              "app_context NATIVE_APP, or app_swipe over the page", "app_swipe, then app_map")
        loc, subject = self._target(st, target)
        snap = self.snap(st)
        hits = find(snap, loc, NATIVE)
        scrolls = 0
        if not hits:
            box = self._scroll_container(snap, direction)
            if box is None:
                raise MobiumError("no_such_element", f"no element matches {subject} and nothing on this screen "
                                  "scrolls", "run app_map to see what is on screen", {"locator": subject})
            found = self._scroll_search(st, snap, loc, direction)
            scrolls = self.scrolls
            if found is None:
                if self.scroll_end:
                    raise MobiumError("no_such_element", f"no element matches {subject} — scrolled {direction} to "
                                      f"the end of the list ({scrolls} scrolls) without bringing it into view",
                                      "check the locator with app_map, or try another direction",
                                      {"locator": subject, "scrolls": scrolls, "end": True})
                raise MobiumError("no_such_element", f"no element matches {subject} after scrolling {direction} "
                                  f"{scrolls} times — the list is longer than mobium will swipe; try a deep link "
                                  "with app_open_url", "app_scroll_to again to go further",
                                  {"locator": subject, "scrolls": scrolls})
            snap = found[0]
            hits = find(snap, loc, NATIVE)
        if len(hits) > 1:
            raise self._ambiguous(loc, subject, len(hits))
        elements = build_elements(snap, NATIVE)
        self._remember(st, snap, elements, NATIVE)
        el = element_for(snap, hits[0], elements)
        where = "is on screen already" if not scrolls else \
            f"is on screen after {scrolls} scroll{'s' if scrolls != 1 else ''} {direction}"
        text = f"{subject} {where}" + (f" — {el.line()}" if el else "")
        data = {"target": target, "direction": direction, "scrolls": scrolls}
        if el:
            data["element"] = el.to_json()
        return Result(text, data)

    # ================================================================================================================
    # Waiting

    def t_app_wait_for(self, args: dict) -> Result:
        st = self.state(args)
        target = args.get("target")
        if not target:
            raise invalid('app_wait_for needs a target ("testid=welcomeText")')
        if st.context != NATIVE:
            raise MobiumError("unsupported", "app_wait_for works on the native context — switch back with "
                              "app_context NATIVE_APP, or poll the page with app_map", "app_context NATIVE_APP")
        cond = args.get("condition", "visible")
        conds = ("visible", "hidden", "text", "enabled", "disabled", "value", "checked", "unchecked", "count")
        if cond not in conds:
            raise invalid(f'unknown condition "{cond}" (want {", ".join(conds)})')
        want_text = args.get("text")
        if cond in ("text", "value") and want_text is None:
            raise invalid(f'condition "{cond}" needs text')
        count = args.get("count")
        if cond == "count" and count is None:
            raise invalid('condition "count" needs count')
        timeout_ms = args.get("timeout_ms", 10000)
        if timeout_ms > 120000:
            raise invalid(f"timeout_ms of {timeout_ms} exceeds the 2m0s ceiling on a single tool call")
        negate, exact = args.get("not", False), args.get("exact", False)
        loc, subject = self._target(st, target)
        start = time.monotonic()
        deadline = start + timeout_ms / 1000

        def holds(snap: Snapshot) -> tuple[bool, str, Optional[UiNode]]:
            hits = [n for n in find(snap, loc, NATIVE) if not n.empty]
            if cond == "count":
                return len(hits) == count, f"it matches {len(hits)}", None
            if cond == "hidden":
                return not hits, f"{len(hits)} still on screen", None
            if not hits:
                if snap.dialog is not None:
                    return False, f'it is under a dialog, "{snap.dialog.title}" — answer it first', None
                return False, "it is not on screen", None
            n = hits[0]
            if cond == "visible":
                return True, "", n
            if cond in ("enabled", "disabled"):
                return n.enabled == (cond == "enabled"), f"it is {'enabled' if n.enabled else 'disabled'}", n
            if cond in ("checked", "unchecked"):
                if not (n.checkable or n.role() in ("checkbox", "radio", "switch")):
                    raise invalid(f"{subject} has no checked state, so it can never be {cond}")
                return n.checked == (cond == "checked"), f"it is {'checked' if n.checked else 'unchecked'}", n
            if n.password:
                raise invalid(f"{subject} is a password field; its text is never read, so it cannot be waited for")
            current = n.value if n.editable_class else self._read_value(n)
            if cond == "value" or exact:
                return current == want_text, f'its text is "{current}"', n
            return want_text in current, f'its text is "{current}"', n

        while True:
            snap = self.snap(st)
            ok, why, node = holds(snap)
            if negate:
                ok = not ok
            if ok:
                waited = int((time.monotonic() - start) * 1000)
                data: dict[str, Any] = {"target": target, "condition": cond, "waited_ms": waited}
                phrase = {"visible": "is visible", "hidden": "is hidden", "enabled": "is enabled",
                          "disabled": "is disabled", "checked": "is checked", "unchecked": "is unchecked",
                          "text": f'says "{want_text}"', "value": f'holds exactly "{want_text}"',
                          "count": f"matches {count} on screen"}[cond]
                if exact and cond == "text":
                    phrase = f'says exactly "{want_text}"'
                if negate:
                    phrase = "is no longer true: " + phrase
                text = f"{subject} {phrase} after {_dur(waited)}"
                if node is not None and not negate:
                    elements = build_elements(snap, NATIVE)
                    self._remember(st, snap, elements, NATIVE)
                    el = element_for(snap, node, elements)
                    if el is not None:
                        text += f" — {el.line()}"
                        data["element"] = el.to_json()
                return Result(text, data)
            if time.monotonic() >= deadline:
                waited = time.monotonic() - start
                goal = {"visible": "to be visible", "hidden": "to be hidden", "enabled": "to be enabled",
                        "disabled": "to be disabled", "checked": "to become checked",
                        "unchecked": "to stop being checked", "text": f'to say "{want_text}"',
                        "value": f'to hold exactly "{want_text}"', "count": f"to match {count}"}[cond]
                if negate:
                    goal = "to stop " + goal[3:]
                raise MobiumError("timeout", f"timed out after {waited:.3f}s waiting for {subject} {goal} — {why}",
                                  "wait longer with timeout_ms, or check the screen with app_map",
                                  {"locator": subject, "condition": cond})
            time.sleep(POLL)

    # ================================================================================================================
    # Apps

    def _need_app(self, args: dict) -> str:
        app = args.get("app")
        if not app:
            raise invalid('this tool needs an app id — a package name on Android ("com.example.shop") or a bundle '
                          'id on iOS ("com.example.Shop")')
        if not re.fullmatch(r"[A-Za-z0-9_.]+", app):
            raise invalid(f'"{app}" is not a package name', "give a package name such as dev.mobium.mobiumapp")
        return app

    def _installed(self, st: DeviceState, app: str) -> None:
        if not st.link.installed(app):
            raise invalid(f"{app} is not installed on {st.link.serial}", "check the package name (app_devices, or "
                          "the app's id)", app=app)

    def t_app_launch(self, args: dict) -> Result:
        st = self.state(args)
        app = self._need_app(args)
        self._installed(st, app)
        out = st.link.shell(f"cmd package resolve-activity --brief -c android.intent.category.LAUNCHER {app}")
        comp = next((ln.strip() for ln in reversed(out.splitlines()) if "/" in ln and "=" not in ln), "")
        if comp:
            st.link.shell(f"am start -n {shlex.quote(comp)}")
        else:
            st.link.shell(f"monkey -p {app} -c android.intent.category.LAUNCHER 1")
        self.drop_refs(st)
        st.context = NATIVE
        front = wait_until(lambda: (lambda f: f if f == app else None)(st.link.foreground()), 3.0, 0.1)
        data = {"app": app, "device": st.link.serial}
        if front:
            return Result(f"launched {app}", data)
        other = st.link.foreground()
        data["foreground"] = other
        return Result(f"launched {app}, but {other or 'something else'} is in the foreground", data)

    def t_app_terminate(self, args: dict) -> Result:
        st = self.state(args)
        app = self._need_app(args)
        st.link.shell(f"am force-stop {app}")
        self.drop_refs(st)
        st.context = NATIVE
        return Result(f"terminated {app}", {"app": app, "device": st.link.serial})

    def t_app_current(self, args: dict) -> Result:
        st = self.state(args)
        app = st.link.foreground()
        data: dict[str, Any] = {"app": app, "device": st.link.serial}
        if st.context != NATIVE:
            data["context"] = st.context
        return Result(app or "could not determine the foreground app", data)

    def t_app_state(self, args: dict) -> Result:
        st = self.state(args)
        app = self._need_app(args)
        data: dict[str, Any] = {"app": app, "device": st.link.serial}
        if not st.link.installed(app):
            return Result(f"{app} is not installed", {**data, "state": "not_installed"})
        if not st.link.running(app):
            return Result(f"{app} is installed and not running", {**data, "state": "not_running"})
        front = st.link.foreground()
        if front == app:
            return Result(f"{app} is in front", {**data, "state": "foreground"})
        if front in ("com.google.android.permissioncontroller", "com.android.permissioncontroller"):
            return Result(f"{app} is in front, under {front}", {**data, "state": "foreground", "covered_by": front})
        return Result(f"{app} is running in the background", {**data, "state": "background"})

    def t_app_clear_data(self, args: dict) -> Result:
        st = self.state(args)
        app = self._need_app(args)
        if not st.link.installed(app):
            raise invalid(f"{app} is not installed on {st.link.serial}, so there is no data to clear", app=app)
        st.link.shell(f"am force-stop {app}")
        out = st.link.shell(f"pm clear {app}").strip()
        self.drop_refs(st)
        st.context = NATIVE
        if "Success" not in out:
            raise MobiumError("device_server", f"pm clear {app} did not succeed: {out or 'no answer'}",
                              "check that the app is installed and not a protected system app")
        _, runtime = st.link.permissions(app)
        still = sorted(p.rsplit(".", 1)[-1] for p, g in runtime.items() if g)
        emptied = ["the app's private files, databases and preferences (pm clear: Success)",
                   "its runtime permission grants (pm clear revokes them)"]
        text = (f"cleared {app}\n  emptied: app data, by pm clear, which answered Success\n"
                f"  kept:    the installed app; shared storage (/sdcard) is not the app's to clear\n"
                f"  runtime permissions still granted: {', '.join(still) if still else 'none'}")
        return Result(text, {"app": app, "device": st.link.serial, "emptied": emptied,
                             "kept": ["the installed app", "shared storage"], "still_granted": still})

    # ================================================================================================================
    # System UI

    def t_app_alert(self, args: dict) -> Result:
        st = self.state(args)
        action = args.get("action", "read")
        if action not in ("accept", "dismiss", "read"):
            raise invalid(f'unknown action "{action}" (want accept, dismiss, or omit it to read)')
        snap = self.snap(st)
        dialog = snap.dialog
        if args.get("text") is not None:
            raise MobiumError("unsupported", "cannot type into a dialog on Android — this driver has no way to "
                              "reach a prompt's field", "tap the dialog's field and use app_type, if it has one")
        if action == "read":
            if dialog is None:
                return Result("no dialog is on screen", {"present": False, "device": st.link.serial})
            body = dialog.title + (f"\n{dialog.message}" if dialog.message else "")
            buttons = ", ".join(f'"{c}"' for c in dialog.captions())
            return Result(f'a dialog is on screen: "{body}"\nbuttons: {buttons}',
                          {"present": True, "text": body, "buttons": dialog.captions(),
                           "permission": dialog.permission, "device": st.link.serial})
        if dialog is None:
            raise MobiumError("no_such_alert", f"there is no dialog to {action} — app_alert with no action reports "
                              "whether one is up", "app_alert with no action, or app_map")
        button = self._dialog_button(dialog, action)
        if button is None:
            raise MobiumError("unsupported", f'"{dialog.title}" has no button for {action} to press',
                              "tap one of its buttons from app_map", {"dialog": dialog.title})
        st.link.tap(*button.center)
        self.drop_refs(st)
        gone = wait_until(lambda: (lambda d: d is None or d.title != dialog.title)(self.snap(st).dialog), 3.0, 0.1)
        if not gone:
            raise MobiumError("not_confirmed", f'pressed "{button.text or button.desc}" on "{dialog.title}" and it '
                              "is still up after 3s", "app_map, and tap one of its buttons")
        verb = "accepted" if action == "accept" else "dismissed"
        return Result(f'{verb} the dialog "{dialog.title}" — this answered it and did not choose an outcome: on a '
                      "permission prompt accept and dismiss do not mean grant and deny, and on iOS they are the "
                      "other way round. Tap the button by ref if you need a particular answer",
                      {"present": True, "answered": action, "text": dialog.title,
                       "pressed": button.text or button.desc, "device": st.link.serial})

    @staticmethod
    def _dialog_button(dialog, action: str) -> Optional[UiNode]:
        by_id = {b.rid: b for b in dialog.buttons}
        if action == "accept":
            if "android:id/button1" in by_id:
                return by_id["android:id/button1"]
            for b in dialog.buttons:
                cap = (b.text or b.desc).lower()
                if ("allow" in cap or "while" in cap) and "don" not in cap and "deny" not in cap:
                    return b
            return dialog.buttons[0] if dialog.buttons else None
        if "android:id/button2" in by_id:
            return by_id["android:id/button2"]
        for b in dialog.buttons:
            cap = (b.text or b.desc).lower()
            if "don" in cap or "deny" in cap or "cancel" in cap:
                return b
        return dialog.buttons[-1] if dialog.buttons else None

    def t_app_dialogs(self, args: dict) -> Result:
        st = self.state(args)
        when, press, clear = args.get("when"), args.get("press"), args.get("clear", False)
        if clear and (when or press):
            raise invalid("clear removes every rule; it takes no when or press")
        if clear:
            st.rules.clear()
        elif when or press:
            if not (when and press):
                raise invalid("a dialog rule needs both when (text the dialog contains) and press (the caption of "
                              "the button to press)")
            for r in st.rules:
                if r["when"].lower() == when.lower():
                    r["press"] = press
                    break
            else:
                st.rules.append({"when": when, "press": press, "hits": 0})
        rules = [dict(r) for r in st.rules]
        if not rules:
            return Result("no dialog rules", {"rules": [], "device": st.link.serial})
        lines = [f"{len(rules)} dialog rule(s)"] + [f'  when "{r["when"]}": press "{r["press"]}"  '
                                                    f'(answered {r["hits"]})' for r in rules]
        return Result("\n".join(lines), {"rules": rules, "device": st.link.serial})

    def t_app_keyboard(self, args: dict) -> Result:
        st = self.state(args)
        text, key, hide = args.get("text"), args.get("key"), args.get("hide", False)
        if hide and (text is not None or key is not None):
            raise invalid("hide cannot be combined with text or key — type first, then hide in a second call")
        if key is not None and key not in KEYBOARD_KEYS:
            raise invalid(f'unknown key "{key}" (want enter, delete, space)')
        snap = self.snap(st)
        focus = next((n for n in snap.nodes if n.focused and n.editable_class), None)

        def focus_view(n: Optional[UiNode]) -> Optional[dict]:
            if n is None:
                return None
            v = {"id": short_id(n.rid), "kind": n.role(), "value": self._read_value(n) if n.value else "(empty)",
                 "empty": not n.value}
            if n.password:
                v["password"] = True
            return v

        def describe_state(s: Snapshot, n: Optional[UiNode]) -> str:
            if not s.keyboard:
                return "the keyboard is hidden"
            if n is None:
                return "the keyboard is up; no field has focus"
            held = self._read_value(n) if n.value else "(empty)"
            return f"the keyboard is up; focus is on {describe(n)}, holding {held}"

        data: dict[str, Any] = {"shown": bool(snap.keyboard), "device": st.link.serial}
        if hide:
            self.drop_refs(st)
            if not snap.keyboard:
                return Result("the keyboard is already hidden", {**data, "hidden": True})
            st.link.key(4)
            hidden = wait_until(lambda: not self.snap(st).keyboard, 2.0, 0.1)
            if not hidden:
                raise MobiumError("not_confirmed", "pressed back to hide the keyboard and it is still up",
                                  "app_keyboard with key enter")
            return Result("hid the keyboard", {**data, "shown": False, "hidden": True})
        if text is None and key is None:
            data["focused"] = focus_view(focus)
            return Result(describe_state(snap, focus), data)
        if not snap.keyboard or focus is None:
            raise MobiumError("device_not_ready", "no field has focus, so there is nowhere to type — tap a field "
                              "first, or use app_type with a target", "app_type with the field as target")
        self.drop_refs(st)
        if text is not None:
            if focus.password and focus.value:
                raise MobiumError("unsupported", "a password field that already holds text cannot be added to",
                                  "app_fill the password field")
            st.link.key(123)
            st.link.text(text)
            data["typed"] = None if focus.password else text
        if key is not None:
            st.link.key(KEYBOARD_KEYS[key])
            data["key"] = key
        after = self.snap(st)
        f2 = next((n for n in after.nodes if n.focused and n.editable_class), None)
        data["shown"] = bool(after.keyboard)
        data["focused"] = focus_view(f2)
        if key is not None:
            return Result(f"pressed {key}; " + describe_state(after, f2).replace("the keyboard is up; ", ""), data)
        if focus.password:
            return Result(f"typed {len(text)} characters into {describe(focus)}, a password field — not echoed; it "
                          f"now holds {self._read_value(f2) if f2 else '(unknown)'}", data)
        holds = f2.value if f2 is not None else "(unknown)"
        return Result(f'typed "{text}" into {describe(focus)}, which now holds {holds}', data)

    def t_app_press(self, args: dict) -> Result:
        st = self.state(args)
        button = args.get("button")
        if not button:
            raise invalid("app_press needs a button — this device has back, home, recents, volume-up, volume-down")
        if button not in KEYCODES:
            raise invalid(f'there is no "{button}" button — mobium knows back, home, recents, volume-up, volume-down')
        st.link.key(KEYCODES[button])
        self.drop_refs(st)
        st.context = NATIVE
        data: dict[str, Any] = {"button": button, "confirmed": False, "device": st.link.serial}
        if button == "home":
            front = st.link.foreground()
            data.update(confirmed=True, foreground=front)
            return Result(f"pressed home — {front} is in the foreground", data)
        return Result(f"pressed {button}", data)

    def t_app_appearance(self, args: dict) -> Result:
        st = self.state(args)
        want = args.get("appearance")

        def read() -> str:
            out = st.link.shell("cmd uimode night")
            m = re.search(r"Night mode:\s*(\w+)", out)
            mode = m.group(1) if m else ""
            return {"yes": "dark", "no": "light", "auto": "auto"}.get(mode, mode or "unknown")

        now = read()
        if want is None:
            return Result(now, {"appearance": now, "device": st.link.serial})
        if want not in ("light", "dark", "auto"):
            raise invalid(f'unknown appearance "{want}" (want "light", "dark", or "auto" on Android)')
        if now == want:
            return Result(f"already {want}", {"appearance": want, "device": st.link.serial})
        st.link.shell(f"cmd uimode night {dict(light='no', dark='yes', auto='auto')[want]}")
        self.drop_refs(st)
        after = read()
        if after != want:
            raise MobiumError("not_confirmed", f"asked for {want} and the device reads {after}",
                              "try again, or set it in Settings › Display")
        return Result(f"{want} (was {now})", {"appearance": want, "previous": now, "device": st.link.serial})

    def _permissions(self, st: DeviceState, args: dict, grant: bool) -> Result:
        app = self._need_app(args)
        self._installed(st, app)
        names = args.get("permissions")
        if isinstance(names, str):
            names = [p.strip() for p in names.split(",") if p.strip()]
        if not names:
            raise invalid("permissions needs at least one name, e.g. [\"location\"] or [\"all\"]")
        requested, runtime = st.link.permissions(app)
        perms: list[str] = []
        for name in names:
            low = name.lower()
            if low == "all":
                perms += sorted(runtime) or sorted(requested)
            elif low in PERMISSION_SETS:
                perms += [f"android.permission.{p}" for p in PERMISSION_SETS[low]]
            elif "." in name:
                perms.append(name)
            elif re.fullmatch(r"[A-Z_]+", name):
                perms.append(f"android.permission.{name}")
            else:
                raise invalid(f'unknown permission "{name}" (want all, ' + ", ".join(sorted(PERMISSION_SETS)) +
                              ', or an android.permission.X name)')
        perms = list(dict.fromkeys(perms))
        applied, skipped, failed, views = [], [], [], []
        verb = "grant" if grant else "revoke"
        for p in perms:
            short = p.rsplit(".", 1)[-1]
            if requested and p not in requested:
                skipped.append(short)
                views.append({"name": short, "applied": False, "skipped": "not declared by the app"})
                continue
            out = st.link.shell(f"pm {verb} {app} {p}").strip()
            if out:
                failed.append((short, out.splitlines()[0]))
                views.append({"name": short, "applied": False, "error": out.splitlines()[0]})
                continue
            applied.append(short)
            views.append({"name": short, "applied": True})
        if applied:
            _, after = st.link.permissions(app)
            for v in views:
                if v["applied"]:
                    full = next((p for p in perms if p.endswith("." + v["name"])), v["name"])
                    if full in after and after[full] != grant:
                        failed.append((v["name"], "the command reported success but the state did not change"))
        if failed:
            lines = "\n".join(f"  {n}: {e}" for n, e in failed)
            raise MobiumError("device_server", f"{verb} failed for {app} on {st.link.serial}:\n{lines}",
                              "check the permission names against what the app declares", {"permissions": views})
        past = "granted" if grant else "revoked"
        text = f"{past} {len(applied)} permission{'s' if len(applied) != 1 else ''} for {app}: " + \
            (", ".join(applied) if applied else "none")
        if skipped:
            text += f"\nskipped {len(skipped)} the app does not declare: {', '.join(skipped)}"
        return Result(text, {"app": app, "device": st.link.serial, "granted": grant, "permissions": views})

    def t_app_grant(self, args: dict) -> Result:
        return self._permissions(self.state(args), args, True)

    def t_app_revoke(self, args: dict) -> Result:
        return self._permissions(self.state(args), args, False)

    def t_app_notifications(self, args: dict) -> Result:
        st = self.state(args)
        text, title, tag, shade = args.get("text"), args.get("title"), args.get("tag"), args.get("shade")
        if shade:
            st.link.shell("cmd statusbar " + ("expand-notifications" if shade == "open" else "collapse"))
            self.drop_refs(st)
            return Result(f"{'opened' if shade == 'open' else 'closed'} the notification shade",
                          {"shade": shade, "device": st.link.serial})
        if text is not None:
            t = title or "Mobium"
            g = tag or "mobium"
            out = st.link.shell(f"cmd notification post -t {shlex.quote(t)} {shlex.quote(g)} {shlex.quote(text)}")
            if "Unknown command" in out or "Exception" in out or "Error" in out:
                raise MobiumError("unsupported", "this device cannot post a notification from the shell (cmd "
                                  f"notification post answered: {out.strip().splitlines()[0]})",
                                  "read notifications with app_notifications and no arguments")
            return Result(f'posted "{t}: {text}"', {"posted": {"title": t, "text": text, "tag": g},
                                                     "device": st.link.serial})
        out = st.link.shell("dumpsys notification --noredact")
        items = parse_notifications(out)
        if not items:
            return Result("no notifications", {"notifications": [], "device": st.link.serial})
        lines = [f'{n["app"]}: {n["title"]} — {n["text"]}' for n in items]
        return Result("\n".join(lines), {"notifications": items, "device": st.link.serial})

    # ================================================================================================================
    # Contexts

    def _contexts(self, st: DeviceState, snap: Snapshot) -> list[dict]:
        out = [{"id": NATIVE}]
        pkgs: dict[str, UiNode] = {}
        for wv in snap.webviews:
            pkgs.setdefault(wv.package or snap.foreground or "webview", wv)
        for pkg, wv in pkgs.items():
            title = next((d.text for d in wv.descendants() if d.text), "")
            out.append({"id": f"WEBVIEW_{pkg}", "title": title, "webviews": sum(1 for w in snap.webviews
                                                                                  if w.package == pkg)})
        for c in out:
            if c["id"] == st.context:
                c["current"] = True
        return out

    def t_app_contexts(self, args: dict) -> Result:
        st = self.state(args)
        snap = self.snap(st)
        if st.context != NATIVE and not snap.webviews:
            st.context = NATIVE
        ctxs = self._contexts(st, snap)
        lines = [c["id"] + (f'  "{c["title"]}"' if c.get("title") else "") + ("  (current)" if c.get("current")
                                                                             else "") for c in ctxs]
        return Result("\n".join(lines), {"contexts": ctxs, "current": st.context})

    def t_app_context(self, args: dict) -> Result:
        st = self.state(args)
        want = args.get("context")
        if want is None:
            return Result(st.context, {"context": st.context, "device": st.link.serial})
        if want.lower() in ("native", "native_app"):
            want = NATIVE
        snap = self.snap(st)
        ids = [c["id"] for c in self._contexts(st, snap)]
        if want not in ids:
            raise MobiumError("no_such_context", f'no context "{want}" on screen (have: {", ".join(ids)})',
                              "app_contexts lists them; a WebView context exists only while a WebView is on screen",
                              {"context": want, "contexts": ids})
        before = st.context
        st.context = want
        if before != want:
            self.drop_refs(st)
        return Result(f"switched to {want}" if before != want else f"already in {want}",
                      {"context": want, "previous": before, "device": st.link.serial})

    # ================================================================================================================
    # Sessions and batches

    def t_app_session(self, args: dict) -> Result:
        action = args.get("action", "status")
        if action not in ("start", "end", "status"):
            raise invalid(f'unknown action "{action}" (want "start", "end" or "status")')
        if args.get("platform") == "ios":
            raise MobiumError("unsupported", "this server drives Android only", "omit platform")
        if action == "status":
            open_ = [{"device": s, "platform": "android", "driver": "uiautomator2"}
                     for s, d in self.devices.items() if d.session_open]
            text = "open: " + ", ".join(f'{o["device"]} (android, uiautomator2)' for o in open_) if open_ else \
                "no session is open"
            return Result(text, {"action": "status", "ended": False, "sessions": open_})
        st = self.state(args)
        serial = st.link.serial
        if action == "start":
            reused = st.session_open
            st.session_open = True
            app = args.get("app")
            text = (f"session already open on {serial}" if reused else
                    f"session started on {serial} (android, uiautomator2)")
            data: dict[str, Any] = {"action": "start", "device": serial, "platform": "android",
                                    "driver": "uiautomator2", "reused": reused, "ended": False, "sessions": []}
            if app:
                self.t_app_terminate({"app": app, "device": serial})
                res = self.t_app_launch({"app": app, "device": serial})
                st.session_app = app
                data["app"] = app
                text += f"; {app} was launched fresh and " + ("is in the foreground" if res.text == f"launched {app}"
                                                              else res.text.split(", but ", 1)[-1])
            return Result(text, data)
        if not st.session_open:
            return Result("no session was open on any device", {"action": "end", "ended": False, "sessions": []})
        st.session_open = False
        text = f"session ended on {serial}; anything it changed for the session is put back"
        data = {"action": "end", "device": serial, "ended": True, "sessions": []}
        if st.session_app:
            st.link.shell(f"am force-stop {st.session_app}")
            text += f"; {st.session_app}, which the session launched, was stopped"
            data["terminated"] = st.session_app
            st.session_app = None
        self.drop_refs(st)
        st.rules.clear()
        st.context = NATIVE
        return Result(text, data)

    def t_app_batch(self, args: dict) -> Result:
        steps = args.get("steps")
        if not isinstance(steps, list) or not steps:
            raise invalid('steps must be a non-empty list of {"name": tool, "arguments": {...}}')
        if len(steps) > 100:
            raise invalid(f"a batch takes at most 100 steps, got {len(steps)}")
        for i, step in enumerate(steps, 1):
            if not isinstance(step, dict) or "name" not in step and "arguments" not in step:
                raise invalid(f'step {i} is not an object with "name" and "arguments"')
            extra = [k for k in step if k not in ("name", "arguments")]
            if extra:
                raise invalid(f'step {i} has "{extra[0]}"; a step has only "name" and "arguments"')
            name = step.get("name")
            if not name:
                raise invalid(f"step {i} has no tool name")
            if name == "app_batch":
                raise invalid(f"step {i} is app_batch; a batch cannot contain another — list its steps in this one")
            if name not in self.tools:
                raise invalid(f'step {i} names "{name}", which is not a tool (have: {", ".join(self.tools)})')
            sargs = step.get("arguments", {})
            if not isinstance(sargs, dict):
                raise invalid(f"step {i} ({name}): arguments must be an object")
            if "device" in sargs:
                raise invalid(f"step {i} ({name}) names a device; a batch runs on one device, so give it to the "
                              "batch")
            props = self.tools[name].schema["properties"]
            for k in sargs:
                if k not in props:
                    raise invalid(f'step {i} ({name}) has an argument "{k}" that {name} does not take (it takes: '
                                  f'{", ".join(sorted(p for p in props if p not in ("device", "driver")))})')
            for req in self.tools[name].schema.get("required", []):
                if req not in sargs:
                    raise invalid(f'step {i} ({name}) is missing "{req}"')
            self.check_args(name, sargs, where=f"step {i}: ")
        done: list[dict] = []
        images: list[bytes] = []
        for i, step in enumerate(steps, 1):
            name = step["name"]
            sargs = dict(step.get("arguments", {}))
            if args.get("device"):
                sargs["device"] = args["device"]
            try:
                res = getattr(self, "t_" + name)(sargs)
            except MobiumError as err:
                if i == 1:
                    tail = "; nothing ran before it"
                elif i == 2:
                    tail = "; step 1 ran before it, and nothing after"
                else:
                    tail = f"; steps 1-{i - 1} ran before it, and nothing after"
                raise MobiumError(err.code, f"step {i} of {len(steps)} ({name}) failed: {err.message}{tail}",
                                  err.remedy, {**err.details, "step": i, "completed": done}, err.retryable) from None
            entry: dict[str, Any] = {"name": name, "text": res.text}
            if res.data is not None:
                entry["data"] = res.data
            if res.image is not None:
                entry["image"] = True
                images.append(res.image)
                entry["text"] = f"image {len(images)} below"
            done.append(entry)
        text = "\n".join(f"{i}. {d['name']}: {d['text']}" for i, d in enumerate(done, 1))
        res = Result(text, {"steps": done})
        if images:
            res.image = images[0]
        return res


# --------------------------------------------------------------------------------------------------------------------
# helpers

def _a(kind: Optional[str]) -> str:
    return {"string": "a string", "integer": "an integer", "number": "a number", "boolean": "true or false",
            "array": "a list", "object": "an object"}.get(kind or "", "a value")


def _box(b) -> str:
    return f"[{b[0]},{b[1]}][{b[2]},{b[3]}]"


def _bounds_json(b) -> dict:
    return {"x1": b[0], "y1": b[1], "x2": b[2], "y2": b[3]}


def _dur(ms: int) -> str:
    return f"{ms}ms" if ms < 1000 else f"{ms / 1000:.3f}s"


def _mask_passwords(xml: str) -> str:
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


__all__ = ["Mobium", "Result", "parse_notifications", "Callable", "base64"]
