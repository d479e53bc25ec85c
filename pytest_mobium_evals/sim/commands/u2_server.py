"""openatx uiautomator2's on-device agent (`CLASSPATH=/data/local/tmp/u2.jar app_process / com.wetest.uia2.Main -p
PORT`), emulated over the virtual device as the DeviceServer is (programs.py): an HTTP server on the device's
tcp:PORT (9008 by default), which the Python client reaches through ADB's tcp: service.

Its methods are the ones u2.jar 0.4.x serves (openatx/android-uiautomator-server-jar, AutomatorServiceImpl;
tools/methods.json lists them), as uiautomator2 3.7.1's Python API calls them: `GET /ping` → `pong`; `POST
/jsonrpc/0` with JSON-RPC 2.0. Served: ping, deviceInfo, dumpWindowHierarchy, takeScreenshot (JPEG, base64); click,
swipe, swipePoints, drag, injectInputEvent (touch down, move, up), pressKey, pressKeyCode, wakeUp, sleep,
isScreenOn, openNotification, openQuickSettings; setOrientation (left, right, natural: frozen there, as UiDevice's
setOrientation* does) and freezeRotation; getLastToast and clearLastToast (the last toast shown since the agent
started, as its accessibility listener catches it); getClipboard, setClipboard, pasteClipboard and clearInputText
(Ctrl+V, Ctrl+A then Delete, on the focused field); and the selector family on the current hierarchy — objInfo,
objInfoOfAllInstances, count, exist, waitForExists, waitUntilGone, getText, setText, clearTextField, click,
longClick, dragTo, gesture, pinchIn, pinchOut, swipe, the scroll and fling family (UiScrollable), scrollTo, and
childByText, childByDescription, childByInstance (a name the other selector methods take in place of a selector).
Anything else is JSON-RPC's -32601 "Method not found", as the agent answers a method it does not have (uiautomator2's
deprecated makeToast among them).

A selector is matched as UiSelector matches: each field present (text, textContains, textMatches, textStartsWith,
className, classNameMatches, description…, resourceId, resourceIdMatches, packageName, the boolean states, index)
must hold, `instance` picks the Nth match, and its child and sibling selectors (childSelector, fromParent) narrow it
in order."""

from __future__ import annotations

import base64
import http.server
import io
import json
import re
import socket
import uuid
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING

from ..keycodes import KEY_NAMES
from ..render import render
from ..uia2 import actions as w3c_actions
from .base import Ctx, sleep_real
from .programs import PROGRAMS, Held, programs

if TYPE_CHECKING:
    from ..device import VirtualDevice

U2_CLASS = "com.wetest.uia2.Main"
DEFAULT_PORT = 9008
# uiautomator2's pressKey names (its key map) that are not Android's KEYCODE_ names.
U2_KEYS = {"home": "HOME", "back": "BACK", "left": "DPAD_LEFT", "right": "DPAD_RIGHT", "up": "DPAD_UP",
           "down": "DPAD_DOWN", "center": "DPAD_CENTER", "menu": "MENU", "search": "SEARCH", "enter": "ENTER",
           "delete": "DEL", "del": "DEL", "recent": "APP_SWITCH", "volume_up": "VOLUME_UP",
           "volume_down": "VOLUME_DOWN", "volume_mute": "VOLUME_MUTE", "camera": "CAMERA", "power": "POWER"}
BOOL_FIELDS = {"checkable": "checkable", "checked": "checked", "clickable": "clickable", "enabled": "enabled",
               "focusable": "focusable", "focused": "focused", "longClickable": "long-clickable",
               "scrollable": "scrollable", "selected": "selected"}
TEXT_FIELDS = {"text": "text", "description": "content-desc", "className": "class", "packageName": "package",
               "resourceId": "resource-id"}


class SelectorError(ValueError):
    pass


STEP_S = 0.005          # UiAutomator injects a move every 5 ms a step
LONG_PRESS_S = 0.4      # ViewConfiguration's long-press timeout, which UiDevice.drag holds before moving
CLICK_S = 0.1           # REGULAR_CLICK_LENGTH, held before a drag lifts
EDGE = 5                # UiObject's SWIPE_MARGIN_LIMIT
FINGER_HALF_WIDTH = 20  # UiObject's FINGER_TOUCH_HALF_WIDTH (pinchIn/pinchOut)
SCROLL_STEPS = 55       # UiScrollable's default steps a scroll swipe
FLING_STEPS = 5         # UiScrollable's fling: a swipe of 5 steps
MAX_SEARCH_SWIPES = 30  # UiScrollable's mMaxSearchSwipes
WAIT_POLL_S = 0.1       # how often a wait reads the hierarchy again, in the device's seconds


def _start(ctx: Ctx, dex: bytes, cmdline: str, args: list[str]) -> int:
    port = DEFAULT_PORT
    if "-p" in args and args.index("-p") + 1 < len(args) and args[args.index("-p") + 1].isdigit():
        port = int(args[args.index("-p") + 1])
    device = ctx.device
    spec = f"tcp:{port}"
    if device.listeners.is_listening(spec):
        ctx.errln(f"java.net.BindException: Address already in use (port {port})")
        return 1
    server = U2Server(device)
    program = programs(device).start("app_process", cmdline, lambda signal: _stop(device, spec, server))
    device.listeners.listen(spec, server.serve)
    ctx.outln("[server] INFO: [UiAutomator2Server] Starting Server")
    if ctx.is_top_output():
        # In the foreground of its adb session, as the client runs it: the session stays open while it serves,
        # and a client that hangs up ends it (its stream closed).
        ctx.shell.hold = Held(device, program, lambda: not program.done.is_set())
    return 0


def _stop(device: "VirtualDevice", spec: str, server: "U2Server") -> bool:
    device.listeners.close(spec)
    server.close()
    return True


PROGRAMS[U2_CLASS] = _start


class U2Server:
    def __init__(self, device: "VirtualDevice") -> None:
        self.device = device
        self.last_toast: str | None = None
        self.objects: dict[str, tuple[dict, dict, str, object]] = {}  # childBy…'s names
        self.pointer: tuple[int, int] | None = None  # injectInputEvent's finger, while down
        # The agent's accessibility listener: every toast shown from now on is the last one it saw.
        device.toast_listeners.append(self._saw_toast)

    def _saw_toast(self, text: str) -> None:
        self.last_toast = text

    def close(self) -> None:
        if self._saw_toast in self.device.toast_listeners:
            self.device.toast_listeners.remove(self._saw_toast)

    def serve(self, sock: socket.socket) -> None:
        server = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def _send(self, status: int, body: bytes, kind: str) -> None:
                self.send_response(status)
                self.send_header("Content-Type", kind)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def do_GET(self) -> None:  # noqa: N802 - http.server's name
                if self.path == "/ping":
                    self._send(200, b"pong", "text/plain")
                else:
                    self._send(404, b"Not Found", "text/plain")

            def do_POST(self) -> None:  # noqa: N802
                length = int(self.headers.get("Content-Length") or 0)
                raw = self.rfile.read(length)
                if self.path.rstrip("/") != "/jsonrpc/0":
                    self._send(404, b"Not Found", "text/plain")
                    return
                self._send(200, server.answer(raw), "application/json")

            def log_message(self, *args) -> None:
                pass

        try:
            Handler(sock, ("127.0.0.1", 0), None)
        except OSError:
            pass

    def answer(self, raw: bytes) -> bytes:
        try:
            request = json.loads(raw or b"{}")
        except ValueError:
            return _error(None, -32700, "Parse error")
        rid, method = request.get("id"), str(request.get("method") or "")
        params = request.get("params") or []
        handler = getattr(self, "m_" + method, None)
        if handler is None:
            return _error(rid, -32601, f"Method not found: {method}")
        try:
            with self.device.lock:
                result = handler(*params) if isinstance(params, list) else handler(**params)
        except SelectorError as exc:
            return _error(rid, -32002, f"androidx.test.uiautomator.UiObjectNotFoundException: {exc}")
        except (KeyError, TypeError, ValueError) as exc:
            return _error(rid, -32602, f"Invalid params: {exc}")
        return json.dumps({"jsonrpc": "2.0", "id": rid, "result": result}).encode()

    # -- the device ----------------------------------------------------------------------------------------------

    def m_deviceInfo(self) -> dict:  # noqa: N802 - the agent's method names
        d = self.device
        screen = d.display
        rec = d.current_activity()
        density = 2.625
        return {"currentPackageName": rec.package.name if rec is not None else "", "displayHeight": screen.height,
                "displayWidth": screen.width, "displayRotation": d.rotation,
                "displaySizeDpX": round(screen.width / density), "displaySizeDpY": round(screen.height / density),
                "naturalOrientation": d.rotation % 2 == 0, "productName": d.props.get("ro.product.name", ""),
                "screenOn": bool(d.screen_on), "sdkInt": int(d.props.get("ro.build.version.sdk", "35"))}

    def m_dumpWindowHierarchy(self, compressed: bool = False, max_depth=None, *rest) -> str:  # noqa: N802
        return self.device.dump_xml()

    def m_takeScreenshot(self, scale: float = 1, quality: int = 80) -> str:  # noqa: N802
        image = render(self.device).convert("RGB")
        if scale and scale != 1:
            image = image.resize((max(1, int(image.width * scale)), max(1, int(image.height * scale))))
        buf = io.BytesIO()
        image.save(buf, format="JPEG", quality=int(quality))
        return base64.b64encode(buf.getvalue()).decode("ascii")

    def m_ping(self) -> str:
        return "pong"

    def m_click(self, *args) -> bool:
        """click(x, y), click(x, y, ms) (a press held that long), or click(selector[, corner])."""
        if args and isinstance(args[0], (dict, str)):
            x, y = self._corner(self._one(args[0]), args[1] if len(args) > 1 else None)
            if (x, y) == (-1, -1):
                return False
            self.device.tap(x, y)
            return True
        x, y = int(args[0]), int(args[1])
        if x < 0 or y < 0:
            return False
        if len(args) > 2 and args[2]:
            self.device.swipe(x, y, x, y, int(args[2]))
        else:
            self.device.tap(x, y)
        return True

    def m_longClick(self, obj, corner=None) -> bool:  # noqa: N802 - longClick(selector[, corner])
        x, y = self._corner(self._one(obj), corner)
        if (x, y) == (-1, -1):
            return False
        self.device.long_press(x, y)
        return True

    def _corner(self, node: ET.Element, corner) -> tuple[int, int]:
        l, t, r, b = _box(node)
        where = str(corner or "center").lower()
        if where in ("br", "bottomright"):
            return r - 5, b - 5
        if where in ("tl", "topleft"):
            return l + 5, t + 5
        if where in ("c", "center"):
            return (l + r) // 2, (t + b) // 2
        return -1, -1

    def m_swipe(self, *args) -> bool:
        """swipe(x1, y1, x2, y2, steps), or swipe(selector, direction[, percent], steps): across the object, inside
        its edges (UiObject's swipeUp/Down/Left/Right keep 5 px from them)."""
        if args and isinstance(args[0], (dict, str)):
            l, t, r, b = _box(self._one(args[0]))
            direction, steps = str(args[1]).lower(), int(args[-1])
            cx, cy = (l + r) // 2, (t + b) // 2
            ends = {"u": (cx, b - EDGE, cx, t + EDGE), "up": (cx, b - EDGE, cx, t + EDGE),
                    "d": (cx, t + EDGE, cx, b - EDGE), "down": (cx, t + EDGE, cx, b - EDGE),
                    "l": (r - EDGE, cy, l + EDGE, cy), "left": (r - EDGE, cy, l + EDGE, cy),
                    "r": (l + EDGE, cy, r - EDGE, cy), "right": (l + EDGE, cy, r - EDGE, cy)}.get(direction)
            if ends is None:
                return False
            sx, sy, ex, ey = ends
        else:
            sx, sy, ex, ey, steps = args[0], args[1], args[2], args[3], args[4] if len(args) > 4 else 100
        # UiAutomation's swipe injects a move every 5 ms per step.
        self.device.swipe(int(sx), int(sy), int(ex), int(ey), max(1, int(steps)) * 5)
        return True

    def m_pressKey(self, key: str) -> bool:  # noqa: N802
        name = U2_KEYS.get(str(key).lower(), str(key).upper().removeprefix("KEYCODE_"))
        if name not in KEY_NAMES:
            return False
        self.device.key(KEY_NAMES[name])
        return True

    def m_pressKeyCode(self, code, meta: int = 0) -> bool:  # noqa: N802
        self.device.key(int(code))
        return True

    # -- gestures: injected as a finger's MotionEvents, 5 ms a step (UiDevice's swipe and drag) --------------------

    def _stroke(self, points: list[tuple[float, float]], steps: int, *, hold: float = 0.0, end_hold: float = 0.0,
                pointer: int = 0) -> list[w3c_actions.Event]:
        events = [w3c_actions.Event(0.0, 0, "down", pointer, *points[0])]
        t = hold
        for (x1, y1), (x2, y2) in zip(points, points[1:]):
            n = max(1, int(steps))
            for i in range(1, n + 1):
                t += STEP_S
                events.append(w3c_actions.Event(t, 0, "move", pointer, x1 + (x2 - x1) * i / n, y1 + (y2 - y1) * i / n))
        events.append(w3c_actions.Event(t + end_hold, 0, "up", pointer, *points[-1]))
        return events

    def _inject(self, events: list[w3c_actions.Event]) -> bool:
        order = {"down": 0, "move": 1, "up": 2}
        events.sort(key=lambda e: (e.t, order[e.kind], e.pointer))
        events = [w3c_actions.Event(e.t, i, e.kind, e.pointer, e.x, e.y) for i, e in enumerate(events)]
        w3c_actions.perform(self.device, events, events[-1].t)
        return True

    def m_swipePoints(self, segments: list, steps: int) -> bool:  # noqa: N802
        points = [(float(segments[i]), float(segments[i + 1])) for i in range(0, len(segments) - 1, 2)]
        if len(points) < 2:
            return False
        return self._inject(self._stroke(points, int(steps)))

    def m_drag(self, sx, sy, ex, ey, steps) -> bool:
        """UiDevice.drag: the finger down, held the long-press timeout, moved `steps` steps, held, up."""
        return self._inject(self._stroke([(float(sx), float(sy)), (float(ex), float(ey))], int(steps),
                                         hold=LONG_PRESS_S, end_hold=CLICK_S))

    def m_injectInputEvent(self, action, x, y, meta_state=0) -> bool:  # noqa: N802
        """One touch event (TouchController): 0 down, 2 move, 1 up; anything else is not injected."""
        d, t = self.device, self.device.now()
        x, y, action = int(round(float(x))), int(round(float(y))), int(action)
        if action == 0:
            d.pointer_down(x, y, t=t)
            self.pointer = (x, y)
        elif action == 2 and self.pointer is not None:
            d.pointer_move(x, y, t=t)
        elif action == 1 and self.pointer is not None:
            d.pointer_up(x, y, t=t)
            self.pointer = None
        else:
            return False
        return True

    def m_wakeUp(self) -> None:  # noqa: N802
        if not self.device.screen_on:
            self.device.key(26)

    def m_sleep(self) -> None:
        if self.device.screen_on:
            self.device.key(26)

    def m_isScreenOn(self) -> bool:  # noqa: N802
        return bool(self.device.screen_on)

    def m_openNotification(self) -> bool:  # noqa: N802
        self.device.shade_expanded = True
        return True

    def m_openQuickSettings(self) -> bool:  # noqa: N802
        self.device.shade_expanded = True
        return True

    # -- orientation: UiDevice's setOrientationLeft/Right/Natural freeze the display there ------------------------

    def m_setOrientation(self, direction: str) -> None:  # noqa: N802
        rotation = {"left": "1", "l": "1", "right": "3", "r": "3", "natural": "0", "n": "0"}.get(str(direction).lower())
        if rotation is not None:  # any other word does nothing, as the agent's if/else chain
            system = self.device.settings("system")
            system["accelerometer_rotation"] = "0"
            system["user_rotation"] = rotation

    def m_freezeRotation(self, freeze: bool = True) -> None:  # noqa: N802
        system = self.device.settings("system")
        if freeze:
            system["user_rotation"] = str(self.device.rotation)
            system["accelerometer_rotation"] = "0"
        else:
            system["accelerometer_rotation"] = "1"

    # -- toasts -------------------------------------------------------------------------------------------------

    def m_getLastToast(self, cache_duration=None):  # noqa: N802
        return self.last_toast

    def m_clearLastToast(self) -> None:  # noqa: N802
        self.last_toast = None

    # -- the focused field, by key events ------------------------------------------------------------------------

    def m_pasteClipboard(self) -> None:  # noqa: N802
        """Ctrl+V: the focused field pastes the clipboard at its cursor."""
        if self.device.clipboard:
            self.device.type_text(self.device.clipboard)

    def m_clearInputText(self) -> None:  # noqa: N802
        """Ctrl+A then Delete on the focused field."""
        self.device.select_all()
        self.device.key(67)

    def m_setClipboard(self, label, text: str) -> None:  # noqa: N802 - (label, text), as the client sends them
        self.device.clipboard = str(text)
        return None

    def m_getClipboard(self):  # noqa: N802
        return self.device.clipboard

    # -- selectors on the current hierarchy ----------------------------------------------------------------------

    def _matches(self, selector) -> list[ET.Element]:
        root = ET.fromstring(self.device.dump_xml())
        if isinstance(selector, str):  # a name childBy… handed out
            return self._named(root, selector)
        return _select(root, selector)

    def _named(self, root: ET.Element, name: str) -> list[ET.Element]:
        if name not in self.objects:
            raise SelectorError(f"no UiObject named {name}")
        collection, child, how, value = self.objects[name]
        found = []
        for box in _select(root, collection):
            kids = [n for n in box.iter("node") if n is not box and _select_one(n, _plain(child))]
            if how == "instance":
                kids = kids[int(value):int(value) + 1]
            else:
                attribute = "text" if how == "text" else "content-desc"
                kids = [k for k in kids if any(n.get(attribute) == value for n in k.iter("node"))]
            found.extend(kids[:1])
        return found[:1]

    def _one(self, selector) -> ET.Element:
        found = self._matches(selector)
        if not found:
            raise SelectorError(selector if isinstance(selector, str) else _describe(selector))
        return found[0]

    def m_objInfo(self, selector) -> dict:  # noqa: N802
        return _info(self._one(selector))

    def m_objInfoOfAllInstances(self, selector) -> list:  # noqa: N802
        return [_info(node) for node in self._matches(selector)]

    def m_count(self, selector) -> int:
        return len(self._matches(selector))

    def m_exist(self, selector) -> bool:
        return bool(self._matches(selector))

    def _wait(self, seen, timeout) -> bool:
        """UiObject's waitForExists/waitUntilGone: the hierarchy read again until `seen()` or `timeout` ms of the
        device's time, the device unlocked in between (its timers run: the screen that is waited for comes)."""
        d = self.device
        deadline = d.now() + max(0.0, float(timeout or 0)) / 1000
        while True:
            d.run_due()
            if seen():
                return True
            if d.now() >= deadline:
                return False
            sleep_real(d, min(WAIT_POLL_S, deadline - d.now()))

    def m_waitForExists(self, selector, timeout=0) -> bool:  # noqa: N802
        return self._wait(lambda: bool(self._matches(selector)), timeout)

    def m_waitUntilGone(self, selector, timeout=0) -> bool:  # noqa: N802
        return self._wait(lambda: not self._matches(selector), timeout)

    def m_getText(self, selector) -> str:  # noqa: N802
        return self._one(selector).get("text", "")

    def m_setText(self, selector, text: str) -> bool:  # noqa: N802
        """UiObject2: a click on the field, then ACTION_SET_TEXT: its text becomes `text`."""
        node = self._one(selector)
        self.device.tap(*_center(node))
        return self._set_text(node, str(text))

    def m_clearTextField(self, selector) -> None:  # noqa: N802
        self._set_text(self._one(selector), "")

    def _set_text(self, node: ET.Element, text: str) -> bool:
        d = self.device
        placed, package = d._focused_node()
        if placed is None or placed.node.on_text is None or not placed.node.enabled \
                or _center(node) != _center_of(placed):
            raise SelectorError(f"{_describe_node(node)} takes no text")
        d._cursor = None
        d._call(package, placed.node.on_text, text)
        return True

    def m_dragTo(self, selector, *rest) -> bool:  # noqa: N802 - (selector, x, y, steps) or (selector, dest, steps)
        start = _center(self._one(selector))
        if len(rest) == 2:
            end = _center(self._one(rest[0]))
        else:
            end = (int(rest[0]), int(rest[1]))
        return self._inject(self._stroke([start, end], int(rest[-1]), hold=LONG_PRESS_S, end_hold=CLICK_S))

    def m_gesture(self, selector, start1: dict, start2: dict, end1: dict, end2: dict, steps) -> bool:
        """UiObject.performTwoPointerGesture: both fingers down, moved `steps` steps together, up."""
        self._one(selector)
        a = self._stroke([(start1["x"], start1["y"]), (end1["x"], end1["y"])], int(steps))
        b = self._stroke([(start2["x"], start2["y"]), (end2["x"], end2["y"])], int(steps), pointer=1)
        return self._inject(a + b)

    def _pinch(self, selector, percent, steps, closing: bool) -> bool:
        l, t, r, b = _box(self._one(selector))
        if r - l <= FINGER_HALF_WIDTH * 2:
            raise ValueError("Object width is too small for operation")
        share = min(100, max(0, int(percent))) / 100
        cx, cy, half = (l + r) // 2, (t + b) // 2, (r - l) // 2
        far = ({"x": cx - int(half * share), "y": cy}, {"x": cx + int(half * share), "y": cy})
        near = ({"x": cx - FINGER_HALF_WIDTH, "y": cy}, {"x": cx + FINGER_HALF_WIDTH, "y": cy})
        start, end = (far, near) if closing else (near, far)
        return self.m_gesture(selector, start[0], start[1], end[0], end[1], steps)

    def m_pinchIn(self, selector, percent, steps) -> bool:  # noqa: N802
        return self._pinch(selector, percent, steps, closing=True)

    def m_pinchOut(self, selector, percent, steps) -> bool:  # noqa: N802
        return self._pinch(selector, percent, steps, closing=False)

    # -- UiScrollable on a selector's container -----------------------------------------------------------------

    def _scroll(self, selector, vertical: bool, forward: bool, steps: int = SCROLL_STEPS,
                fling: bool = False) -> bool:
        """One swipe across the container, inside its dead zones (a tenth of it each end): whether the content
        moved and can go further that way (UiScrollable's scrollForward and kin)."""
        d = self.device
        node = self._one(selector)
        l, t, r, b = _box(node)
        before = dict(d.current_activity().scroll_offsets) if d.current_activity() else {}
        if vertical:
            x, near, far = (l + r) // 2, t + (b - t) // 10, b - (b - t) // 10
            ends = (x, far, x, near) if forward else (x, near, x, far)
        else:
            y, near, far = (t + b) // 2, l + (r - l) // 10, r - (r - l) // 10
            ends = (far, y, near, y) if forward else (near, y, far, y)
        d.swipe(*ends, max(1, (FLING_STEPS if fling else int(steps)) * 5))
        after = dict(d.current_activity().scroll_offsets) if d.current_activity() else {}
        return after != before

    def m_scrollForward(self, selector, vertical: bool = True, steps: int = SCROLL_STEPS) -> bool:  # noqa: N802
        return self._scroll(selector, vertical, True, steps)

    def m_scrollBackward(self, selector, vertical: bool = True, steps: int = SCROLL_STEPS) -> bool:  # noqa: N802
        return self._scroll(selector, vertical, False, steps)

    def m_flingForward(self, selector, vertical: bool = True) -> bool:  # noqa: N802
        return self._scroll(selector, vertical, True, fling=True)

    def m_flingBackward(self, selector, vertical: bool = True) -> bool:  # noqa: N802
        return self._scroll(selector, vertical, False, fling=True)

    def _to_edge(self, selector, vertical: bool, forward: bool, max_swipes: int, steps: int, fling: bool) -> bool:
        for _ in range(max(0, int(max_swipes))):
            if not self._scroll(selector, vertical, forward, steps, fling):
                break
        return True

    def m_scrollToBeginning(self, selector, vertical=True, max_swipes=30, steps=SCROLL_STEPS) -> bool:  # noqa: N802
        return self._to_edge(selector, vertical, False, max_swipes, steps, False)

    def m_scrollToEnd(self, selector, vertical=True, max_swipes=30, steps=SCROLL_STEPS) -> bool:  # noqa: N802
        return self._to_edge(selector, vertical, True, max_swipes, steps, False)

    def m_flingToBeginning(self, selector, vertical=True, max_swipes=30) -> bool:  # noqa: N802
        return self._to_edge(selector, vertical, False, max_swipes, SCROLL_STEPS, True)

    def m_flingToEnd(self, selector, vertical=True, max_swipes=30) -> bool:  # noqa: N802
        return self._to_edge(selector, vertical, True, max_swipes, SCROLL_STEPS, True)

    def m_scrollTo(self, selector, target: dict, vertical: bool = True) -> bool:  # noqa: N802
        """UiScrollable.scrollIntoView: the target among the container's descendants, else from its beginning one
        swipe forward at a time, 30 at most."""
        def there() -> bool:
            return any(_select_one(n, _plain(target)) for box in self._matches(selector) for n in box.iter("node")
                       if n is not box)
        if there():
            return True
        self._to_edge(selector, vertical, False, MAX_SEARCH_SWIPES, SCROLL_STEPS, False)
        if there():
            return True
        for _ in range(MAX_SEARCH_SWIPES):
            scrolled = self._scroll(selector, vertical, True)
            if there():
                return True
            if not scrolled:
                return False
        return False

    # -- childBy…: a name for a child, the other selector methods take it -----------------------------------------

    def _name(self, collection: dict, child: dict, how: str, value, scroll: bool) -> str:
        key = str(uuid.uuid4())
        self.objects[key] = (collection, child, how, value)
        if scroll and how != "instance" and not self._named(ET.fromstring(self.device.dump_xml()), key):
            self.m_scrollTo(collection, {**child, ("text" if how == "text" else "description"): value})
        if not self._named(ET.fromstring(self.device.dump_xml()), key):
            del self.objects[key]
            raise SelectorError(f"{_describe(child)} with {how} {value!r} in {_describe(collection)}")
        return key

    def m_childByText(self, collection, child, text, allow_scroll=True) -> str:  # noqa: N802
        return self._name(collection, child, "text", str(text), bool(allow_scroll))

    def m_childByDescription(self, collection, child, text, allow_scroll=True) -> str:  # noqa: N802
        return self._name(collection, child, "description", str(text), bool(allow_scroll))

    def m_childByInstance(self, collection, child, instance) -> str:  # noqa: N802
        return self._name(collection, child, "instance", int(instance), False)


def _plain(selector: dict) -> dict:
    return {k: v for k, v in selector.items() if k not in ("childOrSibling", "childOrSiblingSelector")}


def _select_one(node: ET.Element, selector: dict) -> bool:
    return _match(node, selector)


def _select(root: ET.Element, selector: dict) -> list[ET.Element]:
    """UiSelector's matches: the base selector's, its `instance`-th, then each child selector (descendants of the
    matches) and sibling selector (descendants of their parents) in turn, each with its own instance."""
    parents = {id(c): p for p in root.iter() for c in p}

    def pick(found: list, sel: dict) -> list:
        if "instance" in sel:
            n = int(sel["instance"])
            return found[n:n + 1]
        return found

    found = pick([n for n in root.iter("node") if _match(n, _plain(selector))], selector)
    for kind, sub in zip(selector.get("childOrSibling") or (), selector.get("childOrSiblingSelector") or ()):
        scopes = found if kind == "child" else [parents.get(id(n)) for n in found]
        hits: list = []
        for scope in scopes:
            if scope is None:
                continue
            hits.extend(n for n in scope.iter("node") if n is not scope and _match(n, _plain(sub)) and n not in hits)
        found = pick(hits, sub)
    return found


def _box(node: ET.Element) -> tuple[int, int, int, int]:
    b = _bounds(node)
    return b["left"], b["top"], b["right"], b["bottom"]


def _center(node: ET.Element) -> tuple[int, int]:
    l, t, r, b = _box(node)
    return (l + r) // 2, (t + b) // 2


def _center_of(placed) -> tuple[int, int]:
    l, t, r, b = placed.bounds or placed.box
    return (l + r) // 2, (t + b) // 2


def _describe_node(node: ET.Element) -> str:
    return f"{node.get('class', '')}[{node.get('resource-id') or node.get('text') or node.get('bounds')}]"


def _match(node: ET.Element, selector: dict) -> bool:
    for key, value in selector.items():
        if key in ("mask", "childOrSibling", "childOrSiblingSelector", "instance"):
            continue
        for base, attribute in TEXT_FIELDS.items():
            if key.startswith(base):
                have = node.get(attribute, "")
                how = key[len(base):]
                ok = {"": have == value, "Contains": str(value) in have,
                      "Matches": re.fullmatch(str(value), have) is not None,
                      "StartsWith": have.startswith(str(value))}.get(how)
                if ok is None:
                    raise SelectorError(f"unknown selector field {key}")
                if not ok:
                    return False
                break
        else:
            if key in BOOL_FIELDS:
                if (node.get(BOOL_FIELDS[key]) == "true") != bool(value):
                    return False
            elif key == "index":
                if node.get("index") != str(value):
                    return False
            else:
                raise SelectorError(f"unknown selector field {key}")
    return True


def _bounds(node: ET.Element) -> dict:
    x1, y1, x2, y2 = map(int, re.findall(r"-?\d+", node.get("bounds", "[0,0][0,0]")))
    return {"left": x1, "top": y1, "right": x2, "bottom": y2}


def _info(node: ET.Element) -> dict:
    flag = lambda name: node.get(name) == "true"  # noqa: E731
    return {"bounds": _bounds(node), "visibleBounds": _bounds(node), "childCount": len(node.findall("node")),
            "className": node.get("class", ""), "contentDescription": node.get("content-desc") or None,
            "packageName": node.get("package", ""), "resourceName": node.get("resource-id") or None,
            "text": node.get("text", ""), "checkable": flag("checkable"), "checked": flag("checked"),
            "clickable": flag("clickable"), "enabled": flag("enabled"), "focusable": flag("focusable"),
            "focused": flag("focused"), "longClickable": flag("long-clickable"),
            "scrollable": flag("scrollable"), "selected": flag("selected")}


def _describe(selector: dict) -> str:
    fields = {k: v for k, v in selector.items() if k not in ("mask", "childOrSibling", "childOrSiblingSelector")}
    return "UiSelector[" + ", ".join(f"{k.upper()}={v}" for k, v in fields.items()) + "]"


def _error(rid, code: int, message: str) -> bytes:
    return json.dumps({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}}).encode()
