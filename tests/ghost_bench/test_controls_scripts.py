"""The derived reference and wrong scripts, driven against a tiny fake of the Mobium tools over a Settings-like
screen: which rows they tap, when they tap a switch, what they fill a slider with, and what they claim."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pytest

from pytest_mobium_evals import ghost_bench as gb
from pytest_mobium_evals.drivers import DriverError

SUITE_DIR = Path(__file__).resolve().parents[2] / "tasks" / "ghost_bench"
TASKS = {t.id: t for t in gb.load_tasks(SUITE_DIR)}


@dataclass
class Result:
    text: str
    data: Optional[dict]


class FakePhone:
    """Screens as Mobium maps them: a Settings row carries the title, its switch is a separate element named by its
    id ("switch_widget") drawn inside the row; the brightness bar is a slider."""

    def __init__(self, wifi=False, airplane=False, brightness=1):
        self.wifi, self.airplane, self.brightness = wifi, airplane, brightness
        self.screen = "home"
        self.calls: list[tuple[str, dict]] = []
        self.opened: list[str] = []

    def elements(self) -> list[dict]:
        def row(ref, label, y):
            return {"ref": ref, "label": label, "role": "button",
                    "bounds": {"x1": 0, "y1": y, "x2": 1080, "y2": y + 150}}

        def switch(ref, y, on):
            return {"ref": ref, "label": "switch_widget", "role": "switch", "checked": on,
                    "bounds": {"x1": 880, "y1": y + 40, "x2": 1040, "y2": y + 110}}

        if self.screen == "home":
            return [row(f"@e{i}", label, 200 + 160 * i) for i, label in
                    enumerate(("Clock", "Calculator", "Contacts", "Camera", "Chrome", "Settings"), start=1)]
        if self.screen == "settings":
            return [row("@e1", "Network & internet", 300), row("@e2", "Connected devices", 460),
                    row("@e3", "Display", 620)]
        if self.screen == "network":
            return [row("@e1", "Internet", 300), row("@e2", "Airplane mode", 460), switch("@e3", 460, self.airplane)]
        if self.screen == "internet":
            return [row("@e1", "Wi\u2011Fi", 300), switch("@e2", 300, self.wifi)]
        if self.screen == "display":
            return [{"ref": "@e1", "label": "Brightness level", "role": "slider", "value": "0",
                     "bounds": {"x1": 0, "y1": 300, "x2": 1080, "y2": 350}}]
        return []

    # the Tools surface the scripts use
    def call(self, name: str, check: bool = True, **args) -> Result:
        self.calls.append((name, args))
        if name == "app_map":
            return Result("", {"elements": self.elements()})
        if name == "app_press":
            self.screen = "home"
        elif name == "app_launch":
            self.screen = "settings"
        elif name == "app_fill":
            self.brightness = round(1 + float(args["text"]) * 254)
        return Result("ok", {})

    def tap(self, target: str, check: bool = True) -> Result:
        self.calls.append(("app_tap", {"target": target}))
        element = next(e for e in self.elements() if e["ref"] == target)
        label = element["label"]
        if self.screen == "home":
            self.opened.append(label)
            self.screen = "settings" if label == "Settings" else label
        elif self.screen == "settings":
            self.screen = {"Network & internet": "network", "Display": "display"}.get(label, label)
        elif self.screen == "network":
            if label == "Internet":
                self.screen = "internet"
            else:
                self.airplane = not self.airplane
        elif self.screen == "internet":
            self.wifi = not self.wifi
        return Result("tapped", {})

    def taps(self) -> list[str]:
        return [args["target"] for name, args in self.calls if name == "app_tap"]


def test_reference_turns_wifi_on_through_network_and_internet():
    phone = FakePhone(wifi=False)
    claim = TASKS["SystemWifiTurnOn"].reference(phone, {})
    assert phone.wifi is True
    assert claim.status == "done" and "Wi\u2011Fi on" in claim.reason
    assert ("app_terminate", {"app": "com.android.settings"}) in phone.calls  # starts from Settings' main list
    assert phone.taps() == ["@e1", "@e1", "@e2"]  # Network & internet, Internet, the switch inside the Wi-Fi row


def test_reference_does_not_tap_a_switch_already_in_the_goal_state():
    phone = FakePhone(wifi=True)
    assert TASKS["SystemWifiTurnOn"].reference(phone, {}).status == "done"
    assert phone.wifi is True and phone.taps() == ["@e1", "@e1"]


def test_wrong_toggles_to_the_goal_and_back():
    phone = FakePhone(airplane=False)
    claim = TASKS["SystemAirplaneModeOn"].wrong(phone, {})
    assert claim.status == "done"
    assert phone.airplane is False
    assert phone.taps() == ["@e1", "@e3", "@e3"]


def test_brightness_reference_fills_the_end_and_wrong_stops_half_way():
    phone = FakePhone()
    TASKS["SystemBrightnessMax"].reference(phone, {})
    assert phone.brightness == 255
    assert ("app_fill", {"target": "@e1", "text": "1"}) in phone.calls
    TASKS["SystemBrightnessMin"].reference(phone, {})
    assert phone.brightness == 1
    TASKS["SystemBrightnessMax"].wrong(phone, {})
    assert phone.brightness == 128


def test_open_app_reference_and_wrong_tap_launcher_icons():
    phone = FakePhone()
    claim = TASKS["OpenAppCalculator"].reference(phone, {})
    assert claim.status == "done" and phone.opened == ["Calculator"]
    assert phone.calls[0] == ("app_press", {"button": "home"})
    phone = FakePhone()
    TASKS["OpenAppCalculator"].wrong(phone, {})
    assert phone.opened == ["Settings"]


def test_a_missing_row_is_a_driver_error_naming_what_the_screen_shows(monkeypatch):
    monkeypatch.setattr(gb, "_FIND_TIMEOUT_S", 0.0)
    phone = FakePhone()
    phone.elements = lambda: []  # an empty screen: nothing to tap
    with pytest.raises(DriverError, match="no element labelled 'Clock' on the screen; it shows: nothing"):
        TASKS["OpenAppClock"].reference(phone, {})
