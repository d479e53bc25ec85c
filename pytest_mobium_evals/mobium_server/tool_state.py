"""What the tool families share: the timing of the auto-wait, Mobium's key and permission names, a tool's
`Result`, and the per-device state (ref table, context, rules, the last screen read)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Optional

from .device import AdbLink
from .elements import Locator
from .map_diff import LastMap
from .snapshot import Snapshot

IMPLICIT_WAIT = 2.0
POLL = 0.25
SETTLE_LIMIT = 5.0
SETTLE_WINDOW = 0.1  # a target counts as still when two reads this far apart see it at the same place
NATIVE = "NATIVE_APP"
PASSWORD_NOTE = "hidden: this is a password field"
UNLOCK_REMEDY = 'app_lock with state "unlock"'
LOCKED_NOTE = ("the device is locked: this is the lock screen, and no app can be reached until it is unlocked — "
               f"run `mobium lock unlock` ({UNLOCK_REMEDY})")

KEYCODES = {"back": 4, "home": 3, "recents": 187, "volume-up": 24, "volume-down": 25}
KEYBOARD_KEYS = {"enter": 66, "delete": 67, "space": 62}

# Mobium's permission names and the Android runtime permissions each stands for.
PERMISSION_SETS = {
    "location": ["ACCESS_FINE_LOCATION", "ACCESS_COARSE_LOCATION"],
    "location-always": ["ACCESS_FINE_LOCATION", "ACCESS_COARSE_LOCATION", "ACCESS_BACKGROUND_LOCATION"],
    "notifications": ["POST_NOTIFICATIONS"],
    "camera": ["CAMERA"],
    "microphone": ["RECORD_AUDIO"],
    "contacts": ["READ_CONTACTS", "WRITE_CONTACTS", "GET_ACCOUNTS"],
    "calendar": ["READ_CALENDAR", "WRITE_CALENDAR"],
    "reminders": ["READ_CALENDAR", "WRITE_CALENDAR"],
    "phone": ["READ_PHONE_STATE", "CALL_PHONE"],
    "sms": ["SEND_SMS", "RECEIVE_SMS", "READ_SMS"],
    "photos": ["READ_MEDIA_IMAGES", "READ_MEDIA_VIDEO"],
    "photos-add": ["READ_MEDIA_IMAGES", "READ_MEDIA_VIDEO"],
    "media-library": ["READ_MEDIA_AUDIO"],
    "bluetooth": ["BLUETOOTH_CONNECT", "BLUETOOTH_SCAN"],
    "motion": ["ACTIVITY_RECOGNITION"],
}


@dataclass
class Result:
    text: str
    data: Optional[dict] = None
    image: Optional[bytes] = None


@dataclass
class RefEntry:
    locator: Locator
    context: str
    label: str
    bounds: tuple


@dataclass
class DeviceState:
    link: AdbLink
    refs: Optional[dict[str, RefEntry]] = None         # None: no map yet (or refs were dropped)
    context: str = NATIVE
    seen: dict[str, tuple] = field(default_factory=dict)   # locator -> last bounds it was seen at
    rules: list[dict] = field(default_factory=list)
    last: Optional[Snapshot] = None                  # the last screen read
    session_app: Optional[str] = None
    # A session opens on a tool's first use of the device, as Mobium's sessionFor opens one, and ends with
    # app_session end or the server (session_open false between an end and the next use)
    session_open: bool = False
    log_marks: dict[str, tuple[int, int]] = field(default_factory=dict)  # "app|level" -> newest line read
    previous_map: Optional[LastMap] = None   # the last map, for app_map diff
    # app_location: whether this server's test provider is installed (Android lists none to a shell), and the
    # route it is stepping
    mocking: bool = False
    route: Optional[Any] = None
    # settings (namespace, key) a tool changed for the session -> the value before ("" when it was unset), put back
    # when the session ends or the server exits
    put_back: dict[tuple[str, str], str] = field(default_factory=dict)
    # airplane mode before app_network first changed it (None: unchanged), put back when the session ends, as
    # Mobium's restoreNetwork does
    airplane_before: Optional[bool] = None


def without_nulls(arguments: Optional[dict]) -> dict:
    """A call's arguments with every JSON null left out: null is an argument not given, as it is to Mobium.

    Mobium decodes a call's arguments into a Go `map[string]interface{}` (internal/agent/server.go, CallTool) and
    reads each one by type assertion (internal/agent/handlers.go: `boolArg` is `v, _ := args[key].(bool)`, app_fill's
    text `args["text"].(string)`). A JSON null decodes to nil, and nil fails the assertion exactly as a key that is
    not there does (a Go map answers nil for a missing key): the tool sees the zero value and takes its default, or
    names the argument as missing when it is required. Small models send null for every optional parameter they do
    not use; refusing that ("device must be a string, got NoneType") failed calls Mobium answers."""
    return {key: value for key, value in (arguments or {}).items() if value is not None}
