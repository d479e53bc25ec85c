"""Screens no task uses: the gestures hub and its cases, Motion, Crash, Accessibility, Layout, Battery, Files and
Biometrics. Each opens with its heading and Back, and keeps the few lines that are cheap to keep faithful."""

from __future__ import annotations

from ...views import Node
from ..web import DoubleTapPage, PinchPage, RotatePage, webview
from .screen import Screen
from .ui import Theme, back_btn, btn, h1, note, page, switch, text

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
    key = "tappress"
    parent = "gesturehub"

    def __init__(self, app):
        super().__init__(app)
        self.last = "nothing yet"
        self.count = 0
        self.taps = 0
        self.gap_ms = -1
        self._last_tap: float | None = None

    def tap(self) -> None:
        now = self.device.now()
        if self._last_tap is not None:
            self.gap_ms = int(round((now - self._last_tap) * 1000))
        self._last_tap = now
        self.taps += 1
        self.last = "tap"
        self.count += 1

    def long_press(self) -> None:
        self.last = "long press"
        self.count += 1

    def render(self, t: Theme) -> Node:
        return page(t, [
            back_btn(t, self.app), h1(t, "Tap and Press"),
            Node("android.widget.Button", id="pressTarget", desc="Press target", height=120, margin_bottom=10,
                 on_tap=self.tap, on_long_press=self.long_press, bg="#3552FD",
                 children=[Node("android.widget.TextView", text="Press and hold me", height=120, fg="#ffffff")]),
            text(t, f"last: {self.last}", "lastGesture"),
            text(t, f"gestures: {self.count}", "gestureCount"),
            text(t, f"gap: {self.gap_ms}ms tapCount: {self.taps if self.taps else -1}", "tapGap"),
        ])


class GestureWeb(Screen):
    """A gesture case shown in a WebView (Double Tap, Pinch and Spread, Rotate)."""

    parent = "gesturehub"
    heading = ""
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
            Node("android.view.ViewGroup", padding=12, children=[back_btn(t, self.app)]),
            webview(self.webview_id, self.web.nodes()),
        ])


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


SLIDE_S = 2.0


class Motion(Screen):
    """Two panels slide a target in over 2 s (margin-left 45% → 0); the honoring one stays put when the system
    asks for reduced motion (animator duration scale 0)."""

    key = "motion"

    def __init__(self, app):
        super().__init__(app)
        self.replayed = {"honoring": self.device.now(), "ignoring": self.device.now()}
        self.tapped: dict[str, int | None] = {"honoring": None, "ignoring": None}
        self.confetti = "idle"
        self.exposed = False

    @property
    def reduce_motion(self) -> bool:
        scales = self.device.settings("global")
        return any(scales.get(k) in ("0", "0.0") for k in ("animator_duration_scale",
                                                            "transition_animation_scale"))

    def _replay(self, panel: str):
        def replay():
            self.replayed[panel] = self.device.now()
            self.tapped[panel] = None
        return replay

    def _tap(self, panel: str):
        def tap():
            self.tapped[panel] = int(round((self.device.now() - self.replayed[panel]) * 1000))
        return tap

    def celebrate(self) -> None:
        if self.reduce_motion:
            self.confetti = "still: reduce motion  \U0001F389 Done"
            return
        self.confetti = "falling"
        self.after(12.0 if self.exposed else 3.0, lambda: setattr(self, "confetti", "done"))

    def _panel(self, t: Theme, panel: str, title: str) -> list[Node]:
        still = panel == "honoring" and self.reduce_motion
        progress = 1.0 if still else min(1.0, (self.device.now() - self.replayed[panel]) / SLIDE_S)
        left = 0.45 * (1.0 - progress)
        result = self.tapped[panel]
        return [
            btn(t, f"{panel}Replay", f"Replay {title}", self._replay(panel)),
            Node("android.view.ViewGroup", horizontal=True, height=61, children=[
                Node("android.view.View", width=max(1, int(371 * left)), height=51, touch="pass"),
                Node("android.view.ViewGroup", children=[btn(t, f"{panel}Target", f"{title} target",
                                                             self._tap(panel))]),
            ]),
            text(t, f"{title}: " + ("not tapped" if result is None else f"tapped {result}ms after replay"),
                 f"{panel}Result"),
        ]

    def render(self, t: Theme) -> Node:
        return page(t, [
            back_btn(t, self.app), h1(t, "Motion"),
            text(t, f"reduceMotion={str(self.reduce_motion).lower()}", "reduceMotion"),
            *self._panel(t, "honoring", "Honoring"),
            *self._panel(t, "ignoring", "Ignoring"),
            btn(t, "celebrateBtn", "Celebrate \U0001F389", self.celebrate),
            switch(t, "confettiExposed", "Pieces visible to automation", "Pieces visible to automation",
                   self.exposed, lambda: setattr(self, "exposed", not self.exposed)),
            text(t, f"confetti: {self.confetti}", "confettiState"),
        ])


class Accessibility(Screen):
    """The system's accessibility settings as RN's AccessibilityInfo reads them on Android."""

    key = "a11y"

    def __init__(self, app):
        super().__init__(app)
        self.values: dict = {}
        self.font_scale = 1.0
        self.changes = 0
        self.refresh()

    def refresh(self) -> None:
        secure, system, glob = (self.device.settings(ns) for ns in ("secure", "system", "global"))
        values = {
            "bold": secure.get("font_weight_adjustment", "0") not in ("0", ""),
            "contrast": secure.get("high_text_contrast_enabled") == "1",
            "grayscale": False,  # iOS only
            "invert": secure.get("accessibility_display_inversion_enabled") == "1",
            "motion": glob.get("animator_duration_scale") in ("0", "0.0"),
            "transparency": False,  # iOS only
            "screenReader": secure.get("touch_exploration_enabled") == "1",
        }
        font_scale = float(system.get("font_scale", "1.0") or 1.0)
        if self.values:  # a change after the first read, as the change listeners count them
            self.changes += sum(values[k] != self.values[k] for k in values)
            self.changes += font_scale != self.font_scale
        self.values, self.font_scale = values, font_scale

    def render(self, t: Theme) -> Node:
        flags = " ".join(f"{k}={str(v).lower()}" for k, v in self.values.items())
        return page(t, [
            back_btn(t, self.app),
            text(t, f"{flags} fontScale={self.font_scale:.2f} changes={self.changes}", "a11yState"),
            btn(t, "a11yRefresh", "Refresh", self.refresh),
            text(t, "A sample line of text at the system's font size.", "a11ySample"),
        ])


def placeholder(key: str, heading: str, lines: list[tuple[str, str]], parent: str = "home",
                notice: str = "") -> type[Screen]:
    """A screen that shows its heading, Back and its initial lines."""

    class Placeholder(Screen):
        def render(self, t: Theme) -> Node:
            return page(t, [
                back_btn(t, self.app), h1(t, heading) if heading else None,
                *[text(t, value, id) for id, value in lines],
                note(t, notice) if notice else None,
            ])

    Placeholder.key = key
    Placeholder.parent = parent
    Placeholder.__name__ = Placeholder.__qualname__ = "".join(w.title() for w in key.split("_")) + "Screen"
    return Placeholder


class Crash(Screen):
    key = "crash"

    def __init__(self, app):
        super().__init__(app)
        self.logged = 0

    def log_line(self) -> None:
        self.logged += 1
        self.device.log("ReactNativeJS", f"mobium-log-control #{self.logged}", level="E")

    def crash(self) -> None:
        self.device.log("ReactNativeJS", "mobium-crash-control: throwing now", level="E")
        self.app.crash("mobium-crash-control: an unhandled JavaScript error")

    def render(self, t: Theme) -> Node:
        return page(t, [
            back_btn(t, self.app), h1(t, "Crash"),
            btn(t, "logLineBtn", "Log a line", self.log_line),
            text(t, f"logged: {self.logged}", "loggedCount"),
            btn(t, "crashJsBtn", "Crash with a JavaScript error", self.crash),
        ])


class Layout(Screen):
    key = "layout"

    def __init__(self, app):
        super().__init__(app)
        self.last = "nothing yet"

    def render(self, t: Theme) -> Node:
        def hit(what):
            return lambda: setattr(self, "last", what)

        return page(t, [
            back_btn(t, self.app), h1(t, "Layout"),
            Node("android.widget.Button", id="tinyTarget", desc="Tiny target", width=24, height=24, margin_bottom=10,
                 on_tap=hit("tiny"), bg="#3552FD"),
            Node("android.widget.Button", id="narrowTarget", desc="Narrow target", width=411 / 8, height=60,
                 margin_bottom=10, on_tap=hit("narrow"), bg="#3552FD"),
            text(t, f"window 411dp, narrow target {411 / 8:.0f}dp", "layoutWidth"),
            text(t, f"last: {self.last}", "layoutLast"),
        ])


class Files(Screen):
    key = "files"
    REPORT = "mobium-report.txt"

    def __init__(self, app):
        super().__init__(app)
        self.saved_count = 0
        self.saved: str | None = None

    def download(self) -> None:
        # The Downloads module writes through MediaStore into shared storage: Download/<name>, replacing the last.
        self.saved_count += 1
        body = f"MobiumApp report {self.saved_count}\nSaved by the Files Demo.\n".encode()
        self.device.files[f"/sdcard/Download/{self.REPORT}"] = body
        first = body.decode().split("\n", 1)[0]
        self.saved = f"saved: Download/{self.REPORT} ({len(body)} bytes) \u2014 {first}"

    def render(self, t: Theme) -> Node:
        return page(t, [
            back_btn(t, self.app), h1(t, "Files"),
            btn(t, "saveReportBtn", "Download the report", self.download),
            self.saved and text(t, self.saved, "savedFile"),
        ])


class Battery(Screen):
    key = "battery"

    def __init__(self, app):
        super().__init__(app)
        self.reads = 0
        self._read()
        self.every(1.0, self._read)  # the screen polls the battery every second

    def _read(self) -> None:
        self.reads += 1
        self.level = int(self.device.battery_level)
        self.state = "full" if self.level >= 100 else "charging"  # the emulator is always on AC power
        self.low_power = self.device.settings("global").get("low_power") == "1"

    def render(self, t: Theme) -> Node:
        return page(t, [
            back_btn(t, self.app), h1(t, "Battery"),
            Node("android.view.View", id="batteryGauge", desc=f"Battery {self.level} percent, {self.state}",
                 height=40, margin_bottom=8, bg="#3552FD"),
            text(t, f"level: {self.level}%", "batteryLevel"),
            text(t, f"raw: {self.level / 100:.2f}", "batteryRaw"),
            text(t, f"state: {self.state}", "batteryState"),
            text(t, f"low power mode: {'on' if self.low_power else 'off'}", "batteryLowPower"),
            text(t, f"reads: {self.reads}", "batteryReads"),
        ])


OTHER_SCREENS = [
    GestureHub, TapPress, DoubleTap, Pinch, Rotate, Motion, Accessibility, Crash, Layout, Files, Battery,
    placeholder("drag", "Drag", [("lastDrag", "drag: no drag yet")], "gesturehub"),
    placeholder("flick", "Flick and Pan", [("flickResult", "scroll: nothing yet"), ("flickCount", "lifts: 0")],
                "gesturehub"),
    placeholder("multitouch", "Multi-Touch", [("multiResult", "multi: nothing yet")], "gesturehub"),
    placeholder("biometrics", "Biometrics", [("bioHardware", "hardware: no"), ("bioEnrolled", "enrolled: no"),
                                             ("bioPending", "prompt: none")]),
]
