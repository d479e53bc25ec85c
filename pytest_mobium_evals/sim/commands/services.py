"""`svc` and `cmd` on the virtual device: radios, notifications, uimode, connectivity, wifi, statusbar."""

from __future__ import annotations

from .am import am
from .base import Ctx, command, java_exception
from .ime import ime_command
from .input import input_command, window_command
from .location import location_command
from .pm import pm
from .settings import settings


@command("svc")
def _svc(ctx: Ctx, args: list[str]) -> int:
    d = ctx.device
    if len(args) == 2 and args[1] in ("enable", "disable"):
        on = args[1] == "enable"
        if args[0] == "wifi":
            d.set_wifi(on)
            return 0
        if args[0] == "bluetooth":
            d.set_bluetooth(on)
            return 0
        if args[0] == "data":
            d.set_mobile_data(on)
            return 0
        if args[0] == "nfc":
            ctx.errln("NFC is not supported on this device")
            return 1
    if args and args[0] == "power" and len(args) >= 2:
        return 0
    if args and args[0] in ("wifi", "bluetooth", "data", "nfc", "usb", "power"):
        what = {"wifi": "Wi-Fi manager", "bluetooth": "Bluetooth", "data": "mobile data connectivity",
                "nfc": "NFC functionality", "usb": "USB", "power": "power manager"}[args[0]]
        ctx.outln(f"Control the {what}\n\nusage: svc {args[0]} [enable|disable]\n")
        return 1
    ctx.outln("Available commands:\n    help     Show information about the subcommands\n"
              "    power    Control the power manager\n    data     Control mobile data connectivity\n"
              "    wifi     Control the Wi-Fi manager\n    usb      Control Usb state\n"
              "    nfc      Control NFC functions\n    bluetooth Control Bluetooth service\n")
    return 0 if not args or args[0] == "help" else 1


#: `service list`'s names and their binder interfaces, as Android 15 lists them (a subset: the ones whose
#: commands this device answers).
BINDER_SERVICES = {
    "activity": "android.app.IActivityManager", "alarm": "android.app.IAlarmManager",
    "appops": "com.android.internal.app.IAppOpsService", "audio": "android.media.IAudioService",
    "battery": "", "bluetooth_manager": "android.bluetooth.IBluetoothManager",
    "clipboard": "android.content.IClipboard", "connectivity": "android.net.IConnectivityManager",
    "display": "android.hardware.display.IDisplayManager", "input": "android.hardware.input.IInputManager",
    "input_method": "com.android.internal.view.IInputMethodManager", "location": "android.location.ILocationManager",
    "media_session": "android.media.session.ISessionManager",
    "notification": "android.app.INotificationManager", "package": "android.content.pm.IPackageManager",
    "permissionmgr": "android.permission.IPermissionManager", "phone": "com.android.internal.telephony.ITelephony",
    "power": "android.os.IPowerManager", "settings": "",
    "statusbar": "com.android.internal.statusbar.IStatusBarService",
    "uimode": "android.app.IUiModeManager", "wifi": "android.net.wifi.IWifiManager",
    "window": "android.view.IWindowManager",
}
SERVICE_USAGE = """Usage: service [-h|-?]
       service list
       service check SERVICE
       service call SERVICE CODE [i32 N | i64 N | f N | d N | s16 STR | null | fd f | nfd n | afd f ] ...
Options:
   i32: Write the 32-bit integer N into the send parcel.
   i64: Write the 64-bit integer N into the send parcel.
   f:   Write the 32-bit single-precision number N into the send parcel.
   d:   Write the 64-bit double-precision number N into the send parcel.
   s16: Write the UTF-16 string STR into the send parcel.
  null: Write a null binder into the send parcel.
    fd: Write a file descriptor for the file f into the send parcel.
   nfd: Write the file descriptor n into the send parcel.
   afd: Write an ashmem file descriptor for a region containing the data from
          file f into the send parcel.
"""
#: IAlarmManager's transaction codes: AIDL numbers methods from 1 in declaration order (set, setTime,
#: setTimeZone, ...); code 3 is the one scripts send to set the zone.
ALARM_SET_TIME_ZONE = 3


def parcel_text(data: bytes) -> str:
    """A reply parcel as `service call` prints it: its 32-bit words in hex, then its bytes as text."""
    words = [data[i:i + 4][::-1].hex() for i in range(0, len(data), 4)]
    shown = "".join(chr(b) if 32 <= b < 127 else "." for b in data)
    return f"Parcel({' '.join(words)}{' ' * (5 - len(words))}'{shown}')"


@command("service")
def _service(ctx: Ctx, args: list[str]) -> int:
    """cmds/service: list, check, and call. A call reaches only the transactions the device models; the
    reply of a void method that did not throw is a parcel holding the no-exception header, 0."""
    if not args or args[0] in ("-h", "-?"):
        ctx.err(SERVICE_USAGE)
        return 0 if args else 10
    verb, rest = args[0], args[1:]
    if verb == "list":
        ctx.outln(f"Found {len(BINDER_SERVICES)} services:")
        for n, (name, iface) in enumerate(sorted(BINDER_SERVICES.items())):
            ctx.outln(f"{n}\t{name}: [{iface}]")
        return 0
    if verb == "check" and rest:
        found = "found" if rest[0] in BINDER_SERVICES else "not found"
        ctx.outln(f"Service {rest[0]}: {found}")
        return 0
    if verb == "call" and len(rest) >= 2:
        name, code_text, payload = rest[0], rest[1], rest[2:]
        if name not in BINDER_SERVICES or not BINDER_SERVICES[name]:
            ctx.errln(f"service: Service {name} does not exist")
            return 10
        values, problem = _parcel_args(payload)
        if problem:
            ctx.errln(f"service: {problem}")
            ctx.err(SERVICE_USAGE)
            return 10
        try:
            code = int(code_text)
        except ValueError:
            code = 0  # service.cpp reads the code with atoi
        if name == "alarm" and code == ALARM_SET_TIME_ZONE and [kind for kind, _ in values] == ["s16"]:
            ctx.device.set_time_zone(values[0][1])
            ctx.outln(f"Result: {parcel_text(bytes(4))}")
            return 0
        ctx.errln(f"service: the virtual device does not model transaction {code_text} of {name} "
                  f"({BINDER_SERVICES[name]})")
        return 10
    ctx.err(SERVICE_USAGE)
    return 10


def _parcel_args(payload: list[str]) -> tuple[list[tuple[str, str]], str]:
    values: list[tuple[str, str]] = []
    i = 0
    while i < len(payload):
        kind = payload[i]
        if kind == "null":
            values.append((kind, ""))
            i += 1
            continue
        if kind not in ("i32", "i64", "f", "d", "s16", "fd", "nfd", "afd"):
            return values, f"unknown option {kind}"
        if i + 1 >= len(payload):
            return values, f"no value supplied for '{kind}'"
        values.append((kind, payload[i + 1]))
        i += 2
    return values, ""


SERVICES = ("activity", "package", "settings", "input", "uimode", "connectivity", "wifi", "statusbar",
            "bluetooth_manager", "notification", "window", "power", "display", "battery", "input_method",
            "clipboard", "phone", "media_session", "audio", "location", "appops", "permissionmgr")


@command("cmd")
def _cmd(ctx: Ctx, args: list[str]) -> int:
    if args and args[0] == "-w":
        args = args[1:]
    if not args:
        ctx.errln("cmd: No service specified; use -l to list all running services. Use -w to start and wait "
                  "for a service.")
        return 20
    if args[0] == "-l":
        ctx.outln("Currently running services:")
        for s in sorted(SERVICES):
            ctx.outln(f"  {s}")
        return 0
    service, rest = args[0], args[1:]
    if service == "activity":
        return am(ctx, rest)
    if service == "package":
        return pm(ctx, rest)
    if service == "settings":
        return settings(ctx, rest)
    if service == "input":
        return input_command(ctx, rest)
    if service == "window":
        return window_command(ctx, rest)
    if service == "uimode":
        return _uimode(ctx, rest)
    if service == "connectivity":
        return _connectivity(ctx, rest)
    if service == "wifi":
        return _wifi(ctx, rest)
    if service == "statusbar":
        return _statusbar(ctx, rest)
    if service == "bluetooth_manager":
        if rest and rest[0] in ("enable", "disable"):
            ctx.device.set_bluetooth(rest[0] == "enable")
            return 0
        ctx.outln("Bluetooth Manager Commands:\n  enable\n  disable\n  wait-for-state:<STATE_OFF|STATE_ON>")
        return 255 if rest else 0
    if service == "notification":
        if rest and rest[0] == "set_dnd":
            return _set_dnd(ctx, rest[1:])
        return _notification_cmd(ctx, rest)
    if service == "location":
        return location_command(ctx, rest)
    if service == "input_method" and rest[:1] == ["ime"]:
        return ime_command(ctx, rest[1:])
    if service in SERVICES:
        if not rest:
            ctx.errln("No shell command implementation.")
            return 255
        ctx.outln(f"Unknown command: {rest[0]}")
        return 255
    ctx.errln(f"cmd: Can't find service: {service}")
    return 20


#: `cmd notification set_dnd` words and the zen_mode each writes (Settings.Global.ZEN_MODE_*).
ZEN_MODES = {"off": "0", "on": "1", "priority": "1", "none": "2", "alarms": "3", "all": "0"}


def _set_dnd(ctx: Ctx, args: list[str]) -> int:
    if len(args) != 1 or args[0] not in ZEN_MODES:
        ctx.errln("usage: cmd notification set_dnd [on|none (same)|priority|alarms|all|off (same)]")
        return 255
    ctx.device.settings("global")["zen_mode"] = ZEN_MODES[args[0]]
    return 0


def _notification_listener(ctx: Ctx, allow: bool, args: list[str]) -> int:
    """`cmd notification allow_listener|disallow_listener COMPONENT [user_id]`: the notification listeners the user
    allowed live in Settings.Secure's enabled_notification_listeners, as full component names joined by ':'."""
    if not args or "/" not in args[0]:
        ctx.errln("Invalid listener - must be a ComponentName")
        return 255
    package, _, cls = args[0].partition("/")
    component = f"{package}/{package + cls if cls.startswith('.') else cls}"
    secure = ctx.device.settings("secure")
    enabled = [c for c in secure.get("enabled_notification_listeners", "").split(":") if c and c != component]
    if allow:
        enabled.append(component)
    secure["enabled_notification_listeners"] = ":".join(enabled)
    return 0


def _notification_cmd(ctx: Ctx, args: list[str]) -> int:
    """`cmd notification post [-t TITLE] [-S STYLE] [-v] TAG TEXT`: a notification from the shell user."""
    if not args or args[0] in ("help", "-h"):
        ctx.outln("usage: cmd notification SUBCMD [args]\n\nSUBCMDs:\n  allow_listener COMPONENT [user_id]\n"
                  "  post [--help | flags] TAG TEXT")
        return 0 if args else 255
    if args[0] in ("allow_listener", "disallow_listener"):
        return _notification_listener(ctx, args[0] == "allow_listener", args[1:])
    if args[0] != "post":
        ctx.outln(f"Unknown command: {args[0]}")
        return 255
    title = None
    rest: list[str] = []
    it = iter(args[1:])
    for a in it:
        if a in ("-t", "--title"):
            title = next(it, None)
        elif a in ("-S", "--style", "-i", "--icon", "-I", "--large-icon", "-c", "--content-intent", "-m",
                   "--message"):
            next(it, None)
        elif a in ("-v", "--verbose", "--wait"):
            continue
        elif a.startswith("-") and a != "-":
            ctx.errln(f"Error: unknown flag: {a}")
            return 255
        else:
            rest.append(a)
    if len(rest) < 2:
        return java_exception(ctx, "post", "java.lang.IllegalArgumentException",
                              "Argument expected after \"post\"" if not rest else "Argument expected",
                              "com.android.server.notification.NotificationShellCmd.doNotify"
                              "(NotificationShellCmd.java:612)")
    tag, text = rest[0], " ".join(rest[1:])
    ctx.device.post_notification("com.android.shell", title if title is not None else "", text, tag=tag)
    return 0


def _uimode(ctx: Ctx, args: list[str]) -> int:
    d = ctx.device
    if not args:
        ctx.outln("UiModeManager service (uimode) commands:\n  help\n    Print this help text.\n"
                  "  night [yes|no|auto|custom_schedule|custom_bedtime]\n"
                  "    Set or read night mode.\n  car [yes|no]\n    Set or read car mode.")
        return 255
    if args[0] != "night":
        if args[0] in ("help", "-h"):
            return _uimode(ctx, [])
        if args[0] == "car":
            ctx.outln("Car mode: no")
            return 0
        ctx.outln(f"Unknown command: {args[0]}")
        return 255
    if len(args) > 1:
        mode = args[1]
        if mode not in ("yes", "no", "auto"):
            if mode in ("custom_schedule", "custom_bedtime"):
                mode = "auto"
            else:
                ctx.errln("Error: mode must be 'yes', 'no', or 'auto', or 'custom_schedule', or "
                          "'custom_bedtime'")
                return 255
        d.set_night_mode(mode)
    current = {"2": "yes", "1": "no", "0": "auto"}.get(d.settings("secure").get("ui_night_mode", "1"), "unknown")
    ctx.outln(f"Night mode: {current}")
    return 0


def _connectivity(ctx: Ctx, args: list[str]) -> int:
    d = ctx.device
    if args and args[0] == "airplane-mode":
        if len(args) == 1:
            ctx.outln("enabled" if d.airplane_mode else "disabled")
            return 0
        if args[1] in ("enable", "disable"):
            d.set_airplane(args[1] == "enable")
            return 0
        ctx.errln(f"Unsupported command: airplane-mode {args[1]}")
        return 255
    if not args or args[0] in ("help", "-h"):
        ctx.outln("Connectivity service commands:\n  help\n    Print this help text.\n"
                  "  airplane-mode [enable|disable]\n    Turn airplane mode on or off.\n  airplane-mode\n"
                  "    Get airplane mode.")
        return 0 if args else 255
    ctx.outln(f"Unknown command: {args[0]}")
    return 255


def _wifi(ctx: Ctx, args: list[str]) -> int:
    d = ctx.device
    if not args:
        ctx.outln("Wi-Fi (wifi) commands:\n  help or -h\n    Print this help text.\n"
                  "  set-wifi-enabled enabled|disabled\n    Enables/disables Wifi on this device.\n"
                  "  status\n    Current wifi status")
        return 255
    if args[0] == "status":
        if d.wifi_enabled:
            ctx.outln("Wifi is enabled\nWifi scanning is only available when wifi is enabled\n"
                      "==== Primary ClientModeManager instance ====\n"
                      'Wifi is connected to "AndroidWifi"\n'
                      'WifiInfo: SSID: "AndroidWifi", BSSID: 00:13:10:85:fe:01, MAC: 02:00:00:00:00:00, '
                      "IP: /10.0.2.16, Security type: 0, Supplicant state: COMPLETED, Wi-Fi standard: 4, "
                      "RSSI: -50, Link speed: 1Mbps, Tx Link speed: 1Mbps, Max Supported Tx Link speed: 11Mbps, "
                      "Rx Link speed: -1Mbps, Max Supported Rx Link speed: 11Mbps, Frequency: 2447MHz")
        else:
            ctx.outln("Wifi is disabled\nWifi scanning is only available when wifi is enabled")
        return 0
    if args[0] == "set-wifi-enabled":
        if len(args) < 2 or args[1] not in ("enabled", "disabled"):
            ctx.errln("Invalid argument: set-wifi-enabled needs 'enabled' or 'disabled'")
            return 255
        d.set_wifi(args[1] == "enabled")
        return 0
    ctx.outln(f"Unknown command: {args[0]}")
    return 255


def _statusbar(ctx: Ctx, args: list[str]) -> int:
    d = ctx.device
    if args and args[0] in ("expand-notifications", "expand-settings"):
        d.shade_expanded = True
        d.keyboard_shown = False
        return 0
    if args and args[0] == "collapse":
        d.shade_expanded = False
        return 0
    ctx.outln("Status bar commands:\n  help\n    Print this help text.\n\n  expand-notifications\n"
              "    Open the notifications panel.\n\n  expand-settings\n    Open the notifications panel and "
              "expand quick settings if present.\n\n  collapse\n    Collapse the notifications and settings "
              "panel.")
    return 0 if not args or args[0] == "help" else 255
