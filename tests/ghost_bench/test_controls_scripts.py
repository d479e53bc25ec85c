"""The derived reference and wrong scripts, driven against a tiny fake of the Mobium tools over a Settings-like
screen: which rows they tap, when they tap a switch, what they fill a slider with, and what they claim."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Optional

import pytest

from pytest_mobium_evals.drivers import scripting
from pytest_mobium_evals.drivers.controls import DriverError
from pytest_mobium_evals.suites import ghost_bench as gb

SUITE_DIR = Path(__file__).resolve().parents[2] / "tasks" / "ghost_bench"
TASKS = {t.id: t for t in gb.load_tasks(SUITE_DIR)}


@dataclass
class Result:
    text: str
    data: Optional[dict]


#: Settings' search as the fake answers it: query -> (result title, the screen it opens).
SEARCH = {"wifi": ("Wi\u2011Fi", "internet"), "airplane mode": ("Airplane mode", "network"),
          "screen brightness": ("Brightness level", "display"), "mobile data": ("Mobile data", "sims")}


class FakePhone:
    """Screens as Mobium maps them: a Settings row carries the title, its switch is a separate element named by its
    id ("switch_widget") drawn inside the row; the brightness bar is a slider; Settings' search lists results
    under its field."""

    def __init__(self, wifi=False, airplane=False, brightness=1, mobile_data=True):
        self.wifi, self.airplane, self.brightness, self.mobile_data = wifi, airplane, brightness, mobile_data
        self.screen = "home"
        self.query = ""
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
            return [row("@e1", "Search Settings", 150), row("@e2", "Network & internet", 300),
                    row("@e3", "Connected devices", 460), row("@e4", "Display", 620)]
        if self.screen == "search":
            field = {"ref": "@e1", "label": self.query or "Search settings", "role": "input",
                     "bounds": {"x1": 0, "y1": 150, "x2": 1080, "y2": 250}}
            found = SEARCH.get(self.query)
            return [field] + ([row("@e2", found[0], 300)] if found else [])
        if self.screen == "network":
            return [row("@e1", "Internet", 300), row("@e2", "SIMs", 460), row("@e3", "Airplane mode", 620),
                    switch("@e4", 620, self.airplane)]
        if self.screen == "internet":
            return [row("@e1", "Wi\u2011Fi", 300), switch("@e2", 300, self.wifi)]
        if self.screen == "sims":
            return [row("@e1", "Mobile data", 300), switch("@e2", 300, self.mobile_data)]
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
        elif name == "app_fill" and self.screen == "search":
            self.query = args["text"]
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
            self.screen = {"Search Settings": "search", "Network & internet": "network",
                           "Display": "display"}.get(label, label)
        elif self.screen == "search":
            self.screen = SEARCH[self.query][1]
        elif self.screen == "network":
            self.screen = {"Internet": "internet", "SIMs": "sims"}.get(label)
            if self.screen is None:
                self.screen, self.airplane = "network", not self.airplane
        elif self.screen == "internet":
            self.wifi = not self.wifi
        elif self.screen == "sims":
            self.mobile_data = not self.mobile_data
        return Result("tapped", {})

    def taps(self) -> list[str]:
        return [args["target"] for name, args in self.calls if name == "app_tap"]

    def fills(self) -> list[str]:
        return [args["text"] for name, args in self.calls if name == "app_fill"]


def test_reference_turns_wifi_on_through_settings_search():
    phone = FakePhone(wifi=False)
    claim = TASKS["SystemWifiTurnOn"].reference(phone, {})
    assert phone.wifi is True
    assert claim.status == "done" and "Wi\u2011Fi on" in claim.reason
    assert ("app_terminate", {"app": "com.android.settings"}) in phone.calls  # starts from Settings' main list
    assert phone.fills() == ["wifi"]  # the goal's words less "turn" and "on"
    assert phone.taps() == ["@e1", "@e2", "@e2"]  # Search Settings, the Wi-Fi result, the switch in its row


def test_reference_does_not_tap_a_switch_already_in_the_goal_state():
    phone = FakePhone(wifi=True)
    assert TASKS["SystemWifiTurnOn"].reference(phone, {}).status == "done"
    assert phone.wifi is True and phone.taps() == ["@e1", "@e2"]


def test_wrong_toggles_to_the_goal_and_back():
    phone = FakePhone(airplane=False)
    claim = TASKS["SystemAirplaneModeOn"].wrong(phone, {})
    assert claim.status == "done"
    assert phone.airplane is False
    assert phone.taps() == ["@e1", "@e2", "@e4", "@e4"]


def test_brightness_reference_fills_the_end_and_wrong_stops_half_way():
    phone = FakePhone()
    TASKS["SystemBrightnessMax"].reference(phone, {})
    assert phone.brightness == 255
    assert ("app_fill", {"target": "@e1", "text": "1"}) in phone.calls
    TASKS["SystemBrightnessMin"].reference(phone, {})
    assert phone.brightness == 1
    TASKS["SystemBrightnessMax"].wrong(phone, {})
    assert phone.brightness == 128


MOBILE_DATA = {"id": "SystemMobileDataTurnOff", "goal": "Turn off mobile data.", "app": "com.android.settings",
               "category": "settings", "init": {"cmd": "svc data enable", "desc": "Enable mobile data"},
               "eval": {"cmd": "settings get global mobile_data", "expect": "0"}}


def one_task(tmp_path: Path, raw: dict):
    path = tmp_path / "task.json"
    path.write_text(json.dumps(raw), encoding="utf-8")
    (value,) = gb.load_tasks(path)
    return value


def test_a_new_setting_is_found_through_search(tmp_path):
    value = one_task(tmp_path, MOBILE_DATA)
    phone = FakePhone(mobile_data=True)
    assert value.reference(phone, {}).status == "done"
    assert phone.mobile_data is False and phone.fills() == ["mobile data"]


def test_the_ui_key_walks_its_path_instead_of_searching(tmp_path):
    value = one_task(tmp_path, {**MOBILE_DATA, "ui": {"path": ["Network & internet", "SIMs"],
                                                      "label": "Mobile data"}})
    phone = FakePhone(mobile_data=True)
    assert value.reference(phone, {}).status == "done"
    assert phone.mobile_data is False and phone.fills() == []
    assert phone.taps() == ["@e2", "@e2", "@e2"]  # Network & internet, SIMs, the switch in the Mobile data row
    phone = FakePhone(mobile_data=True)
    value.wrong(phone, {})
    assert phone.mobile_data is True


def test_open_app_reference_and_wrong_tap_launcher_icons():
    phone = FakePhone()
    claim = TASKS["OpenAppCalculator"].reference(phone, {})
    assert claim.status == "done" and phone.opened == ["Calculator"]
    assert phone.calls[0] == ("app_press", {"button": "home"})
    phone = FakePhone()
    TASKS["OpenAppCalculator"].wrong(phone, {})
    assert phone.opened == ["Contacts"]  # the icon after it


def test_an_app_the_goal_names_in_other_words_is_found_on_the_launcher():
    phone = FakePhone()
    TASKS["OpenAppChrome"].reference(phone, {})  # "Open Chrome browser."
    assert phone.opened == ["Chrome"]


def test_a_missing_row_is_a_driver_error_naming_what_the_screen_shows(monkeypatch, tmp_path):
    monkeypatch.setattr(scripting, "WAIT_S", 0.0)
    value = one_task(tmp_path, {**MOBILE_DATA, "ui": {"path": ["Mobile network"], "label": "Mobile data"}})
    with pytest.raises(DriverError, match="no element labelled 'Mobile network' on the screen; it shows: "
                                          "Search Settings, Network & internet"):
        value.reference(FakePhone(), {})


def test_a_goal_naming_no_icon_is_a_driver_error():
    phone = FakePhone()
    phone.elements = lambda: []  # an empty home screen
    with pytest.raises(DriverError, match="no launcher icon is named in the goal 'Open the Clock app.'"):
        TASKS["OpenAppClock"].reference(phone, {})
