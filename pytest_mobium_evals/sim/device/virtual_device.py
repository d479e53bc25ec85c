"""One virtual Android 15 device: system state, packages, the activity stack, windows, input, timers.

Everything happens under `device.lock` on the caller's thread: each shell command first runs the timers that are due
(`run_due`), then does its work (a streaming `logcat` also runs them as it polls). No thread of the device's own
exists, so behaviour is a function of the device clock and the commands it receives (plus `device.random` where the
real app is random).

For app authors: `now`, `after`, `storage`, `files`, `toast`, `show_dialog`,
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
import itertools
import random
import threading
import zlib
from collections import deque
from typing import Any, Callable, Iterable

from ..apps.base import App
from ..clock import Clock
from ..devtools import devtools_listeners
from ..listeners import DeviceListeners
from ..pace import FAST, Pace
from .activities import DeviceActivities
from .crashes import DeviceCrashes, DropBoxEntry
from .defaults import builtin_apps, default_props, default_settings
from .input import DeviceInput
from .input_methods import DeviceInputMethods
from .installs import DeviceInstalls
from .notifications import DeviceNotifications
from .packages import DevicePackages
from .records import ActivityTask, LogEntry, Notification, PackageInfo, PermissionState, Process, Timer, Toast
from .settings import DeviceSettings, SettingsTable
from .touches import DeviceTouches
from .windows import DeviceWindows


class VirtualDevice(DeviceSettings, DevicePackages, DeviceInstalls, DeviceNotifications, DeviceActivities,
                    DeviceWindows, DeviceInput, DeviceInputMethods, DeviceTouches, DeviceCrashes):
    """One virtual Android device: its state is set up here, its concerns live in the parts it is made of."""

    def __init__(self, serial: str = "emulator-5554", *, clock: Clock | None = None, seed: int | None = None,
                 apps: Iterable[type[App]] | None = None, transport_id: int = 1, pace: Pace = FAST):
        self.serial = serial
        self.pace = pace
        self.transport_id = transport_id
        self.lock = threading.RLock()
        self.clock = clock or Clock()
        port = int(serial.rsplit("-", 1)[-1]) if serial.rsplit("-", 1)[-1].isdigit() else 5554
        self.console_port = port
        self._ids = random.Random(f"ids:{serial}")
        # The one source of randomness for app behaviour that is random on a real device (the Busy Demo's delay).
        self.random = random.Random(seed if seed is not None else zlib.crc32(serial.encode()))
        self.props = default_props(serial, port)
        # A clock is needed first: every table records when it is written (settings.SettingsTable).
        self._settings = {ns: SettingsTable(ns, values, self) for ns, values in default_settings(serial).items()}
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
        # who hears a toast shown (an accessibility listener: uiautomator2's agent keeps the last one it heard)
        self.toast_listeners: list[Callable[[str], None]] = []
        self.shade_expanded = False
        self.focused_id: str | None = None
        self.keyboard_shown = False
        self._cursor: int | None = None  # None = end of the field
        self._select_all = False
        self.screen_on = True
        # The lock screen: shown once the screen goes off (a swipe lock locks at once), until dismissed.
        self.keyguard_showing = False
        self._crashes: dict[str, list[float]] = {}
        self.dropbox: list[DropBoxEntry] = []  # oldest first; kept across pm clear, restarts and reboots
        self.battery_level = 100
        # What `dumpsys battery set` overrides: the status (None: full at 100, else charging, as the emulator's
        # AC-powered battery reports), the charger (ac, usb, wireless, dock, or "" unplugged) and presence.
        self.battery_status: int | None = None
        self.battery_plugged = "ac"
        self.battery_present = True
        self.system_pid = 500 + self._ids.randrange(200)
        self.frames = 0
        # Packages force-stopped and not launched since (`stopped=true` in dumpsys package, as on a device).
        self.stopped_packages: set[str] = set()
        # What `dumpsys audio` lists under "players:" (apps append AudioPlaybackConfiguration-like entries).
        self.audio_players: list = []
        # The GPS fix (lat, lon) a test provider set; None: the emulator's default position. Android keeps the last
        # fix when the provider goes, marked mock.
        self.location: tuple[float, float] | None = None
        self.location_mock = False
        self.test_providers: dict[str, bool] = {}      # provider -> enabled
        self.appops: dict[tuple[str, str], str] = {}   # (package, op) -> mode
        # Instrumentations running (`am instrument`), by each package they involve: killing either ends the run.
        self.running_instrumentations: dict[str, Any] = {}
        # Started services (`dumpsys activity services`), by component (pkg/.Service): {"foreground", "created"}.
        self.running_services: dict[str, dict] = {}
        # Packages the user exempted from Doze (`dumpsys deviceidle whitelist +PKG`).
        self.idle_whitelist: set[str] = set()
        # The sockets on-device servers listen on; ADB's tcp:/localabstract: services and forwards reach them.
        self.listeners = DeviceListeners(self.lock)
        self.listeners.add_provider(lambda: devtools_listeners(self))
        # The apps the device comes with (a package reset brings back these, and only these).
        self.own_apps: list[type[App]] = list(apps if apps is not None else builtin_apps())
        for app_cls in self.own_apps:
            self.install(app_cls)
        self.log("ActivityManager", "System now ready", pid=self.system_pid)
        self.go_home()

    # -- identity, time, randomness ------------------------------------------------------------------------------

    def new_hash(self) -> str:
        return "%07x" % self._ids.randrange(0x1000000, 0xfffffff)

    def battery_status_now(self) -> int:
        """BatteryManager's status: 2 charging, 3 discharging, 5 full (or what `dumpsys battery set` said)."""
        if self.battery_status is not None:
            return self.battery_status
        if not self.battery_plugged:
            return 3
        return 5 if self.battery_level >= 100 else 2

    def position(self) -> tuple[float, float]:
        """Where the device is: the last fix set, else the emulator's own default position (its `geo fix`)."""
        return self.location or (37.421998, -122.084)

    def now(self) -> float:
        if self._now_override is not None:
            return self._now_override
        return self.clock.now()

    def seed(self, value: int) -> None:
        """Reseed `device.random` (tests that need a specific run of the Busy Demo)."""
        self.random.seed(value)

    # -- services ------------------------------------------------------------------------------------------------

    def start_service(self, component: str, *, foreground: bool = False) -> None:
        """Context.startService / startForegroundService: the service runs in its package's process until that
        process is killed."""
        with self.lock:
            package = component.split("/", 1)[0]
            self._ensure_process(package)
            self.running_services.setdefault(component, {"created": self.now(), "foreground": foreground})
            self.running_services[component]["foreground"] |= foreground

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
