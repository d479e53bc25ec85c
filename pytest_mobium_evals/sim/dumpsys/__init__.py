"""`dumpsys` on the virtual device, in Android 15's shapes, one module a service family.

What matters is what parsers read: the Task/ActivityRecord lines (and no `mResumedActivity`), the foreground app's
`ACTIVITY` line last in `dumpsys activity top`, `mCurrentFocus`/`mFocusedApp` in the display section of `dumpsys
window` (and not in `dumpsys window windows`), runtime permission lines indented 8 spaces under `User 0:`, the
`orientation=`/`logicalFrame` fields, `mHoldingDisplaySuspendBlocker`, integer battery fields, each settings table's
historical operations.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from .activity import _activity
from .dropbox import _dropbox
from .location import _location
from .package import _package
from .services import (
    _audio,
    _battery,
    _connectivity,
    _deviceidle,
    _display,
    _input,
    _input_method,
    _meminfo,
    _notification,
    _power,
    _surfaceflinger,
    _uimode,
    _wifi,
)
from .settings import _settings
from .window import _window

if TYPE_CHECKING:  # pragma: no cover
    from ..commands.base import Ctx

SERVICES = ("activity", "audio", "battery", "display", "dropbox", "input", "input_method", "notification", "package",
            "power", "SurfaceFlinger", "window", "wifi", "connectivity", "alarm", "meminfo", "cpuinfo", "uimode",
            "location", "deviceidle", "settings")


def dumpsys(ctx: "Ctx", args: list[str]) -> int:
    d = ctx.device
    if not args:
        for name in ("activity", "window", "power", "display", "battery"):
            ctx.outln("-" * 77)
            ctx.outln(f"DUMP OF SERVICE {name}:")
            dumpsys(ctx, [name])
        return 0
    if args[0] == "-l":
        ctx.outln("Currently running services:")
        for s in sorted(SERVICES, key=str.lower):
            ctx.outln(f"  {s}")
        return 0
    service, rest = args[0], args[1:]
    fn = {
        "activity": _activity, "window": _window, "package": _package, "input_method": _input_method,
        "power": _power, "display": _display, "battery": _battery, "notification": _notification,
        "input": _input, "SurfaceFlinger": _surfaceflinger, "audio": _audio, "wifi": _wifi,
        "uimode": _uimode, "meminfo": _meminfo, "connectivity": _connectivity, "location": _location,
        "dropbox": _dropbox, "deviceidle": _deviceidle, "settings": _settings,
    }.get(service)
    if fn is None:
        ctx.errln(f"Can't find service: {service}")
        return 0
    return fn(ctx, d, rest) or 0
