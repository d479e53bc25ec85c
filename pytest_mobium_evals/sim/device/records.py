"""The records the virtual device's system keeps: timers, packages, permission states, processes, dialogs,
activities and their tasks (back stacks), notifications, toasts, log entries, windows and frames."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Callable

from ..apps.base import App
from ..display import PORTRAIT, Display
from ..views import SCREEN_H, SCREEN_W, Placed

if TYPE_CHECKING:
    from ..apk import Apk
    from .installs import Instrumentation
    from .virtual_device import VirtualDevice

# Flags a fresh install carries on every runtime permission it requests (Android 13+).
BASE_FLAGS = ("USER_SENSITIVE_WHEN_GRANTED", "USER_SENSITIVE_WHEN_DENIED")


class VirtualDeviceError(Exception):
    """A request the device refuses (unknown package, bad component): the message is what the shell prints."""


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
    # Packages installed from an APK (`adb install`): the APK read (None for the device's own apps), its
    # instrumentation elements, minSdk, the last update's wall time and the split APKs that came with it (by name).
    apk: "Apk | None" = None
    instrumentations: tuple["Instrumentation", ...] = ()
    min_sdk: int = 24
    update_time: float | None = None
    splits: dict[str, bytes] = field(default_factory=dict)

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
    # a location dialog's accuracy choice: "Approximate" grants the coarse permission alone
    approximate: bool = False


@dataclass
class PermissionRequest:
    package: str
    groups: list[list[str]]           # one dialog per group, in order
    results: dict[str, str]
    callback: Callable[[dict[str, str]], None] | None
    request_id: int = 0               # the permission controller's requestId, as its log lines say it


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
    uid: int = 1000  # the logging process's uid (logd records it; `logcat -v uid` prints it)
    buffer: str = "main"  # logd's ring: main, system, or crash (an uncaught exception's AndroidRuntime lines)


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
    def __init__(self, windows: list[Window], ime: bool, toast: Toast | None, screen_on: bool,
                 display: Display = PORTRAIT):
        self.windows = windows
        self.ime = ime
        self.toast = toast
        self.screen_on = screen_on
        self.display = display

    @property
    def top(self) -> Window:
        return self.windows[-1]

    @property
    def app_window(self) -> Window:
        return self.windows[0]
