"""The virtual device's settings (system, secure, global), the radios and brightness they drive, and the apps'
private storage."""

from __future__ import annotations

import zoneinfo

from .records import VirtualDeviceError


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
