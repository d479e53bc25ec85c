"""Input methods, as InputMethodManagerService keeps them on Android 15: the system's keyboard (Gboard's LatinIME)
and each installed APK's service that declares one (an `android.view.InputMethod` intent filter, the
BIND_INPUT_METHOD permission and `android.view.im` meta-data naming its <input-method> XML; a service missing one
of these is skipped, as IMMS skips it). Which are enabled and which is in use lives where Android keeps it, in the
secure settings `enabled_input_methods` (ids joined by ':', each with its subtypes after ';') and
`default_input_method`; a removed package's input methods leave both, the system keyboard taking over.

The input method in use is bound by the system, so its code runs: an APK whose input method the device has the
behaviour of (`apps.adb_keyboard`) registers its receivers then, and `am broadcast` reaches them."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Optional

from ..apps.adb_keyboard import IME_BEHAVIOURS
from .defaults import IME_ID

if TYPE_CHECKING:  # pragma: no cover
    from ..apk import ServiceDecl

SERVICE_INTERFACE = "android.view.InputMethod"
BIND_INPUT_METHOD = "android.permission.BIND_INPUT_METHOD"
LATIN_SETTINGS = "com.google.android.apps.inputmethod.latin.preference.SettingsActivity"


@dataclass(frozen=True)
class InputMethod:
    id: str                     # ComponentName.flattenToShortString(): package/.Class when the class is in it
    package: str
    service: str                # the service's class in full
    label: str
    settings_activity: Optional[str]
    supports_switching: bool
    system: bool


def short_component(package: str, cls: str) -> str:
    return f"{package}/{cls[len(package):]}" if cls.startswith(package + ".") else f"{package}/{cls}"


SYSTEM_KEYBOARD = InputMethod(IME_ID, "com.google.android.inputmethod.latin", "com.android.inputmethod.latin.LatinIME",
                              "Gboard", LATIN_SETTINGS, True, True)


class DeviceInputMethods:
    """Mixed into `VirtualDevice`; reads and writes the device state it sets up."""

    def input_methods(self) -> list[InputMethod]:
        """Every input method the device has, as `ime list -a` lists them: the system's, then the installed APKs'."""
        found = [SYSTEM_KEYBOARD]
        for name in sorted(self.packages):
            pkg = self.packages[name]
            if pkg.apk is None:
                continue
            found.extend(_declared(name, svc) for svc in pkg.apk.manifest.services if _is_input_method(svc))
        return found

    def input_method(self, ime_id: str) -> Optional[InputMethod]:
        return next((m for m in self.input_methods() if m.id == ime_id), None)

    def enabled_input_method_ids(self) -> list[str]:
        """The enabled input methods, in the setting's order, those the device has."""
        known = {m.id for m in self.input_methods()}
        raw = self._settings["secure"].get("enabled_input_methods", "")
        return [i for i in dict.fromkeys(entry.split(";")[0] for entry in raw.split(":") if entry) if i in known]

    def enable_input_method(self, ime_id: str, enable: bool) -> bool:
        """Enables or disables a known input method; returns whether it was enabled before (IMMS's
        setInputMethodEnabledLocked). Disabling the one in use puts the system keyboard in its place."""
        raw = self._settings["secure"].get("enabled_input_methods", "")
        entries = [e for e in raw.split(":") if e]
        was = any(e.split(";")[0] == ime_id for e in entries)
        if enable and not was:
            entries.append(ime_id)
        elif not enable and was:
            entries = [e for e in entries if e.split(";")[0] != ime_id]
        self._settings["secure"]["enabled_input_methods"] = ":".join(entries)
        if not enable and self.current_input_method() == ime_id:
            self._choose_default_input_method()
        return was

    def select_input_method(self, ime_id: str) -> bool:
        """`ime set`: the input method in use from now on; False for an id the device does not have."""
        if self.input_method(ime_id) is None:
            return False
        self._settings["secure"]["default_input_method"] = ime_id
        self._settings["secure"]["selected_input_method_subtype"] = "-1"
        self.log("InputMethodManagerService", f"Switching to input method {ime_id}", "D", pid=self.system_pid)
        return True

    def reset_input_methods(self) -> None:
        """`ime reset`: the system keyboard alone, enabled and in use."""
        self._settings["secure"]["enabled_input_methods"] = IME_ID
        self._settings["secure"]["default_input_method"] = IME_ID
        self._settings["secure"]["selected_input_method_subtype"] = "-1"

    def current_input_method(self) -> str:
        return self._settings["secure"].get("default_input_method", "")

    def input_method_receiver(self, action: str):
        """The receiver the input method in use registered for `action` (its service runs while it is in use), or
        None."""
        current = self.input_method(self.current_input_method())
        behaviour = IME_BEHAVIOURS.get((current.package, current.service)) if current else None
        if behaviour is None or action not in behaviour.ACTIONS:
            return None
        return behaviour(self)

    def _input_methods_removed(self, package: str) -> None:
        """A package's input methods leave with it: out of the enabled list, and out of use."""
        ids = [m.id for m in self.input_methods() if m.package == package]
        if not ids:
            return
        raw = self._settings["secure"].get("enabled_input_methods", "")
        kept = [e for e in raw.split(":") if e and e.split(";")[0] not in ids]
        self._settings["secure"]["enabled_input_methods"] = ":".join(kept) or IME_ID
        if self.current_input_method() in ids:
            self._choose_default_input_method()

    def _choose_default_input_method(self) -> None:
        enabled = [i for i in self.enabled_input_method_ids() if i != self.current_input_method()]
        self._settings["secure"]["default_input_method"] = enabled[0] if enabled else IME_ID
        self._settings["secure"]["selected_input_method_subtype"] = "-1"


def _is_input_method(svc: ServiceDecl) -> bool:
    return svc.handles(SERVICE_INTERFACE) and svc.permission == BIND_INPUT_METHOD and svc.input_method is not None


def _declared(package: str, svc: ServiceDecl) -> InputMethod:
    described = svc.input_method or {}
    settings = described.get("settingsActivity")
    return InputMethod(short_component(package, svc.name), package, svc.name, svc.label or svc.name.rsplit(".", 1)[-1],
                       str(settings) if settings else None, bool(described.get("supportsSwitchingToNextInputMethod")),
                       False)
