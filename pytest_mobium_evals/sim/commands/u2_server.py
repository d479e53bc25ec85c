"""openatx uiautomator2's on-device agent (`CLASSPATH=/data/local/tmp/u2.jar app_process / com.wetest.uia2.Main -p
PORT`), emulated over the virtual device as the DeviceServer is (programs.py): an HTTP server on the device's
tcp:PORT (9008 by default), which the Python client reaches through ADB's tcp: service.

Read from uiautomator2 3.7.1's client (core.py, __init__.py, _selector.py), the only description of the agent's
protocol there is: `GET /ping` → `pong`; `POST /jsonrpc/0` with JSON-RPC 2.0. Methods answered: deviceInfo,
windowSize, dumpWindowHierarchy, takeScreenshot (JPEG, base64), click, longClick, swipe, pressKey, pressKeyCode,
getClipboard/setClipboard, and the selector family on the current hierarchy — objInfo, objInfoOfAllInstances,
count, exist/waitForExists, waitUntilGone, getText. Anything else is JSON-RPC's -32601 "Method not found"; the
client then raises (no fallback), so an operation outside this list fails loudly.

A selector is matched as UiSelector matches: each field present (text, textContains, textMatches, textStartsWith,
className, classNameMatches, description…, resourceId, resourceIdMatches, packageName, the boolean states, index)
must hold, `instance` picks the Nth match; child and sibling selectors are not supported (an error, not a guess)."""

from __future__ import annotations

import base64
import http.server
import io
import json
import re
import socket
import xml.etree.ElementTree as ET
from typing import TYPE_CHECKING

from ..keycodes import KEY_NAMES
from ..render import render
from .base import Ctx
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
    program = programs(device).start("app_process", cmdline, lambda signal: _stop(device, spec))
    device.listeners.listen(spec, server.serve)
    ctx.outln("[server] INFO: [UiAutomator2Server] Starting Server")
    if ctx.is_top_output():
        # In the foreground of its adb session, as the client runs it: the session stays open while it serves,
        # and a client that hangs up ends it (its stream closed).
        ctx.shell.hold = Held(device, program, lambda: not program.done.is_set())
    return 0


def _stop(device: "VirtualDevice", spec: str) -> bool:
    device.listeners.close(spec)
    return True


PROGRAMS[U2_CLASS] = _start


class U2Server:
    def __init__(self, device: "VirtualDevice") -> None:
        self.device = device

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
            return _error(rid, -32002, f"UiObjectNotFoundException: {exc}")
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

    def m_windowSize(self) -> dict:  # noqa: N802
        screen = self.device.display
        return {"width": screen.width, "height": screen.height}

    def m_dumpWindowHierarchy(self, compressed: bool = False, max_depth=None, *rest) -> str:  # noqa: N802
        return self.device.dump_xml()

    def m_takeScreenshot(self, scale: float = 1, quality: int = 80) -> str:  # noqa: N802
        image = render(self.device).convert("RGB")
        if scale and scale != 1:
            image = image.resize((max(1, int(image.width * scale)), max(1, int(image.height * scale))))
        buf = io.BytesIO()
        image.save(buf, format="JPEG", quality=int(quality))
        return base64.b64encode(buf.getvalue()).decode("ascii")

    def m_click(self, x, y, duration_ms=None) -> bool:
        if duration_ms:  # the client's long_click: a press held that long
            self.device.swipe(int(x), int(y), int(x), int(y), int(duration_ms))
        else:
            self.device.tap(int(x), int(y))
        return True

    def m_longClick(self, x, y, duration: float = 0.5) -> bool:  # noqa: N802
        self.device.swipe(int(x), int(y), int(x), int(y), int(float(duration) * 1000))
        return True

    def m_swipe(self, sx, sy, ex, ey, steps: int = 100) -> bool:
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

    def m_getClipboard(self) -> str:  # noqa: N802
        return self.device.clipboard or ""

    def m_setClipboard(self, label, text: str) -> None:  # noqa: N802 - (label, text), as the client sends them
        self.device.clipboard = str(text)
        return None

    # -- selectors on the current hierarchy ----------------------------------------------------------------------

    def _matches(self, selector: dict) -> list[ET.Element]:
        if selector.get("childOrSibling"):
            raise SelectorError("child and sibling selectors are not supported by the virtual device's agent")
        root = ET.fromstring(self.device.dump_xml())
        found = [node for node in root.iter("node") if _match(node, selector)]
        if "instance" in selector:
            n = int(selector["instance"])
            return found[n:n + 1]
        return found

    def _one(self, selector: dict) -> ET.Element:
        found = self._matches(selector)
        if not found:
            raise SelectorError(_describe(selector))
        return found[0]

    def m_objInfo(self, selector: dict) -> dict:  # noqa: N802
        return _info(self._one(selector))

    def m_objInfoOfAllInstances(self, selector: dict) -> list:  # noqa: N802
        return [_info(node) for node in self._matches(selector)]

    def m_count(self, selector: dict) -> int:
        return len(self._matches(selector))

    def m_exist(self, selector: dict) -> bool:
        return bool(self._matches(selector))

    def m_waitForExists(self, selector: dict, timeout=0) -> bool:  # noqa: N802
        # The hierarchy is read now: the client's own wait loop (and the device's timers) bring the later screens.
        return bool(self._matches(selector))

    def m_waitUntilGone(self, selector: dict, timeout=0) -> bool:  # noqa: N802
        return not self._matches(selector)

    def m_getText(self, selector: dict) -> str:  # noqa: N802
        return self._one(selector).get("text", "")


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
