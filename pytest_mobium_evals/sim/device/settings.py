"""The virtual device's settings (system, secure, global), the radios and brightness they drive, and the apps'
private storage.

Each table is a `SettingsTable`: every write, wherever it comes from (the shell's `settings` and `content`, a
service such as `cmd uimode`, an app's code, the Settings app's switches), goes through it, and it keeps what
Android's SettingsProvider keeps of its table (SettingsState): each setting's id and the package that last wrote it,
and on a debuggable build (`ro.debuggable=1`, as an emulator's userdebug image) its last 20 operations: `update`
when a value changes (a write of the same value is not one), `delete`, `reset`, and `persist` once a burst of writes
has been written to disk (200 ms after the last write of the burst, at most 2 s after its first). `dumpsys settings`
prints them as Android does (sim/dumpsys/settings.py): newest first, the time to the second in the device's zone,
the setting's name and never its value."""

from __future__ import annotations

import itertools
import zoneinfo
from collections import deque
from contextlib import contextmanager
from datetime import datetime, timezone
from typing import TYPE_CHECKING, Iterator, NamedTuple, Optional

from .records import VirtualDeviceError

if TYPE_CHECKING:
    from .virtual_device import VirtualDevice

#: SettingsState.HISTORICAL_OPERATION_COUNT: the ring of operations a table keeps.
HISTORY_SIZE = 20
#: SettingsState's write scheduling: a burst of writes is persisted this long after its last write ...
PERSIST_DELAY_S = 0.2
#: ... and at most this long after its first.
PERSIST_MAX_DELAY_S = 2.0
#: The table's version line (SettingsState's, as Android 15's provider upgrades it).
TABLE_VERSIONS = {"global": 226, "secure": 226, "system": 226}


class Operation(NamedTuple):
    wall: float  # epoch seconds (the device's wall clock)
    operation: str  # update | delete | reset | persist
    key: Optional[str]


class SettingsTable(dict):
    """One table of the settings provider: a dict of name -> value whose every write is recorded (see the module's
    docstring). Reads are a dict's."""

    def __init__(self, namespace: str, values: dict[str, str], device: "VirtualDevice"):
        super().__init__(values)
        self.namespace = namespace
        self._device = device
        self._ids = itertools.count(1)
        self.ids: dict[str, int] = {key: next(self._ids) for key in values}
        self.writers: dict[str, str] = dict.fromkeys(values, "android")
        self._history: deque[Operation] = deque(maxlen=HISTORY_SIZE)
        self._burst: Optional[tuple[float, float]] = None  # (first write, persist due), device seconds
        self._writer: Optional[str] = None

    # ---- who writes ----

    @contextmanager
    def writing_as(self, package: str) -> Iterator[None]:
        """Writes in this block are `package`'s (the shell's `settings` command writes as com.android.shell)."""
        before, self._writer = self._writer, package
        try:
            yield
        finally:
            self._writer = before

    def _current_writer(self) -> str:
        calling = getattr(self._device, "_calling", None)
        return self._writer or (calling[-1] if calling else "android")

    # ---- the history ----

    def _record(self, operation: str, key: Optional[str]) -> None:
        now = self._device.now()
        self._persist_if_due(now)
        self._history.append(Operation(self._device.clock.wall(now), operation, key))
        first = self._burst[0] if self._burst else now
        self._burst = (first, min(now + PERSIST_DELAY_S, first + PERSIST_MAX_DELAY_S))

    def _persist_if_due(self, now: float) -> None:
        if self._burst is not None and now >= self._burst[1]:
            self._history.append(Operation(self._device.clock.wall(self._burst[1]), "persist", None))
            self._burst = None

    def history(self) -> list[Operation]:
        """The operations kept, newest first; none on a build that is not debuggable (SettingsState keeps them
        only where Build.IS_DEBUGGABLE)."""
        self._persist_if_due(self._device.now())
        if self._device.props.get("ro.debuggable") != "1":
            return []
        return list(reversed(self._history))

    def history_kept(self) -> bool:
        return self._device.props.get("ro.debuggable") == "1"

    # ---- dict's writes, each recorded ----

    def __setitem__(self, key: str, value: str) -> None:
        old = self.get(key)
        super().__setitem__(key, value)
        if key not in self.ids:
            self.ids[key] = next(self._ids)
        if old != value or key not in self.writers:
            self.writers[key] = self._current_writer()
            self._record("update", key)

    def __delitem__(self, key: str) -> None:
        super().__delitem__(key)
        self.ids.pop(key, None)
        self.writers.pop(key, None)
        self._record("delete", key)

    def pop(self, key, *default):
        if key in self:
            value = self[key]
            del self[key]
            return value
        if default:
            return default[0]
        raise KeyError(key)

    def popitem(self):
        key = next(reversed(self))
        return key, self.pop(key)

    def setdefault(self, key, default=None):
        if key not in self:
            self[key] = default
        return self[key]

    def update(self, *args, **kwargs) -> None:
        for key, value in dict(*args, **kwargs).items():
            self[key] = value

    def clear(self) -> None:
        for key in list(self):
            del self[key]

    def reset_to(self, defaults: dict[str, str]) -> None:
        """`settings reset`: each setting back to its default (a `reset` operation each), the others deleted."""
        for key in list(self):
            if key not in defaults:
                del self[key]
        for key, value in defaults.items():
            if self.get(key) != value:
                super().__setitem__(key, value)
                self.ids.setdefault(key, next(self._ids))
                self.writers[key] = "android"
                self._record("reset", key)

    def format_time(self, wall: float) -> str:
        """TimeUtils.formatForLogging: "yyyy-MM-dd HH:mm:ss" in the device's zone."""
        try:
            zone = zoneinfo.ZoneInfo(self._device.time_zone)
        except (zoneinfo.ZoneInfoNotFoundError, ValueError):
            zone = timezone.utc
        return datetime.fromtimestamp(wall, zone).strftime("%Y-%m-%d %H:%M:%S")


def known_zone(zone_id: str) -> bool:
    """Whether tzdata knows the id (Android's ICU and Java read the same Olson database)."""
    try:
        zoneinfo.ZoneInfo(zone_id)
    except (zoneinfo.ZoneInfoNotFoundError, ValueError):
        return False
    return True


class DeviceSettings:
    """Mixed into `VirtualDevice`; reads and writes the device state it sets up."""

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

    # -- adbd's user and the system time zone ----------------------------------------------------------------------

    @property
    def adbd_root(self) -> bool:
        """Whether adbd runs as root (`adb root` on a userdebug build): the shell it starts is then uid 0. adbd keeps
        the choice in service.adb.root, and so does the virtual device."""
        return self.props.get("service.adb.root") == "1"

    def set_adbd_root(self, root: bool) -> None:
        self.props["service.adb.root"] = "1" if root else "0"

    @property
    def time_zone(self) -> str:
        return self.props.get("persist.sys.timezone") or "GMT"

    def set_time_zone(self, zone_id: str) -> None:
        """AlarmManagerService's setTimeZone: an empty id changes nothing; an id Java's TimeZone does not know
        becomes GMT (TimeZone.getTimeZone's answer for it), as the property then reads."""
        if not zone_id:
            return
        self.props["persist.sys.timezone"] = zone_id if known_zone(zone_id) else "GMT"
        self.log("AlarmManager", f"setTimeZoneImpl: {self.props['persist.sys.timezone']}", pid=self.system_pid)

    def airplane_setting_written(self) -> None:
        """`settings put global airplane_mode_on` writes the setting without ConnectivityService's broadcast. Of the
        radios only Bluetooth hears it: BluetoothManagerService observes the setting itself, while Wi-Fi waits for
        ACTION_AIRPLANE_MODE_CHANGED, which the shell may not send. So Bluetooth goes off (2, back on when airplane
        mode goes off) and wifi_on stays."""
        g = self._settings["global"]
        if g.get("airplane_mode_on") == "1":
            if g.get("bluetooth_on") == "1":
                g["bluetooth_on"] = "2"
        elif g.get("bluetooth_on") == "2":
            g["bluetooth_on"] = "1"

    def set_brightness(self, value: int) -> None:
        self._settings["system"]["screen_brightness"] = str(max(0, min(255, int(value))))

    @property
    def display_overrides(self) -> dict[str, str]:
        """What `wm size` and `wm density` override ("size": "WxH", "density": "DPI"), kept by the window
        manager until reset; Settings' Display size sets the density too."""
        return self.__dict__.setdefault("_wm_overrides", {})

    def storage(self, package: str) -> dict:
        return self._storage.setdefault(package, {})
