"""A DevTools client over ADB: how script reaches a page in an Android WebView.

A debuggable WebView's process listens on the abstract socket `@webview_devtools_remote_<pid>` (it shows in
/proc/net/unix); `adb forward tcp:P localabstract:NAME` carries a local port to it; `GET /json/list` names its pages
(each a target with a WebSocket URL and, in its description, where its WebView is on screen); a WebSocket to the
page speaks the DevTools protocol, where `Runtime.evaluate` runs an expression.
"""

from __future__ import annotations

import base64
import http.client
import json
import os
import socket
import struct
from dataclasses import dataclass
from typing import Any, Optional
from urllib.parse import urlsplit

import adbutils

from .errors import MobiumError

SOCKET_PREFIX = "webview_devtools_remote_"
TIMEOUT_S = 10.0


@dataclass
class PageTarget:
    id: str
    title: str
    url: str
    ws_path: str
    visible: bool
    box: tuple[int, int, int, int]   # the WebView on screen (x1, y1, x2, y2), from the target's description


def devtools_socket(unix_table: str, pid: str) -> Optional[str]:
    """The abstract socket the WebView of process `pid` listens on, from /proc/net/unix, or None."""
    want = f"@{SOCKET_PREFIX}{pid}"
    for line in unix_table.splitlines()[1:]:
        fields = line.split()
        if fields and fields[-1] == want:
            return want[1:]
    return None


def parse_targets(listing: Any) -> list[PageTarget]:
    """The page targets of a /json/list answer."""
    out = []
    for t in listing if isinstance(listing, list) else []:
        if not isinstance(t, dict) or t.get("type") != "page" or not t.get("webSocketDebuggerUrl"):
            continue
        try:
            desc = json.loads(t.get("description") or "{}")
        except ValueError:
            desc = {}
        x, y = int(desc.get("screenX", 0)), int(desc.get("screenY", 0))
        box = (x, y, x + int(desc.get("width", 0)), y + int(desc.get("height", 0)))
        out.append(PageTarget(str(t.get("id", "")), str(t.get("title", "")), str(t.get("url", "")),
                              urlsplit(t["webSocketDebuggerUrl"]).path, bool(desc.get("visible", True)), box))
    return out


def pick_target(pages: list[PageTarget], bounds: tuple[int, int, int, int]) -> Optional[PageTarget]:
    """The page whose WebView is the one on screen at `bounds`: the visible target overlapping it most."""
    def overlap(p: PageTarget) -> int:
        w = min(p.box[2], bounds[2]) - max(p.box[0], bounds[0])
        h = min(p.box[3], bounds[3]) - max(p.box[1], bounds[1])
        return max(0, w) * max(0, h)
    shown = [p for p in pages if p.visible and overlap(p) > 0]
    return max(shown, key=overlap) if shown else None


class DevToolsLink:
    """One page's DevTools connection through a forwarded port on the ADB server's host."""

    def __init__(self, dev: adbutils.AdbDevice, host: str, socket_name: str):
        self.host = host
        try:
            self.port = dev.forward_port(f"localabstract:{socket_name}")
        except (adbutils.AdbError, OSError) as exc:
            raise MobiumError("device_server", f"adb forward to @{socket_name} failed: {exc}") from exc

    def pages(self) -> list[PageTarget]:
        conn = http.client.HTTPConnection(self.host, self.port, timeout=TIMEOUT_S)
        try:
            conn.request("GET", "/json/list")
            answer = conn.getresponse()
            body = answer.read()
            if answer.status != 200:
                raise MobiumError("device_server", f"the WebView's DevTools answered /json/list with "
                                  f"{answer.status}: {body[:200].decode(errors='replace')}")
            return parse_targets(json.loads(body))
        except (OSError, http.client.HTTPException, ValueError) as exc:
            raise MobiumError("device_server", f"the WebView's DevTools did not list its pages: {exc}",
                              retryable=True) from exc
        finally:
            conn.close()

    def evaluate(self, page: PageTarget, expression: str) -> dict:
        """Runtime.evaluate's result object ({result} or {result, exceptionDetails})."""
        return self.call(page, "Runtime.evaluate",
                         {"expression": expression, "returnByValue": True, "awaitPromise": True})

    def call(self, page: PageTarget, method: str, params: dict) -> dict:
        """One DevTools method on the page: its result, or device_server with the page's refusal."""
        try:
            with _WebSocket(self.host, self.port, page.ws_path) as ws:
                ws.send({"id": 1, "method": method, "params": params})
                while True:
                    message = ws.receive()
                    if message is None:
                        raise ConnectionError("the page closed its DevTools connection")
                    if message.get("id") != 1:
                        continue  # an event
                    if "error" in message:
                        raise MobiumError("device_server", f"{method} was refused: "
                                          f"{message['error'].get('message', message['error'])}")
                    return message.get("result") or {}
        except (OSError, ValueError) as exc:
            raise MobiumError("device_server", f"the WebView's DevTools connection failed: {exc}",
                              retryable=True) from exc


class _WebSocket:
    """The client side of RFC 6455, enough for DevTools: text messages, masked, one request at a time."""

    def __init__(self, host: str, port: int, path: str):
        self.sock = socket.create_connection((host, port), timeout=TIMEOUT_S)
        key = base64.b64encode(os.urandom(16)).decode()
        self.sock.sendall((f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nUpgrade: websocket\r\n"
                           f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n")
                          .encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = self.sock.recv(4096)
            if not chunk:
                raise ConnectionError("the DevTools socket closed during the WebSocket handshake")
            head += chunk
        status = head.split(b"\r\n", 1)[0].decode(errors="replace")
        if " 101 " not in status + " ":
            raise ConnectionError(f"the DevTools socket refused the WebSocket: {status}")
        self.pending = head.split(b"\r\n\r\n", 1)[1]

    def __enter__(self) -> "_WebSocket":
        return self

    def __exit__(self, *exc: object) -> None:
        try:
            self.sock.sendall(self._frame(0x8, struct.pack(">H", 1000)))
        except OSError:
            pass
        self.sock.close()

    @staticmethod
    def _frame(opcode: int, payload: bytes) -> bytes:
        mask = os.urandom(4)
        n = len(payload)
        head = bytes([0x80 | opcode])
        if n < 126:
            head += bytes([0x80 | n])
        elif n < 1 << 16:
            head += bytes([0x80 | 126]) + struct.pack(">H", n)
        else:
            head += bytes([0x80 | 127]) + struct.pack(">Q", n)
        return head + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(payload))

    def send(self, message: dict) -> None:
        self.sock.sendall(self._frame(0x1, json.dumps(message).encode()))

    def _read(self, n: int) -> bytes:
        while len(self.pending) < n:
            chunk = self.sock.recv(65536)
            if not chunk:
                raise ConnectionError("the DevTools socket closed mid-message")
            self.pending += chunk
        out, self.pending = self.pending[:n], self.pending[n:]
        return out

    def receive(self) -> Optional[dict]:
        parts = []
        while True:
            b1, b2 = self._read(2)
            length = b2 & 0x7F
            if length == 126:
                length = struct.unpack(">H", self._read(2))[0]
            elif length == 127:
                length = struct.unpack(">Q", self._read(8))[0]
            mask = self._read(4) if b2 & 0x80 else b""
            data = self._read(length)
            if mask:
                data = bytes(c ^ mask[i % 4] for i, c in enumerate(data))
            opcode = b1 & 0x0F
            if opcode == 0x8:
                return None
            if opcode in (0x9, 0xA):
                continue
            parts.append(data)
            if b1 & 0x80:
                return json.loads(b"".join(parts).decode("utf-8"))
