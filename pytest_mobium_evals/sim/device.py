"""One virtual Android 15 device: system state, packages, the activity stack, windows, input, timers.

Everything happens under `device.lock` on the caller's thread: each shell command first runs the timers that are due
(`run_due`), then does its work (a streaming `logcat` also runs them as it polls). No thread of the device's own
exists, so behaviour is a function of the device clock and the commands it receives (plus `device.random` where the
real app is random).

For app authors (see also /work/notes/sim_api.md): `now`, `after`, `storage`, `files`, `toast`, `show_dialog`,
`request_permissions`, `permission`, `post_notification`, `clipboard`, `focus`/`focused_id`/`keyboard_shown`/
`hide_keyboard`, `log`, `start_activity`, `finish_current`, `current_app`, `settings`, `night_mode`, `random`.
Beyond that contract: `Node(on_drag=fn(fraction))` for seek bars, `App.on_scroll(id, offset, max_offset)`,
`App.on_new_intent(extras)`, `App.actions` (intent actions an activity answers), `device.scroll_offsets` /
`scroll_state(id)`, `grant`/`reset_permissions`/`permission_states`, the radios (`set_wifi`, `set_bluetooth`,
`set_airplane`, `set_mobile_data`, `set_brightness`, `set_night_mode`), and the input the shell uses (`tap`,
`long_press`, `swipe`, `key`, `type_text`, `select_all`, `dump_xml`, `frame`).
"""

from __future__ import annotations

import heapq
import importlib
import itertools
import random
import threading
import traceback
import zlib
from collections import deque
from dataclasses import dataclass, field
from typing import Any, Callable, Iterable

from . import views
from .apps.base import App
from .clock import Clock
from .views import CONTENT_BOX, IME_BOX, NAV_BAR_TOP, SCREEN_H, SCREEN_W, STATUS_BAR_BOTTOM, Node, Placed

LAUNCHER_PACKAGE = "com.google.android.apps.nexuslauncher"
PERMISSION_PACKAGE = "com.google.android.permissioncontroller"
SYSTEMUI_PACKAGE = "com.android.systemui"
IME_PACKAGE = "com.google.android.inputmethod.latin"
IME_ID = "com.google.android.inputmethod.latin/com.android.inputmethod.latin.LatinIME"

# Runtime ("dangerous") permissions the platform knows, with the dialog's wording (Android 15, en-US).
LOCATION_PERMS = ("android.permission.ACCESS_FINE_LOCATION", "android.permission.ACCESS_COARSE_LOCATION")
PERMISSION_QUESTIONS = {
    "android.permission.ACCESS_FINE_LOCATION": "access this device\u2019s location",
    "android.permission.ACCESS_COARSE_LOCATION": "access this device\u2019s location",
    "android.permission.CAMERA": "take pictures and record video",
    "android.permission.RECORD_AUDIO": "record audio",
    "android.permission.POST_NOTIFICATIONS": "send you notifications",
    "android.permission.READ_CONTACTS": "access your contacts",
    "android.permission.WRITE_CONTACTS": "access your contacts",
    "android.permission.READ_CALENDAR": "access your calendar",
    "android.permission.WRITE_CALENDAR": "access your calendar",
    "android.permission.READ_PHONE_STATE": "make and manage phone calls",
    "android.permission.CALL_PHONE": "make and manage phone calls",
    "android.permission.READ_MEDIA_IMAGES": "access photos and videos on this device",
    "android.permission.READ_MEDIA_VIDEO": "access photos and videos on this device",
    "android.permission.READ_MEDIA_AUDIO": "access music and audio on this device",
    "android.permission.BODY_SENSORS": "access sensor data about your vital signs",
    "android.permission.ACTIVITY_RECOGNITION": "access your physical activity",
    "android.permission.NEARBY_WIFI_DEVICES": "find, connect to, and determine the relative position of nearby devices",
    "android.permission.BLUETOOTH_CONNECT": "find, connect to, and determine the relative position of nearby devices",
    "android.permission.BLUETOOTH_SCAN": "find, connect to, and determine the relative position of nearby devices",
    "android.permission.SEND_SMS": "send and view SMS messages",
    "android.permission.READ_SMS": "send and view SMS messages",
}
# Flags a fresh install carries on every runtime permission it requests (Android 13+).
BASE_FLAGS = ("USER_SENSITIVE_WHEN_GRANTED", "USER_SENSITIVE_WHEN_DENIED")

KEYBOARD_CAPTION = "Gboard"


class VirtualDeviceError(Exception):
    """A request the device refuses (unknown package, bad component): the message is what the shell prints."""


# ---------------------------------------------------------------------------------------------------------------
# records

class Timer:
    __slots__ = ("when", "seq", "callback", "cancelled", "owner")

    def __init__(self, when: float, seq: int, callback: Callable[[], None], owner: str | None):
        self.when = when
        self.seq = seq
        self.callback = callback
        self.cancelled = False
        self.owner = owner

    def cancel(self) -> None:
        self.cancelled = True

    def __lt__(self, other: "Timer") -> bool:
        return (self.when, self.seq) < (other.when, other.seq)


@dataclass
class PackageInfo:
    name: str
    label: str
    uid: int
    activities: dict[str, type[App]]  # full class name -> App class
    launcher_activity: str | None     # full class name
    permissions: tuple[str, ...]
    system: bool
    code_path: str
    version_name: str
    version_code: int
    target_sdk: int
    install_time: float
    install_permissions: tuple[str, ...] = ("android.permission.INTERNET",)

    def short(self, cls: str) -> str:
        """`pkg/.Act` when the class lives in the package, `pkg/full.Class` otherwise (ComponentName short form)."""
        if cls.startswith(self.name + "."):
            return f"{self.name}/{cls[len(self.name):]}"
        return f"{self.name}/{cls}"

    def resolve(self, cls: str) -> str:
        return self.name + cls if cls.startswith(".") else cls


@dataclass
class PermissionState:
    granted: bool = False
    flags: set[str] = field(default_factory=lambda: set(BASE_FLAGS))
    denials: int = 0

    @property
    def undetermined(self) -> bool:
        return not self.granted and "USER_SET" not in self.flags and "USER_FIXED" not in self.flags


@dataclass
class Process:
    package: str
    pid: int
    uid: int
    started: float


@dataclass
class Dialog:
    title: str
    message: str
    buttons: list[tuple[str, str, Callable[[], None] | None]]
    package: str
    cancelable: bool = False
    on_cancel: Callable[[], None] | None = None
    kind: str = "alert"  # "alert" | "permission" | "crash"
    caps: bool = True
    token: str = ""
    # permission dialogs: the request being answered
    request: "PermissionRequest | None" = None


@dataclass
class PermissionRequest:
    package: str
    groups: list[list[str]]           # one dialog per group, in order
    results: dict[str, str]
    callback: Callable[[dict[str, str]], None] | None


class ActivityRecord:
    def __init__(self, device: "VirtualDevice", pkg: PackageInfo, cls: str, task: "ActivityTask", intent: str):
        self.device = device
        self.package = pkg
        self.cls = cls
        self.task = task
        self.intent = intent
        self.token = device.new_hash()
        self.window_token = device.new_hash()
        self.app: App | None = None
        self.dialogs: list[Dialog] = []
        self.scroll_offsets: dict[str, int] = {}
        self.state = "INITIALIZING"

    @property
    def short(self) -> str:
        return self.package.short(self.cls)

    @property
    def full(self) -> str:
        return f"{self.package.name}/{self.cls}"

    def record(self) -> str:
        return f"ActivityRecord{{{self.token} u0 {self.short} t{self.task.id}}}"

    def window(self) -> str:
        return f"Window{{{self.window_token} u0 {self.full}}}"


class ActivityTask:
    def __init__(self, device: "VirtualDevice", task_id: int, pkg: PackageInfo, kind: str = "standard"):
        self.id = task_id
        self.package = pkg
        self.kind = kind
        self.token = device.new_hash()
        self.activities: list[ActivityRecord] = []
        self.last_active = device.now()

    @property
    def top(self) -> ActivityRecord | None:
        return self.activities[-1] if self.activities else None

    def header(self, brief: bool = False) -> str:
        if self.kind == "home":
            root = self.activities[0].short if self.activities else self.package.name
            s = f"Task{{{self.token} #{self.id} type=home I={root}"
        else:
            s = f"Task{{{self.token} #{self.id} type=standard A={self.package.uid}:{self.package.name}"
        return s + ("}" if brief else "")


@dataclass
class Notification:
    id: int
    package: str
    title: str
    text: str
    when: float
    key: str
    channel: str = "default"
    tag: str | None = None


@dataclass
class Toast:
    text: str
    until: float
    package: str


@dataclass
class LogEntry:
    wall: float
    pid: int
    tid: int
    level: str
    tag: str
    message: str
    seq: int = 0  # increasing across the device's life: a streaming logcat follows from its last one


class Window:
    """One window of a frame, bottom to top: the app (or launcher), a dialog, the shade."""

    def __init__(self, kind: str, package: str, root: Placed | None, title: str, *,
                 background: str = "#ffffff", foreground: str = "#141826", box: tuple[int, int, int, int] | None = None,
                 activity: ActivityRecord | None = None, dialog: Dialog | None = None):
        self.kind = kind
        self.package = package
        self.root = root
        self.title = title
        self.background = background
        self.foreground = foreground
        self.box = box or (0, 0, SCREEN_W, SCREEN_H)
        self.activity = activity
        self.dialog = dialog


class Frame:
    def __init__(self, windows: list[Window], ime: bool, toast: Toast | None, screen_on: bool):
        self.windows = windows
        self.ime = ime
        self.toast = toast
        self.screen_on = screen_on

    @property
    def top(self) -> Window:
        return self.windows[-1]

    @property
    def app_window(self) -> Window:
        return self.windows[0]


# ---------------------------------------------------------------------------------------------------------------
# defaults

def default_settings(serial: str) -> dict[str, dict[str, str]]:
    android_id = "%016x" % (zlib.crc32(serial.encode()) * 2654435761 % (1 << 64))
    return {
        "global": {
            "adb_enabled": "1",
            "airplane_mode_on": "0",
            "airplane_mode_radios": "cell,bluetooth,uwb,wifi,wimax",
            "airplane_mode_toggleable_radios": "bluetooth,wifi",
            "animator_duration_scale": "1.0",
            "auto_time": "1",
            "auto_time_zone": "1",
            "ble_scan_always_enabled": "0",
            "bluetooth_on": "1",
            "boot_count": "1",
            "data_roaming": "0",
            "default_install_location": "0",
            "development_settings_enabled": "1",
            "device_name": "sdk_gphone64_x86_64",
            "device_provisioned": "1",
            "heads_up_notifications_enabled": "1",
            "low_power": "0",
            "mobile_data": "1",
            "mobile_data1": "1",
            "network_recommendations_enabled": "0",
            "package_verifier_user_consent": "-1",
            "stay_on_while_plugged_in": "0",
            "theater_mode_on": "0",
            "transition_animation_scale": "1.0",
            "usb_mass_storage_enabled": "1",
            "verifier_verify_adb_installs": "0",
            "wifi_on": "1",
            "wifi_scan_always_enabled": "0",
            "wifi_wakeup_enabled": "0",
            "window_animation_scale": "1.0",
            "zen_mode": "0",
        },
        "secure": {
            "accessibility_enabled": "0",
            "android_id": android_id,
            "backup_enabled": "0",
            "default_input_method": IME_ID,
            "enabled_accessibility_services": "",
            "enabled_input_methods": IME_ID,
            "immersive_mode_confirmations": "confirmed",
            "install_non_market_apps": "1",
            "location_mode": "3",
            "lock_screen_show_notifications": "1",
            "navigation_mode": "2",
            "notification_badging": "1",
            "screensaver_enabled": "0",
            "selected_input_method_subtype": "-1",
            "show_ime_with_hard_keyboard": "1",
            "skip_first_use_hints": "1",
            "sysui_qs_tiles": "internet,bt,flashlight,dnd,alarm,airplane,controls,wallet,rotation,battery,cast,"
                              "screenrecord,mictoggle,cameratoggle,custom(com.android.permissioncontroller/"
                              ".permission.service.v33.SafetyCenterQsTileService)",
            "touch_exploration_enabled": "0",
            "ui_night_mode": "1",
            "user_setup_complete": "1",
            "zen_duration": "0",
        },
        "system": {
            "accelerometer_rotation": "0",
            "alarm_alert": "content://media/internal/audio/media/10?title=Awaken&canonical=1",
            "dtmf_tone": "1",
            "font_scale": "1.0",
            "haptic_feedback_enabled": "1",
            "hearing_aid": "0",
            "lockscreen_sounds_enabled": "1",
            "notification_sound": "content://media/internal/audio/media/28?title=Eureka&canonical=1",
            "pointer_location": "0",
            "pointer_speed": "0",
            "ringtone": "content://media/internal/audio/media/120?title=Your%20New%20Adventure&canonical=1",
            "screen_brightness": "102",
            "screen_brightness_mode": "0",
            "screen_off_timeout": "60000",
            "show_touches": "0",
            "sound_effects_enabled": "1",
            "tty_mode": "0",
            "user_rotation": "0",
            "vibrate_when_ringing": "0",
            "volume_alarm": "6",
            "volume_music": "5",
            "volume_ring": "5",
        },
    }


def default_props(serial: str, port: int) -> dict[str, str]:
    return {
        "dalvik.vm.heapsize": "576m",
        "gsm.operator.alpha": "T-Mobile",
        "gsm.sim.state": "LOADED",
        "init.svc.adbd": "running",
        "init.svc.bootanim": "stopped",
        "persist.sys.locale": "en-US",
        "persist.sys.timezone": "UTC",
        "qemu.hw.mainkeys": "0",
        "ro.boot.hardware": "ranchu",
        "ro.boot.qemu": "1",
        "ro.boot.serialno": serial,
        "ro.board.platform": "",
        "ro.build.characteristics": "emulator",
        # The build names what this is, the virtual device of pytest-mobium-evals, not a Google system image: a run
        # record quotes the fingerprint, and a reader must not believe the run was on an emulator image.
        "ro.build.description": "mobium_evals_virtual_device-userdebug 15 MOBIUM.EVALS.VIRTUAL 1 dev-keys",
        "ro.build.display.id": "AE3A.240806.005",
        "ro.build.fingerprint": "mobium-evals/virtual_device/virtual:15/MOBIUM.EVALS.VIRTUAL/1:userdebug/dev-keys",
        "ro.mobium_evals.virtual_device": "1",
        "ro.build.id": "AE3A.240806.005",
        "ro.build.tags": "dev-keys",
        "ro.build.type": "userdebug",
        "ro.build.version.codename": "REL",
        "ro.build.version.incremental": "12228598",
        "ro.build.version.release": "15",
        "ro.build.version.release_or_codename": "15",
        "ro.build.version.sdk": "35",
        "ro.build.version.security_patch": "2024-08-05",
        "ro.debuggable": "1",
        "ro.hardware": "ranchu",
        "ro.kernel.qemu": "1",
        "ro.product.board": "goldfish_x86_64",
        "ro.product.brand": "google",
        "ro.product.cpu.abi": "x86_64",
        "ro.product.cpu.abilist": "x86_64,arm64-v8a",
        "ro.product.device": "emu64xa",
        "ro.product.locale": "en-US",
        "ro.product.manufacturer": "Google",
        "ro.product.model": "sdk_gphone64_x86_64",
        "ro.product.name": "sdk_gphone64_x86_64",
        "ro.secure": "1",
        "ro.serialno": serial,
        "ro.sf.lcd_density": "420",
        "service.adb.root": "0",
        "sys.boot_completed": "1",
        "dev.bootcomplete": "1",
        "net.hostname": f"android-{serial.replace('emulator-', '')}",
        "ro.kernel.android.qemud": "1",
        "qemu.sf.lcd_density": "420",
        "ro.adb.qemud": "1",
        "ro.boot.console_port": str(port),
    }


def _optional_apps(module: str) -> list[type[App]]:
    """The App classes a module provides (`APPS` if it lists them, else every App subclass defined in it), or []
    if the module is not there yet (other parts of the project write some apps)."""
    try:
        mod = importlib.import_module(module)
    except ModuleNotFoundError as exc:
        if exc.name == module:
            return []
        raise
    listed = getattr(mod, "APPS", None)
    if listed is not None:
        return list(listed)
    return [v for v in vars(mod).values()
            if isinstance(v, type) and issubclass(v, App) and v is not App and v.__module__ == mod.__name__
            and "package" in vars(v)]


def builtin_apps() -> list[type[App]]:
    from .apps import launcher, settings, system
    apps: list[type[App]] = [launcher.Launcher, *settings.APPS, *system.APPS]
    mobium = _optional_apps("pytest_mobium_evals.sim.apps.mobiumapp")
    if not mobium:
        mobium = [system.MobiumAppPlaceholder]
    apps.extend(mobium)
    apps.extend(_optional_apps("pytest_mobium_evals.sim.apps.market"))
    return apps


# ---------------------------------------------------------------------------------------------------------------
# the device

class VirtualDevice:
    def __init__(self, serial: str = "emulator-5554", *, clock: Clock | None = None, seed: int | None = None,
                 apps: Iterable[type[App]] | None = None, transport_id: int = 1):
        self.serial = serial
        self.transport_id = transport_id
        self.lock = threading.RLock()
        self.clock = clock or Clock()
        port = int(serial.rsplit("-", 1)[-1]) if serial.rsplit("-", 1)[-1].isdigit() else 5554
        self.console_port = port
        self._ids = random.Random(f"ids:{serial}")
        # The one source of randomness for app behaviour that is random on a real device (the Busy Demo's delay).
        self.random = random.Random(seed if seed is not None else zlib.crc32(serial.encode()))
        self._settings = default_settings(serial)
        self.props = default_props(serial, port)
        self.files: dict[str, bytes] = {}
        self.dirs: set[str] = {
            "/", "/sdcard", "/sdcard/Download", "/sdcard/DCIM", "/sdcard/DCIM/Camera", "/sdcard/Pictures",
            "/sdcard/Music", "/sdcard/Movies", "/sdcard/Documents", "/sdcard/Alarms", "/sdcard/Android",
            "/sdcard/Android/data", "/sdcard/Android/media", "/data", "/data/local", "/data/local/tmp", "/system",
            "/system/bin", "/system/app", "/system/priv-app", "/vendor", "/proc", "/dev", "/storage",
            "/storage/emulated", "/storage/emulated/0", "/storage/self", "/product", "/product/app",
            "/product/priv-app", "/data/app", "/data/user", "/data/user/0", "/etc", "/cache", "/mnt", "/odm",
            "/apex",
        }
        self.clipboard = ""
        self.packages: dict[str, PackageInfo] = {}
        self._storage: dict[str, dict] = {}
        self._perm: dict[str, dict[str, PermissionState]] = {}
        self.processes: dict[str, Process] = {}
        self.tasks: list[ActivityTask] = []  # front first
        self._task_ids = itertools.count(8)
        self._pids = itertools.count(2000 + self._ids.randrange(500))
        self._uids = itertools.count(10190)
        self._sys_uids = itertools.count(10101)
        self._timers: list[Timer] = []
        self._timer_seq = itertools.count()
        self._now_override: float | None = None
        self._calling: list[str] = []
        self.logs: deque[LogEntry] = deque(maxlen=20000)
        self.log_seq = 0
        self.notifications: list[Notification] = []
        self._notification_ids = itertools.count(1)
        self.toasts: list[Toast] = []
        self.shade_expanded = False
        self.focused_id: str | None = None
        self.keyboard_shown = False
        self._cursor: int | None = None  # None = end of the field
        self._select_all = False
        self.screen_on = True
        self.rotation = 0
        self._crashes: dict[str, list[float]] = {}
        self.battery_level = 100
        self.system_pid = 500 + self._ids.randrange(200)
        self.frames = 0
        # Packages force-stopped and not launched since (`stopped=true` in dumpsys package, as on a device).
        self.stopped_packages: set[str] = set()
        # What `dumpsys audio` lists under "players:" (apps append AudioPlaybackConfiguration-like entries).
        self.audio_players: list = []
        # The GPS fix (lat, lon) an `emu geo fix` would set; None: the emulator's default position.
        self.location: tuple[float, float] | None = None
        for app_cls in (apps if apps is not None else builtin_apps()):
            self.install(app_cls)
        self.log("ActivityManager", "System now ready", pid=self.system_pid)
        self.go_home()

    # -- identity, time, randomness ------------------------------------------------------------------------------

    def new_hash(self) -> str:
        return "%07x" % self._ids.randrange(0x1000000, 0xfffffff)

    def now(self) -> float:
        if self._now_override is not None:
            return self._now_override
        return self.clock.now()

    def seed(self, value: int) -> None:
        """Reseed `device.random` (tests that need a specific run of the Busy Demo)."""
        self.random.seed(value)

    # -- timers ----------------------------------------------------------------------------------------------------

    def after(self, seconds: float, callback: Callable[[], None]) -> Timer:
        owner = self._calling[-1] if self._calling else None
        t = Timer(self.now() + max(0.0, float(seconds)), next(self._timer_seq), callback, owner)
        heapq.heappush(self._timers, t)
        return t

    def run_due(self) -> None:
        """Fire every timer that is due, in order, each seeing `now()` equal to its own due time."""
        with self.lock:
            now = self.clock.now()
            while self._timers and self._timers[0].when <= now:
                t = heapq.heappop(self._timers)
                if t.cancelled:
                    continue
                self._now_override = t.when
                try:
                    self._call(t.owner, t.callback)
                finally:
                    self._now_override = None
            self.toasts = [toast for toast in self.toasts if toast.until > now]

    def next_timer(self) -> float | None:
        live = [t.when for t in self._timers if not t.cancelled]
        return min(live) if live else None

    # -- calling into app code -------------------------------------------------------------------------------------

    def _call(self, package: str | None, fn: Callable, *args) -> Any:
        """Runs app code; an exception crashes that app (logcat FATAL EXCEPTION, process killed), never the device."""
        if package is not None:
            self._calling.append(package)
        try:
            return fn(*args)
        except Exception as exc:  # noqa: BLE001 - an app bug must look like an app crash, not a device failure
            if package is None:
                raise
            self._crash(package, exc)
            return None
        finally:
            if package is not None:
                self._calling.pop()

    def _crash(self, package: str, exc: BaseException) -> None:
        proc = self.processes.get(package)
        pid = proc.pid if proc else 0
        self.log("AndroidRuntime", "FATAL EXCEPTION: main", "E", pid=pid)
        self.log("AndroidRuntime", f"Process: {package}, PID: {pid}", "E", pid=pid)
        for line in traceback.format_exception(type(exc), exc, exc.__traceback__)[-6:]:
            for sub in line.rstrip().splitlines():
                self.log("AndroidRuntime", sub, "E", pid=pid)
        now = self.now()
        recent = [t for t in self._crashes.get(package, []) if now - t < 60] + [now]
        self._crashes[package] = recent
        self.kill_process(package, reason="crash")
        if len(recent) >= 2:
            pkg = self.packages.get(package)
            label = pkg.label if pkg else package
            home = self._home_task().top
            if home is not None:
                home.dialogs.append(Dialog(f"{label} keeps stopping", "", [
                    ("App info", "neutral", lambda: self.start_activity(
                        "com.android.settings/.applications.InstalledAppDetailsTop", {"package": package})),
                    ("Close app", "positive", None)], "android", cancelable=True, kind="crash",
                    caps=False, token=self.new_hash()))

    # -- packages ------------------------------------------------------------------------------------------------

    def install(self, app_cls: type[App]) -> PackageInfo:
        """Registers an activity class (and its package on first sight)."""
        name = app_cls.package
        cls = app_cls.activity if not app_cls.activity.startswith(".") else name + app_cls.activity
        pkg = self.packages.get(name)
        if pkg is None:
            if app_cls.system:
                folder = "priv-app" if name.startswith(("com.android.settings", LAUNCHER_PACKAGE)) else "app"
                base = app_cls.label.replace(" ", "")
                code_path = f"/system/{folder}/{base}"
                uid = getattr(app_cls, "uid", None) or (1000 if name == "com.android.settings"
                                                        else next(self._sys_uids))
            else:
                a = self._b64(name + "a")
                b = self._b64(name + "b")
                code_path = f"/data/app/~~{a}==/{name}-{b}=="
                uid = next(self._uids)
            pkg = PackageInfo(name, app_cls.label, uid, {}, None, tuple(app_cls.permissions), app_cls.system,
                              code_path, app_cls.version_name, app_cls.version_code, app_cls.target_sdk,
                              self.clock.boot_wall - (86400 * 30 if app_cls.system else 3600))
            self.packages[name] = pkg
            self._perm[name] = {p: PermissionState() for p in pkg.permissions}
        pkg.activities[cls] = app_cls
        if app_cls.launcher and pkg.launcher_activity is None:
            pkg.launcher_activity = cls
        for p in app_cls.permissions:
            if p not in pkg.permissions:
                pkg.permissions = pkg.permissions + (p,)
                self._perm[name][p] = PermissionState()
        return pkg

    def _b64(self, seed: str) -> str:
        import base64
        raw = zlib.crc32(seed.encode()).to_bytes(4, "big") * 4
        return base64.urlsafe_b64encode(raw).decode()[:22]

    def apk_path(self, package: str) -> str:
        pkg = self.packages[package]
        if pkg.system:
            return f"{pkg.code_path}/{pkg.code_path.rsplit('/', 1)[-1]}.apk"
        return f"{pkg.code_path}/base.apk"

    def launchable(self) -> list[PackageInfo]:
        return [p for p in self.packages.values() if p.launcher_activity]

    # -- settings, storage, permissions ----------------------------------------------------------------------------

    def settings(self, namespace: str) -> dict[str, str]:
        try:
            return self._settings[namespace]
        except KeyError:
            raise VirtualDeviceError(f"Invalid namespace '{namespace}'") from None

    @property
    def night_mode(self) -> bool:
        return self._settings["secure"].get("ui_night_mode") == "2"

    def set_night_mode(self, mode: str) -> None:
        """mode: "yes" | "no" | "auto"."""
        self._settings["secure"]["ui_night_mode"] = {"yes": "2", "no": "1", "auto": "0"}[mode]

    # Radios. The settings are the truth the Settings app and quick settings show; the values follow Android's
    # persisted states: wifi_on 0 off, 1 on, 2 on while in airplane mode, 3 off by airplane mode (comes back);
    # bluetooth_on 0 off, 1 on, 2 off by airplane mode (comes back).

    @property
    def wifi_enabled(self) -> bool:
        return self._settings["global"].get("wifi_on") in ("1", "2")

    @property
    def bluetooth_enabled(self) -> bool:
        return self._settings["global"].get("bluetooth_on") == "1"

    @property
    def airplane_mode(self) -> bool:
        return self._settings["global"].get("airplane_mode_on") == "1"

    def set_wifi(self, on: bool) -> None:
        g = self._settings["global"]
        g["wifi_on"] = ("2" if self.airplane_mode else "1") if on else "0"
        self.log("WifiService", f"setWifiEnabled package=com.android.shell uid=2000 enable={str(on).lower()}",
                 pid=self.system_pid)

    def set_bluetooth(self, on: bool) -> None:
        self._settings["global"]["bluetooth_on"] = "1" if on else "0"
        self.log("BluetoothManagerService", f"{'enable' if on else 'disable'}(): mBluetooth=null",
                 pid=self.system_pid)

    def set_mobile_data(self, on: bool) -> None:
        g = self._settings["global"]
        g["mobile_data"] = g["mobile_data1"] = "1" if on else "0"

    def set_airplane(self, on: bool) -> None:
        g = self._settings["global"]
        if on == self.airplane_mode:
            return
        g["airplane_mode_on"] = "1" if on else "0"
        if on:
            if g.get("wifi_on") in ("1", "2"):
                g["wifi_on"] = "3"
            if g.get("bluetooth_on") == "1":
                g["bluetooth_on"] = "2"
        else:
            if g.get("wifi_on") in ("2", "3"):
                g["wifi_on"] = "1"
            if g.get("bluetooth_on") == "2":
                g["bluetooth_on"] = "1"
        self.log("ConnectivityService", f"setAirplaneMode({str(on).lower()})", pid=self.system_pid)

    def set_brightness(self, value: int) -> None:
        self._settings["system"]["screen_brightness"] = str(max(0, min(255, int(value))))

    def storage(self, package: str) -> dict:
        return self._storage.setdefault(package, {})

    def permission(self, package: str, perm: str) -> str:
        st = self._perm.get(package, {}).get(perm)
        if st is None:
            return "denied"
        if st.granted:
            return "granted"
        return "undetermined" if st.undetermined else "denied"

    def permission_states(self, package: str) -> dict[str, PermissionState]:
        return self._perm.get(package, {})

    def grant(self, package: str, perm: str, *, granted: bool = True, flags: Iterable[str] = ()) -> None:
        st = self._perm[package][perm]
        st.granted = granted
        st.flags.update(flags)
        if granted:
            st.flags.discard("USER_FIXED")

    def reset_permissions(self, package: str | None = None) -> None:
        for name in ([package] if package else list(self._perm)):
            pkg = self.packages.get(name)
            if pkg:
                self._perm[name] = {p: PermissionState() for p in pkg.permissions}

    def request_permissions(self, package: str, perms: list[str],
                            callback: Callable[[dict[str, str]], None] | None) -> None:
        """Shows the system permission dialog for what is not granted yet; calls back with perm -> granted|denied."""
        results: dict[str, str] = {}
        pending: list[str] = []
        states = self._perm.get(package, {})
        for p in perms:
            st = states.get(p)
            if st is None:
                results[p] = "denied"  # not declared in the manifest: denied without asking
            elif st.granted:
                results[p] = "granted"
            elif "USER_FIXED" in st.flags:
                results[p] = "denied"  # "don't ask again" after two denials
            else:
                pending.append(p)
        if not pending:
            if callback is not None:
                self._call(package, callback, results)
            return
        groups: list[list[str]] = []
        loc = [p for p in pending if p in LOCATION_PERMS]
        if loc:
            groups.append(loc)
        seen_q: dict[str, list[str]] = {}
        for p in pending:
            if p in LOCATION_PERMS:
                continue
            q = PERMISSION_QUESTIONS.get(p, p)
            if q in seen_q:
                seen_q[q].append(p)
            else:
                seen_q[q] = [p]
                groups.append(seen_q[q])
        req = PermissionRequest(package, groups, results, callback)
        self._show_permission_dialog(req)

    def _show_permission_dialog(self, req: PermissionRequest) -> None:
        group = req.groups[0]
        pkg = self.packages[req.package]
        question = PERMISSION_QUESTIONS.get(group[0], group[0].rsplit(".", 1)[-1])
        if group[0] in LOCATION_PERMS:
            buttons = [("While using the app", "foreground", None), ("Only this time", "one_time", None),
                       ("Don\u2019t allow", "deny", None)]
        else:
            buttons = [("Allow", "allow", None), ("Don\u2019t allow", "deny", None)]
        dialog = Dialog("", f"Allow {pkg.label} to {question}?", buttons, PERMISSION_PACKAGE, cancelable=True,
                        kind="permission", caps=False, token=self.new_hash(), request=req)
        owner = self._owner_activity(req.package)
        if owner is None:
            # nothing on screen to ask over: the request fails as denied
            for p in group:
                req.results[p] = "denied"
            self._permission_next(req)
            return
        owner.dialogs.append(dialog)

    def _answer_permission(self, dialog: Dialog, role: str) -> None:
        req = dialog.request
        assert req is not None
        group = req.groups[0]
        for p in group:
            st = self._perm[req.package][p]
            if role in ("foreground", "allow", "one_time"):
                st.granted = True
                st.flags.add("USER_SET")
                st.flags.discard("USER_FIXED")
                if role == "one_time":
                    st.flags.add("ONE_TIME")
                else:
                    st.flags.discard("ONE_TIME")
                req.results[p] = "granted"
            elif role == "deny":
                st.granted = False
                st.denials += 1
                st.flags.add("USER_SET")
                if st.denials >= 2:
                    st.flags.add("USER_FIXED")
                req.results[p] = "denied"
            else:  # dismissed (back, outside): denied this time, not counted towards "don't ask again"
                req.results[p] = "denied"
        self._permission_next(req)

    def _permission_next(self, req: PermissionRequest) -> None:
        req.groups.pop(0)
        if req.groups:
            self._show_permission_dialog(req)
        elif req.callback is not None:
            self._call(req.package, req.callback, dict(req.results))

    # -- notifications, toasts, logs, clipboard ------------------------------------------------------------------

    def post_notification(self, package: str, title: str, text: str, channel: str = "default",
                          tag: str | None = None) -> int | None:
        """Posts a notification; returns its id, or None when the app may not post (POST_NOTIFICATIONS denied).
        A notification with the same tag from the same package replaces the earlier one."""
        perm = "android.permission.POST_NOTIFICATIONS"
        pkg = self.packages.get(package)
        if pkg is not None and perm in pkg.permissions and self.permission(package, perm) != "granted":
            self.log("NotificationService", f"Suppressing notification from package {package} by user request.",
                     "W", pid=self.system_pid)
            return None
        if tag is not None:
            self.notifications = [n for n in self.notifications if not (n.package == package and n.tag == tag)]
        nid = 2020 if tag is not None else next(self._notification_ids)
        uid = pkg.uid if pkg else 1000
        n = Notification(nid, package, str(title), str(text), self.clock.wall(self.now()),
                         f"0|{package}|{nid}|{tag if tag is not None else 'null'}|{uid}", channel, tag)
        self.notifications.insert(0, n)
        return nid

    def cancel_notification(self, package: str, nid: int | None = None) -> None:
        self.notifications = [n for n in self.notifications
                              if not (n.package == package and (nid is None or n.id == nid))]

    def toast(self, text: str, seconds: float = 2.0) -> None:
        package = self._calling[-1] if self._calling else "android"
        self.toasts = [Toast(str(text), self.now() + seconds, package)]

    def active_toast(self) -> Toast | None:
        now = self.now()
        live = [t for t in self.toasts if t.until > now]
        return live[-1] if live else None

    def log(self, tag: str, message: str, level: str = "I", *, pid: int | None = None) -> None:
        if pid is None:
            pkg = self._calling[-1] if self._calling else None
            proc = self.processes.get(pkg) if pkg else None
            pid = proc.pid if proc else self.system_pid
        tid = pid if pid != self.system_pid else pid + 17
        self.log_seq += 1
        self.logs.append(LogEntry(self.clock.wall(self.now()), pid, tid, level, tag, str(message), self.log_seq))

    # -- processes and the activity stack -----------------------------------------------------------------------

    def _home_task(self) -> ActivityTask:
        for t in self.tasks:
            if t.kind == "home":
                return t
        pkg = self.packages[LAUNCHER_PACKAGE]
        task = ActivityTask(self, 1, pkg, "home")
        self.tasks.append(task)
        cls = next(iter(pkg.activities))
        rec = ActivityRecord(self, pkg, cls, task,
                             f"act=android.intent.action.MAIN cat=[android.intent.category.HOME] flg=0x10000100 "
                             f"cmp={pkg.short(cls)}")
        task.activities.append(rec)
        self._create(rec, {})
        return task

    def _ensure_process(self, package: str) -> tuple[Process, bool]:
        proc = self.processes.get(package)
        if proc is not None:
            return proc, False
        pkg = self.packages[package]
        proc = Process(package, next(self._pids) + self._ids.randrange(1, 40), pkg.uid, self.now())
        self.processes[package] = proc
        self.stopped_packages.discard(package)
        self.log("ActivityManager", f"Start proc {proc.pid}:{package}/u0a{pkg.uid - 10000} for "
                 f"next-top-activity {{{package}/{pkg.launcher_activity or ''}}}", pid=self.system_pid)
        return proc, True

    def _create(self, rec: ActivityRecord, extras: dict) -> None:
        self._ensure_process(rec.package.name)
        app_cls = rec.package.activities[rec.cls]
        rec.app = self._call(rec.package.name, app_cls, self)
        if rec.app is not None:
            self._call(rec.package.name, rec.app.on_start, dict(extras))
        rec.state = "RESUMED"

    def current_activity(self) -> ActivityRecord | None:
        for t in self.tasks:
            if t.top is not None:
                return t.top
        return None

    def current_app(self) -> App | None:
        rec = self.current_activity()
        return rec.app if rec else None

    @property
    def scroll_offsets(self) -> dict[str, int]:
        """The current activity's scroll offsets (id -> px); an app may clear an entry when it remounts a list."""
        rec = self.current_activity()
        return rec.scroll_offsets if rec else {}

    def scroll_state(self, scroll_id: str) -> tuple[int, int]:
        """(offset, max offset) of a scroll container in the current frame, px."""
        frame = self.frame()
        root = frame.app_window.root
        if root is None:
            return 0, 0
        p = root.find(scroll_id)
        if p is None:
            return self.scroll_offsets.get(scroll_id, 0), 0
        return self.scroll_offsets.get(scroll_id, 0), self._max_offset(p)

    @staticmethod
    def _max_offset(p: Placed) -> int:
        pad = views._px(p.node.padding)
        if p.node.scroll == "vertical":
            viewport = p.box[3] - p.box[1] - 2 * pad
        else:
            viewport = p.box[2] - p.box[0] - 2 * pad
        return max(0, p.content_extent - viewport)

    def _owner_activity(self, package: str) -> ActivityRecord | None:
        for t in self.tasks:
            for rec in reversed(t.activities):
                if rec.package.name == package:
                    return rec
        return None

    def _bring_to_front(self, task: ActivityTask) -> None:
        prev = self.current_activity()
        if self.tasks and self.tasks[0] is task:
            return
        self.tasks.remove(task)
        self.tasks.insert(0, task)
        task.last_active = self.now()
        if prev is not None and prev is not task.top:
            self._stopped(prev)
        if task.top is not None:
            task.top.state = "RESUMED"

    def _stopped(self, rec: ActivityRecord) -> None:
        if rec.state == "RESUMED":
            rec.state = "STOPPED"
            if rec.app is not None:
                self._call(rec.package.name, rec.app.on_stop)
        if rec.package.name == (self._focus_package or ""):
            self._clear_focus()

    _focus_package: str | None = None  # the package whose field has focus (focus dies with its activity)

    def _clear_focus(self) -> None:
        self.focused_id = None
        self.keyboard_shown = False
        self._focus_package = None
        self._cursor = None
        self._select_all = False

    def resolve_component(self, component: str) -> tuple[PackageInfo, str]:
        """`pkg/.Act` or `pkg/full.Class` -> (package, full class). VirtualDeviceError if there is no such activity."""
        if "/" not in component:
            raise VirtualDeviceError(f"Bad component name: {component}")
        name, cls = component.split("/", 1)
        pkg = self.packages.get(name)
        full = (name + cls) if cls.startswith(".") else cls
        if pkg is None or full not in pkg.activities:
            raise VirtualDeviceError(f"Activity class {{{name}/{full}}} does not exist.")
        return pkg, full

    def start_activity(self, component: str, extras: dict | None = None, *, intent: str | None = None,
                       clear_top: bool = False) -> str:
        """Starts an activity as `am start -n` does (FLAG_ACTIVITY_NEW_TASK). Returns the launch state:
        "COLD" (process created), "WARM" (activity created in a live process), "HOT" (task brought to front) or
        "DELIVERED" (already the top-most instance)."""
        with self.lock:
            pkg, full = self.resolve_component(component)
            extras = dict(extras or {})
            if pkg.name == LAUNCHER_PACKAGE:
                self.go_home()
                return "HOT"
            intent = intent or f"flg=0x10000000 cmp={pkg.short(full)}"
            self.log("ActivityTaskManager", f"START u0 {{{intent}}} with LAUNCH_MULTIPLE from uid 2000 "
                     f"(BAL_ALLOW_PERMISSION) result code=0", pid=self.system_pid)
            task = next((t for t in self.tasks if t.kind == "standard" and t.package is pkg), None)
            if task is not None and task.activities:
                top = task.top
                if top is not None and top.cls == full and not clear_top:
                    was_front = self.tasks[0] is task
                    self._bring_to_front(task)
                    if top.app is not None and extras:
                        self._call(pkg.name, top.app.on_new_intent, extras)
                    self.shade_expanded = False
                    return "DELIVERED" if was_front else "HOT"
                # another activity of the package is on top: start this one in the same task
            if task is None:
                task = ActivityTask(self, next(self._task_ids), pkg)
                self.tasks.insert(0, task)
            else:
                self._bring_to_front(task)
            prev = self.current_activity()
            cold = pkg.name not in self.processes
            if prev is not None and prev.task is not task:
                self._stopped(prev)
            elif task.top is not None:
                self._stopped(task.top)
            rec = ActivityRecord(self, pkg, full, task, intent)
            task.activities.append(rec)
            task.last_active = self.now()
            if self.tasks[0] is not task:
                self.tasks.remove(task)
                self.tasks.insert(0, task)
            self._create(rec, extras)
            self.shade_expanded = False
            self.log("ActivityTaskManager", f"Displayed {rec.short} for user 0: +{380 if cold else 120}ms",
                     pid=self.system_pid)
            return "COLD" if cold else "WARM"

    def launch(self, package: str, extras: dict | None = None) -> str:
        """What tapping the app's icon does: bring its task to the front, or start its launcher activity."""
        pkg = self.packages.get(package)
        if pkg is None or pkg.launcher_activity is None:
            raise VirtualDeviceError("No activities found to run, monkey aborted.")
        task = next((t for t in self.tasks if t.kind == "standard" and t.package is pkg and t.activities), None)
        if task is not None:
            was_front = self.tasks[0] is task
            self._bring_to_front(task)
            self.shade_expanded = False
            return "DELIVERED" if was_front else "HOT"
        intent = (f"act=android.intent.action.MAIN cat=[android.intent.category.LAUNCHER] flg=0x10200000 "
                  f"cmp={pkg.short(pkg.launcher_activity)}")
        return self.start_activity(f"{pkg.name}/{pkg.launcher_activity}", extras, intent=intent)

    def go_home(self) -> None:
        with self.lock:
            home = self._home_task()
            self.shade_expanded = False
            self._bring_to_front(home)

    def finish_current(self) -> None:
        """Finishes the top activity (destroyed); its task goes away when it was the last one."""
        with self.lock:
            rec = self.current_activity()
            if rec is None or rec.task.kind == "home":
                return
            self._stopped(rec)
            task = rec.task
            task.activities.remove(rec)
            if not task.activities:
                self.tasks.remove(task)
            nxt = self.current_activity()
            if nxt is not None:
                nxt.state = "RESUMED"

    def move_task_to_back(self, rec: ActivityRecord) -> None:
        """Android 12+: back on a task's root activity moves the task behind the others (the activity lives on)."""
        self._stopped(rec)
        task = rec.task
        home = self._home_task()
        # the home screen comes to the front and the task sits right behind it (first in recents)
        self.tasks.remove(task)
        self.tasks.remove(home)
        self.tasks[0:0] = [home, task]
        if home.top is not None:
            home.top.state = "RESUMED"

    def kill_process(self, package: str, reason: str = "stop") -> bool:
        """What force-stop does to a package: process gone, activities and tasks removed, timers and notifications
        dropped, one-time permissions revoked. Returns whether anything ran."""
        with self.lock:
            proc = self.processes.pop(package, None)
            for t in self._timers:
                if t.owner == package:
                    t.cancelled = True
            current = self.current_activity()
            for task in list(self.tasks):
                if task.kind == "home":
                    continue
                task.activities = [r for r in task.activities if r.package.name != package]
                if not task.activities:
                    self.tasks.remove(task)
            if self._focus_package == package:
                self._clear_focus()
            self.toasts = [t for t in self.toasts if t.package != package]
            if reason != "crash":
                self.cancel_notification(package)
            for st in self._perm.get(package, {}).values():
                if "ONE_TIME" in st.flags:
                    st.granted = False
                    st.flags.discard("ONE_TIME")
                    st.flags.discard("USER_SET")
            if proc is not None:
                pkg = self.packages[package]
                self.log("ActivityManager", f"Killing {proc.pid}:{package}/u0a{pkg.uid - 10000} (adj 0): "
                         f"{reason} {package}", pid=self.system_pid)
            nxt = self.current_activity()
            if nxt is not None and nxt is not current:
                nxt.state = "RESUMED"
            if not any(t.kind == "home" for t in self.tasks):
                self._home_task()
            return proc is not None

    def force_stop(self, package: str) -> None:
        if package in self.packages:
            self.log("ActivityManager", f"Force stopping {package} appid={self.packages[package].uid} user=0: "
                     f"from pid {self.system_pid + 9000}", pid=self.system_pid)
        self.kill_process(package)
        if package in self.packages:
            self.stopped_packages.add(package)

    def clear_data(self, package: str) -> bool:
        """`pm clear`: force-stop, wipe private storage, reset runtime permissions."""
        with self.lock:
            if package not in self.packages:
                return False
            self.force_stop(package)
            self._storage.pop(package, None)
            self.reset_permissions(package)
            for path in [p for p in self.files if p.startswith(f"/sdcard/Android/data/{package}/")]:
                del self.files[path]
            self.log("ActivityManager", f"Clearing data for {package}", pid=self.system_pid)
            return True

    # -- the keyboard and focus -------------------------------------------------------------------------------------

    def focus(self, node_id: str | None) -> None:
        if not node_id:
            self._clear_focus()
            return
        rec = self.current_activity()
        self.focused_id = node_id
        self._focus_package = rec.package.name if rec else None
        self.keyboard_shown = True
        self._cursor = None
        self._select_all = False

    def hide_keyboard(self) -> None:
        self.keyboard_shown = False

    # -- the frame: windows, dump, hit-testing -------------------------------------------------------------------

    def frame(self) -> Frame:
        """Renders every window. Apps' `render` runs here, so the frame is always the state of now."""
        with self.lock:
            self.frames += 1
            windows: list[Window] = []
            rec = self.current_activity()
            if rec is None:
                rec = self._home_task().top
            windows.append(self._app_window(rec))
            if rec is not None and rec.dialogs:
                windows.append(self._dialog_window(rec.dialogs[-1], rec))
            if self.shade_expanded:
                from .apps.system import render_shade
                root = views.layout(render_shade(self), (0, 0, SCREEN_W, SCREEN_H), {})
                windows.append(Window("shade", SYSTEMUI_PACKAGE, root, "NotificationShade",
                                      background="#1f1f24", foreground="#e6e8f0"))
            ime = bool(self.keyboard_shown and self.focused_id and windows[-1].kind == "app"
                       and rec is not None and rec.package.name == self._focus_package)
            return Frame(windows, ime, self.active_toast(), self.screen_on)

    def _app_window(self, rec: ActivityRecord | None) -> Window:
        if rec is None or rec.app is None:
            return Window("app", "android", None, "null")
        node = self._call(rec.package.name, rec.app.render)
        if rec.app is None or node is None or self.current_activity() not in (rec, None):
            # the app crashed while rendering: show whatever is now in front
            nxt = self.current_activity()
            if nxt is not None and nxt is not rec:
                return self._app_window(nxt)
            node = Node("android.widget.FrameLayout")
        content = views.layout(node, CONTENT_BOX, rec.scroll_offsets)
        package = rec.package.name
        decor = Placed(Node("android.widget.FrameLayout"), (0, 0, SCREEN_W, SCREEN_H), 0, 0, None)
        linear = Placed(Node("android.widget.LinearLayout"), (0, 0, SCREEN_W, SCREEN_H), 0, 0, decor)
        frame = Placed(Node("android.widget.FrameLayout", id="android:id/content"), CONTENT_BOX, 0, 0, linear)
        content.parent = frame
        frame.children = [content]
        linear.children = [frame]
        status = Placed(Node(id="android:id/statusBarBackground"), (0, 0, SCREEN_W, STATUS_BAR_BOTTOM), 1, 0, decor)
        nav = Placed(Node(id="android:id/navigationBarBackground"), (0, NAV_BAR_TOP, SCREEN_W, SCREEN_H), 2, 0, decor)
        decor.children = [linear, status, nav]
        views._clip(decor, (0, 0, SCREEN_W, SCREEN_H), False)
        views._clip(content, CONTENT_BOX, False)  # the window's content never draws over the system bars
        app = rec.app
        dark = self.night_mode and getattr(app, "follows_night_mode", False)
        bg = getattr(app, "dark_background", "#141826") if dark else app.background
        fg = getattr(app, "dark_foreground", "#e6e8f0") if dark else app.foreground
        if hasattr(app, "theme_colors"):
            bg, fg = app.theme_colors()
        return Window("app", package, decor, rec.full, background=bg, foreground=fg, activity=rec)

    def _dialog_window(self, dialog: Dialog, rec: ActivityRecord) -> Window:
        from .apps.system import render_dialog
        node, height = render_dialog(self, dialog, rec)
        top = max(STATUS_BAR_BOTTOM + 40, (SCREEN_H - height) // 2)
        box = (63, top, SCREEN_W - 63, top + height)
        root = views.layout(node, box, {})
        package = dialog.package if dialog.package != "android" else "android"
        if dialog.kind == "permission":
            title = f"{PERMISSION_PACKAGE}/com.android.permissioncontroller.permission.ui.GrantPermissionsActivity"
        elif dialog.kind == "crash":
            title = "Application Error: " + dialog.title.replace(" keeps stopping", "")
        else:
            title = rec.full
        dark = self.night_mode and dialog.kind != "alert"
        return Window("dialog", package, root, title, box=box, activity=rec, dialog=dialog,
                      background="#2b2d33" if dark else "#ffffff", foreground="#e6e8f0" if dark else "#1b1b1f")

    def dump_xml(self, frame: Frame | None = None) -> str:
        """The active window's hierarchy as `uiautomator dump` writes it (one line, no trailing newline)."""
        frame = frame or self.frame()
        out = ["<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>",
               f'<hierarchy rotation="{self.rotation}">']
        win = frame.top
        if win.root is not None:
            exclude = IME_BOX if (frame.ime and win.kind == "app") else None
            focused = self.focused_id if win.kind == "app" else None
            views.dump_nodes(win.root, win.package, out, exclude, focused)
        out.append("</hierarchy>")
        return "".join(out)

    # -- input -------------------------------------------------------------------------------------------------

    def tap(self, x: int, y: int) -> None:
        with self.lock:
            self._touch(x, y, long=False)

    def long_press(self, x: int, y: int) -> None:
        with self.lock:
            self._touch(x, y, long=True)

    def _touch(self, x: int, y: int, *, long: bool) -> None:
        if not self.screen_on:
            return
        if not (0 <= x < SCREEN_W and 0 <= y < SCREEN_H):
            return
        frame = self.frame()
        top = frame.top
        if top.kind == "shade":
            hit = views.hit_test(top.root, x, y) if top.root else None
            if hit is None:
                self.shade_expanded = False
            else:
                self._activate(hit, SYSTEMUI_PACKAGE, long, x)
            return
        if frame.ime and IME_BOX[1] <= y < IME_BOX[3]:
            return  # the keyboard takes the touch and types nothing (the contract in sim_api.md: swallowed)
        if y < STATUS_BAR_BOTTOM or y >= NAV_BAR_TOP:
            return
        if top.kind == "dialog":
            b = top.box
            if not (b[0] <= x < b[2] and b[1] <= y < b[3]):
                if top.dialog is not None and top.dialog.cancelable:
                    self._cancel_dialog(top.activity, top.dialog)
                return
            hit = views.hit_test(top.root, x, y) if top.root else None
            if hit is not None:
                self._activate(hit, top.package, long, x)
            return
        if top.root is None:
            return
        hit = views.hit_test(top.root, x, y)
        if hit is None:
            return
        self._activate(hit, top.package if top.activity is None else top.activity.package.name, long, x)

    def _activate(self, hit: Placed, package: str, long: bool, x: int) -> None:
        node = hit.node
        if not node.enabled or node.touch == "block":
            return
        if node.editable:
            self.focus(node.id or f"#{hit.order}")
            if node.on_tap is not None:
                self._call(package, node.on_tap)
            return
        if node.on_drag is not None:
            l, _, r, _ = hit.bounds or hit.box
            self._call(package, node.on_drag, min(1.0, max(0.0, (x - l) / max(1, r - l))))
            return
        if long and node.on_long_press is not None:
            self._call(package, node.on_long_press)
        elif node.on_tap is not None:
            self._call(package, node.on_tap)

    def _cancel_dialog(self, rec: ActivityRecord | None, dialog: Dialog) -> None:
        if rec is not None and dialog in rec.dialogs:
            rec.dialogs.remove(dialog)
        if dialog.kind == "permission":
            self._answer_permission(dialog, "dismiss")
        elif dialog.on_cancel is not None:
            self._call(dialog.package, dialog.on_cancel)

    def press_dialog_button(self, rec: ActivityRecord, dialog: Dialog, index: int) -> None:
        """A dialog button was tapped: the dialog closes first, then the app hears about it."""
        if dialog in rec.dialogs:
            rec.dialogs.remove(dialog)
        caption, role, callback = dialog.buttons[index]
        if dialog.kind == "permission":
            self._answer_permission(dialog, role)
        elif callback is not None:
            owner = dialog.package if dialog.package in self.packages else None
            self._call(owner, callback)

    def show_dialog(self, title: str, message: str, buttons: list[tuple[str, str, Callable[[], None] | None]],
                    package: str, cancelable: bool = False, on_cancel: Callable[[], None] | None = None,
                    caps: bool = True) -> Dialog:
        """An AlertDialog over `package`'s top activity. roles: positive|negative|neutral (button1|2|3)."""
        for _, role, _ in buttons:
            if role not in ("positive", "negative", "neutral"):
                raise ValueError(f"dialog button role must be positive, negative or neutral, got {role!r}")
        dialog = Dialog(str(title), str(message), list(buttons), package, cancelable, on_cancel, "alert", caps,
                        self.new_hash())
        owner = self._owner_activity(package) or self.current_activity()
        if owner is not None:
            owner.dialogs.append(dialog)
            if owner is self.current_activity():
                self.keyboard_shown = False
        return dialog

    def dismiss_dialog(self, dialog: Dialog) -> None:
        for t in self.tasks:
            for rec in t.activities:
                if dialog in rec.dialogs:
                    rec.dialogs.remove(dialog)

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        with self.lock:
            if not self.screen_on:
                return
            dx, dy = x2 - x1, y2 - y1
            dist = (dx * dx + dy * dy) ** 0.5
            if dist < 24:
                self._touch(x1, y1, long=duration_ms >= 500)
                return
            frame = self.frame()
            top = frame.top
            if top.kind == "shade":
                if dy < -200 and abs(dy) > abs(dx):
                    self.shade_expanded = False
                    return
                self._drag_or_scroll(top, top.root, x1, y1, x2, y2, SYSTEMUI_PACKAGE)
                return
            if y1 < STATUS_BAR_BOTTOM and dy > 200 and top.kind != "dialog":
                self.shade_expanded = True
                self._clear_focus_keep()
                return
            if y1 >= NAV_BAR_TOP - 20 and dy < -200 and top.kind != "dialog":
                self.go_home()  # gesture navigation: swipe up from the bottom edge
                return
            if (x1 < 40 or x1 > SCREEN_W - 40) and abs(dx) > 150 and abs(dx) > abs(dy) \
                    and not self._drag_target_at(top, x1, y1):
                # gesture navigation: swipe in from a side edge (seek bars exclude themselves, as on Android)
                self.key_back()
                return
            if frame.ime and IME_BOX[1] <= y1 < IME_BOX[3]:
                return
            if y1 < STATUS_BAR_BOTTOM or y1 >= NAV_BAR_TOP:
                return
            if top.kind == "dialog":
                b = top.box
                if b[0] <= x1 < b[2] and b[1] <= y1 < b[3]:
                    self._drag_or_scroll(top, top.root, x1, y1, x2, y2, top.package)
                return
            if top.root is not None and top.activity is not None:
                self._drag_or_scroll(top, top.root, x1, y1, x2, y2, top.activity.package.name,
                                     top.activity)

    @staticmethod
    def _drag_target_at(win: Window, x: int, y: int) -> bool:
        hit = views.hit_test(win.root, x, y) if win.root is not None else None
        return hit is not None and hit.node.on_drag is not None

    def _clear_focus_keep(self) -> None:
        self.keyboard_shown = False

    def _drag_or_scroll(self, win: Window, root: Placed | None, x1: int, y1: int, x2: int, y2: int,
                        package: str, rec: ActivityRecord | None = None) -> None:
        if root is None:
            return
        hit = views.hit_test(root, x1, y1)
        if hit is not None and hit.node.on_drag is not None and hit.node.enabled:
            l, _, r, _ = hit.bounds or hit.box
            steps = max(1, int(abs(x2 - x1) // 20))
            for i in range(1, steps + 1):
                x = x1 + (x2 - x1) * i / steps
                self._call(package, hit.node.on_drag, min(1.0, max(0.0, (x - l) / max(1, r - l))))
            return
        dx, dy = x2 - x1, y2 - y1
        axis = "vertical" if abs(dy) >= abs(dx) else "horizontal"
        sc = views.scroll_container_at(root, x1, y1, axis)
        if sc is None:
            return
        offsets = rec.scroll_offsets if rec is not None else {}
        key = sc.node.id or f"#{sc.order}"
        delta = -dy if axis == "vertical" else -dx
        max_off = self._max_offset(sc)
        new = min(max_off, max(0, offsets.get(key, 0) + delta))
        offsets[key] = new
        app = rec.app if rec is not None else None
        if app is not None and hasattr(app, "on_scroll"):
            self._call(package, app.on_scroll, key, new, max_off)

    # keys

    def key(self, code: int, *, longpress: bool = False) -> None:
        with self.lock:
            if code == 3:
                self.go_home()
            elif code == 4:
                self.key_back()
            elif code == 187:
                self.go_home()  # recents: the virtual device has no overview screen; home is what it shows
            elif code in (26, 223, 224):
                if code == 26:
                    self.screen_on = not self.screen_on
                else:
                    self.screen_on = code == 224
                self.log("PowerManagerService", "Waking up from Asleep" if self.screen_on
                         else "Going to sleep due to power_button", pid=self.system_pid)
            elif code == 83:
                self.shade_expanded = True
            elif code == 111:
                self.keyboard_shown = False
            elif self.focused_id:
                self._edit_key(code)

    def key_back(self) -> None:
        with self.lock:
            if self.shade_expanded:
                self.shade_expanded = False
                return
            if self.keyboard_shown:
                self.keyboard_shown = False
                return
            rec = self.current_activity()
            if rec is None:
                return
            if rec.dialogs:
                d = rec.dialogs[-1]
                if d.cancelable:
                    self._cancel_dialog(rec, d)
                return
            if rec.task.kind == "home":
                return
            handled = self._call(rec.package.name, rec.app.on_back) if rec.app is not None else False
            if handled:
                return
            if rec not in rec.task.activities:
                return
            if len(rec.task.activities) > 1:
                self.finish_current()
            else:
                self.move_task_to_back(rec)

    def _focused_node(self) -> tuple[Placed | None, str]:
        frame = self.frame()
        win = frame.app_window
        if win.root is None or win.activity is None:
            return None, ""
        for p in win.root.walk():
            n = p.node
            if n.editable and (n.id or f"#{p.order}") == self.focused_id:
                return p, win.activity.package.name
        return None, ""

    def type_text(self, text: str) -> bool:
        """Types into the focused field, as `input text` does. False if no field has focus."""
        with self.lock:
            p, package = self._focused_node()
            if p is None or p.node.on_text is None or not p.node.enabled:
                return False
            value = p.node.text
            if self._select_all:
                value, cursor = "", 0
                self._select_all = False
            else:
                cursor = len(value) if self._cursor is None else min(self._cursor, len(value))
            new = value[:cursor] + text + value[cursor:]
            self._cursor = None if self._cursor is None else cursor + len(text)
            self._call(package, p.node.on_text, new)
            return True

    def _edit_key(self, code: int) -> None:
        p, package = self._focused_node()
        if p is None:
            return
        node = p.node
        value = node.text
        cursor = len(value) if self._cursor is None else min(self._cursor, len(value))
        if code == 66:  # ENTER
            if node.on_submit is not None:
                self._call(package, node.on_submit)
            return
        if code in (67, 112) and self._select_all:
            self._select_all = False
            self._cursor = None
            if node.on_text is not None:
                self._call(package, node.on_text, "")
            return
        if code == 67:  # DEL: backspace
            if cursor > 0 and node.on_text is not None:
                self._cursor = None if self._cursor is None else cursor - 1
                self._call(package, node.on_text, value[:cursor - 1] + value[cursor:])
            elif cursor == 0 and node.on_text is not None:
                self._call(package, node.on_text, value)  # apps may react to a backspace in an empty field
        elif code == 112:  # FORWARD_DEL
            if cursor < len(value) and node.on_text is not None:
                self._cursor = cursor
                self._call(package, node.on_text, value[:cursor] + value[cursor + 1:])
        elif code == 122:  # MOVE_HOME
            self._cursor = 0
        elif code == 123:  # MOVE_END
            self._cursor = None
        elif code == 21:
            self._cursor = max(0, cursor - 1)
        elif code == 22:
            self._cursor = None if cursor + 1 >= len(value) else cursor + 1
        else:
            from .shell import KEY_CHARS
            ch = KEY_CHARS.get(code)
            if ch is not None:
                self.type_text(ch)

    def select_all(self) -> None:
        if self.focused_id:
            self._select_all = True

    # -- state summaries used by dumpsys ----------------------------------------------------------------------

    def focus_window(self, frame: Frame | None = None) -> str:
        frame = frame or self.frame()
        top = frame.top
        if top.kind == "shade":
            return "Window{%s u0 NotificationShade}" % self._systemui_token
        if top.kind == "dialog" and top.dialog is not None:
            if top.dialog.kind == "permission":
                return f"Window{{{top.dialog.token} u0 {top.title}}}"
            if top.dialog.kind == "crash":
                return f"Window{{{top.dialog.token} u0 {top.title}}}"
        rec = top.activity or frame.app_window.activity
        return rec.window() if rec is not None else "null"

    @property
    def _systemui_token(self) -> str:
        if not hasattr(self, "_sysui_tok"):
            self._sysui_tok = self.new_hash()
        return self._sysui_tok
