"""Screens no task uses: the gestures hub and its cases, Motion, Crash, Accessibility, Layout, Battery, Files and
Biometrics. Each opens with its heading and Back, and keeps the few lines that are cheap to keep faithful."""

from __future__ import annotations

from ...views import Node
from .app import Screen
from .ui import Theme, back_btn, btn, h1, note, page, text

GESTURES = [
    ("tappress", "tappressBtn", "Tap and Press", "Tap and Press"),
    ("doubletap", "doubletapBtn", "Double Tap", "Double Tap"),
    ("drag", "dragBtn", "Drag", "Drag"),
    ("flick", "flickBtn", "Flick and Pan", "Flick and Pan"),
    ("pinch", "pinchBtn", "Pinch and Spread", "Pinch and Spread"),
    ("rotate", "rotateBtn", "Rotate", "Rotate"),
    ("multitouch", "multitouchBtn", "Multi-Touch", "Multi-Touch"),
]


class GestureHub(Screen):
    key = "gesturehub"

    def render(self, t: Theme) -> Node:
        return page(t, [
            back_btn(t, self.app), h1(t, "Gestures"),
            *[btn(t, id, label, (lambda key=key: self.app.go(key))) for key, id, label, _ in GESTURES],
        ], id="gestureList")


class TapPress(Screen):
    key = "tappress"
    parent = "gesturehub"

    def __init__(self, app):
        super().__init__(app)
        self.last = "nothing yet"
        self.count = 0

    def _did(self, what: str):
        def did():
            self.last = what
            self.count += 1
        return did

    def render(self, t: Theme) -> Node:
        return page(t, [
            back_btn(t, self.app), h1(t, "Tap and Press"),
            Node("android.widget.Button", id="pressTarget", desc="Press target", height=120, margin_bottom=10,
                 on_tap=self._did("tap"), on_long_press=self._did("long press"), bg="#3552FD",
                 children=[Node("android.widget.TextView", text="Press and hold me", height=120, fg="#ffffff")]),
            text(t, f"last: {self.last}", "lastGesture"),
            text(t, f"gestures: {self.count}", "gestureCount"),
            text(t, "gap: -1ms tapCount: -1", "tapGap"),
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
        self.level = int(getattr(self.device, "battery_level", 100))
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
    GestureHub, TapPress, Crash, Layout, Files, Battery,
    placeholder("doubletap", "Double Tap", [], "gesturehub"),
    placeholder("drag", "Drag", [("lastDrag", "drag: no drag yet")], "gesturehub"),
    placeholder("flick", "Flick and Pan", [("flickResult", "scroll: nothing yet"), ("flickCount", "lifts: 0")],
                "gesturehub"),
    placeholder("pinch", "Pinch and Spread", [], "gesturehub"),
    placeholder("rotate", "Rotate", [], "gesturehub"),
    placeholder("multitouch", "Multi-Touch", [("multiResult", "multi: nothing yet")], "gesturehub"),
    placeholder("motion", "Motion", [("reduceMotion", "reduceMotion=false"),
                                     ("honoringResult", "Honoring: not tapped"),
                                     ("ignoringResult", "Ignoring: not tapped"),
                                     ("confettiState", "confetti: idle")]),
    placeholder("a11y", "", [("a11yState", "bold=? contrast=? grayscale=? invert=? motion=? transparency=? "
                                           "screenReader=? fontScale=1.00 changes=0")]),
    placeholder("biometrics", "Biometrics", [("bioHardware", "hardware: no"), ("bioEnrolled", "enrolled: no"),
                                             ("bioPending", "prompt: none")]),
]
