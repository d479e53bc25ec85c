"""Commands only the virtual device has. A real device answers them as it answers any unknown command
(`/system/bin/sh: virtual-clock: inaccessible or not found`, 127), so the harness asks for them only on a device
that says it is virtual (`ro.mobium_evals.virtual_device`).

`virtual-clock advance SECONDS`: the device's clock jumps forward and every timer that falls due fires at its own
time, in order: what a device that waited SECONDS would show, without the wait (the harness's `+wait` control).

`virtual-packages reset`: the packages go back to the device's own (every APK installed since is uninstalled, every
own app that was uninstalled comes back fresh), as a new emulator from the same image would have them."""

from __future__ import annotations

from .base import Ctx, command


@command("virtual-clock")
def _virtual_clock(ctx: Ctx, args: list[str]) -> int:
    if len(args) != 2 or args[0] != "advance":
        ctx.errln("usage: virtual-clock advance SECONDS")
        return 2
    try:
        seconds = float(args[1])
    except ValueError:
        ctx.errln(f"virtual-clock: not a number of seconds: {args[1]!r}")
        return 2
    if seconds < 0:
        ctx.errln("virtual-clock: the clock never goes backwards")
        return 2
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
