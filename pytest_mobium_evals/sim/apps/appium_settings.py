"""Appium's Settings helper (io.appium.settings, installed from its APK by Appium's UiAutomator2 driver) as it behaves
on a device: its launcher activity `.Settings` starts the app's foreground service (`.ForegroundService`, which
`dumpsys activity services io.appium.settings` then lists with `isForeground=true`, what Appium waits for) and
finishes at once, leaving the screen as it was. Its ClipboardReceiver answers `io.appium.settings.clipboard.get`
with the clipboard in base64 while one of its input methods is in use (Android 10+ lets only the focused app or the
input method in use read the clipboard, which is why Appium switches to its AppiumIME around the broadcast); its
input methods are listed from its manifest (device/input_methods). Its other features (location, the
notification listener, recording) are not modelled."""

from __future__ import annotations

import base64
from typing import TYPE_CHECKING, Optional

from .base import App

if TYPE_CHECKING:  # pragma: no cover
    from ..device import VirtualDevice

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


def clipboard_receiver(device: VirtualDevice, action: str, extras: dict) -> Optional[tuple[int, Optional[str]]]:
    """ClipboardReceiver's answer: RESULT_OK with the clipboard's text in base64 when the clipboard may be read,
    RESULT_CANCELED when it may not; None for an action it does not take."""
    if action != f"{PACKAGE}.clipboard.get":
        return None
    current = device.input_method(device.current_input_method())
    if current is None or current.package != PACKAGE:
        return 0, None
    return -1, base64.b64encode((device.clipboard or "").encode()).decode()


# (package, activity class in full) -> the behaviour its APK's code has on a device
BEHAVIOURS = {(PACKAGE, f"{PACKAGE}.Settings"): AppiumSettingsActivity}
# (package, receiver class in full) -> what the receiver answers an explicit broadcast
RECEIVERS = {(PACKAGE, f"{PACKAGE}.receivers.ClipboardReceiver"): clipboard_receiver}
