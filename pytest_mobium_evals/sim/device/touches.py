"""Touch streams on the virtual device: pointers going down, moving and lifting over time, as the input
dispatcher hands them to the view under the first finger.

A view with `on_touch` (a PanResponder, a ScrollView that tells a fling from a pan, a WebView's touch events)
receives every event of a gesture that began on it, each stamped with the device clock, and decides for itself
what the gesture was. A gesture that begins anywhere else falls back to what the device makes of the whole stroke
at the lift: a tap, a long press, or a swipe that scrolls (`DeviceInput.swipe`).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from .. import views
from ..views import Placed


@dataclass
class Touch:
    """One motion event as the view under the gesture sees it: positions in px, the time in device seconds."""

    kind: str  # "down" (a finger lands), "move", "up" (a finger lifts), "cancel"
    pointer: int  # the finger that changed
    x: float
    y: float
    t: float
    pointers: dict[int, tuple[float, float]] = field(default_factory=dict)  # every finger down, after this event
    box: tuple[int, int, int, int] = (0, 0, 0, 0)  # the receiving view's bounds on screen


class Gesture:
    """The fingers of one gesture and where it goes: a view's `on_touch`, or (None) the device's own reading."""

    def __init__(self, target: Placed | None, package: str, x: float, y: float, t: float):
        self.target = target
        self.package = package
        self.start = (x, y, t)
        self.pointers: dict[int, tuple[float, float]] = {}


class DeviceTouches:
    """Mixed into `VirtualDevice`: `pointer_down/move/up` are what `input motionevent` and `input swipe` send."""

    _gesture: Gesture | None = None

    def _touch_target(self, x: float, y: float) -> tuple[Placed | None, str]:
        """The view that takes a stream starting at (x, y), if the top window is the app's and the view reads
        raw touches; (None, package) otherwise."""
        frame = self.frame()
        top = frame.top
        if top.kind != "app" or top.root is None or top.activity is None:
            return None, ""
        screen = frame.display
        if not (0 <= x < screen.width and screen.status_bottom <= y < screen.nav_top):
            return None, ""
        hit = views.hit_test(top.root, int(x), int(y))
        if hit is None or hit.node.on_touch is None or not hit.node.enabled:
            return None, top.activity.package.name
        return hit, top.activity.package.name

    def _deliver(self, gesture: Gesture, kind: str, pointer: int, x: float, y: float,
                 t: float | None = None) -> None:
        if gesture.target is None:
            return
        box = gesture.target.bounds or gesture.target.box
        event = Touch(kind, pointer, x, y, self.now() if t is None else t, dict(gesture.pointers), tuple(box))
        self._call(gesture.package, gesture.target.node.on_touch, event)

    def pointer_down(self, x: float, y: float, pointer: int = 0, t: float | None = None) -> None:
        with self.lock:
            if not self.screen_on:
                return
            gesture = self._gesture
            if gesture is None:
                target, package = self._touch_target(x, y)
                gesture = self._gesture = Gesture(target, package, x, y, self.now() if t is None else t)
            gesture.pointers[pointer] = (x, y)
            self._deliver(gesture, "down", pointer, x, y, t)

    def pointer_move(self, x: float, y: float, pointer: int = 0, t: float | None = None) -> None:
        with self.lock:
            gesture = self._gesture
            if gesture is None or pointer not in gesture.pointers:
                return  # a move with no finger down is dropped by the dispatcher
            gesture.pointers[pointer] = (x, y)
            self._deliver(gesture, "move", pointer, x, y, t)

    def pointer_up(self, x: float, y: float, pointer: int = 0, t: float | None = None) -> None:
        with self.lock:
            gesture = self._gesture
            if gesture is None or pointer not in gesture.pointers:
                return
            del gesture.pointers[pointer]
            self._deliver(gesture, "up", pointer, x, y, t)
            if gesture.pointers:
                return
            self._gesture = None
            if gesture.target is None:
                x0, y0, t0 = gesture.start
                held_ms = int(round(((self.now() if t is None else t) - t0) * 1000))
                self.swipe(int(x0), int(y0), int(x), int(y), duration_ms=held_ms)

    def pointer_cancel(self) -> None:
        with self.lock:
            gesture, self._gesture = self._gesture, None
            if gesture is not None:
                for pointer, (x, y) in list(gesture.pointers.items()):
                    gesture.pointers.pop(pointer)
                    self._deliver(gesture, "cancel", pointer, x, y)

    def streams_at(self, x: float, y: float) -> bool:
        """Whether a stroke starting at (x, y) goes to a view that reads raw touches (`input swipe` then
        delivers it move by move over its duration rather than as one stroke)."""
        with self.lock:
            return self._touch_target(x, y)[0] is not None
