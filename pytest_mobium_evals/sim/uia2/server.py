"""Appium's UiAutomator2 server (io.appium.uiautomator2.server 10.6.6) as the virtual device runs it: a W3C
WebDriver server over HTTP/1.1 on the device's tcp:6790, reading and driving the device's own views, input and
screen.

Written from the protocol and from what its clients send: the routes are those the server registers
(appium/appium-uiautomator2-server, `AppiumServlet`), those Appium's UiAutomator2 driver 8.7.0 proxies to it, and every
call Mobium's default driver makes (mobiumdev/mobium `internal/mobiumdriver/uia2.go`, `w3c.go`). Paths are served with
and without the old `/wd/hub` prefix. Answers are `{"sessionId": …, "value": …}`; a failure is the W3C error object
(`error`, `message`, `stacktrace`) with the W3C HTTP status. The server holds one session, as the real one does: a new
session replaces the old, and a call naming the old one gets `invalid session id`.
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import threading
import traceback
import uuid
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler
from typing import TYPE_CHECKING, Any, Callable

from PIL import Image

from .. import views
from ..pace import STILL_WINDOW_S, drawn, spend
from ..render import screencap_png
from . import actions as w3c_actions
from . import locate
from .snapshot import UiNode, page_source, take

if TYPE_CHECKING:  # pragma: no cover
    import socket

    from ..device import VirtualDevice

PORT = 6790
SERVER_VERSION = "10.6.6"
ELEMENT_KEY = w3c_actions.ELEMENT_KEY

# The server's settings and their defaults, as `GET /appium/settings` lists them.
DEFAULT_SETTINGS: dict[str, Any] = {
    "actionAcknowledgmentTimeout": 3000, "allowInvisibleElements": False, "alwaysTraversableViewClasses": "",
    "currentDisplayId": 0, "disableIdLocatorAutocompletion": False, "elementResponseAttributes": "",
    "enableMultiWindows": False, "enableNotificationListener": True, "enableTopmostWindowFromActivePackage": False,
    "enforceXPath1": False, "ignoreUnimportantViews": False, "includeA11yActionsInPageSource": False,
    "includeExtrasInPageSource": False, "keyInjectionDelay": 0, "limitXPathContextScope": True,
    "mjpegBilinearFiltering": False, "mjpegScalingFactor": 50, "mjpegServerFramerate": 10,
    "mjpegServerPort": 7810, "mjpegServerScreenshotQuality": 50, "normalizeTagNames": False,
    "scrollAcknowledgmentTimeout": 200, "serverPort": PORT, "shouldUseCompactResponses": True,
    "shutdownOnPowerDisconnect": True, "simpleBoundsCalculation": False, "snapshotMaxDepth": 70,
    "trackScrollEvents": True, "useResourcesForOrientationDetection": False, "waitForIdleTimeout": 10000,
    "waitForSelectorTimeout": 10000, "wakeLockTimeout": 86400000,
}

STATUS = {"invalid session id": 404, "no such element": 404, "stale element reference": 404, "no such alert": 404,
          "unknown command": 404, "unknown method": 405, "invalid argument": 400, "invalid selector": 400,
          "invalid element state": 400, "element not interactable": 400, "session not created": 500,
          "unknown error": 500, "unsupported operation": 500}


class W3CError(Exception):
    def __init__(self, error: str, message: str):
        super().__init__(message)
        self.error = error
        self.message = message


@dataclass
class ElementRef:
    """What the server keeps of an element it handed out: enough to find the same view again on a later frame."""

    window: str
    path: tuple[int, ...]
    cls: str
    resource_id: str
    # the UiSelector it was found by (`-android uiautomator`): the server then holds a UiObject, whose selector is
    # looked up again on each use; any other strategy gives a UiObject2, bound to the view it found
    selector: str | None = None


class Session:
    def __init__(self, capabilities: dict):
        self.id = str(uuid.uuid4())
        self.capabilities = capabilities
        self.elements: dict[str, ElementRef] = {}


class UiAutomator2Server:
    """One running server on one device: `serve(sock)` answers one accepted connection until it closes."""

    def __init__(self, device: "VirtualDevice", on_session_deleted: Callable[[], None] | None = None):
        self.device = device
        self.on_session_deleted = on_session_deleted
        self.settings = dict(DEFAULT_SETTINGS)
        self.session: Session | None = None
        self._lock = threading.Lock()
        self._open: set["socket.socket"] = set()
        self.stopped = threading.Event()
        self.routes = _routes()

    # -- connections ---------------------------------------------------------------------------------------------

    def serve(self, sock: "socket.socket") -> None:
        if self.stopped.is_set():
            sock.close()
            return
        with self._lock:
            self._open.add(sock)
        try:
            sock.settimeout(None)
            _Handler(sock, ("127.0.0.1", 0), self)
        except OSError:
            pass  # the client went away mid-request
        finally:
            with self._lock:
                self._open.discard(sock)
            try:
                sock.close()
            except OSError:
                pass

    def stop(self) -> None:
        """The instrumentation ended: every open connection is cut, as the process dying cuts them."""
        self.stopped.set()
        with self._lock:
            socks, self._open = list(self._open), set()
        for s in socks:
            try:
                s.shutdown(2)
            except OSError:
                pass

    # -- dispatch ------------------------------------------------------------------------------------------------

    def dispatch(self, method: str, path: str, body: bytes) -> tuple[int, dict]:
        path = path.split("?", 1)[0].rstrip("/") or "/"
        if path.startswith("/wd/hub"):
            path = path[len("/wd/hub"):] or "/"
        parts = [p for p in path.split("/") if p]
        session_id = parts[1] if len(parts) >= 2 and parts[0] == "session" else None
        try:
            handler, params = self._match(method, parts)
            payload: dict = {}
            if body.strip():
                try:
                    payload = json.loads(body)
                except ValueError:
                    raise W3CError("invalid argument", f"The request body is not JSON: {body[:80]!r}") from None
                if not isinstance(payload, dict):
                    raise W3CError("invalid argument", "The request body must be a JSON object")
            if "sessionId" in params:
                session = self.session
                if session is None or session.id != params["sessionId"]:
                    raise W3CError("invalid session id", f"A session is either terminated or not started "
                                                         f"(the session {params['sessionId']} is not known)")
            with self.device.lock:
                self.device.run_due()  # the app's timers that came due meanwhile fire first, as for a shell command
            value = handler(self, params, payload)
            sid = self.session.id if self.session is not None else session_id
            if handler is _new_session:
                sid = value["sessionId"]
            return 200, {"sessionId": sid, "value": value}
        except W3CError as exc:
            return STATUS.get(exc.error, 500), {"sessionId": session_id, "value": {
                "error": exc.error, "message": exc.message,
                "stacktrace": f"io.appium.uiautomator2.common.exceptions: {exc.message}"}}
        except Exception as exc:  # noqa: BLE001 - the server answers every request, as the real one's handler does
            return 500, {"sessionId": session_id, "value": {
                "error": "unknown error", "message": f"{type(exc).__name__}: {exc}",
                "stacktrace": traceback.format_exc()}}

    def _match(self, method: str, parts: list[str]) -> tuple[Callable, dict[str, str]]:
        path_known = False
        for route_method, pattern, handler in self.routes:
            if len(pattern) != len(parts):
                continue
            params: dict[str, str] = {}
            for want, got in zip(pattern, parts):
                if want.startswith(":"):
                    params[want[1:]] = got
                elif want != got:
                    break
            else:
                path_known = True
                if route_method == method:
                    return handler, params
        if path_known:
            raise W3CError("unknown method", f"The method {method} is not allowed on /{'/'.join(parts)}")
        raise W3CError("unknown command", f"The requested resource could not be found, or a request was received "
                                          f"using an HTTP method that is not supported by the mapped resource "
                                          f"({method} /{'/'.join(parts)})")

    # -- elements ------------------------------------------------------------------------------------------------

    def snapshot(self) -> UiNode:
        return take(self.device)

    def keep(self, node: UiNode, selector: str | None = None) -> dict:
        """Hands out an element id for `node` (the same id for the same view, found the same way, while the session
        lasts)."""
        session = self.session
        assert session is not None
        ref = ElementRef(node.window, node.path, node.tag, node.attr("resource-id"), selector)
        for eid, known in session.elements.items():
            if known == ref:
                return {"ELEMENT": eid, ELEMENT_KEY: eid}
        eid = str(uuid.uuid4())
        session.elements[eid] = ref
        return {"ELEMENT": eid, ELEMENT_KEY: eid}

    def element(self, eid: str, root: UiNode | None = None) -> UiNode:
        session = self.session
        ref = session.elements.get(eid) if session is not None else None
        if ref is None:
            raise W3CError("no such element", f"The element identified by '{eid}' is not present in the cache "
                                              f"or has never been there")
        root = root or self.snapshot()
        node: UiNode | None = root
        for i in ref.path:
            if node is None or i >= len(node.children):
                node = None
                break
            node = node.children[i]
        if node is None or node.window != ref.window or node.tag != ref.cls \
                or node.attr("resource-id") != ref.resource_id:
            raise W3CError("stale element reference", f"The element '{eid}' does not exist in DOM anymore")
        return node


# ---------------------------------------------------------------------------------------------------------------
# handlers: (server, path parameters, JSON body) -> value

def _status(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    return {"ready": True, "message": "UiAutomator2 Server is ready to accept commands"}


def _new_session(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    caps = body.get("capabilities") if isinstance(body.get("capabilities"), dict) else {}
    merged: dict = dict(caps.get("alwaysMatch") or {})
    first = caps.get("firstMatch") or [{}]
    if isinstance(first, list) and first and isinstance(first[0], dict):
        merged.update(first[0])
    if not caps and isinstance(body.get("desiredCapabilities"), dict):
        merged = dict(body["desiredCapabilities"])
    session = Session(merged)
    s.session = session  # one session at a time: a new one takes the place of the old
    return {"sessionId": session.id, "capabilities": merged}


def _sessions(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    return [] if s.session is None else [{"id": s.session.id, "capabilities": s.session.capabilities}]


def _session_details(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    return dict(s.session.capabilities) if s.session else {}


def _delete_session(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    s.session = None
    if s.on_session_deleted is not None:
        s.on_session_deleted()  # the server shuts down once the answer is out, as the real one does
    return None


def _source(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    d = s.device
    with d.lock:
        _wait_for_idle(s)
        return page_source(take(d))


def _wait_for_idle(s: UiAutomator2Server) -> None:
    """At a paced speed, a read waits as the server's does for the app to go idle: a look, another a moment later,
    and while the screen still moves, more looks until it holds still or `waitForIdleTimeout` runs out. A read whose
    wait ran out on a screen still moving takes `uia2_read_moving` in all: the snapshot of views in motion is slow
    (CHALLENGES 109: 1.3-1.7 s mid-burst on a Pixel 7 AVD with Mobium's 500 ms idle wait)."""
    d = s.device
    if not d.pace.paced:
        return
    spend(d, d.pace.uia2_read)
    budget = max(0.0, float(s.settings.get("waitForIdleTimeout", 10000)) / 1000)
    before = drawn(d)
    waited = 0.0
    moving = False
    while waited < budget:
        spend(d, STILL_WINDOW_S)
        waited += STILL_WINDOW_S
        now = drawn(d)
        moving = now != before
        if not moving:
            return
        before = now
    if moving:
        spend(d, d.pace.uia2_read_moving - d.pace.uia2_read - waited)


def _screenshot(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    d = s.device
    with d.lock:
        spend(d, d.pace.screencap)
        return base64.b64encode(screencap_png(d)).decode()


def _window_size(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    with s.device.lock:
        screen = s.device.display
    return {"width": screen.width, "height": screen.height}


def _window_rect(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    return {"x": 0, "y": 0, **_window_size(s, p, body)}


def _find(s: UiAutomator2Server, p: dict, body: dict, many: bool) -> Any:
    strategy = body.get("using", body.get("strategy"))
    selector = body.get("value", body.get("selector"))
    if not isinstance(strategy, str) or not isinstance(selector, str):
        raise W3CError("invalid argument", "A locator needs 'using' and 'value' strings")
    if strategy not in locate.STRATEGIES:
        raise W3CError("invalid selector", f"Locator Strategy '{strategy}' is not supported for this session")
    d = s.device
    with d.lock:
        root = s.snapshot()
        context = s.element(p["id"], root) if "id" in p else None
        # The id strategy puts the package in front before a bare name, unless the session turned that off.
        rec = d.current_activity()
        package = "" if s.settings.get("disableIdLocatorAutocompletion") or rec is None else rec.package.name
        try:
            found = locate.find(root, strategy, selector, context=context, package=package,
                                scroll=lambda node, axis, n: _scroll_once(d, node, axis), resnap=s.snapshot)
        except locate.InvalidSelector as exc:
            raise W3CError("invalid selector", str(exc)) from None
        # A UiSelector finds UiObjects (their selector kept), as the server's FindElement(s) do for `-android
        # uiautomator`: the many, each its selector's instance(i), as FindElements' fetchElements makes them.
        uiobject = strategy == "-android uiautomator" and ";" not in selector and selector.rstrip().endswith(")")
        if many:
            return [s.keep(n, f"{selector.rstrip()}.instance({i})" if uiobject else None)
                    for i, n in enumerate(found)]
        selector = selector if uiobject else None
        if not found:
            raise W3CError("no such element", "An element could not be located on the page using the given search "
                                              "parameters.")
        return s.keep(found[0], selector)


def _scroll_once(d: "VirtualDevice", node: UiNode, axis: str) -> bool:
    """One swipe across a scroll container towards its end (UiScrollable's scrollForward); False when nothing
    moved."""
    l, t, r, b = node.bounds
    before = dict(d.current_activity().scroll_offsets) if d.current_activity() else {}
    if axis == "vertical":
        x, y1, y2 = (l + r) // 2, b - (b - t) // 10, t + (b - t) // 10
        d.swipe(x, y1, x, y2, duration_ms=300)
    else:
        y, x1, x2 = (t + b) // 2, r - (r - l) // 10, l + (r - l) // 10
        d.swipe(x1, y, x2, y, duration_ms=300)
    after = dict(d.current_activity().scroll_offsets) if d.current_activity() else {}
    return after != before


def _scroll_back_once(d: "VirtualDevice", node: UiNode, axis: str) -> bool:
    """One swipe across a scroll container towards its beginning (UiScrollable's scrollBackward)."""
    l, t, r, b = node.bounds
    before = dict(d.current_activity().scroll_offsets) if d.current_activity() else {}
    if axis == "vertical":
        x, y1, y2 = (l + r) // 2, t + (b - t) // 10, b - (b - t) // 10
        d.swipe(x, y1, x, y2, duration_ms=300)
    else:
        y, x1, x2 = (t + b) // 2, l + (r - l) // 10, r - (r - l) // 10
        d.swipe(x1, y, x2, y, duration_ms=300)
    after = dict(d.current_activity().scroll_offsets) if d.current_activity() else {}
    return after != before


# UiScrollable's default search: 30 swipes (mMaxSearchSwipes).
MAX_SEARCH_SWIPES = 30
SCROLL_TO_STRATEGIES = ("accessibility id", "class name", "-android uiautomator")


class _Scrollable:
    """androidx UiScrollable over the virtual device: a container found by a selector each time it is used, its
    axis (horizontal for a HorizontalScrollView, as the server sets it), and scrollIntoView's search."""

    def __init__(self, s: UiAutomator2Server, find_container: Callable[[UiNode], UiNode | None]):
        self.s, self.find_container = s, find_container

    def container(self) -> UiNode:
        node = self.find_container(self.s.snapshot())
        if node is None:
            raise W3CError("no such element", "UiScrollable: the scrollable container is not on the screen")
        return node

    def axis(self, node: UiNode) -> str:
        return "horizontal" if node.attr("class") == "android.widget.HorizontalScrollView" else "vertical"

    def forward(self) -> bool:
        node = self.container()
        return _scroll_once(self.s.device, node, self.axis(node))

    def to_beginning(self, max_swipes: int) -> None:
        for _ in range(max_swipes):
            node = self.container()
            if not _scroll_back_once(self.s.device, node, self.axis(node)):
                return

    def into_view(self, exists: Callable[[], bool], max_swipes: int = MAX_SEARCH_SWIPES) -> bool:
        """scrollIntoView: already there; else from the beginning, one swipe forward at a time."""
        if exists():
            return True
        self.to_beginning(max_swipes)
        if exists():
            return True
        for _ in range(max_swipes):
            scrolled = self.forward()
            if exists():
                return True
            if not scrolled:
                return False
        return False


def _by_selector(s: UiAutomator2Server, selector: str) -> Callable[[UiNode], UiNode | None]:
    def found(root: UiNode) -> UiNode | None:
        hits = locate.find(root, "-android uiautomator", selector)
        return hits[0] if hits else None
    return found


def _ui_object(s: UiAutomator2Server, eid: str) -> str | None:
    """The selector of an element the server holds as a UiObject; None for a UiObject2."""
    session = s.session
    ref = session.elements.get(eid) if session is not None else None
    if ref is None:
        raise W3CError("no such element", f"The element identified by '{eid}' is not present in the cache or has "
                                          "never been there")
    return ref.selector


def _scroll_to(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    """`POST /gestures/scroll_to` (Appium's `mobile: scroll`, the server's ScrollTo): scrolls the origin (a UiObject)
    or the first scrollable container until a descendant matching the locator is on screen."""
    params = body.get("params") if isinstance(body.get("params"), dict) else {}
    strategy, selector = params.get("strategy"), params.get("selector")
    max_swipes = params.get("maxSwipes") or 0
    if not isinstance(strategy, str) or not isinstance(selector, str):
        raise W3CError("invalid argument", "'params' needs a 'strategy' and a 'selector'")
    if strategy not in locate.STRATEGIES:
        raise W3CError("invalid selector", f"Locator Strategy '{strategy}' is not supported for this session")
    if strategy not in SCROLL_TO_STRATEGIES:
        raise W3CError("invalid argument", f"Unsupported strategy: '{strategy}'. The only supported strategies are: "
                                           f"[{', '.join(SCROLL_TO_STRATEGIES)}].")
    origin = body.get("origin")
    d = s.device
    with d.lock:
        if isinstance(origin, dict) and (origin.get(ELEMENT_KEY) or origin.get("ELEMENT")):
            held = _ui_object(s, str(origin.get(ELEMENT_KEY) or origin.get("ELEMENT")))
            if held is None:
                raise W3CError("invalid argument", "The given origin element must be a valid scrollable UiObject")
            find_container = _by_selector(s, held)
        else:
            def find_container(root: UiNode) -> UiNode | None:
                return next((n for n in root.walk() if n.attr("scrollable") == "true"), None)
        scrollable = _Scrollable(s, find_container)
        scrollable.container()  # UiObjectNotFoundException before any swipe when there is none

        def exists() -> bool:
            root = s.snapshot()
            box = find_container(root)
            return box is not None and bool(locate.find(root, strategy, selector, context=box))

        try:
            found = scrollable.into_view(exists, int(max_swipes) if int(max_swipes) > 0 else MAX_SEARCH_SWIPES)
        except locate.InvalidSelector as exc:
            raise W3CError("invalid selector", str(exc)) from None
        if not found:
            raise W3CError("no such element", "Cannot scroll to the element.")
    return None


def _scroll_to_element(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    """`POST /appium/element/:id/scroll_to/:id2` (Appium's `mobile: scrollBackTo`, the server's ScrollToElement):
    both elements UiObjects; the first scrolled, from its beginning, until the second exists; whether it does."""
    container, target = _ui_object(s, p["id"]), _ui_object(s, p["id2"])
    if container is None or target is None:
        which = "Element" if container is None else "Scroll to Element"
        raise W3CError("invalid argument", f"{which} was not an instance of UiObject; only UiSelector is supported. "
                                           "Ensure you use the '-android uiautomator' locator strategy when finding "
                                           "elements for use with ScrollToElement")
    d = s.device
    with d.lock:
        scrollable = _Scrollable(s, _by_selector(s, container))

        def exists() -> bool:
            return bool(locate.find(s.snapshot(), "-android uiautomator", target))

        if exists():
            return True
        scrollable.to_beginning(MAX_SEARCH_SWIPES)  # its flingToBeginning
        if exists():
            return True
        for _ in range(MAX_SEARCH_SWIPES):
            if not scrollable.forward():
                return False
            if exists():
                return True
    return False


def _first_visible(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    """`GET /appium/element/:id/first_visible` (the driver's `//*[@firstVisible="true"]` under an element): the
    element's first child on screen, as a new element."""
    d = s.device
    with d.lock:
        node = s.element(p["id"])
        if not node.children:
            raise W3CError("no such element", "Could not get children for container object")
        l, t, r, b = node.bounds
        for child in node.children:  # the first a person sees: inside the container's box, not scrolled past
            cl, ct, cr, cb = child.bounds
            if cr > max(cl, l) and cb > max(ct, t) and cl < r and ct < b:
                return s.keep(child)
    raise W3CError("no such element", "An element could not be located on the page using the given search "
                                      "parameters.")


def _find_one(s, p, body):
    return _find(s, p, body, False)


def _find_many(s, p, body):
    return _find(s, p, body, True)


def _active(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    with s.device.lock:
        root = s.snapshot()
        for n in root.walk():
            if n.attr("focused") == "true":
                return s.keep(n)
    raise W3CError("no such element", "No element has the input focus")


def _center(node: UiNode) -> tuple[int, int]:
    l, t, r, b = node.bounds
    return (l + r) // 2, (t + b) // 2


def _tap(d: "VirtualDevice", x: int, y: int) -> None:
    """A click as the server's UiObject2.click() injects it: a finger down and up at the point."""
    if d.streams_at(x, y):
        t = d.now()
        d.pointer_down(x, y, t=t)
        d.pointer_up(x, y, t=t + 0.05)
    else:
        d.tap(x, y)


def _click(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    d = s.device
    with d.lock:
        node = s.element(p["id"])
        spend(d, d.pace.tap)
        _tap(d, *_center(node))
    return None


def _set_text(s: UiAutomator2Server, node: UiNode, text: str) -> None:
    """AccessibilityNodeInfo.ACTION_SET_TEXT: the field's text becomes `text` without a key being pressed."""
    d = s.device
    placed = node.placed
    if placed is None or not placed.node.editable or placed.node.on_text is None:
        raise W3CError("invalid element state", f"Cannot set the element to '{text}'. Did you interact with the "
                                                f"correct element?")
    if not placed.node.enabled:
        raise W3CError("invalid element state", "The element is not enabled")
    d._call(node.package, placed.node.on_text, text)


def _value(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    text = body.get("text")
    if text is None and isinstance(body.get("value"), list):
        text = "".join(str(v) for v in body["value"])
    if not isinstance(text, str):
        raise W3CError("invalid argument", "'text' must be a string")
    d = s.device
    with d.lock:
        if "id" in p:
            node = s.element(p["id"])
        elif body.get("elementId"):
            node = s.element(str(body["elementId"]))
        else:
            found = [n for n in s.snapshot().walk() if n.attr("focused") == "true"]
            if not found:
                raise W3CError("no such element", "No element has the input focus to send keys to")
            node = found[0]
        press_enter = text.endswith("\\n")
        if press_enter:
            text = text.replace("\\n", "")
        spend(d, d.pace.tap + d.pace.text_per_char * len(text))
        # The field becomes the text, whatever it held and whatever `replace` says: "ab" then "cd" leaves "cd" on
        # the 10.x server (measured on API 35 by Mobium, whose app_type therefore sends what the field held + text).
        _set_text(s, node, text)
        if press_enter and node.placed is not None and node.placed.node.on_submit is not None:
            d._call(node.package, node.placed.node.on_submit)
    return None


def _clear(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    d = s.device
    with d.lock:
        node = s.element(p["id"])
        spend(d, d.pace.tap)
        _set_text(s, node, "")
    return None


def _text(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    with s.device.lock:
        return s.element(p["id"]).attr("text")


def _name(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    with s.device.lock:
        return s.element(p["id"]).attr("class")


# getAttribute's names and their aliases, as the server's Attribute enum spells them
ATTRIBUTE_ALIASES = {"name": "content-desc", "contentdescription": "content-desc", "classname": "class",
                     "resourceid": "resource-id", "longclickable": "long-clickable",
                     "importantforaccessibility": "a11y-important", "screenreaderfocusable": "screen-reader-focusable",
                     "inputtype": "input-type", "drawingorder": "drawing-order", "showinghinttext": "showing-hint",
                     "textentrykey": "text-entry-key", "accessibilityfocused": "a11y-focused",
                     "liveregion": "live-region", "contextclickable": "context-clickable",
                     "contentinvalid": "content-invalid"}
BOOLEAN_ATTRIBUTES = {"checkable", "checked", "clickable", "enabled", "focusable", "focused", "long-clickable",
                      "password", "scrollable", "selected", "displayed", "a11y-important", "screen-reader-focusable",
                      "showing-hint", "text-entry-key", "dismissable", "a11y-focused", "heading",
                      "context-clickable", "content-invalid"}
KNOWN_ATTRIBUTES = BOOLEAN_ATTRIBUTES | {"index", "package", "class", "text", "original-text", "content-desc",
                                        "resource-id", "bounds", "hint", "selection-start", "selection-end",
                                        "input-type", "drawing-order", "live-region", "window-id", "extras",
                                        "contentSize"}


def _attribute(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    name = p["name"]
    key = ATTRIBUTE_ALIASES.get(name.lower(), name)
    if key not in KNOWN_ATTRIBUTES:
        raise W3CError("invalid argument", f"The '{name}' attribute is unknown. Only the following attributes are "
                                           f"supported: {sorted(KNOWN_ATTRIBUTES)}")
    with s.device.lock:
        node = s.element(p["id"])
        if key == "original-text":
            return node.placed.node.text if node.placed is not None else node.attr("text")
        if key == "contentSize":
            l, t, r, b = node.bounds
            extent = node.placed.content_extent if node.placed is not None else 0
            return json.dumps({"width": r - l, "height": b - t, "top": t, "left": l,
                               "scrollableOffset": max(0, extent - (b - t)), "touchPadding": 12})
        if key in BOOLEAN_ATTRIBUTES:
            return node.attrs.get(key, "false")
        value = node.attrs.get(key)
        return value


def _boolean(name: str) -> Callable:
    def handler(s: UiAutomator2Server, p: dict, body: dict) -> Any:
        with s.device.lock:
            return s.element(p["id"]).attrs.get(name, "false") == "true"
    return handler


def _rect(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    with s.device.lock:
        l, t, r, b = s.element(p["id"]).bounds
    return {"x": l, "y": t, "width": r - l, "height": b - t}


def _location(s, p, body):
    r = _rect(s, p, body)
    return {"x": r["x"], "y": r["y"]}


def _size(s, p, body):
    r = _rect(s, p, body)
    return {"width": r["width"], "height": r["height"]}


def _element_screenshot(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    d = s.device
    with d.lock:
        node = s.element(p["id"])
        spend(d, d.pace.screencap)
        image = Image.open(io.BytesIO(screencap_png(d)))
    out = io.BytesIO()
    image.crop(node.bounds).save(out, "PNG")
    return base64.b64encode(out.getvalue()).decode()


def _actions(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    d = s.device
    with d.lock:
        def center(eid: str) -> tuple[float, float]:
            return _center(s.element(eid))
        try:
            events, end = w3c_actions.plan(body, center)
        except w3c_actions.ActionsError as exc:
            raise W3CError("invalid argument", str(exc)) from None
        w3c_actions.perform(d, events, end)
    return None


def _release_actions(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    with s.device.lock:
        w3c_actions.release(s.device)
    return None


# -- /appium/gestures/*: the server's own gestures (Appium's `mobile: clickGesture` and kin) ---------------------

def _gesture_point(s: UiAutomator2Server, body: dict) -> tuple[float, float]:
    """Where a gesture lands: the element's centre, or `offset` from its top-left; without an element, `offset`
    on the screen."""
    origin = body.get("origin")
    offset = body.get("offset") if isinstance(body.get("offset"), dict) else None
    if isinstance(origin, dict) and (origin.get(ELEMENT_KEY) or origin.get("ELEMENT")):
        l, t, r, b = s.element(str(origin.get(ELEMENT_KEY) or origin.get("ELEMENT"))).bounds
        if offset is None:
            return (l + r) / 2, (t + b) / 2
        return l + float(offset.get("x", 0)), t + float(offset.get("y", 0))
    if offset is None:
        raise W3CError("invalid argument", "A gesture needs an element (origin) or a point (offset)")
    return float(offset.get("x", 0)), float(offset.get("y", 0))


# UiObject2 keeps an element's gestures inside its edges (its gesture margins; a tenth of its size each side here):
# a stroke across all of a list that reaches the screen's bottom must not start in the navigation gesture area,
# where it would be a home gesture.
GESTURE_MARGIN = 0.1


def _gesture_area(s: UiAutomator2Server, body: dict) -> tuple[float, float, float, float]:
    origin = body.get("origin")
    if isinstance(origin, dict) and (origin.get(ELEMENT_KEY) or origin.get("ELEMENT")):
        l, t, r, b = s.element(str(origin.get(ELEMENT_KEY) or origin.get("ELEMENT"))).bounds
        mx, my = (r - l) * GESTURE_MARGIN, (b - t) * GESTURE_MARGIN
        return l + mx, t + my, r - mx, b - my
    area = body.get("area")
    if not isinstance(area, dict):
        raise W3CError("invalid argument", "A swipe needs an element (origin) or an area (left, top, width, height)")
    l, t = float(area.get("left", 0)), float(area.get("top", 0))
    return l, t, l + float(area.get("width", 0)), t + float(area.get("height", 0))


def _press(s: UiAutomator2Server, strokes: list[list[tuple[float, float, float]]]) -> None:
    """One finger's strokes, each [(seconds after its start, x, y), …], the finger lifting after each; strokes follow
    each other by 0.1 s."""
    events: list[w3c_actions.Event] = []
    t0 = 0.0
    for stroke in strokes:
        for i, (dt, x, y) in enumerate(stroke):
            kind = "down" if i == 0 else "move"
            events.append(w3c_actions.Event(t0 + dt, len(events), kind, 0, x, y))
        last_t, lx, ly = stroke[-1]
        events.append(w3c_actions.Event(t0 + last_t, len(events), "up", 0, lx, ly))
        t0 += last_t + 0.1
    w3c_actions.perform(s.device, events, events[-1].t)


def _gesture(kind: str) -> Callable:
    def handler(s: UiAutomator2Server, p: dict, body: dict) -> Any:
        d = s.device
        with d.lock:
            if kind in ("click", "long_click", "double_click"):
                x, y = _gesture_point(s, body)
                hold = float(body.get("duration", 500)) / 1000 if kind == "long_click" else 0.05
                taps = 2 if kind == "double_click" else 1
                _press(s, [[(0.0, x, y), (hold, x, y)]] * taps)
                return None
            speed = float(body.get("speed", 2500 if kind == "drag" else 5000)) or 1.0
            if kind == "drag":
                start, end = body.get("start"), body.get("end")
                if not isinstance(end, dict):
                    raise W3CError("invalid argument", "A drag needs an end point")
                if isinstance(start, dict):
                    x1, y1 = float(start.get("x", 0)), float(start.get("y", 0))
                else:
                    x1, y1 = _gesture_point(s, {**body, "offset": None})
                x2, y2 = float(end.get("x", 0)), float(end.get("y", 0))
            else:  # swipe: across `percent` of the area, from the side opposite `direction`
                l, t, r, b = _gesture_area(s, body)
                direction = str(body.get("direction", "")).lower()
                percent = float(body.get("percent", 0))
                if direction not in ("up", "down", "left", "right") or not 0 < percent <= 1:
                    raise W3CError("invalid argument", "A swipe needs a direction (up, down, left, right) and a "
                                                       "percent in (0, 1]")
                cx, cy, w, h = (l + r) / 2, (t + b) / 2, (r - l) * percent, (b - t) * percent
                x1, y1, x2, y2 = {"up": (cx, cy + h / 2, cx, cy - h / 2), "down": (cx, cy - h / 2, cx, cy + h / 2),
                                  "left": (cx + w / 2, cy, cx - w / 2, cy),
                                  "right": (cx - w / 2, cy, cx + w / 2, cy)}[direction]
            seconds = max(0.05, ((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5 / speed)
            steps = max(1, round(seconds / w3c_actions.FRAME_S))
            stroke = [(0.0, x1, y1)] + [(seconds * i / steps, x1 + (x2 - x1) * i / steps,
                                         y1 + (y2 - y1) * i / steps) for i in range(1, steps + 1)]
            if kind == "drag":
                stroke = [(0.0, x1, y1), (0.5, x1, y1)] + [(0.5 + t, x, y) for t, x, y in stroke[1:]]
            _press(s, [stroke])
        return None
    return handler


_DIRECTIONS = ("up", "down", "left", "right")
_REVERSE = {"up": "down", "down": "up", "left": "right", "right": "left"}
# UiObject2's default speeds in dp/s (swipe and scroll 5000, fling 7500, pinch 2500), the server scaling them by the
# display's density (2.625 here): px/s.
_DENSITY = 2.625
_SCROLL_SPEED, _FLING_SPEED, _PINCH_SPEED = 5000 * _DENSITY, 7500 * _DENSITY, 2500 * _DENSITY
_MIN_FLING_SPEED = 50 * _DENSITY  # ViewConfiguration's minimum fling velocity, scaled


def _direction(body: dict) -> str:
    direction = str(body.get("direction", "")).lower()
    if direction not in _DIRECTIONS:
        raise W3CError("invalid argument", f"'direction' must be one of up, down, left, right, got {direction!r}")
    return direction


def _speed(body: dict, default: float) -> float:
    speed = body.get("speed")
    if speed is None:
        return default
    if isinstance(speed, bool) or not isinstance(speed, (int, float)) or speed < 0:
        raise W3CError("invalid argument", f"'speed' must be a number of pixels a second, not negative: {speed!r}")
    return float(speed) or 1.0


def _line(x1: float, y1: float, x2: float, y2: float, speed: float, *, hold: float = 0.0) -> list:
    """A finger's stroke from one point to another at `speed` px/s, a move a frame, held `hold` s at the end."""
    seconds = max(0.05, ((x2 - x1) ** 2 + (y2 - y1) ** 2) ** 0.5 / speed)
    steps = max(1, round(seconds / w3c_actions.FRAME_S))
    stroke = [(0.0, x1, y1)] + [(seconds * i / steps, x1 + (x2 - x1) * i / steps, y1 + (y2 - y1) * i / steps)
                                for i in range(1, steps + 1)]
    if hold:
        stroke.append((seconds + hold, x2, y2))
    return stroke


def _swipe_ends(area: tuple[float, float, float, float], direction: str,
                percent: float) -> tuple[float, float, float, float]:
    """A finger's start and end moving `direction` across `percent` of the area, centred on it."""
    l, t, r, b = area
    cx, cy, w, h = (l + r) / 2, (t + b) / 2, (r - l) * percent, (b - t) * percent
    return {"up": (cx, cy + h / 2, cx, cy - h / 2), "down": (cx, cy - h / 2, cx, cy + h / 2),
            "left": (cx + w / 2, cy, cx - w / 2, cy), "right": (cx - w / 2, cy, cx + w / 2, cy)}[direction]


def _scroll_position(d: "VirtualDevice", x: float, y: float, axis: str) -> tuple[str, int, int] | None:
    """The scroll container a finger landing at (x, y) moves along `axis`: (its key, offset, max offset)."""
    root = d.frame().app_window.root
    found = views.scroll_container_at(root, int(round(x)), int(round(y)), axis) if root is not None else None
    if found is None:
        return None
    key = found.node.id or f"#{found.order}"
    return key, d.scroll_offsets.get(key, 0), d._max_offset(found)


def _scrolls(kind: str) -> Callable:
    """`scroll` and `fling`: the content moved `direction` (the finger the other way) across the area; the answer
    is whether it can move further that way. Scroll goes `percent` of the area in strokes of at most all of it,
    each held 250 ms before the lift; fling is one stroke across all of it, at a fling's speed. As UiAutomator's
    `Until.scrollFinished`: false once a stroke left the content at its end, or moved nothing."""
    def handler(s: UiAutomator2Server, p: dict, body: dict) -> Any:
        d = s.device
        with d.lock:
            area = _gesture_area(s, body)
            direction = _direction(body)
            if kind == "fling":
                percent, speed = 1.0, _speed(body, _FLING_SPEED)
                if speed < _MIN_FLING_SPEED:
                    raise W3CError("invalid argument", f"Speed {speed:g} is less than the minimum fling velocity "
                                                       f"{_MIN_FLING_SPEED:g}")
            else:
                percent, speed = body.get("percent"), _speed(body, _SCROLL_SPEED)
                if isinstance(percent, bool) or not isinstance(percent, (int, float)) or percent <= 0:
                    raise W3CError("invalid argument", f"'percent' must be a number above 0, got {percent!r}")
            axis = "vertical" if direction in ("up", "down") else "horizontal"
            forward = direction in ("down", "right")  # the content's offset grows
            left = float(percent)
            while left > 0:
                x1, y1, x2, y2 = _swipe_ends(area, _REVERSE[direction], min(left, 1.0))
                before = _scroll_position(d, x1, y1, axis)
                _press(s, [_line(x1, y1, x2, y2, speed, hold=0.25 if kind == "scroll" else 0.0)])
                if before is None:
                    return False
                offset, most = d.scroll_offsets.get(before[0], 0), before[2]
                if offset == before[1] or (offset >= most if forward else offset <= 0):
                    return False
                left -= 1.0
        return True
    return handler


def _pinch(opening: bool) -> Callable:
    """`pinch_open` and `pinch_close`: two fingers on the area's horizontal middle line, moving apart from near its
    centre to `percent` of its half-width out (open), or in from there to near the centre (close), together."""
    def handler(s: UiAutomator2Server, p: dict, body: dict) -> Any:
        d = s.device
        with d.lock:
            l, t, r, b = _gesture_area(s, body)
            percent = body.get("percent")
            if isinstance(percent, bool) or not isinstance(percent, (int, float)) or not 0 <= percent <= 1:
                raise W3CError("invalid argument", f"'percent' must be between 0 and 1, got {percent!r}")
            speed = _speed(body, _PINCH_SPEED)
            cx, cy, half = (l + r) / 2, (t + b) / 2, (r - l) / 2
            near, far = max(2.0, half * (1 - percent)), max(2.0, half)
            inner, outer = (near, far) if percent else (far, far)
            start, end = (inner, outer) if opening else (outer, inner)
            a = _line(cx - start, cy, cx - end, cy, speed)
            b2 = _line(cx + start, cy, cx + end, cy, speed)
            events: list[w3c_actions.Event] = []
            for pointer, stroke in ((0, a), (1, b2)):
                for i, (dt, x, y) in enumerate(stroke):
                    events.append(w3c_actions.Event(dt, 0, "down" if i == 0 else "move", pointer, x, y))
                events.append(w3c_actions.Event(stroke[-1][0], 0, "up", pointer, stroke[-1][1], stroke[-1][2]))
            # Both fingers land before either moves, and lift after both moved: in time order, downs first.
            order = {"down": 0, "move": 1, "up": 2}
            events.sort(key=lambda e: (e.t, order[e.kind], e.pointer))
            events = [w3c_actions.Event(e.t, i, e.kind, e.pointer, e.x, e.y) for i, e in enumerate(events)]
            w3c_actions.perform(d, events, events[-1].t)
        return None
    return handler


def _keycode(body: dict) -> int:
    code = body.get("keycode")
    if isinstance(code, bool) or not isinstance(code, int):
        raise W3CError("invalid argument", f"'keycode' must be an integer, got {code!r}")
    return code


def _press_keycode(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    d = s.device
    with d.lock:
        code = _keycode(body)
        spend(d, d.pace.tap)
        d.key(code)
    return None


def _long_press_keycode(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    d = s.device
    with d.lock:
        code = _keycode(body)
        spend(d, d.pace.tap)
        d.key(code, longpress=True)
    return None


def _back(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    d = s.device
    with d.lock:
        spend(d, d.pace.tap)
        d.key(4)
    return None


def _get_settings(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    return dict(s.settings)


def _update_settings(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    settings = body.get("settings")
    if not isinstance(settings, dict):
        raise W3CError("invalid argument", "'settings' must be an object of setting names and values")
    for name, value in settings.items():
        if name not in DEFAULT_SETTINGS:
            raise W3CError("invalid argument", f"Unsupported setting '{name}'")
        default = DEFAULT_SETTINGS[name]
        if isinstance(default, bool) and not isinstance(value, bool):
            raise W3CError("invalid argument", f"The setting '{name}' takes true or false, got {value!r}")
        if isinstance(default, int) and not isinstance(default, bool) and (
                isinstance(value, bool) or not isinstance(value, (int, float))):
            raise W3CError("invalid argument", f"The setting '{name}' takes a number, got {value!r}")
        s.settings[name] = int(value) if isinstance(default, int) and not isinstance(default, bool) else value
    return dict(s.settings)


def _top_dialog(s: UiAutomator2Server):
    d = s.device
    frame = d.frame()
    top = frame.top
    if top.kind != "dialog" or top.dialog is None or top.activity is None:
        raise W3CError("no such alert", "An attempt was made to operate on a modal dialog when one was not open.")
    return top.activity, top.dialog


def _alert_text(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    with s.device.lock:
        _, dialog = _top_dialog(s)
        return dialog.message or dialog.title


def _alert_answer(accept: bool) -> Callable:
    def handler(s: UiAutomator2Server, p: dict, body: dict) -> Any:
        d = s.device
        with d.lock:
            rec, dialog = _top_dialog(s)
            wanted = body.get("buttonLabel")
            roles = ("positive",) if accept else ("negative", "neutral")
            for i, (caption, role, _) in enumerate(dialog.buttons):
                if (wanted and caption.lower() == str(wanted).lower()) or (not wanted and role in roles):
                    spend(d, d.pace.tap)
                    d.press_dialog_button(rec, dialog, i)
                    return None
            if not accept and dialog.cancelable:
                d.key_back()
                return None
            raise W3CError("invalid element state", f"The alert has no button to {'accept' if accept else 'dismiss'} "
                                                    f"it with")
    return handler


def _set_alert_text(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    with s.device.lock:
        _top_dialog(s)
    raise W3CError("element not interactable", "The alert has no text field to type into")


def _orientation(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    with s.device.lock:
        return "LANDSCAPE" if s.device.rotation % 2 else "PORTRAIT"


def _set_orientation(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    wanted = str(body.get("orientation", "")).upper()
    if wanted not in ("PORTRAIT", "LANDSCAPE"):
        raise W3CError("invalid argument", f"'orientation' must be PORTRAIT or LANDSCAPE, got {wanted!r}")
    d = s.device
    with d.lock:
        system = d.settings("system")
        system["accelerometer_rotation"] = "0"  # UiDevice.setOrientation… freezes the rotation where it puts it
        system["user_rotation"] = "1" if wanted == "LANDSCAPE" else "0"
        got = "LANDSCAPE" if d.rotation % 2 else "PORTRAIT"
    if got != wanted:
        raise W3CError("invalid element state", f"The activity in front keeps the screen {got.lower()}")
    return got


def _rotation(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    with s.device.lock:
        return {"x": 0, "y": 0, "z": s.device.rotation * 90}


def _device_info(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    d = s.device
    with d.lock:
        props = d.props
        secure = d.settings("secure")
        screen = d.display
        return {"androidId": secure.get("android_id", ""), "manufacturer": props.get("ro.product.manufacturer", ""),
                "model": props.get("ro.product.model", ""), "brand": props.get("ro.product.brand", ""),
                "apiVersion": props.get("ro.build.version.sdk", "35"),
                "platformVersion": props.get("ro.build.version.release", "15"),
                "carrierName": "T-Mobile", "realDisplaySize": f"{screen.width}x{screen.height}",
                "displayDensity": 420, "networks": [], "locale": "en_US",
                "timeZone": props.get("persist.sys.timezone", "UTC"), "bluetooth": {"state": "OFF"}}


def _pixel_ratio(s, p, body):
    return 2.625  # 420 dpi / 160


def _display_density(s, p, body):
    return 420


def _system_bars(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    with s.device.lock:
        screen = s.device.display
    return {"statusBar": screen.status_bottom, "navigationBar": screen.height - screen.nav_top}


def _battery(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    d = s.device
    with d.lock:
        return {"level": d.battery_level / 100, "state": d.battery_status_now()}


def _set_clipboard(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    content = body.get("content")
    if not isinstance(content, str):
        raise W3CError("invalid argument", "'content' must be a base64 string")
    try:
        text = base64.b64decode(content, validate=True).decode("utf-8")
    except (binascii.Error, UnicodeDecodeError):
        raise W3CError("invalid argument", "'content' is not base64 of UTF-8 text") from None
    with s.device.lock:
        s.device.clipboard = text
    return None


def _get_clipboard(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    with s.device.lock:
        return base64.b64encode(s.device.clipboard.encode()).decode()


def _open_notifications(s: UiAutomator2Server, p: dict, body: dict) -> Any:
    with s.device.lock:
        s.device.shade_expanded = True
    return None


def _nothing(s, p, body):
    return None


def _routes() -> list[tuple[str, list[str], Callable]]:
    se = "session/:sessionId"
    el = f"{se}/element/:id"
    table = [
        ("GET", "status", _status),
        ("POST", "session", _new_session),
        ("GET", "sessions", _sessions),
        ("GET", se, _session_details),
        ("DELETE", se, _delete_session),
        ("GET", f"{se}/source", _source),
        ("GET", f"{se}/screenshot", _screenshot),
        ("GET", f"{se}/window/current/size", _window_size),
        ("GET", f"{se}/window/:handle/size", _window_size),
        ("GET", f"{se}/window/rect", _window_rect),
        ("POST", f"{se}/element", _find_one),
        ("POST", f"{se}/elements", _find_many),
        ("GET", f"{se}/element/active", _active),
        ("POST", f"{el}/element", _find_one),
        ("POST", f"{el}/elements", _find_many),
        ("POST", f"{el}/click", _click),
        ("POST", f"{el}/value", _value),
        ("POST", f"{el}/clear", _clear),
        ("POST", f"{se}/keys", _value),
        ("GET", f"{el}/text", _text),
        ("GET", f"{el}/name", _name),
        ("GET", f"{el}/attribute/:name", _attribute),
        ("GET", f"{el}/rect", _rect),
        ("GET", f"{el}/location", _location),
        ("GET", f"{el}/size", _size),
        ("GET", f"{el}/displayed", _boolean("displayed")),
        ("GET", f"{el}/enabled", _boolean("enabled")),
        ("GET", f"{el}/selected", _boolean("selected")),
        ("GET", f"{el}/screenshot", _element_screenshot),
        ("POST", f"{se}/actions", _actions),
        ("DELETE", f"{se}/actions", _release_actions),
        ("POST", f"{se}/appium/gestures/click", _gesture("click")),
        ("POST", f"{se}/appium/gestures/double_click", _gesture("double_click")),
        ("POST", f"{se}/appium/gestures/long_click", _gesture("long_click")),
        ("POST", f"{se}/appium/gestures/swipe", _gesture("swipe")),
        ("POST", f"{se}/appium/gestures/drag", _gesture("drag")),
        ("POST", f"{se}/appium/gestures/scroll", _scrolls("scroll")),
        ("POST", f"{se}/appium/gestures/fling", _scrolls("fling")),
        ("POST", f"{se}/appium/gestures/pinch_open", _pinch(True)),
        ("POST", f"{se}/appium/gestures/pinch_close", _pinch(False)),
        ("POST", f"{se}/gestures/scroll_to", _scroll_to),
        ("POST", f"{se}/appium/element/:id/scroll_to/:id2", _scroll_to_element),
        ("GET", f"{se}/appium/element/:id/first_visible", _first_visible),
        ("POST", f"{se}/back", _back),
        ("POST", f"{se}/appium/device/press_keycode", _press_keycode),
        ("POST", f"{se}/appium/device/long_press_keycode", _long_press_keycode),
        ("GET", f"{se}/appium/settings", _get_settings),
        ("POST", f"{se}/appium/settings", _update_settings),
        ("GET", f"{se}/alert/text", _alert_text),
        ("POST", f"{se}/alert/text", _set_alert_text),
        ("POST", f"{se}/alert/accept", _alert_answer(True)),
        ("POST", f"{se}/alert/dismiss", _alert_answer(False)),
        ("GET", f"{se}/orientation", _orientation),
        ("POST", f"{se}/orientation", _set_orientation),
        ("GET", f"{se}/rotation", _rotation),
        ("GET", f"{se}/appium/device/info", _device_info),
        ("GET", f"{se}/appium/device/pixel_ratio", _pixel_ratio),
        ("GET", f"{se}/appium/device/display_density", _display_density),
        ("GET", f"{se}/appium/device/system_bars", _system_bars),
        ("GET", f"{se}/appium/device/battery_info", _battery),
        ("POST", f"{se}/appium/device/set_clipboard", _set_clipboard),
        ("POST", f"{se}/appium/device/get_clipboard", _get_clipboard),
        ("POST", f"{se}/appium/device/open_notifications", _open_notifications),
        ("POST", f"{se}/appium/reset_ax_cache", _nothing),
    ]
    return [(m, path.split("/"), h) for m, path, h in table]


class _Handler(BaseHTTPRequestHandler):
    """HTTP/1.1 with keep-alive on one accepted socket; `server` is the UiAutomator2Server."""

    protocol_version = "HTTP/1.1"
    server_version = "UiAutomator2Server/" + SERVER_VERSION
    sys_version = ""

    def setup(self) -> None:
        self.connection = self.request
        self.rfile = self.connection.makefile("rb", -1)
        self.wfile = self.connection.makefile("wb", 0)

    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - BaseHTTPRequestHandler's signature
        return

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        status, payload = self.server.dispatch(self.command, self.path, body)
        data = json.dumps(payload, ensure_ascii=False).encode("utf-8")
        self.send_response(status)
        self.send_header("Content-Type", "application/json; charset=utf-8")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_DELETE = _answer
