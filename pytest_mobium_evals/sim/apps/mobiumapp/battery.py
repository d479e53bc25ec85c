"""The Battery Demo: what expo-battery tells the app about the battery, drawn and in words, read every second.

The level and state come from the ACTION_BATTERY_CHANGED sticky broadcast (so `dumpsys battery set` moves them,
as `adb emu power` does on an emulator); the app's words differ from BatteryManager's: discharging and not
charging are both "unplugged"."""

from __future__ import annotations

from ...views import Node
from .screen import Screen
from .ui import Theme, back_btn, h1, page, text

LEAD = ("What this device reports about its battery, drawn and in words, read again every second. mobium battery "
        "reads the same battery from outside; on an emulator, adb emu power capacity changes it, and the drawing "
        "follows. A simulator has no battery, and says so.")
STATES = {5: "full", 2: "charging", 3: "unplugged", 4: "unplugged"}
INNER_DP = 236  # the gauge body, 260 wide, less its border and padding on both sides
NO_BATTERY = " \u2014 stopped: this device reports no battery (level -1), and there is nothing to watch"


def js_number(value: float) -> str:
    """`String(Number(x.toPrecision(6)))`: a float32 0.41999998 reads 0.42, a whole 1 reads 1."""
    shown = f"{value:.6g}"
    return shown if "e" not in shown else repr(float(shown))


def js_pct(value: float) -> str:
    return str(int(value)) if value == int(value) else str(value)


class Battery(Screen):
    key = "battery"

    def __init__(self, app):
        super().__init__(app)
        self.reads = 0
        self.level: float | None = None
        self.state = "unknown"
        self.low_power: bool | None = None
        self._read()
        self._poll = self.every(1.0, self._read)

    def _read(self) -> None:
        d = self.device
        if self.level is not None and self.level < 0:
            return  # polling stopped: no battery to watch
        self.level = d.battery_level / 100 if d.battery_present else -1.0
        self.state = STATES.get(d.battery_status_now(), "unknown")
        self.low_power = d.settings("global").get("low_power") == "1"
        self.reads += 1

    def render(self, t: Theme) -> Node:
        level = self.level
        if level is None:
            said, gauge, level_line, raw = "Battery not read yet", "\u2026", "level: not read yet", "not read yet"
            pct = 0.0
        elif level < 0:
            said, gauge, level_line, raw = "No battery", "No battery", "level: none", js_number(level)
            pct = 0.0
        else:
            pct = round(level * 1000) / 10
            said = f"Battery {js_pct(pct)} percent, {self.state}"
            gauge = f"{js_pct(pct)}%" + (" \u26a1" if self.state == "charging" else "")
            level_line, raw = f"level: {js_pct(pct)}%", js_number(level)
        color = "#34C759" if pct > 50 else "#FFCC00" if pct > 20 else "#FF3B30"
        low = "not read yet" if self.low_power is None else ("on" if self.low_power else "off")
        return page(t, [
            back_btn(t, self.app), h1(t, "Battery"),
            text(t, LEAD, muted=True, size=21),
            Node("android.view.ViewGroup", id="batteryGauge", desc=said, width=260, height=120, margin_bottom=16,
                 bg="#141826", focusable=True, padding=6, children=[
                     Node("android.view.ViewGroup", horizontal=True, height=108, touch="pass", children=[
                         Node("android.view.View", width=max(0.01, INNER_DP * pct / 100), height=108, bg=color,
                              touch="pass", visible_to_a11y=False)]),
                     # the words sit over the fill, centred in the body
                     Node("android.widget.TextView", text=gauge, overlay=True, fg="#ffffff", touch="pass",
                          visible_to_a11y=False),
                 ]),
            text(t, level_line, "batteryLevel"),
            text(t, f"raw: {raw}", "batteryRaw"),
            text(t, f"state: {self.state}", "batteryState"),
            text(t, f"low power mode: {low}", "batteryLowPower"),
            text(t, f"reads: {self.reads}" + (NO_BATTERY if level is not None and level < 0 else ""),
                 "batteryReads"),
        ])
