"""A debuggable WebView's DevTools endpoint, as Chrome's WebView serves it on a device.

An app process that shows a WebView with debugging on (the app's `webview_debugging`) listens on the abstract unix
socket `@webview_devtools_remote_<pid>` (listed in /proc/net/unix). Over that socket (reached through
`adb forward … localabstract:NAME`, or the `localabstract:` device service) it speaks HTTP: `GET /json/list` (or
`/json`) lists the process's pages as targets, `GET /json/version` the browser, and a WebSocket upgrade on
`/devtools/page/<id>` opens the DevTools protocol to one page, where `Runtime.evaluate` runs script in it, and
`Network.getCookies` and `DOMStorage.getDOMStorageItems` read what the page holds (nothing writes it here).

Script runs in the page model's JavaScript subset (`apps.script`); everything is read under the device's lock,
after its due timers, as a shell command reads the device. Values always come back by value (an element as {}),
since no object handles are kept between calls.
"""

from __future__ import annotations

import base64
import functools
import hashlib
import json
import socket
import struct
import zlib
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Callable
from urllib.parse import urlsplit

from .apps.script import UNDEFINED, HostObject, ScriptError, to_json, type_of

if TYPE_CHECKING:  # pragma: no cover
    from .apps.web import WebPage
    from .device import VirtualDevice

SOCKET_PREFIX = "webview_devtools_remote_"
CHROME_VERSION = "128.0.6613.127"
WEBKIT_REVISION = "8e1b1a9b3a1b2a87cd8e1b5b6e40a0c3a1b2b1b2"
WEBKIT = f"537.36 (@{WEBKIT_REVISION})"
V8_VERSION = "12.8.374.31"
PROTOCOL_VERSION = "1.3"
WS_GUID = "258EAFA5-E914-47DA-95CA-C5AB0DC85B11"
MAX_HTTP_HEAD = 16 * 1024
MAX_MESSAGE = 1 << 20
IDLE_TIMEOUT = 300.0  # a DevTools client that says nothing for this long is dropped


@dataclass
class Target:
    id: str
    package: str
    webview_id: str
    page: "WebPage"
    visible: bool
    box: tuple[int, int, int, int]   # the WebView on screen, px (0s when it is not on screen)
    focused: str | None              # the id of the element with keyboard focus in this WebView's page

    def listing(self, host: str) -> dict:
        x1, y1, x2, y2 = self.box
        description = {"attached": self.visible, "empty": False, "height": y2 - y1, "never_attached": False,
                       "screenX": x1, "screenY": y1, "visible": self.visible, "width": x2 - x1}
        ws = f"{host}/devtools/page/{self.id}"
        return {"description": json.dumps(description, separators=(",", ":")),
                "devtoolsFrontendUrl": f"https://chrome-devtools-frontend.appspot.com/serve_rev/@{WEBKIT_REVISION}"
                                       f"/inspector.html?ws={ws}",
                "id": self.id, "title": self.page.title, "type": "page", "url": self.page.url,
                "webSocketDebuggerUrl": f"ws://{ws}"}


# ---------------------------------------------------------------------------------------------------------------
# Which processes listen, and on what

def _debuggable(device: "VirtualDevice", package: str) -> bool:
    info = device.packages.get(package)
    return info is not None and any(getattr(cls, "webview_debugging", False) for cls in info.activities.values())


def _pages_of(rec) -> dict[str, "WebPage"]:
    pages = getattr(rec.app, "web_pages", None) if rec.app is not None else None
    return dict(pages()) if pages is not None else {}


def devtools_sockets(device: "VirtualDevice") -> dict[str, str]:
    """Abstract socket name -> package, for each app process whose debuggable WebView is alive."""
    out = {}
    for package, proc in device.processes.items():
        if not _debuggable(device, package):
            continue
        if any(_pages_of(rec) for task in device.tasks for rec in task.activities if rec.package.name == package):
            out[f"{SOCKET_PREFIX}{proc.pid}"] = package
    return out


def devtools_listeners(device: "VirtualDevice") -> dict[str, Callable[[socket.socket], None]]:
    """The device's listener provider (`device.listeners`): each live DevTools socket as `localabstract:NAME`."""
    return {f"localabstract:{name}": functools.partial(_serve_listener, device=device, package=package)
            for name, package in devtools_sockets(device).items()}


def _serve_listener(sock: socket.socket, *, device: "VirtualDevice", package: str) -> None:
    sock.settimeout(IDLE_TIMEOUT)
    serve(sock, device, package)


def proc_net_unix(device: "VirtualDevice") -> bytes:
    """/proc/net/unix as Android shows it (kernel pointers hidden): each listening abstract stream socket the
    device's listeners know (DevTools sockets and any server's), @ for abstract."""
    lines = ["Num       RefCount Protocol Flags    Type St Inode Path"]
    for spec in device.listeners.listening():
        if not spec.startswith("localabstract:"):
            continue
        name = spec[len("localabstract:"):]
        suffix = name[len(SOCKET_PREFIX):] if name.startswith(SOCKET_PREFIX) else ""
        inode = 40000 + (int(suffix) if suffix.isdigit() else zlib.crc32(name.encode())) % 50000
        lines.append(f"0000000000000000: 00000002 00000000 00010000 0001 01 {inode:5d} @{name}")
    return "".join(line + "\n" for line in lines).encode()


def targets(device: "VirtualDevice", package: str) -> list[Target]:
    """The pages of the package's live WebViews, the one on screen first, each WebView in screen order."""
    current = device.current_activity()
    frame = device.frame()
    root = frame.app_window.root
    out = []
    for task in device.tasks:
        for rec in task.activities:
            if rec.package.name != package:
                continue
            shown = rec is current
            for webview_id, page in _pages_of(rec).items():
                placed = root.find(webview_id) if shown and root is not None else None
                box = tuple(int(v) for v in placed.box) if placed is not None else (0, 0, 0, 0)
                digest = hashlib.md5(f"{rec.token}/{webview_id}/{id(page)}".encode()).hexdigest().upper()
                out.append(Target(digest, package, webview_id, page, placed is not None, box,  # type: ignore[arg-type]
                                  device.focused_id if shown else None))
    return out


def version(package: str, host: str) -> dict:
    return {"Android-Package": package, "Browser": f"Chrome/{CHROME_VERSION}", "Protocol-Version": PROTOCOL_VERSION,
            "User-Agent": f"Mozilla/5.0 (Linux; Android 15; sdk_gphone64_x86_64 Build/AE3A.240806.019; wv) "
                          f"AppleWebKit/537.36 (KHTML, like Gecko) Version/4.0 Chrome/{CHROME_VERSION} Mobile "
                          f"Safari/537.36",
            "V8-Version": V8_VERSION, "WebKit-Version": WEBKIT,
            "webSocketDebuggerUrl": f"ws://{host}/devtools/browser"}


# ---------------------------------------------------------------------------------------------------------------
# Runtime.evaluate

def remote_object(value: Any) -> dict:
    """A value as DevTools' RemoteObject, by value."""
    if value is UNDEFINED:
        return {"type": "undefined"}
    if value is None:
        return {"type": "object", "subtype": "null", "value": None}
    kind = type_of(value)
    if kind == "number":
        shown = str(int(value)) if isinstance(value, float) and value.is_integer() else str(value)
        return {"type": "number", "value": to_json(value), "description": shown}
    if kind in ("string", "boolean"):
        return {"type": kind, "value": value}
    if kind == "function":
        return {"type": "function", "className": "Function", "description": "function () { [native code] }"}
    if isinstance(value, HostObject):
        return {"type": "object", "subtype": "node", "className": value.js_class,
                "description": getattr(value, "tag", value.js_class).lower(), "value": {}}
    if isinstance(value, list):
        return {"type": "object", "subtype": "array", "className": "Array", "description": f"Array({len(value)})",
                "value": to_json(value)}
    return {"type": "object", "className": "Object", "description": "Object", "value": to_json(value)}


def evaluate_in(device: "VirtualDevice", package: str, target_id: str, expression: str, exception_id: int) -> dict:
    """Runtime.evaluate's result in one page: {result} or {result, exceptionDetails}; None target: gone."""
    with device.lock:
        device.run_due()
        target = next((t for t in targets(device, package) if t.id == target_id), None)
        if target is None:
            raise LookupError("Cannot find context with specified id")
        try:
            value = target.page.evaluate(expression, focused=target.focused)
        except ScriptError as exc:
            error = {"type": "object", "subtype": "error", "className": exc.kind,
                     "description": f"{exc.kind}: {exc.message}\n    at <anonymous>:1:{exc.column + 1}"}
            return {"result": error, "exceptionDetails": {
                "exceptionId": exception_id, "text": "Uncaught", "lineNumber": 0, "columnNumber": exc.column,
                "scriptId": str(100 + exception_id), "exception": error}}
        return {"result": remote_object(value)}


# ---------------------------------------------------------------------------------------------------------------
# Cookies and DOM storage: what the Network and DOMStorage domains read

def _page(device: "VirtualDevice", package: str, target_id: str) -> "WebPage":
    device.run_due()
    target = next((t for t in targets(device, package) if t.id == target_id), None)
    if target is None:
        raise LookupError("Cannot find context with specified id")
    return target.page


def cookies_of(device: "VirtualDevice", package: str, target_id: str) -> dict:
    """Network.getCookies for the page: its origin's cookies, each as DevTools describes a cookie."""
    with device.lock:
        page = _page(device, package, target_id)
        held = page.web_storage()
        host = urlsplit(page.url).hostname or ""
        secure = page.url.startswith("https:")
        return {"cookies": [{"name": k, "value": v, "domain": host, "path": "/", "expires": -1,
                             "size": len(k) + len(v), "httpOnly": False, "secure": secure, "session": True,
                             "sameSite": "Lax", "priority": "Medium", "sameParty": False,
                             "sourceScheme": "Secure" if secure else "NonSecure", "sourcePort": 443 if secure else 80}
                            for k, v in (held[0] if held else {}).items()]}


def storage_items(device: "VirtualDevice", package: str, target_id: str, origin: str, local: bool) -> dict:
    """DOMStorage.getDOMStorageItems: [[key, value], …] of the page's local or session storage for `origin`."""
    with device.lock:
        page = _page(device, package, target_id)
        held = page.web_storage()
        parts = urlsplit(page.url)
        mine = held is not None and origin == f"{parts.scheme}://{parts.netloc}"
        items = (held[1] if local else held[2]) if mine and held else {}
        return {"entries": [[k, v] for k, v in items.items()]}


# ---------------------------------------------------------------------------------------------------------------
# The socket: HTTP, then perhaps a WebSocket

def serve(sock: socket.socket, device: "VirtualDevice", package: str) -> None:
    """Answers one connection to the package's DevTools socket until the client closes it."""
    try:
        head = _read_head(sock)
        if head is None:
            return
        method, path, headers = head
        host = headers.get("host", "localhost")
        route = urlsplit(path).path
        if headers.get("upgrade", "").lower() == "websocket" and route.startswith("/devtools/page/"):
            target_id = route[len("/devtools/page/"):]
            with device.lock:
                known = any(t.id == target_id for t in targets(device, package))
            if not known:
                _http(sock, 404, "text/plain", f"No such target id: {target_id}".encode())
                return
            key = headers.get("sec-websocket-key", "")
            accept = base64.b64encode(hashlib.sha1((key + WS_GUID).encode()).digest()).decode()
            sock.sendall(("HTTP/1.1 101 WebSocket Protocol Handshake\r\nUpgrade: WebSocket\r\n"
                          f"Connection: Upgrade\r\nSec-WebSocket-Accept: {accept}\r\n\r\n").encode())
            _protocol(sock, device, package, target_id)
            return
        if method != "GET" and method != "PUT":
            _http(sock, 405, "text/plain", b"Method Not Allowed")
        elif route in ("/json", "/json/list"):
            with device.lock:
                device.run_due()
                listing = [t.listing(host) for t in targets(device, package)]
            _http(sock, 200, "application/json; charset=UTF-8", json.dumps(listing, indent=3).encode())
        elif route == "/json/version":
            _http(sock, 200, "application/json; charset=UTF-8", json.dumps(version(package, host), indent=3).encode())
        else:
            _http(sock, 404, "text/plain", f"Unknown command: {route.removeprefix('/json/')}".encode())
    except (OSError, ConnectionError, ValueError):
        pass  # the client went away or spoke garbage: nothing to tell it


def _read_head(sock: socket.socket) -> tuple[str, str, dict[str, str]] | None:
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = sock.recv(4096)
        if not chunk:
            return None
        data += chunk
        if len(data) > MAX_HTTP_HEAD:
            raise ValueError("request head too long")
    lines = data.split(b"\r\n\r\n", 1)[0].decode("latin-1").split("\r\n")
    parts = lines[0].split()
    if len(parts) != 3:
        raise ValueError(f"bad request line {lines[0]!r}")
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(":")
        headers[name.strip().lower()] = value.strip()
    return parts[0], parts[1], headers


def _http(sock: socket.socket, status: int, kind: str, body: bytes) -> None:
    reason = {200: "OK", 404: "Not Found", 405: "Method Not Allowed"}[status]
    sock.sendall(f"HTTP/1.1 {status} {reason}\r\nContent-Type: {kind}\r\nContent-Length: {len(body)}\r\n"
                 f"Connection: close\r\n\r\n".encode() + body)


def _protocol(sock: socket.socket, device: "VirtualDevice", package: str, target_id: str) -> None:
    exceptions = 0
    while True:
        message = _read_message(sock)
        if message is None:
            return
        try:
            request = json.loads(message)
            call_id, method = request["id"], request["method"]
            params = request.get("params") or {}
        except (ValueError, KeyError, TypeError):
            _send_text(sock, {"error": {"code": -32700, "message": "Message must be a valid JSON"}})
            continue
        if method == "Runtime.evaluate":
            expression = params.get("expression")
            if not isinstance(expression, str):
                _send_text(sock, {"id": call_id, "error": {"code": -32602, "message": "Invalid parameters",
                                                            "data": "Failed to deserialize params.expression"}})
                continue
            try:
                answer = evaluate_in(device, package, target_id, expression, exceptions + 1)
            except LookupError as gone:
                _send_text(sock, {"id": call_id, "error": {"code": -32000, "message": str(gone)}})
                _send_frame(sock, 0x8, struct.pack(">H", 1001))
                return
            exceptions += "exceptionDetails" in answer
            _send_text(sock, {"id": call_id, "result": answer})
        elif method in ("Network.getCookies", "DOMStorage.getDOMStorageItems"):
            try:
                if method == "Network.getCookies":
                    answer = cookies_of(device, package, target_id)
                else:
                    storage_id = params.get("storageId") or {}
                    answer = storage_items(device, package, target_id, str(storage_id.get("securityOrigin", "")),
                                           bool(storage_id.get("isLocalStorage")))
            except LookupError as gone:
                _send_text(sock, {"id": call_id, "error": {"code": -32000, "message": str(gone)}})
                continue
            _send_text(sock, {"id": call_id, "result": answer})
        elif method in ("Runtime.enable", "Runtime.disable", "Runtime.runIfWaitingForDebugger", "Network.enable",
                        "Network.disable", "DOMStorage.enable", "DOMStorage.disable"):
            _send_text(sock, {"id": call_id, "result": {}})
        else:
            _send_text(sock, {"id": call_id, "error": {"code": -32601, "message": f"'{method}' wasn't found"}})


def _recv_exact(sock: socket.socket, n: int) -> bytes:
    buf = bytearray()
    while len(buf) < n:
        chunk = sock.recv(n - len(buf))
        if not chunk:
            raise ConnectionError("the client closed the WebSocket")
        buf += chunk
    return bytes(buf)


def _read_message(sock: socket.socket) -> str | None:
    """One text message (its fragments joined); None when the client closes."""
    parts: list[bytes] = []
    while True:
        b1, b2 = _recv_exact(sock, 2)
        opcode, length = b1 & 0x0F, b2 & 0x7F
        if length == 126:
            length = struct.unpack(">H", _recv_exact(sock, 2))[0]
        elif length == 127:
            length = struct.unpack(">Q", _recv_exact(sock, 8))[0]
        if length > MAX_MESSAGE:
            raise ValueError("WebSocket message too large")
        mask = _recv_exact(sock, 4) if b2 & 0x80 else b""
        data = _recv_exact(sock, length)
        if mask:
            data = bytes(c ^ mask[i % 4] for i, c in enumerate(data))
        if opcode == 0x8:
            _send_frame(sock, 0x8, data[:2])
            return None
        if opcode == 0x9:
            _send_frame(sock, 0xA, data)
            continue
        if opcode == 0xA:
            continue
        parts.append(data)
        if b1 & 0x80:
            return b"".join(parts).decode("utf-8")


def _send_text(sock: socket.socket, message: dict) -> None:
    _send_frame(sock, 0x1, json.dumps(message, ensure_ascii=False).encode())


def _send_frame(sock: socket.socket, opcode: int, payload: bytes) -> None:
    n = len(payload)
    if n < 126:
        head = struct.pack(">BB", 0x80 | opcode, n)
    elif n < 1 << 16:
        head = struct.pack(">BBH", 0x80 | opcode, 126, n)
    else:
        head = struct.pack(">BBQ", 0x80 | opcode, 127, n)
    sock.sendall(head + payload)
