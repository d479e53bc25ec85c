"""The Gestures hub and its witnesses that are native views: Tap and Press, Drag, Flick and Pan; and the three
that are WebViews (Double Tap, Pinch and Spread, Rotate). Each reports the gesture it saw in the app's own words,
from the touch stream's own timestamps, so a tool's holds and speeds can be read back."""

from __future__ import annotations

import math

from ...views import DP, Node
from ..touch_pages import PinchPage, RotatePage
from ..web import DoubleTapPage, webview
from .screen import Screen
from .ui import Theme, back_btn, btn, h1, page, text

GESTURES = [
    ("tappress", "tappressBtn", "Tap and Press"),
    ("doubletap", "doubletapBtn", "Double Tap"),
    ("drag", "dragBtn", "Drag"),
    ("flick", "flickBtn", "Flick and Pan"),
    ("pinch", "pinchBtn", "Pinch and Spread"),
    ("rotate", "rotateBtn", "Rotate"),
    ("multitouch", "multitouchBtn", "Multi-Touch"),
]


class GestureHub(Screen):
    key = "gesturehub"

    def render(self, t: Theme) -> Node:
        return page(t, [
            back_btn(t, self.app), h1(t, "Gestures"),
            *[btn(t, id, label, (lambda key=key: self.app.go(key))) for key, id, label in GESTURES],
        ], id="gestureList")


class TapPress(Screen):
    """A Pressable with `delayLongPress={500}`: a hold of 500 ms or more is a long press (and no press after it).
    Android's press event carries no tapCount, so the app shows -1 there, always."""

    key = "tappress"
    parent = "gesturehub"

    def __init__(self, app):
        super().__init__(app)
        self.last = "nothing yet"
        self.count = 0
        self.gap_ms = -1
        self._last_tap: float | None = None

    def tap(self) -> None:
        now = self.device.now()
        self.gap_ms = -1 if self._last_tap is None else int(round((now - self._last_tap) * 1000))
        self._last_tap = now
        self.last = "tap"
        self.count += 1

    def long_press(self) -> None:
        self.last = "long press"
        self.count += 1

    def render(self, t: Theme) -> Node:
        return page(t, [
            back_btn(t, self.app), h1(t, "Tap and Press"),
            Node("android.widget.Button", id="pressTarget", desc="Press target", height=160, margin_bottom=14,
                 on_tap=self.tap, on_long_press=self.long_press, bg="#3552FD",
                 children=[Node("android.widget.TextView", text="Press and hold me", height=160, fg="#ffffff")]),
            text(t, f"last: {self.last}", "lastGesture"),
            text(t, f"gestures: {self.count}", "gestureCount"),
            text(t, f"gap: {self.gap_ms}ms tapCount: -1", "tapGap"),
        ])


class Drag(Screen):
    """DragTarget: a PanResponder on the red card. A move counts when the finger is more than 2 dp from where it
    landed and more than 1 dp from the last counted move; the holds are measured from the events' own times; the
    drop is judged on the release's y alone, against the zone's measured top and bottom."""

    key = "drag"
    parent = "gesturehub"

    def __init__(self, app):
        super().__init__(app)
        self.info = "no drag yet"
        self._grant = None  # the touch that granted the responder
        self._first_move: float | None = None
        self._last_move: tuple[float, float, float] | None = None
        self._moves = 0

    def on_touch(self, e) -> None:
        if e.pointer != 0 and e.kind != "cancel":
            return
        if e.kind == "down":
            self._grant, self._first_move, self._last_move, self._moves = e, None, None, 0
            return
        grant = self._grant
        if grant is None:
            return
        dx, dy = (e.x - grant.x) / DP, (e.y - grant.y) / DP
        if e.kind == "move":
            since = self._last_move or (grant.x, grant.y, grant.t)
            if math.hypot(dx, dy) > 2 and math.hypot((e.x - since[0]) / DP, (e.y - since[1]) / DP) > 1:
                self._moves += 1
                if self._first_move is None:
                    self._first_move = e.t
                self._last_move = (e.x, e.y, e.t)
            return
        self._grant = None
        moved = self._last_move is not None
        hold_before = round((self._first_move - grant.t) * 1000) if moved else -1
        hold_after = round((e.t - self._last_move[2]) * 1000) if moved else -1
        dropped = self._zone_holds(e.y) and e.kind == "up"
        self.info = (f"holdBefore {hold_before} moves {self._moves} travel {round(math.hypot(dx, dy))} "
                     f"holdAfter {hold_after} dropped {'yes' if dropped else 'no'}")

    def _zone_holds(self, y: float) -> bool:
        root = self.device.frame().app_window.root
        zone = root.find("dropZone") if root is not None else None
        return zone is not None and zone.box[1] <= y <= zone.box[3]

    def render(self, t: Theme) -> Node:
        return page(t, [
            back_btn(t, self.app), h1(t, "Drag"),
            Node("android.view.ViewGroup", id="dragSource", desc="Drag source", clickable=True, focusable=True,
                 height=120, margin_bottom=14, bg="#b4443a", on_touch=self.on_touch,
                 children=[Node("android.widget.TextView", text="Drag me", height=120, fg="#ffffff",
                                touch="pass")]),
            Node("android.view.ViewGroup", id="dropZone", desc="Drop zone", clickable=True, focusable=True,
                 height=120, margin_bottom=14, bg="#3a5cb4",
                 children=[Node("android.widget.TextView", text="Drop here", height=120, fg="#ffffff",
                                touch="pass")]),
            text(t, f"drag: {self.info}", "lastDrag"),
        ])


FLICK_ROWS = 120
ROW_DP = 49  # padding 14 above and below a 16 pt line, plus the 1 px rule
TOUCH_SLOP_DP = 8
MIN_FLING_DP_S = 50
VELOCITY_WINDOW_S = 0.1
PAN_TIMER_S = 0.4
FLICK_DP = 20


def coast_dp(velocity: float) -> float:
    """How far a release at `velocity` dp/s coasts, fitted to the app's own measurements on a Pixel 7 AVD
    (swipes of 120, 300, 600, 1000 and 2500 ms coasted about 1560, 246, 52, 30 and 6 dp)."""
    v = abs(velocity)
    return 0.0 if v < MIN_FLING_DP_S else 2.05e-4 * v * v + 0.02 * v


class Flick(Screen):
    """FlickScreen: a ScrollView of 120 rows that reports each lift and whether the list then coasted (a flick,
    20 dp or more) or barely moved (a pan). Android begins momentum on every release; it ends after the coast."""

    key = "flick"
    parent = "gesturehub"

    def __init__(self, app):
        super().__init__(app)
        self.result = "nothing yet"
        self.lifts = 0
        self._down = None  # the touch that began the drag
        self._dragging = False
        self._start_offset = 0
        self._samples: list[tuple[float, float]] = []
        self._coast = None
        self._pan_timer = None
        self._coasting = False

    @property
    def _offset(self) -> int:
        return self.device.scroll_offsets.get("flickList", 0)

    def _set_offset(self, value: float, viewport_px: int) -> None:
        content = round(FLICK_ROWS * ROW_DP * DP)
        self.device.scroll_offsets["flickList"] = int(min(max(0, content - viewport_px), max(0, value)))

    def on_touch(self, e) -> None:
        if e.pointer != 0:
            return
        viewport = e.box[3] - e.box[1] - 2
        if e.kind == "down":
            if self._coast is not None:  # a finger on a coasting list stops it where it is
                self._coast.cancel()
                self._coast = None
            self._down, self._dragging, self._start_offset = e, False, self._offset
            self._samples = [(e.t, e.y)]
            return
        down = self._down
        if down is None:
            return
        self._samples.append((e.t, e.y))
        if not self._dragging and abs(e.y - down.y) / DP > TOUCH_SLOP_DP:
            self._dragging = True  # onScrollBeginDrag
            if self._pan_timer is not None:
                self._pan_timer.cancel()
            self._coasting = False
        if self._dragging:
            self._set_offset(self._start_offset - (e.y - down.y), viewport)
        if e.kind in ("up", "cancel"):
            self._down = None
            if self._dragging:
                self._lift(e, viewport)

    def _velocity(self, t_end: float) -> float:
        recent = [s for s in self._samples if s[0] >= t_end - VELOCITY_WINDOW_S]
        if len(recent) < 2 or recent[-1][0] - recent[0][0] <= 0:
            return 0.0
        return -(recent[-1][1] - recent[0][1]) / DP / (recent[-1][0] - recent[0][0])

    def _lift(self, e, viewport: int) -> None:
        lift_offset = self._offset
        self.lifts += 1  # onScrollEndDrag

        def pan_if_still():
            if not self._coasting:
                self.result = "pan, coasted 0"

        self._pan_timer = self.after(PAN_TIMER_S, pan_if_still)
        velocity = self._velocity(e.t)
        distance = coast_dp(velocity) * (1 if velocity >= 0 else -1)
        self._coasting = True  # onMomentumScrollBegin

        def end():
            self._coast = None
            self._set_offset(lift_offset + distance * DP, viewport)
            if self._coasting:
                travel = round(abs(self._offset - lift_offset) / DP)
                self.result = f"{'flick' if travel >= FLICK_DP else 'pan'}, coasted {travel}"

        self._coast = self.after(min(2.5, 0.25 + abs(distance) / 1500), end)

    def render(self, t: Theme) -> Node:
        rows = [Node("android.widget.TextView", text=f"Row {i}", height=ROW_DP, fg=t.ink, touch="pass")
                for i in range(1, FLICK_ROWS + 1)]
        return Node("android.view.ViewGroup", padding=20, bg=t.ground, children=[
            back_btn(t, self.app), h1(t, "Flick and Pan"),
            text(t, f"scroll: {self.result}", "flickResult"),
            text(t, f"lifts: {self.lifts}", "flickCount"),
            Node("android.widget.ScrollView", id="flickList", desc="Flick list", scroll="vertical",
                 on_touch=self.on_touch, focusable=True,
                 children=[Node("android.view.ViewGroup", children=rows)]),
        ])


class GestureWeb(Screen):
    """A gesture case shown in a WebView (Double Tap, Pinch and Spread, Rotate): Back above, the page below."""

    parent = "gesturehub"
    webview_id = ""

    def make_page(self):  # pragma: no cover - every case overrides it
        raise NotImplementedError

    def __init__(self, app):
        super().__init__(app)
        self.web = self.make_page()

    def web_pages(self) -> dict:
        return {self.webview_id: self.web}

    def render(self, t: Theme) -> Node:
        return Node("android.view.ViewGroup", bg=t.ground, children=[
            Node("android.view.ViewGroup", padding=20, children=[back_btn(t, self.app)]),
            self._webview(),
        ])

    def _webview(self) -> Node:
        view = webview(self.webview_id, self.web.nodes())
        view.on_touch = getattr(self.web, "on_touch", None)  # a page that reads fingers gets them all
        return view


class DoubleTap(GestureWeb):
    key = "doubletap"
    webview_id = "doubleTapWebview"

    def make_page(self):
        return DoubleTapPage(self.device.now)


class Pinch(GestureWeb):
    key = "pinch"
    webview_id = "pinchWebview"

    def make_page(self):
        return PinchPage()


class Rotate(GestureWeb):
    key = "rotate"
    webview_id = "rotateWebview"

    def make_page(self):
        return RotatePage()


GESTURE_SCREENS = [GestureHub, TapPress, Drag, Flick, DoubleTap, Pinch, Rotate]
