"""The Settings app (com.android.settings): the pages the Ghost Bench and system tasks need, with Android 15's
titles. Every switch writes the same setting the real page writes (Wi-Fi -> settings global wifi_on, …)."""

from __future__ import annotations

from ..views import Node
from .base import App

SID = "com.android.settings:id/"
WIFI = "Wi\u2011Fi"  # Android writes Wi-Fi with a non-breaking hyphen

MAIN_ROWS = [
    ("Network & internet", "Mobile, Wi\u2011Fi, hotspot", "network"),
    ("Connected devices", "Bluetooth, pairing", "connected"),
    ("Apps", "Assistant, recent apps, default apps", "apps"),
    ("Notifications", "Notification history, conversations", None),
    ("Battery", "100%", None),
    ("Storage", "34% used - 42.09 GB free", None),
    ("Sound & vibration", "Volume, haptics, Do Not Disturb", None),
    ("Display", "Dark theme, font size, brightness", "display"),
    ("Wallpaper & style", "Colors, themed icons, app grid", None),
    ("Accessibility", "Display, interaction, audio", None),
    ("Security & privacy", "App security, device lock, permissions", None),
    ("Location", "On - 2 apps have access to location", "location"),
    ("Safety & emergency", "Emergency SOS, medical info, alerts", None),
    ("Passwords, passkeys & accounts", "Suggestions for sign-in and autofill", None),
    ("Digital Wellbeing & parental controls", "Screen time, app timers, bedtime schedules", None),
    ("Google", "Services & preferences", None),
    ("System", "Languages, gestures, time, backup", None),
    ("About emulated device", "sdk_gphone64_x86_64", None),
    ("Tips & support", "Help articles, phone & chat", None),
]
TITLES = {"main": "Settings", "network": "Network & internet", "internet": "Internet",
          "connected": "Connected devices", "bluetooth": "Bluetooth", "display": "Display", "apps": "Apps",
          "appinfo": "App info", "location": "Location"}


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
                            height=56, on_tap=lambda: None, margin_bottom=12))
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
            out.append(self.row(title, summary, (lambda p=page, t=title: self.open(p or t))))
        return out

    def page_network(self) -> list[Node]:
        d = self.device
        internet = "Airplane mode" if d.airplane_mode and not d.wifi_enabled else (
            "AndroidWifi" if d.wifi_enabled else "Off")
        return [
            self.row("Internet", internet, lambda: self.open("internet")),
            self.row("SIMs", "T-Mobile" if not d.airplane_mode else "Off", lambda: self.open("SIMs")),
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

        return [
            self.row("Brightness level", f"{percent}%", None),
            Node("android.widget.SeekBar", id=SID + "seekbar", desc="Brightness level", text=str(percent),
                 height=48, margin_bottom=8, on_drag=set_level, bg="#d3e3fd"),
            self.switch_row("Adaptive brightness", system.get("screen_brightness_mode") == "1", toggle_adaptive),
            self.switch_row("Dark theme", d.night_mode,
                            lambda: d.set_night_mode("no" if d.night_mode else "yes")),
            self.row("Screen timeout", "After 1 minute of inactivity", lambda: self.open("Screen timeout")),
            self.row("Font size and text", None, lambda: self.open("Font size and text")),
            self.row("Display size", None, lambda: self.open("Display size")),
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
