"""The Settings app (com.android.settings): the pages the Ghost Bench and system tasks need, with Android 15's
titles. Every switch writes the same setting the real page writes (Wi-Fi -> settings global wifi_on, …), and
"Search Settings" at the top of the main list finds them by name, as the real search does."""

from __future__ import annotations

import re

from ..views import Node
from .base import App

SID = "com.android.settings:id/"
WIFI = "Wi\u2011Fi"  # Android writes Wi-Fi with a non-breaking hyphen

MAIN_ROWS = [
    ("Network & internet", "Mobile, Wi\u2011Fi, hotspot", "network"),
    ("Connected devices", "Bluetooth, pairing", "connected"),
    ("Apps", "Assistant, recent apps, default apps", "apps"),
    ("Notifications", "Notification history, conversations", "notifications"),
    ("Battery", "100%", None),
    ("Storage", "34% used - 42.09 GB free", None),
    ("Sound & vibration", "Volume, haptics, Do Not Disturb", "sound"),
    ("Display", "Dark theme, font size, brightness", "display"),
    ("Wallpaper & style", "Colors, themed icons, app grid", None),
    ("Accessibility", "Display, interaction, audio", "accessibility"),
    ("Security & privacy", "App security, device lock, permissions", None),
    ("Location", "On - 2 apps have access to location", "location"),
    ("Safety & emergency", "Emergency SOS, medical info, alerts", None),
    ("Passwords, passkeys & accounts", "Suggestions for sign-in and autofill", None),
    ("Digital Wellbeing & parental controls", "Screen time, app timers, bedtime schedules", None),
    ("Google", "Services & preferences", None),
    ("System", "Languages, gestures, time, backup", None),
    ("About emulated device", "sdk_gphone64_x86_64", "about"),
    ("Tips & support", "Help articles, phone & chat", None),
]
TITLES = {"main": "Settings", "network": "Network & internet", "internet": "Internet",
          "connected": "Connected devices", "bluetooth": "Bluetooth", "display": "Display", "apps": "Apps",
          "appinfo": "App info", "location": "Location", "sims": "SIMs", "notifications": "Notifications",
          "sound": "Sound & vibration", "dnd": "Do Not Disturb", "search": "Search settings",
          "text_reading": "Display size and text", "accessibility": "Accessibility",
          "about": "About emulated device"}

#: The Font size slider's steps (font_scale), smallest to largest, as Android 14 and later offer them.
FONT_SCALES = (0.85, 1.0, 1.15, 1.3, 1.5, 1.8, 2.0)
#: The Display size slider's densities for this 1080 px, 420 dpi screen, by Android's rule: one step down to 0.85
#: of the default, then equal steps up to where the screen is 320 dp wide (540 dpi).
DENSITIES = (357, 420, 460, 500, 540)
DEFAULT_DENSITY = 420

#: What Settings' search finds: (title, words it also answers to, the pages it opens from the main list). Real
#: Settings indexes every preference; these are the ones this device's pages draw.
SEARCH_INDEX = [
    (WIFI, "wifi wireless network internet", ("network", "internet")),
    ("Airplane mode", "flight aeroplane airplane", ("network",)),
    ("Mobile data", "cellular sim data mobile network", ("network", "sims")),
    ("Bluetooth", "bluetooth connected devices", ("connected",)),
    ("Use Bluetooth", "bluetooth", ("connected", "bluetooth")),
    ("Brightness level", "screen brightness display", ("display",)),
    ("Adaptive brightness", "screen brightness auto", ("display",)),
    ("Dark theme", "night mode dark", ("display",)),
    ("Auto-rotate screen", "rotation rotate orientation accelerometer", ("display",)),
    ("Font size", "text font scale bigger smaller larger", ("display", "text_reading")),
    ("Display size", "screen zoom density bigger smaller", ("display", "text_reading")),
    ("Bold text", "font weight bold", ("display", "text_reading")),
    ("Use location", "location gps", ("location",)),
    ("Do Not Disturb", "dnd zen silence interruptions", ("sound", "dnd")),
]


class Settings(App):
    package = "com.android.settings"
    label = "Settings"
    activity = ".Settings"
    system = True
    version_name = "15"
    version_code = 35
    follows_night_mode = True
    background = "#f8f9ff"
    foreground = "#1b1b1f"
    dark_background = "#111318"
    dark_foreground = "#e2e2e9"
    start_page = "main"
    actions: tuple[str, ...] = ("android.settings.SETTINGS",)

    def __init__(self, device):
        super().__init__(device)
        self.pages = [self.start_page]
        self.app_package = ""
        self.query = ""

    def on_start(self, extras: dict) -> None:
        pkg = extras.get("package") or extras.get("data", "")
        if isinstance(pkg, str) and pkg.startswith("package:"):
            pkg = pkg[len("package:"):]
        self.app_package = pkg or ""

    def on_back(self) -> bool:
        if len(self.pages) > 1:
            self.pages.pop()
            return True
        return False

    def open(self, page: str) -> None:
        self.pages.append(page)
        self.device.scroll_offsets.pop(SID + "recycler_view", None)

    # -- rows ----------------------------------------------------------------------------------------------------

    def row(self, title: str, summary: str | None = None, on_tap=None, *, enabled: bool = True) -> Node:
        kids = [Node("android.widget.TextView", id="android:id/title", text=title, height=28)]
        if summary:
            kids.append(Node("android.widget.TextView", id="android:id/summary", text=summary, height=24))
        return Node("android.widget.LinearLayout", padding=12, margin_bottom=4, enabled=enabled,
                    on_tap=on_tap or (lambda: None), children=kids)

    def switch_row(self, title: str, checked: bool, on_toggle, summary: str | None = None) -> Node:
        kids = [Node("android.widget.TextView", id="android:id/title", text=title, height=28)]
        if summary:
            kids.append(Node("android.widget.TextView", id="android:id/summary", text=summary, height=24))
        return Node("android.widget.LinearLayout", padding=12, margin_bottom=4, on_tap=on_toggle,
                    children=[Node("android.widget.RelativeLayout", children=kids),
                              Node("android.widget.Switch", id="android:id/switch_widget", checkable=True,
                                   checked=checked, height=32, width=52, overlay=True, left_frac=0.82,
                                   width_frac=0.15, touch="pass")])

    def slider_row(self, title: str, summary: str, index: int, steps: int, set_step) -> Node:
        """A labelled slider of whole steps: title and summary above, the bar between a smaller and a larger
        button, each button disabled at its end. Both sliders' buttons carry the same labels, as Android's do; the
        bar's text is its progress, as this device's other seek bars give theirs."""

        def dragged(fraction: float) -> None:
            set_step(round(fraction * (steps - 1)))

        def button(which: str, desc: str, to: int, enabled: bool) -> Node:
            return Node("android.widget.FrameLayout", id=SID + f"icon_{which}_frame", desc=desc, clickable=True,
                        focusable=True, enabled=enabled, width=48, height=48,
                        bg="#c4c6d0" if enabled else "#eceef4",
                        on_tap=lambda: set_step(to) if enabled else None,
                        children=[Node("android.widget.ImageView", id=SID + f"icon_{which}", height=48,
                                       touch="pass")])

        return Node("android.widget.LinearLayout", padding=12, margin_bottom=4, children=[
            Node("android.widget.TextView", id="android:id/title", text=title, height=28),
            Node("android.widget.TextView", id="android:id/summary", text=summary, height=24),
            Node("android.widget.LinearLayout", horizontal=True, height=48, children=[
                button("start", "Make smaller", index - 1, index > 0),
                Node("android.widget.SeekBar", id=SID + "seekbar", desc=title, text=str(index), focusable=True,
                     height=48, on_drag=dragged, bg="#d3e3fd"),
                button("end", "Make larger", index + 1, index < steps - 1),
            ]),
        ])

    # -- pages ---------------------------------------------------------------------------------------------------

    def render(self) -> Node:
        page = self.pages[-1]
        body = getattr(self, "page_" + page, None)
        rows = body() if body else [Node("android.widget.TextView", text="Nothing to change here on this device.",
                                         height=48)]
        top: list[Node] = []
        if len(self.pages) > 1 or page != "main":
            top.append(Node("android.widget.ImageButton", desc="Navigate up", height=48, width=48,
                            on_tap=self._up))
        title = TITLES.get(page, page)
        if page == "main":
            top.append(Node("android.widget.TextView", id=SID + "search_action_bar_title", text="Search Settings",
                            height=56, on_tap=lambda: self.open("search"), margin_bottom=12))
        else:
            top.append(Node("android.widget.TextView", id=SID + "collapsing_toolbar", text=title, height=72,
                            margin_bottom=12, desc=title))
        return Node("android.widget.LinearLayout", id=SID + "content_parent", children=[
            *top,
            Node("androidx.recyclerview.widget.RecyclerView", id=SID + "recycler_view", scroll="vertical",
                 padding=8, children=rows),
        ])

    def _up(self) -> None:
        if len(self.pages) > 1:
            self.pages.pop()
        else:
            self.device.finish_current()

    def page_main(self) -> list[Node]:
        out = []
        for title, summary, page in MAIN_ROWS:
            if page == "network":
                summary = "Airplane mode is on" if self.device.airplane_mode else summary
            if page == "about":
                summary = self._device_name()
            out.append(self.row(title, summary, (lambda p=page, t=title: self.open(p or t))))
        return out

    def page_network(self) -> list[Node]:
        d = self.device
        internet = "Airplane mode" if d.airplane_mode and not d.wifi_enabled else (
            "AndroidWifi" if d.wifi_enabled else "Off")
        return [
            self.row("Internet", internet, lambda: self.open("internet")),
            self.row("SIMs", "T-Mobile" if not d.airplane_mode else "Off", lambda: self.open("sims")),
            self.switch_row("Airplane mode", d.airplane_mode, lambda: d.set_airplane(not d.airplane_mode)),
            self.row("Hotspot & tethering", "Off", lambda: self.open("Hotspot & tethering")),
            self.row("Data Saver", "Off", lambda: self.open("Data Saver")),
            self.row("VPN", "None", lambda: self.open("VPN")),
            self.row("Private DNS", "Automatic", lambda: self.open("Private DNS")),
            self.row("Adaptive connectivity", None, lambda: self.open("Adaptive connectivity")),
        ]

    def page_internet(self) -> list[Node]:
        d = self.device
        rows = [self.switch_row(WIFI, d.wifi_enabled, lambda: d.set_wifi(not d.wifi_enabled))]
        if d.airplane_mode:
            rows.insert(0, self.row("Airplane mode is on", None))
        if not d.airplane_mode:
            rows.insert(0, self.row("T-Mobile", "Connected" if d.settings("global").get("mobile_data") == "1"
                                    else "Mobile data off", lambda: None))
        if d.wifi_enabled:
            rows.append(self.row("AndroidWifi", "Connected", lambda: None))
        else:
            rows.append(self.row(f"To see available networks, turn {WIFI} on", None))
        rows.append(self.row("Network preferences", f"{WIFI} turns back on automatically",
                             lambda: self.open("Network preferences")))
        return rows

    def page_sims(self) -> list[Node]:
        d = self.device
        on = d.settings("global").get("mobile_data") == "1"
        return [
            self.row("T-Mobile", "Active" if not d.airplane_mode else "Off", None),
            self.switch_row("Mobile data", on, lambda: d.set_mobile_data(not on), "Access data using mobile network"),
            self.switch_row("Roaming", d.settings("global").get("data_roaming") == "1", self._toggle_roaming,
                            "Connect to data services when roaming"),
            self.row("Preferred network type", "5G (recommended)", lambda: self.open("Preferred network type")),
        ]

    def _toggle_roaming(self) -> None:
        g = self.device.settings("global")
        g["data_roaming"] = "0" if g.get("data_roaming") == "1" else "1"

    def page_sound(self) -> list[Node]:
        return [
            self.row("Media volume", None, None),
            self.row("Call volume", None, None),
            self.row("Ring & notification volume", None, None),
            self.row("Do Not Disturb", "On" if self._dnd_on() else "Off", lambda: self.open("dnd")),
            self.row("Vibration & haptics", "On", lambda: self.open("Vibration & haptics")),
        ]

    def page_notifications(self) -> list[Node]:
        return [
            self.row("App notifications", None, lambda: self.open("App notifications")),
            self.row("Notification history", None, lambda: self.open("Notification history")),
            self.row("Conversations", "No priority conversations", lambda: self.open("Conversations")),
            self.row("Do Not Disturb", "On" if self._dnd_on() else "Off", lambda: self.open("dnd")),
        ]

    def _dnd_on(self) -> bool:
        return self.device.settings("global").get("zen_mode", "0") != "0"

    def page_dnd(self) -> list[Node]:
        g = self.device.settings("global")
        on = self._dnd_on()

        def toggle() -> None:
            # Turning it on from Settings means "Priority only", zen_mode 1, as the Quick Settings tile does.
            g["zen_mode"] = "0" if on else "1"

        return [
            self.switch_row("Do Not Disturb", on, toggle, "Only get notified by important people and apps"),
            self.row("People", "Some people can interrupt", lambda: self.open("People")),
            self.row("Apps", "Some apps can interrupt", lambda: self.open("Apps")),
            self.row("Alarms & other interruptions", "Alarms, media", lambda: self.open("Alarms")),
            self.row("Schedules", "1 schedule can turn on automatically", lambda: self.open("Schedules")),
        ]

    def page_search(self) -> list[Node]:
        query = self.query

        def typed(value: str) -> None:
            self.query = value

        rows = [Node("android.widget.EditText", id=SID + "search_src_text", text=query, hint="Search settings",
                     editable=True, focusable=True, clickable=True, height=56, margin_bottom=8, on_text=typed)]
        for title, breadcrumb, pages in search_results(query):
            rows.append(self.row(title, breadcrumb, (lambda p=pages: self._open_path(p))))
        return rows

    def _open_path(self, pages: tuple[str, ...]) -> None:
        for page in pages:
            self.open(page)

    def _device_name(self) -> str:
        """The device's name as Settings shows it, in the About row and page: Settings.Global.DEVICE_NAME, which
        `settings put global device_name` sets, else the model."""
        return self.device.settings("global").get("device_name") or self.device.props.get("ro.product.model", "")

    def page_about(self) -> list[Node]:
        props = self.device.props
        return [self.row("Device name", self._device_name()),
                self.row("Model", props.get("ro.product.model", "")),
                self.row("Android version", props.get("ro.build.version.release", ""))]

    def page_connected(self) -> list[Node]:
        d = self.device
        return [
            self.row("Pair new device", None, lambda: self.open("Pair new device")),
            self.switch_row("Bluetooth", d.bluetooth_enabled, lambda: d.set_bluetooth(not d.bluetooth_enabled),
                            "On" if d.bluetooth_enabled else "Off"),
            self.row("Connection preferences", "Bluetooth, Android Auto, NFC", lambda: self.open("bluetooth")),
        ]

    def page_bluetooth(self) -> list[Node]:
        d = self.device
        rows = [self.switch_row("Use Bluetooth", d.bluetooth_enabled,
                                lambda: d.set_bluetooth(not d.bluetooth_enabled))]
        if d.bluetooth_enabled:
            rows.append(self.row("Pair new device", None, lambda: self.open("Pair new device")))
            rows.append(self.row("Device name", "sdk_gphone64_x86_64", lambda: None))
        return rows

    def page_display(self) -> list[Node]:
        d = self.device
        system = d.settings("system")
        level = int(system.get("screen_brightness", "102") or 0)
        percent = round(max(0, level - 1) / 254 * 100)

        def set_level(frac: float) -> None:
            d.set_brightness(round(1 + frac * 254))

        def toggle_adaptive() -> None:
            system["screen_brightness_mode"] = "0" if system.get("screen_brightness_mode") == "1" else "1"

        def toggle_rotation() -> None:
            system["accelerometer_rotation"] = "0" if system.get("accelerometer_rotation") == "1" else "1"

        return [
            self.row("Brightness level", f"{percent}%", None),
            Node("android.widget.SeekBar", id=SID + "seekbar", desc="Brightness level", text=str(percent),
                 height=48, margin_bottom=8, on_drag=set_level, bg="#d3e3fd"),
            self.switch_row("Adaptive brightness", system.get("screen_brightness_mode") == "1", toggle_adaptive),
            self.switch_row("Dark theme", d.night_mode,
                            lambda: d.set_night_mode("no" if d.night_mode else "yes")),
            self.row("Screen timeout", "After 1 minute of inactivity", lambda: self.open("Screen timeout")),
            self.switch_row("Auto-rotate screen", system.get("accelerometer_rotation") == "1", toggle_rotation),
            self.row("Display size and text", None, lambda: self.open("text_reading")),
        ]

    def page_accessibility(self) -> list[Node]:
        """Accessibility's main list: Display size and text is reached from here as well as from Display."""
        screen_reader = self.device.settings("secure").get("touch_exploration_enabled") == "1"
        return [
            self.row("TalkBack", "On" if screen_reader else "Off", lambda: self.open("TalkBack")),
            self.row("Select to Speak", "Off", lambda: self.open("Select to Speak")),
            self.row("Display size and text", None, lambda: self.open("text_reading")),
            self.row("Color and motion", None, lambda: self.open("Color and motion")),
            self.row("Extra dim", "Off", lambda: self.open("Extra dim")),
            self.row("Magnification", "Off", lambda: self.open("Magnification")),
            self.row("Timing controls", None, lambda: self.open("Timing controls")),
            self.row("Live Caption", None, lambda: self.open("Live Caption")),
        ]

    def page_text_reading(self) -> list[Node]:
        """Display size and text: Font size writes system font_scale (one of its steps); Display size overrides the
        screen's density, as `wm density` does; Bold text and High contrast text are secure settings."""
        d = self.device
        system, secure = d.settings("system"), d.settings("secure")
        density = d.display_overrides

        def set_font(i: int) -> None:
            system["font_scale"] = str(FONT_SCALES[i])

        def set_density(i: int) -> None:
            if DENSITIES[i] == DEFAULT_DENSITY:
                density.pop("density", None)
            else:
                density["density"] = str(DENSITIES[i])

        def toggle(key: str, on: str) -> None:
            secure[key] = "0" if secure.get(key, "0") == on else on

        return [
            Node("android.widget.TextView", id=SID + "preview_label", text="Preview", height=28),
            Node("android.widget.TextView", text="Get the most out of your phone with these text and display "
                 "settings.", height=72, margin_bottom=12),
            self.slider_row("Font size", "Make text bigger or smaller",
                            _nearest(FONT_SCALES, float(system.get("font_scale") or 1.0)), len(FONT_SCALES),
                            set_font),
            self.slider_row("Display size", "Make everything bigger or smaller",
                            _nearest(DENSITIES, float(density.get("density", DEFAULT_DENSITY))), len(DENSITIES),
                            set_density),
            self.switch_row("Bold text", secure.get("font_weight_adjustment", "0") == "300",
                            lambda: toggle("font_weight_adjustment", "300")),
            self.switch_row("High contrast text", secure.get("high_text_contrast_enabled", "0") == "1",
                            lambda: toggle("high_text_contrast_enabled", "1"),
                            "Change text color to black or white. Maximizes contrast with the background."),
        ]

    def page_location(self) -> list[Node]:
        d = self.device
        secure = d.settings("secure")
        on = secure.get("location_mode", "3") != "0"

        def toggle() -> None:
            secure["location_mode"] = "0" if on else "3"

        rows = [self.switch_row("Use location", on, toggle)]
        if on:
            rows.append(self.row("Recent access", "No apps recently accessed location", None))
        rows.append(self.row("App location permissions", None, lambda: self.open("App location permissions")))
        rows.append(self.row("Location services", None, lambda: self.open("Location services")))
        return rows

    def page_apps(self) -> list[Node]:
        d = self.device
        user_apps = sorted((p for p in d.packages.values() if not p.system), key=lambda p: p.label.lower())

        def info(name: str) -> None:
            self.app_package = name
            self.open("appinfo")

        return [self.row("All apps", f"See all {len(user_apps)} apps", None)] + [
            self.row(p.label, None, (lambda n=p.name: info(n))) for p in user_apps]

    def page_appinfo(self) -> list[Node]:
        d = self.device
        pkg = d.packages.get(self.app_package)
        if pkg is None:
            return [self.row("App not found", None)]
        running = pkg.name in d.processes
        return [
            Node("android.widget.TextView", id="com.android.settings:id/entity_header_title", text=pkg.label,
                 height=40),
            Node("android.widget.LinearLayout", horizontal=True, height=56, margin_bottom=12, children=[
                Node("android.widget.Button", id=SID + "button1", text="Open", height=56, width=150,
                     margin_right=12, on_tap=lambda: d.launch(pkg.name)),
                Node("android.widget.Button", id=SID + "button2", text="Force stop", height=56, width=150,
                     enabled=running, on_tap=lambda: d.force_stop(pkg.name)),
            ]),
            self.row("Notifications", "On" if d.permission(pkg.name, "android.permission.POST_NOTIFICATIONS")
                     == "granted" else "Off", None),
            self.row("Permissions", ", ".join(sorted({p.rsplit(".", 1)[-1].split("_")[-1].title()
                                                      for p in pkg.permissions
                                                      if d.permission(pkg.name, p) == "granted"}))
                     or "No permissions allowed", None),
            self.row("Storage & cache", None, None),
            self.row("Version", f"version {pkg.version_name}", None),
        ]


def _nearest(steps: tuple, value: float) -> int:
    return min(range(len(steps)), key=lambda i: abs(steps[i] - value))


def _fold(text: str) -> str:
    return re.sub(r"[\u2010-\u2015-]", "", text).casefold()


def search_results(query: str) -> list[tuple[str, str, tuple[str, ...]]]:
    """(title, breadcrumb, pages) of every indexed setting whose title or words contain each word of the query as
    the start of a word, as Settings' search matches ("mobile da" finds Mobile data; "wifi" finds Wi-Fi)."""
    words = _fold(query).split()
    if not words:
        return []
    found = []
    for title, keywords, pages in SEARCH_INDEX:
        vocabulary = _fold(f"{title} {keywords}").split()
        if all(any(v.startswith(w) for v in vocabulary) for w in words):
            found.append((title, " > ".join(TITLES.get(p, p) for p in pages), pages))
    return found


class NetworkDashboard(Settings):
    activity = ".Settings$NetworkDashboardActivity"
    launcher = False
    start_page = "network"
    actions = ("android.settings.WIRELESS_SETTINGS", "android.settings.AIRPLANE_MODE_SETTINGS",
               "android.settings.DATA_ROAMING_SETTINGS")


class WifiSettings(Settings):
    activity = ".Settings$NetworkProviderSettingsActivity"
    launcher = False
    start_page = "internet"
    actions = ("android.settings.WIFI_SETTINGS", "android.settings.panel.action.INTERNET_CONNECTIVITY")


class ConnectedDevices(Settings):
    activity = ".Settings$ConnectedDeviceDashboardActivity"
    launcher = False
    start_page = "connected"
    actions = ()


class BluetoothSettings(Settings):
    activity = ".Settings$BluetoothSettingsActivity"
    launcher = False
    start_page = "bluetooth"
    actions = ("android.settings.BLUETOOTH_SETTINGS",)


class DisplaySettings(Settings):
    activity = ".Settings$DisplaySettingsActivity"
    launcher = False
    start_page = "display"
    actions = ("android.settings.DISPLAY_SETTINGS",)


class LocationSettings(Settings):
    activity = ".Settings$LocationSettingsActivity"
    launcher = False
    start_page = "location"
    actions = ("android.settings.LOCATION_SOURCE_SETTINGS",)


class AppDetails(Settings):
    activity = ".applications.InstalledAppDetailsTop"
    launcher = False
    start_page = "appinfo"
    actions = ("android.settings.APPLICATION_DETAILS_SETTINGS",)


class ManageApps(Settings):
    activity = ".Settings$ManageApplicationsActivity"
    launcher = False
    start_page = "apps"
    actions = ("android.settings.APPLICATION_SETTINGS", "android.settings.MANAGE_APPLICATIONS_SETTINGS")


APPS = [Settings, NetworkDashboard, WifiSettings, ConnectedDevices, BluetoothSettings, DisplaySettings,
        LocationSettings, AppDetails, ManageApps]
