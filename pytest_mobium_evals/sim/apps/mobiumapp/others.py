"""Crash, Accessibility, Layout, Files, Battery and Biometrics."""

from __future__ import annotations

from ...views import Node
from .screen import Screen
from .ui import Theme, back_btn, btn, h1, note, page, text


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


OTHER_SCREENS = [
    Accessibility, Crash, Layout, Files,
    placeholder("multitouch", "Multi-Touch", [("multiResult", "multi: nothing yet")], "gesturehub"),
    placeholder("biometrics", "Biometrics", [("bioHardware", "hardware: no"), ("bioEnrolled", "enrolled: no"),
                                             ("bioPending", "prompt: none")]),
]
