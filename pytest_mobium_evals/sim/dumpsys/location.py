"""`dumpsys location` on the virtual device: the switch, and each provider's last fix in `Location.toString`'s
shape (`Location[gps LAT,LON hAcc=… et=… mock]`, where `mock` marks a fix a test provider set)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from ..commands.base import Ctx
    from ..device import VirtualDevice

def _elapsed(seconds: float) -> str:
    ms = int(seconds * 1000)
    h, rest = divmod(ms, 3_600_000)
    m, rest = divmod(rest, 60_000)
    s, ms = divmod(rest, 1000)
    return "+" + (f"{h}h" if h else "") + (f"{m}m" if h or m else "") + f"{s}s{ms:03d}ms"


def _location(ctx: "Ctx", d: "VirtualDevice", args: list[str]) -> int:
    on = d.settings("secure").get("location_mode", "0") != "0"
    lat, lon = d.position()
    fix = (f"Location[gps {lat:.6f},{lon:.6f} hAcc=5.0 et={_elapsed(d.now())} alt=5.0 vAcc=0.5"
           + (" mock" if d.location is not None and d.location_mock else "") + "]")
    ctx.outln("Location Manager State:")
    ctx.outln("  User Info:")
    ctx.outln("    current user: 0")
    ctx.outln("    running users: [0]")
    ctx.outln("  Location Setting:")
    ctx.outln(f"    [u0] {'true' if on else 'false'}")
    ctx.outln("  Location Providers:")
    for name in ("passive", "network", "fused", "gps"):
        ctx.outln(f"    {name} provider:")
        ctx.outln(f"      last location={fix if name in ('gps', 'fused', 'passive') and on else 'null'}")
        ctx.outln(f"      enabled=[u0] {'true' if on else 'false'}")
        if name in d.test_providers:
            ctx.outln(f"      mock provider: enabled={'true' if d.test_providers[name] else 'false'}")
    return 0
