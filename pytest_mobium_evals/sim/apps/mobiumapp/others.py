"""Crash, Accessibility, Layout and Files."""

from __future__ import annotations

from ...views import Node
from .screen import Screen
from .ui import Theme, back_btn, btn, gap, h1, note, page, text

A11Y_LEAD = ("The accessibility settings this app is told about. Changes arrive as they happen; Refresh asks "
             "again.")
A11Y_SAMPLE = "A line of body text, to see the size and weight change."
# The flags RN's AccessibilityInfo answers on Android; bold, contrast and transparency have no Android query
# behind them and read false. Of the change events, Android delivers only these two live.
LIVE_ON_ANDROID = ("motion", "screenReader")


class Accessibility(Screen):
    """A11yScreen: the seven flags and the font scale, read on mount and on Refresh; change events set a flag and
    count it as they arrive (on Android only reduce motion and the screen reader send one). The font scale
    changes only on a read."""

    key = "a11y"

    def __init__(self, app):
        super().__init__(app)
        self.values = self.query()
        self.font_scale = self.read_font_scale()
        self.changes = 0

    def query(self) -> dict[str, bool]:
        secure, glob = self.device.settings("secure"), self.device.settings("global")
        return {
            "bold": False,
            "contrast": False,
            "grayscale": secure.get("accessibility_display_daltonizer_enabled") == "1"
            and secure.get("accessibility_display_daltonizer", "0") in ("0", ""),
            "invert": secure.get("accessibility_display_inversion_enabled") == "1",
            "motion": glob.get("transition_animation_scale") in ("0", "0.0"),  # what React Native reads
            "transparency": False,
            "screenReader": secure.get("touch_exploration_enabled") == "1",
        }

    def read_font_scale(self) -> float:
        try:
            return float(self.device.settings("system").get("font_scale") or 1.0)
        except ValueError:
            return 1.0

    def _events(self) -> None:
        now = self.query()
        for key in LIVE_ON_ANDROID:
            if now[key] != self.values[key]:
                self.values[key] = now[key]
                self.changes += 1

    def refresh(self) -> None:
        self.values = self.query()
        self.font_scale = self.read_font_scale()

    def render(self, t: Theme) -> Node:
        self._events()
        flags = " ".join(f"{k}={str(v).lower()}" for k, v in self.values.items())
        return Node("android.view.ViewGroup", bg=t.ground, children=[
            Node("android.view.ViewGroup", padding=20, children=[back_btn(t, self.app)]),
            page(t, [
                text(t, A11Y_LEAD, muted=True, size=21),
                text(t, f"{flags} fontScale={self.font_scale:.2f} changes={self.changes}", "a11yState"),
                btn(t, "a11yRefresh", "Refresh", self.refresh),
                text(t, A11Y_SAMPLE, "a11ySample", size=21),
            ]),
        ])


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
            note(t, "The app quits. Relaunch it to come back."),
        ])


LAYOUT_LEAD = ("Two targets sized to fail. The square one is too small at every screen size; the wide bar is an "
               "eighth of the screen across, and becomes too narrow to tap once the screen is under 384dp.")


class Layout(Screen):
    """LayoutScreen: a 24 dp square and a bar an eighth of the window wide (useWindowDimensions, in dp)."""

    key = "layout"

    def __init__(self, app):
        super().__init__(app)
        self.last = "nothing yet"

    def window_dp(self) -> float:
        overrides = self.device.display_overrides
        width, height = (int(v) for v in overrides.get("size", "1080x2400").split("x"))
        density = int(overrides.get("density", "420"))
        # `wm size` is the panel's; a quarter turn makes its long side the window's width.
        return (height if self.device.display.landscape else width) * 160 / density

    def render(self, t: Theme) -> Node:
        def hit(what):
            return lambda: setattr(self, "last", what)

        width = self.window_dp()
        narrow = round(width / 8)
        return page(t, [
            back_btn(t, self.app), h1(t, "Layout"),
            text(t, LAYOUT_LEAD, muted=True, size=21),
            Node("android.widget.Button", id="tinyTarget", desc="Tiny target", width=24, height=24, margin_bottom=14,
                 on_tap=hit("tiny"), bg="#3552FD"),
            gap(16),
            Node("android.widget.Button", id="narrowTarget", desc="Narrow target", width=narrow, height=60,
                 margin_bottom=14, on_tap=hit("narrow"), bg="#3552FD"),
            text(t, f"window {round(width)}dp, narrow target {narrow}dp", "layoutWidth"),
            text(t, f"last: {self.last}", "layoutLast"),
        ])


FILES_LEAD = ("Download saves a small report where this device keeps downloads \u2014 the Download folder on Android, "
              "this app's Documents on iOS. Upload opens the system file picker; pick a file, and the line under it "
              "says what arrived.")
PICKER = "com.google.android.documentsui/com.android.documentsui.picker.PickActivity"


class Files(Screen):
    """FilesScreen: a report saved through MediaStore into Download/ (the same name replaced, numbered per visit),
    and a file picked with the system picker, read back as its name, size and first line."""

    key = "files"
    REPORT = "mobium-report.txt"

    def __init__(self, app):
        super().__init__(app)
        self.saves = 0
        self.saved = "nothing yet"
        self.picked = "nothing yet"
        self.error: str | None = None

    def download(self) -> None:
        n = self.saves + 1
        body = f"MobiumApp report {n}\nSaved by the Files Demo.\n"
        self.device.files[f"/sdcard/Download/{self.REPORT}"] = body.encode()
        self.saves = n
        self.saved = f"Download/{self.REPORT} ({len(body)} bytes) \u2014 MobiumApp report {n}"
        self.error = None

    def pick(self) -> None:
        def picked(name: str, body: bytes) -> None:
            first = body.decode("utf-8", "replace").split("\n")[0][:80]
            self.picked = f"{name} ({len(body)} bytes) \u2014 {first}"
            self.error = None

        def canceled() -> None:
            self.picked = "canceled"

        self.device.start_activity(PICKER, {"on_pick": picked, "on_close": canceled})

    def render(self, t: Theme) -> Node:
        return page(t, [
            back_btn(t, self.app), h1(t, "Files"),
            text(t, FILES_LEAD, muted=True, size=21),
            btn(t, "saveReportBtn", "Download the report", self.download),
            text(t, f"saved: {self.saved}", "savedFile"),
            btn(t, "pickFileBtn", "Upload a file", self.pick),
            text(t, f"picked: {self.picked}", "pickedFile"),
            self.error and text(t, f"error: {self.error}", "filesError"),
        ])


OTHER_SCREENS = [
    Accessibility, Crash, Layout, Files,
]
