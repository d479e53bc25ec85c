"""Commands only the virtual device has. A real device answers them as it answers any unknown command
(`/system/bin/sh: virtual-clock: inaccessible or not found`, 127), so the harness asks for them only on a device
that says it is virtual (`ro.mobium_evals.virtual_device`).

`virtual-clock advance SECONDS`: the device's clock jumps forward and every timer that falls due fires at its own
time, in order: what a device that waited SECONDS would show, without the wait (the harness's `+wait` control).

`virtual-clock wait SECONDS`: a client is about to wait SECONDS with nothing else to do (a poll's pause, a settle
window). With auto-advance on (the property `debug.mobium_evals.auto_advance` is 1, which the harness sets at reset
for a control trial, and 0 for any other) on a device at the fast pace, the clock jumps as `advance` does and the
command says `advanced`: the client need not wait, as a test runtime's paused clock auto-advances to the next timer
when every task is idle. So it does on a held clock (`debug.mobium_evals.held_clock` 1, sim/clock.py), at any pace: a
held clock lives through no host time, so a wait is the clock moved on. Otherwise it says `real`, changes nothing,
and the client waits in real time itself.

`virtual-clock now`: the device's clock, in seconds since boot (six decimals): what a client that waits on a held
clock counts its deadlines in.

`virtual-packages reset`: the packages go back to the device's own (every APK installed since is uninstalled, every
own app that was uninstalled comes back fresh), as a new emulator from the same image would have them."""

from __future__ import annotations

import math

from .base import Ctx, command

AUTO_ADVANCE_PROPERTY = "debug.mobium_evals.auto_advance"
USAGE = "usage: virtual-clock advance SECONDS | virtual-clock wait SECONDS | virtual-clock now"


@command("virtual-clock")
def _virtual_clock(ctx: Ctx, args: list[str]) -> int:
    if args == ["now"]:
        ctx.outln(f"{ctx.device.now():.6f}")
        return 0
    if len(args) != 2 or args[0] not in ("advance", "wait"):
        ctx.errln(USAGE)
        return 2
    try:
        seconds = float(args[1])
    except ValueError:
        ctx.errln(f"virtual-clock: not a number of seconds: {args[1]!r}")
        return 2
    if not math.isfinite(seconds):
        ctx.errln(f"virtual-clock: not a number of seconds: {args[1]!r}")
        return 2
    if seconds < 0:
        ctx.errln("virtual-clock: the clock never goes backwards")
        return 2
    if args[0] == "wait":
        # At the emulator pace every command spends real time as a device would; a jump there would hand a tool
        # server's wait back at once while the device's own commands still take seconds: the pace keeps real time.
        # A held clock takes no real time at all, so there a wait can only be the clock moved on.
        auto = ctx.device.props.get(AUTO_ADVANCE_PROPERTY) == "1" and not ctx.device.pace.paced
        if not (auto or ctx.device.clock.held):
            ctx.outln("real")
            return 0
        ctx.outln("advanced")
    ctx.device.clock.advance(seconds)
    ctx.device.run_due()
    return 0


@command("virtual-packages")
def _virtual_packages(ctx: Ctx, args: list[str]) -> int:
    if args != ["reset"]:
        ctx.errln("usage: virtual-packages reset")
        return 2
    ctx.device.reset_packages()
    return 0
