"""Appium's Settings helper (io.appium.settings, installed from its APK by Appium's UiAutomator2 driver) as it behaves
on a device: its launcher activity `.Settings` starts the app's foreground service (`.ForegroundService`, which
`dumpsys activity services io.appium.settings` then lists with `isForeground=true`, what Appium waits for) and
finishes at once, leaving the screen as it was. Its other features (location, clipboard, IMEs) are not modelled."""

from __future__ import annotations

from .base import App

PACKAGE = "io.appium.settings"
FOREGROUND_SERVICE = f"{PACKAGE}/.ForegroundService"


class AppiumSettingsActivity(App):
    """The base of the class an installed io.appium.settings APK's `.Settings` activity is made from."""

    def on_start(self, extras: dict) -> None:
        super().on_start(extras)
        self.device.start_service(FOREGROUND_SERVICE, foreground=True)
        # Settings.onCreate finishes the activity; the device finishes it once its creation is over.
        self.device.after(0, self._finish)

    def _finish(self) -> None:
        rec = self.device.current_activity()
        if rec is not None and rec.app is self:
            self.device.finish_current()


# (package, activity class in full) -> the behaviour its APK's code has on a device
BEHAVIOURS = {(PACKAGE, f"{PACKAGE}.Settings"): AppiumSettingsActivity}
