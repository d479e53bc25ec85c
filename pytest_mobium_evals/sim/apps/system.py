"""System windows (alert and permission dialogs, the notification shade) and the small stock apps: Contacts,
Clock, Camera, Chrome, Calculator, the share sheet, and a placeholder MobiumApp until the real one is installed."""

from __future__ import annotations

import ast
import operator
import time
from typing import TYPE_CHECKING

from ..views import DP, SCREEN_W, Node, _text_height
from .base import App

if TYPE_CHECKING:  # pragma: no cover
    from ..device import VirtualDevice
    from ..device.records import ActivityRecord, Dialog

PC = "com.android.permissioncontroller:id/"
SUI = "com.android.systemui:id/"
ACCENT = "#0b57d0"


# ---------------------------------------------------------------------------------------------------------------
# dialogs

def render_dialog(device: "VirtualDevice", dialog: "Dialog", rec: "ActivityRecord",
                  width_px: int = SCREEN_W - 126) -> tuple[Node, int]:
    """The dialog's tree, `width_px` wide, and its height in px (the device centres it on screen)."""
    if dialog.kind == "permission":
        return _permission_dialog(device, dialog, rec, width_px)
    if dialog.kind == "crash":
        return _crash_dialog(device, dialog, rec, width_px)
    return _alert_dialog(device, dialog, rec, width_px)


def _press(device: "VirtualDevice", rec: "ActivityRecord", dialog: "Dialog", index: int):
    return lambda: device.press_dialog_button(rec, dialog, index)


def _accuracy(dialog: "Dialog", *, approximate: bool):
    def choose() -> None:
        dialog.approximate = approximate
    return choose


def _alert_dialog(device, dialog, rec, width_px) -> tuple[Node, int]:
    fg = "#1b1b1f"
    parts = []
    height = 0
    if dialog.title:
        parts.append(Node("android.widget.LinearLayout", id="android:id/topPanel", children=[
            Node("android.widget.TextView", id="android:id/alertTitle", text=dialog.title, height=32, fg=fg)]))
        height += 32
    if dialog.message:
        msg = Node("android.widget.TextView", id="android:id/message", text=dialog.message, fg="#45464f")
        mh = _text_height(msg, width_px - int(48 * DP)) / DP
        parts.append(Node("android.widget.FrameLayout", id="android:id/contentPanel", margin_bottom=8, children=[
            Node("android.widget.ScrollView", id="android:id/scrollView", height=mh, children=[msg])]))
        height += mh + 8
    by_role = {"positive": 1, "negative": 2, "neutral": 3}
    buttons = []
    order = sorted(range(len(dialog.buttons)), key=lambda i: {"neutral": 0, "negative": 1, "positive": 2}
                   [dialog.buttons[i][1]])
    used = 0
    for i in order:
        caption, role, _ = dialog.buttons[i]
        text = caption.upper() if dialog.caps else caption
        w = max(64, len(text) * 10 + 24)
        used += w + 8
        buttons.append(Node("android.widget.Button", id=f"android:id/button{by_role[role]}", text=text, width=w,
                            height=48, margin_right=8, on_tap=_press(device, rec, dialog, i), fg=ACCENT))
    # The neutral button sits at the far left, the others at the right, as AlertDialog lays them out.
    if buttons and dialog.buttons[order[0]][1] == "neutral" and len(buttons) > 1:
        buttons.insert(1, Node("android.widget.Space", width=None, height=48, visible_to_a11y=False))
    elif buttons:
        buttons.insert(0, Node("android.widget.Space", width=None, height=48, visible_to_a11y=False))
    parts.append(Node("android.widget.ScrollView", id="android:id/buttonPanel", horizontal=True, children=buttons))
    height += 48
    root = Node("android.widget.FrameLayout", bg="#f3f3fa", children=[
        Node("android.widget.LinearLayout", id="android:id/parentPanel", padding=24, children=parts)])
    return root, int(round((height + 48) * DP))


def _permission_dialog(device, dialog, rec, width_px) -> tuple[Node, int]:
    ids = {"foreground": "permission_allow_foreground_only_button", "one_time": "permission_allow_one_time_button",
           "deny": "permission_deny_button", "allow": "permission_allow_button"}
    msg = Node("android.widget.TextView", id=PC + "permission_message", text=dialog.message, fg="#1b1b1f")
    mh = _text_height(msg, width_px - int(48 * DP)) / DP
    parts = [
        Node("android.widget.ImageView", id=PC + "permission_icon", height=32, margin_bottom=12),
        Node("android.widget.TextView", id=PC + "permission_message", text=dialog.message, height=mh,
             margin_bottom=16, fg="#1b1b1f"),
    ]
    height = 32 + 12 + mh + 16
    if dialog.buttons and dialog.buttons[0][1] == "foreground":
        parts.append(Node("android.widget.RadioGroup", id=PC + "permission_location_accuracy", horizontal=True,
                          height=48, margin_bottom=12, children=[
                              Node("android.widget.RadioButton", id=PC + "permission_location_accuracy_radio_fine",
                                   text="Precise", checkable=True, checked=not dialog.approximate, clickable=True,
                                   on_tap=_accuracy(dialog, approximate=False)),
                              Node("android.widget.RadioButton",
                                   id=PC + "permission_location_accuracy_radio_coarse", text="Approximate",
                                   checkable=True, checked=dialog.approximate, clickable=True,
                                   on_tap=_accuracy(dialog, approximate=True))]))
        height += 60
    buttons = []
    for i, (caption, role, _) in enumerate(dialog.buttons):
        buttons.append(Node("android.widget.Button", id=PC + ids[role], text=caption, height=48, margin_bottom=8,
                            on_tap=_press(device, rec, dialog, i), bg="#d3e3fd", fg="#041e49"))
        height += 56
    parts.append(Node("android.widget.LinearLayout", id=PC + "grant_buttons", children=buttons))
    root = Node("android.widget.FrameLayout", bg="#f3f3fa", children=[
        Node("android.widget.LinearLayout", id=PC + "grant_dialog", padding=24, children=parts)])
    return root, int(round((height + 48) * DP))


def _crash_dialog(device, dialog, rec, width_px) -> tuple[Node, int]:
    ids = ["android:id/aerr_app_info", "android:id/aerr_close"]
    buttons = [Node("android.widget.Button", id=ids[min(i, 1)], text=caption, height=48, margin_bottom=8,
                    on_tap=_press(device, rec, dialog, i), fg="#1b1b1f")
               for i, (caption, _, _) in enumerate(dialog.buttons)]
    root = Node("android.widget.FrameLayout", bg="#f3f3fa", children=[
        Node("android.widget.LinearLayout", id="android:id/parentPanel", padding=24, children=[
            Node("android.widget.TextView", id="android:id/alertTitle", text=dialog.title, height=32,
                 margin_bottom=16),
            *buttons])])
    return root, int(round((32 + 16 + 56 * len(buttons) + 48) * DP))


# ---------------------------------------------------------------------------------------------------------------
# the notification shade (com.android.systemui)

def render_shade(device: "VirtualDevice") -> Node:
    def tile(label: str, state: bool, action, secondary: str) -> Node:
        return Node("android.widget.Switch", desc=f"{label}", text="", checkable=True, checked=state, height=72,
                    width=120, margin_right=10, on_tap=action, bg="#a8c7fa" if state else "#44474f",
                    children=[Node("android.widget.TextView", id=SUI + "tile_label", text=label, height=24),
                              Node("android.widget.TextView", id=SUI + "app_label", text=secondary, height=24)])

    wifi = device.wifi_enabled
    tiles = Node("android.view.ViewGroup", id=SUI + "quick_qs_panel", horizontal=True, height=72,
                 margin_bottom=16, children=[
                     tile("Internet", wifi, lambda: device.set_wifi(not device.wifi_enabled),
                          "AndroidWifi" if wifi else "Off"),
                     tile("Bluetooth", device.bluetooth_enabled,
                          lambda: device.set_bluetooth(not device.bluetooth_enabled),
                          "On" if device.bluetooth_enabled else "Off"),
                     tile("Airplane mode", device.airplane_mode, lambda: device.set_airplane(not device.airplane_mode),
                          "On" if device.airplane_mode else "Off"),
                     tile("Dark theme", device.night_mode,
                          lambda: device.set_night_mode("no" if device.night_mode else "yes"),
                          "On" if device.night_mode else "Off"),
                 ])

    def brightness(frac: float) -> None:
        device.set_brightness(round(1 + frac * 254))

    level = int(device.settings("system").get("screen_brightness", "102"))
    slider = Node("android.widget.SeekBar", id=SUI + "slider", desc="Display brightness",
                  text=str(round((level - 1) / 254 * 100)), height=48, margin_bottom=24, on_drag=brightness,
                  bg="#44474f")
    rows = []
    for n in device.notifications:
        label = device.packages[n.package].label if n.package in device.packages else n.package
        rows.append(Node("android.widget.FrameLayout", id=SUI + "expandableNotificationRow",
                         desc=f"{label} notification: {n.title}", margin_bottom=8, padding=12, bg="#303034",
                         on_tap=_open_notification(device, n), children=[
                             Node("android.widget.TextView", id="android:id/app_name_text", text=label, height=20),
                             Node("android.widget.TextView", id="android:id/title", text=n.title),
                             Node("android.widget.TextView", id="android:id/text", text=n.text)]))
    if rows:
        rows.append(Node("android.widget.Button", id=SUI + "dismiss_text", text="Clear all", height=48, width=140,
                         on_tap=lambda: _clear_all(device)))
    else:
        rows.append(Node("android.widget.TextView", id=SUI + "no_notifications", text="No notifications",
                         height=48))
    return Node("android.widget.FrameLayout", id=SUI + "notification_panel", padding=16, bg="#1f1f24", children=[
        Node("android.widget.TextView", id=SUI + "clock", text=time.strftime("%H:%M", time.gmtime(device.clock.wall())),
             height=40, margin_bottom=8),
        tiles, slider,
        Node("android.widget.ScrollView", id=SUI + "notification_stack_scroller", scroll="vertical",
             children=rows),
    ])


def _open_notification(device: "VirtualDevice", n):
    def open_it() -> None:
        device.cancel_notification(n.package, n.id)
        device.shade_expanded = False
        if n.package in device.packages and device.packages[n.package].launcher_activity:
            device.launch(n.package)
    return open_it


def _clear_all(device: "VirtualDevice") -> None:
    device.notifications.clear()
    device.shade_expanded = False


# ---------------------------------------------------------------------------------------------------------------
# small stock apps


class Contacts(App):
    package = "com.google.android.contacts"
    label = "Contacts"
    activity = "com.android.contacts.activities.PeopleActivity"
    permissions = ("android.permission.READ_CONTACTS", "android.permission.WRITE_CONTACTS",
                   "android.permission.CALL_PHONE")
    system = True
    version_name = "4.36.21.650839476"
    version_code = 3436211

    def render(self) -> Node:
        store = self.device.storage(self.package)
        # Contacts seeded by the device itself, then those a `content insert` added (raw contact, name row).
        contacts = list(store.get("contacts", [])) + [n for n in store.get("raw_contacts", {}).values() if n]
        rows = [Node("android.widget.TextView", id="com.google.android.contacts:id/cliv_name_textview", text=c,
                     height=56, on_tap=lambda: None) for c in contacts]
        if not rows:
            rows = [Node("android.widget.TextView", id="com.google.android.contacts:id/empty_view_title",
                         text="No contacts yet", height=48)]
        return Node("android.widget.FrameLayout", children=[
            Node("android.widget.EditText", id="com.google.android.contacts:id/open_search_bar",
                 text="Search contacts", height=56, clickable=True, margin_bottom=8),
            Node("androidx.recyclerview.widget.RecyclerView", id="com.google.android.contacts:id/list",
                 scroll="vertical", children=rows),
            Node("android.widget.Button", id="com.google.android.contacts:id/floating_action_button",
                 desc="Create contact", height=56, width=56, on_tap=self._create, overlay=False),
        ])

    def _create(self) -> None:
        self.device.toast("Contacts can't be created on this device")


class Clock(App):
    package = "com.google.android.deskclock"
    label = "Clock"
    activity = "com.android.deskclock.DeskClock"
    system = True
    version_name = "7.9 (2024)"
    version_code = 79000

    def __init__(self, device):
        super().__init__(device)
        self.tab = "Clock"

    def render(self) -> Node:
        wall = self.device.clock.wall()
        tabs = Node("android.widget.LinearLayout", id="com.google.android.deskclock:id/tabs", horizontal=True,
                    height=64, children=[
                        Node("android.widget.FrameLayout", desc=name, selected=self.tab == name, height=64,
                             on_tap=(lambda n=name: setattr(self, "tab", n)),
                             children=[Node("android.widget.TextView", text=name, height=24)])
                        for name in ("Alarm", "Clock", "Timer", "Stopwatch", "Bedtime")])
        if self.tab == "Clock":
            body = [Node("android.widget.TextView", id="com.google.android.deskclock:id/digital_clock",
                         text=time.strftime("%H:%M", time.gmtime(wall)), height=96),
                    Node("android.widget.TextView", id="com.google.android.deskclock:id/date",
                         text=time.strftime("%a, %b %d", time.gmtime(wall)).replace(" 0", " "), height=32)]
        else:
            body = [Node("android.widget.TextView", text=f"No {self.tab.lower()}s" if self.tab == "Alarm"
                         else self.tab, height=48)]
        return Node("android.widget.FrameLayout", children=[
            Node("android.widget.LinearLayout", height=1400, children=body), tabs])


class Camera(App):
    package = "com.android.camera2"
    label = "Camera"
    activity = "com.android.camera.CameraLauncher"
    permissions = ("android.permission.CAMERA", "android.permission.RECORD_AUDIO",
                   "android.permission.ACCESS_FINE_LOCATION", "android.permission.ACCESS_COARSE_LOCATION")
    system = True
    version_name = "2.0.002"
    version_code = 20002
    background = "#000000"
    foreground = "#ffffff"

    def render(self) -> Node:
        return Node("android.widget.FrameLayout", children=[
            Node("android.view.View", id="com.android.camera2:id/preview_overlay", height=1600, bg="#20232a"),
            Node("android.widget.ImageButton", id="com.android.camera2:id/shutter_button", desc="Shutter",
                 height=96, width=96, on_tap=self._shoot),
        ])

    def _shoot(self) -> None:
        stamp = time.strftime("%Y%m%d_%H%M%S", time.gmtime(self.device.clock.wall()))
        self.device.files[f"/sdcard/DCIM/Camera/IMG_{stamp}.jpg"] = b"\xff\xd8\xff\xe0" + b"\0" * 64 + b"\xff\xd9"


class Chrome(App):
    package = "com.android.chrome"
    label = "Chrome"
    activity = "com.google.android.apps.chrome.Main"
    system = True
    version_name = "128.0.6613.127"
    version_code = 661312733

    def __init__(self, device):
        super().__init__(device)
        self.url = ""
        self.typing = ""

    def on_start(self, extras: dict) -> None:
        self.on_new_intent(extras)

    def on_new_intent(self, extras: dict) -> None:
        url = extras.get("data")
        if isinstance(url, str) and url:
            self.url = self.typing = url

    def render(self) -> Node:
        page = self.url or "New tab"
        return Node("android.widget.FrameLayout", children=[
            Node("android.widget.EditText", id="com.android.chrome:id/url_bar", text=self.typing,
                 hint="Search or type URL", editable=True, height=56, on_text=self._typed,
                 on_submit=self._go, margin_bottom=8),
            Node("android.webkit.WebView", text="", desc=page, height=1200, children=[
                Node("android.widget.TextView", text="You're offline" if self.url else "Discover", height=48)]),
        ])

    def _typed(self, value: str) -> None:
        self.typing = value

    def _go(self) -> None:
        self.url = self.typing
        self.device.hide_keyboard()


class Dialer(App):
    """The Phone app (Google's dialer, the emulator image's default phone app): the keypad types a number; a call
    needs the cellular modem the virtual device does not have, so placing one says so rather than ringing."""
    package = "com.google.android.dialer"
    label = "Phone"
    activity = "com.google.android.dialer.extensions.GoogleDialtactsActivity"
    # The default dialer holds the dialer role, whose permissions the system grants it (defaults.ROLE_GRANTS): no
    # prompt on first start.
    permissions = ("android.permission.CALL_PHONE", "android.permission.READ_CONTACTS",
                   "android.permission.READ_CALL_LOG")
    system = True
    version_name = "141.0.644089640"
    version_code = 10938614
    TABS = ("Favorites", "Recents", "Contacts", "Keypad")
    KEYS = (("1", "2", "3"), ("4", "5", "6"), ("7", "8", "9"), ("*", "0", "#"))
    ID = "com.google.android.dialer:id/"

    def __init__(self, device):
        super().__init__(device)
        self.tab = "Favorites"
        self.number = ""

    def render(self) -> Node:
        tabs = Node("android.widget.LinearLayout", id=self.ID + "bottom_navigation", horizontal=True, height=72,
                    children=[Node("android.widget.FrameLayout", desc=name, selected=self.tab == name, height=72,
                                   on_tap=(lambda n=name: setattr(self, "tab", n)),
                                   children=[Node("android.widget.TextView", text=name, height=24)])
                              for name in self.TABS])
        if self.tab == "Keypad":
            rows = [Node("android.widget.LinearLayout", horizontal=True, height=80, margin_bottom=8, children=[
                Node("android.widget.FrameLayout", id=self.ID + "dialpad_key_number", desc=key, text=key,
                     height=80, margin_right=8, on_tap=(lambda k=key: self._key(k))) for key in row])
                for row in self.KEYS]
            body = [Node("android.widget.EditText", id=self.ID + "digits", text=self.number, hint="Enter a number",
                         height=96, margin_bottom=24),
                    *rows,
                    Node("android.widget.LinearLayout", horizontal=True, height=72, children=[
                        Node("android.widget.ImageButton", id=self.ID + "dialpad_floating_action_button",
                             desc="dial", height=72, on_tap=self._call),
                        Node("android.widget.ImageButton", id=self.ID + "deleteButton", desc="backspace",
                             height=72, on_tap=self._delete)])]
        else:
            empty = {"Favorites": "No favorites yet", "Recents": "Your call history is empty",
                     "Contacts": "No contacts yet"}[self.tab]
            body = [Node("android.widget.TextView", id=self.ID + "empty_list_view_message", text=empty, height=48)]
        return Node("android.widget.FrameLayout", children=[
            Node("android.widget.EditText", id=self.ID + "open_search_bar", text="Search contacts & places",
                 height=56, clickable=True, margin_bottom=8),
            Node("android.widget.LinearLayout", height=1300, children=body), tabs])

    def _key(self, key: str) -> None:
        self.number += key

    def _delete(self) -> None:
        self.number = self.number[:-1]

    def _call(self) -> None:
        if self.number:
            self.device.toast("Call not sent: this device has no cellular modem")


class Calculator(App):
    package = "com.google.android.calculator"
    label = "Calculator"
    activity = "com.android.calculator2.Calculator"
    system = True
    version_name = "8.6 (2024)"
    version_code = 86000

    KEYS = [["AC", "()", "%", "÷"], ["7", "8", "9", "×"], ["4", "5", "6", "−"], ["1", "2", "3", "+"],
            ["0", ".", "⌫", "="]]
    IDS = {"AC": "clr", "()": "parens", "%": "op_pct", "÷": "op_div", "×": "op_mul", "−": "op_sub", "+": "op_add",
           ".": "dec_point", "⌫": "del", "=": "eq"}
    DESCS = {"AC": "clear", "()": "parentheses", "%": "percent", "÷": "divide", "×": "multiply", "−": "minus",
             "+": "plus", ".": "point", "⌫": "backspace", "=": "equals"}

    def __init__(self, device):
        super().__init__(device)
        self.expr = ""
        self.result = ""

    def render(self) -> Node:
        rows = []
        for row in self.KEYS:
            rows.append(Node("android.widget.LinearLayout", horizontal=True, height=80, margin_bottom=8, children=[
                Node("android.widget.ImageButton" if k in self.IDS else "android.widget.Button",
                     id="com.google.android.calculator:id/" + self.IDS.get(k, f"digit_{k}"),
                     text="" if k in self.IDS else k, desc=self.DESCS.get(k, ""), height=80, margin_right=8,
                     on_tap=(lambda k=k: self._key(k))) for k in row]))
        return Node("android.widget.FrameLayout", padding=16, children=[
            Node("android.widget.TextView", id="com.google.android.calculator:id/formula", text=self.expr,
                 height=96),
            Node("android.widget.TextView", id="com.google.android.calculator:id/result_preview",
                 text=self.result, height=64, margin_bottom=120),
            *rows])

    def _key(self, k: str) -> None:
        if k == "AC":
            self.expr, self.result = "", ""
        elif k == "⌫":
            self.expr = self.expr[:-1]
        elif k == "=":
            self.result = self._eval()
            if self.result and self.result != "Error":
                self.expr = self.result
        elif k == "()":
            self.expr += "(" if self.expr.count("(") <= self.expr.count(")") else ")"
        else:
            self.expr += k

    def _eval(self) -> str:
        src = self.expr.replace("×", "*").replace("÷", "/").replace("−", "-").replace("%", "/100")
        ops = {ast.Add: operator.add, ast.Sub: operator.sub, ast.Mult: operator.mul, ast.Div: operator.truediv,
               ast.USub: operator.neg}

        def ev(n):
            if isinstance(n, ast.Expression):
                return ev(n.body)
            if isinstance(n, ast.Constant) and isinstance(n.value, (int, float)):
                return n.value
            if isinstance(n, ast.BinOp) and type(n.op) in ops:
                return ops[type(n.op)](ev(n.left), ev(n.right))
            if isinstance(n, ast.UnaryOp) and type(n.op) in ops:
                return ops[type(n.op)](ev(n.operand))
            raise ValueError
        try:
            v = ev(ast.parse(src, mode="eval"))
        except (SyntaxError, ValueError, ZeroDivisionError, TypeError):
            return "Error" if src else ""
        if isinstance(v, float) and v.is_integer():
            v = int(v)
        return str(round(v, 10) if isinstance(v, float) else v)


class ShareSheet(App):
    """com.android.intentresolver's chooser, what an app's share button opens."""
    package = "com.android.intentresolver"
    label = "Intent Resolver"
    activity = "com.android.intentresolver.ChooserActivity"
    system = True
    launcher = False

    def render(self) -> Node:
        text = str(self.extras.get("android.intent.extra.TEXT", ""))
        return Node("android.widget.FrameLayout", children=[
            Node("android.view.View", height=420, touch="block"),
            Node("android.widget.LinearLayout", id="com.android.intentresolver:id/chooser_header", padding=16,
                 bg="#f3f3fa", children=[
                     Node("android.widget.TextView", id="com.android.intentresolver:id/headline",
                          text=text or "Sharing", height=32, margin_bottom=16),
                     Node("android.widget.Button", id="com.android.intentresolver:id/copy", desc="Copy",
                          text="Copy", height=56, width=120, on_tap=self._copy),
                     Node("android.widget.TextView", text="No recommended people to share with", height=48),
                 ])])

    def on_back(self) -> bool:
        # the chooser runs over the app that shared: back closes it and returns there
        self.device.finish_current()
        return True

    def _copy(self) -> None:
        self.device.clipboard = str(self.extras.get("android.intent.extra.TEXT", ""))
        self.device.toast("Copied")
        self.device.finish_current()

    def on_stop(self) -> None:
        cb = self.extras.get("on_close")
        if callable(cb):
            self.extras.pop("on_close", None)
            cb()


class PermissionController(App):
    package = "com.google.android.permissioncontroller"
    label = "Permission controller"
    activity = "com.android.permissioncontroller.permission.ui.GrantPermissionsActivity"
    system = True
    launcher = False


class SystemUI(App):
    package = "com.android.systemui"
    label = "System UI"
    activity = ".SystemUIService"
    system = True
    launcher = False


class Gboard(App):
    package = "com.google.android.inputmethod.latin"
    label = "Gboard"
    activity = "com.android.inputmethod.latin.LatinIME"
    system = True
    launcher = False


class Shell(App):
    """com.android.shell: owns what the shell user posts (`cmd notification post`), bug reports and the like."""
    package = "com.android.shell"
    label = "Shell"
    activity = ".BugreportWarningActivity"
    system = True
    launcher = False
    uid = 2000


class Phone(App):
    package = "com.android.phone"
    label = "Phone Services"
    activity = ".EmergencyDialer"
    system = True
    launcher = False


class PlayServices(App):
    package = "com.google.android.gms"
    label = "Google Play services"
    activity = ".app.settings.GoogleSettingsActivity"
    system = True
    launcher = False
    version_name = "24.33.13 (190400-663960016)"
    version_code = 243313035


APPS = [Contacts, Clock, Camera, Chrome, Calculator, Dialer, ShareSheet, PermissionController, SystemUI, Gboard,
        Shell, Phone, PlayServices]
