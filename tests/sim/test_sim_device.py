"""System behaviour of the virtual device: activity stack, Settings, permissions, timers, crashes, shade."""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET

import pytest

from pytest_mobium_evals import sim
from pytest_mobium_evals.sim.apps.base import App
from pytest_mobium_evals.sim.apps.settings import search_results
from pytest_mobium_evals.sim.device import VirtualDevice, builtin_apps
from pytest_mobium_evals.sim.shell import Shell
from pytest_mobium_evals.sim.views import Node

FINE = "android.permission.ACCESS_FINE_LOCATION"
COARSE = "android.permission.ACCESS_COARSE_LOCATION"
CAMERA = "android.permission.CAMERA"


class Probe(App):
    package = "dev.test.probe"
    label = "Probe"
    permissions = (FINE, COARSE, CAMERA)

    def __init__(self, device):
        super().__init__(device)
        self.events: list = []
        self.page = "home"

    def on_start(self, extras):
        self.events.append(("start", dict(extras)))

    def render(self) -> Node:
        return Node(children=[
            Node("android.widget.Button", id="ask", text="Ask location", height=60,
                 on_tap=lambda: self.device.request_permissions(self.package, [FINE, COARSE],
                                                                lambda r: self.events.append(("perm", r)))),
            Node("android.widget.Button", id="boom", text="Crash", height=60, on_tap=lambda: 1 / 0),
            Node("android.widget.TextView", id="page", text=self.page, height=40),
        ])

    def on_back(self) -> bool:
        if self.page != "home":
            self.page = "home"
            return True
        return False


@pytest.fixture
def dev() -> VirtualDevice:
    return VirtualDevice(clock=sim.Clock(1.0), apps=[*builtin_apps(), Probe], seed=3)


def find(d: VirtualDevice, **attrs) -> dict | None:
    for n in ET.fromstring(d.dump_xml()).iter("node"):
        if all(n.attrib.get(k.replace("_", "-")) == v for k, v in attrs.items()):
            return n.attrib
    return None


def tap(d: VirtualDevice, **attrs) -> None:
    n = find(d, **attrs)
    assert n is not None, f"nothing on screen with {attrs}"
    l, t, r, b = map(int, re.findall(r"\d+", n["bounds"]))
    d.tap((l + r) // 2, (t + b) // 2)


def test_boots_to_the_launcher_with_the_apps(dev):
    assert dev.current_activity().short == "com.google.android.apps.nexuslauncher/.NexusLauncherActivity"
    for label in ("Settings", "Contacts", "Clock", "Camera", "Chrome", "Calculator", "MobiumApp"):
        assert find(dev, content_desc=label, clickable="true"), label
    tap(dev, content_desc="Clock")
    assert dev.current_activity().package.name == "com.google.android.deskclock"


def test_home_back_and_warm_relaunch(dev):
    dev.launch("dev.test.probe")
    app = dev.current_app()
    app.page = "details"
    dev.key(4)  # the app handles back
    assert dev.current_app() is app and app.page == "home"
    dev.key(4)  # back on the root activity: Android 12+ moves the task back, the activity lives on
    assert dev.current_activity().package.name == "com.google.android.apps.nexuslauncher"
    assert dev.launch("dev.test.probe") == "HOT" and dev.current_app() is app
    dev.key(3)
    assert dev.current_activity().task.kind == "home"
    dev.force_stop("dev.test.probe")
    assert dev.launch("dev.test.probe") == "COLD" and dev.current_app() is not app


def test_settings_wifi_toggle_through_the_ui(dev):
    dev.launch("com.android.settings")
    tap(dev, text="Network & internet")
    tap(dev, text="Internet")
    switch = find(dev, resource_id="android:id/switch_widget")
    assert switch["checked"] == "true"
    tap(dev, text="Wi\u2011Fi")
    assert dev.settings("global")["wifi_on"] == "0"
    assert find(dev, resource_id="android:id/switch_widget")["checked"] == "false"
    dev.key(4)
    tap(dev, text="Airplane mode")
    assert dev.settings("global")["airplane_mode_on"] == "1"


def test_settings_bluetooth_brightness_dark_theme(dev):
    dev.launch("com.android.settings")
    tap(dev, text="Connected devices")
    tap(dev, text="Bluetooth")
    assert dev.settings("global")["bluetooth_on"] == "0"
    dev.key(4)
    tap(dev, text="Display")
    bar = find(dev, content_desc="Brightness level", **{"class": "android.widget.SeekBar"})
    l, t, r, b = map(int, re.findall(r"\d+", bar["bounds"]))
    dev.swipe(l + 10, (t + b) // 2, r + 200, (t + b) // 2, 400)
    assert dev.settings("system")["screen_brightness"] == "255"
    dev.swipe(r - 10, (t + b) // 2, 0, (t + b) // 2, 400)
    assert dev.settings("system")["screen_brightness"] == "1"
    tap(dev, text="Dark theme")
    assert dev.settings("secure")["ui_night_mode"] == "2" and dev.night_mode


def _all(d: VirtualDevice, **attrs) -> list[dict]:
    return [n.attrib for n in ET.fromstring(d.dump_xml()).iter("node")
            if all(n.attrib.get(k.replace("_", "-")) == v for k, v in attrs.items())]


def test_settings_font_size_steps_and_display_size(dev):
    dev.launch("com.android.settings")
    tap(dev, text="Display")
    tap(dev, text="Display size and text")
    assert find(dev, text="Font size") and find(dev, text="Make text bigger or smaller")
    # Both sliders' buttons have the same labels; the first pair is Font size's.
    larger = _all(dev, content_desc="Make larger")
    assert len(larger) == 2 and len(_all(dev, content_desc="Make smaller")) == 2
    l, t, r, b = map(int, re.findall(r"\d+", larger[0]["bounds"]))
    dev.tap((l + r) // 2, (t + b) // 2)
    assert dev.settings("system")["font_scale"] == "1.15"
    bar = find(dev, content_desc="Font size", **{"class": "android.widget.SeekBar"})
    l, t, r, b = map(int, re.findall(r"\d+", bar["bounds"]))
    dev.swipe(l + 10, (t + b) // 2, r + 200, (t + b) // 2, 400)
    assert dev.settings("system")["font_scale"] == "2.0"
    assert _all(dev, content_desc="Make larger")[0]["enabled"] == "false"  # at the end, its button is off
    tap(dev, content_desc="Make smaller")
    assert dev.settings("system")["font_scale"] == "1.8"
    bar = find(dev, content_desc="Display size", **{"class": "android.widget.SeekBar"})
    l, t, r, b = map(int, re.findall(r"\d+", bar["bounds"]))
    dev.swipe(l + 10, (t + b) // 2, r + 200, (t + b) // 2, 400)
    out, _ = Shell(dev).run("wm density")
    assert out.stdout().decode() == "Physical density: 420\nOverride density: 540\n"
    assert dev.settings("system")["font_scale"] == "1.8"  # the other slider left the font alone
    tap(dev, text="Bold text")
    assert dev.settings("secure")["font_weight_adjustment"] == "300"


def test_settings_display_size_and_text_from_accessibility_and_search(dev):
    dev.launch("com.android.settings")
    tap(dev, text="Accessibility")
    tap(dev, text="Display size and text")
    assert find(dev, content_desc="Font size", **{"class": "android.widget.SeekBar"})
    assert [(t, c) for t, c, _ in search_results("font size")] == [("Font size", "Display > Display size and text")]


def test_location_permission_dialog(dev):
    dev.launch("dev.test.probe")
    tap(dev, resource_id="ask")
    msg = find(dev, resource_id="com.android.permissioncontroller:id/permission_message")
    assert msg["text"] == "Allow Probe to access this device\u2019s location?"
    assert msg["package"] == "com.google.android.permissioncontroller"
    assert find(dev, text="Only this time") and find(dev, text="Don\u2019t allow")
    tap(dev, resource_id="com.android.permissioncontroller:id/permission_allow_foreground_only_button")
    assert dev.current_app().events[-1] == ("perm", {FINE: "granted", COARSE: "granted"})
    assert dev.permission("dev.test.probe", FINE) == "granted"
    tap(dev, resource_id="ask")  # already granted: answered at once, no dialog
    assert find(dev, resource_id="com.android.permissioncontroller:id/permission_message") is None
    assert dev.current_app().events[-1][0] == "perm"


def test_permission_denied_twice_is_fixed(dev):
    dev.launch("dev.test.probe")
    for _ in range(2):
        tap(dev, resource_id="ask")
        tap(dev, resource_id="com.android.permissioncontroller:id/permission_deny_button")
        assert dev.current_app().events[-1] == ("perm", {FINE: "denied", COARSE: "denied"})
    tap(dev, resource_id="ask")
    assert find(dev, resource_id="com.android.permissioncontroller:id/permission_message") is None
    assert "USER_FIXED" in dev.permission_states("dev.test.probe")[FINE].flags


def test_a_restarted_app_gets_a_new_larger_pid(dev):
    pids = []
    for _ in range(60):
        dev.launch("dev.test.probe")
        pids.append(dev.processes["dev.test.probe"].pid)
        dev.force_stop("dev.test.probe")
    assert pids == sorted(pids) and len(set(pids)) == len(pids), pids


def test_one_time_permission_ends_with_the_process(dev):
    dev.launch("dev.test.probe")
    tap(dev, resource_id="ask")
    assert "GrantPermissionsActivity" in dev.focus_window()
    tap(dev, resource_id="com.android.permissioncontroller:id/permission_allow_one_time_button")
    assert "ONE_TIME" in dev.permission_states("dev.test.probe")[FINE].flags
    dev.force_stop("dev.test.probe")
    assert dev.permission("dev.test.probe", FINE) == "undetermined"


def test_timers_fire_in_order_at_their_own_time(dev):
    seen = []
    t0 = dev.now()
    dev.after(2.0, lambda: seen.append(("b", round(dev.now() - t0, 6))))
    dev.after(1.0, lambda: seen.append(("a", round(dev.now() - t0, 6))))
    cancelled = dev.after(1.5, lambda: seen.append("never"))
    cancelled.cancel()
    dev.clock.advance(5)
    dev.run_due()
    assert [s[0] for s in seen] == ["a", "b"]
    assert abs(seen[0][1] - 1.0) < 0.05 and abs(seen[1][1] - 2.0) < 0.05


def test_an_app_timer_dies_with_its_process(dev):
    dev.launch("dev.test.probe")
    fired = []
    dev._call("dev.test.probe", lambda: dev.after(1.0, lambda: fired.append(1)))
    dev.force_stop("dev.test.probe")
    dev.clock.advance(2)
    dev.run_due()
    assert fired == []


def test_clock_speed_scales_device_time():
    d = VirtualDevice(clock=sim.Clock(50.0), apps=builtin_apps())
    fired = []
    d.after(1.0, lambda: fired.append(True))
    deadline_hit = False
    import time
    end = time.monotonic() + 2.0
    while time.monotonic() < end:
        d.run_due()
        if fired:
            deadline_hit = True
            break
    assert deadline_hit


def test_an_app_crash_is_an_app_crash_not_a_device_failure(dev):
    dev.launch("dev.test.probe")
    tap(dev, resource_id="boom")
    assert "dev.test.probe" not in dev.processes
    assert dev.current_activity().task.kind == "home"
    fatal = [e for e in dev.logs if e.tag == "AndroidRuntime"]
    assert fatal[0].message == "FATAL EXCEPTION: main" and any("ZeroDivisionError" in e.message for e in fatal)
    dev.launch("dev.test.probe")
    tap(dev, resource_id="boom")
    assert find(dev, text="Probe keeps stopping") is not None
    tap(dev, text="Close app")
    assert find(dev, text="Probe keeps stopping") is None


def test_notification_tap_opens_the_app(dev):
    dev.post_notification("dev.test.probe", "Hello", "Tap me")
    dev.key(83)  # NOTIFICATION: open the shade
    tap(dev, text="Tap me")
    assert dev.current_activity().package.name == "dev.test.probe"
    assert dev.notifications == [] and not dev.shade_expanded


def test_shade_swipe_and_quick_settings(dev):
    dev.swipe(540, 20, 540, 1200, 300)
    assert dev.shade_expanded
    tap(dev, content_desc="Bluetooth")
    assert dev.settings("global")["bluetooth_on"] == "0"
    dev.key(4)
    assert not dev.shade_expanded


def test_gesture_navigation(dev):
    dev.launch("dev.test.probe")
    dev.swipe(540, 2390, 540, 1500, 200)  # swipe up from the bottom edge: home
    assert dev.current_activity().task.kind == "home"
    dev.launch("dev.test.probe")
    dev.current_app().page = "x"
    dev.swipe(5, 1200, 500, 1200, 200)  # swipe in from the left edge: back
    assert dev.current_app().page == "home"


def test_randomness_is_seeded_per_device():
    a = VirtualDevice(seed=11, apps=builtin_apps())
    b = VirtualDevice(seed=11, apps=builtin_apps())
    c = VirtualDevice(seed=12, apps=builtin_apps())
    seq = [a.random.random() for _ in range(3)]
    assert seq == [b.random.random() for _ in range(3)]
    assert seq != [c.random.random() for _ in range(3)]
    a.seed(11)
    assert seq == [a.random.random() for _ in range(3)]


def test_share_sheet_and_calculator(dev):
    dev.start_activity("com.android.intentresolver/com.android.intentresolver.ChooserActivity",
                       {"android.intent.extra.TEXT": "hello"})
    tap(dev, text="Copy")
    assert dev.clipboard == "hello"
    dev.launch("com.google.android.calculator")
    for desc in ("7", "multiply", "6", "equals"):
        tap(dev, **({"text": desc} if desc.isdigit() else {"content_desc": desc}))
    assert find(dev, resource_id="com.google.android.calculator:id/result_preview")["text"] == "42"


def test_server_rejects_bad_arguments():
    with pytest.raises(ValueError, match="devices"):
        sim.start(devices=0)
    with pytest.raises(ValueError, match="clock_speed"):
        sim.start(clock_speed=0)


def test_location_page_and_view_intent(dev, make_sh):
    sh = make_sh(dev)
    sh.out("am start -a android.settings.LOCATION_SOURCE_SETTINGS")
    tap(dev, text="Use location")
    assert dev.settings("secure")["location_mode"] == "0"
    sh.out("am start -a android.intent.action.VIEW -d https://mobiumapp.test/form")
    assert dev.current_activity().package.name == "com.android.chrome"
    assert find(dev, resource_id="com.android.chrome:id/url_bar")["text"] == "https://mobiumapp.test/form"


def test_clear_data_logs_the_stop_with_its_reason(dev, make_sh):
    # ActivityManager stops an app whose data is cleared and logs the stop with the reason "clear data"; a plain
    # force-stop names its caller instead.
    sh = make_sh(dev)
    dev.launch("dev.test.probe")
    sh.out("am force-stop dev.test.probe")
    sh.out("pm clear dev.test.probe")
    stops = [ln for ln in sh.out("logcat -d -v brief").splitlines() if "Force stopping dev.test.probe" in ln]
    assert re.search(r"user=0: from pid \d+$", stops[0])
    assert re.search(r"appid=\d+ user=0: clear data$", stops[-1])
