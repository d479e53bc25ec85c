"""`getevent -p` and `sendevent` on the virtual device's touchscreen: the multi-touch protocol (type B) that lets a
shell put several fingers down at once, which `input` cannot.

The touchscreen is /dev/input/event1 with slots 0..9 and positions in screen pixels. Events accumulate per slot
and take effect at each SYN_REPORT, as the kernel hands a frame to the input reader: a slot given a tracking id
lands a finger, a tracking id of -1 lifts it, a new position moves it."""

from __future__ import annotations

from ..views import SCREEN_H, SCREEN_W
from .base import Ctx, command

TOUCHSCREEN = "/dev/input/event1"
NAME = "virtio_input_multi_touch_1"
EV_SYN, EV_KEY, EV_ABS = 0, 1, 3
ABS_MT_SLOT, ABS_MT_POSITION_X, ABS_MT_POSITION_Y, ABS_MT_TRACKING_ID = 0x2F, 0x35, 0x36, 0x39
SLOTS = 10


class Touchscreen:
    """The slots of one device's touchscreen: what each finger is, where, and what changed since the last frame."""

    def __init__(self):
        self.slot = 0
        self.fingers: dict[int, dict] = {}   # slot -> {"id", "x", "y", "down"}
        self.changed: set[int] = set()

    def event(self, device, type_: int, code: int, value: int) -> None:
        if type_ == EV_ABS:
            if code == ABS_MT_SLOT:
                self.slot = max(0, min(SLOTS - 1, value))
                return
            finger = self.fingers.setdefault(self.slot, {"id": -1, "x": 0, "y": 0, "down": False})
            if code == ABS_MT_TRACKING_ID:
                finger["id"] = value
            elif code == ABS_MT_POSITION_X:
                finger["x"] = value
            elif code == ABS_MT_POSITION_Y:
                finger["y"] = value
            self.changed.add(self.slot)
        elif type_ == EV_SYN and code == 0:
            self.report(device)

    def report(self, device) -> None:
        for slot in sorted(self.changed):
            finger = self.fingers[slot]
            x, y = finger["x"], finger["y"]
            if finger["id"] >= 0 and not finger["down"]:
                finger["down"] = True
                device.pointer_down(x, y, pointer=slot)
            elif finger["id"] < 0 and finger["down"]:
                finger["down"] = False
                device.pointer_up(x, y, pointer=slot)
            elif finger["down"]:
                device.pointer_move(x, y, pointer=slot)
        self.changed.clear()


def touchscreen(device) -> Touchscreen:
    return device.__dict__.setdefault("_touchscreen", Touchscreen())


@command("sendevent")
def _sendevent(ctx: Ctx, args: list[str]) -> int:
    if len(args) != 4:
        ctx.errln("use: sendevent DEVICE TYPE CODE VALUE")
        return 1
    path, *numbers = args
    if path != TOUCHSCREEN:
        ctx.errln(f"sendevent: {path}: No such file or directory")
        return 1
    try:
        type_, code, value = (int(n, 0) for n in numbers)
    except ValueError:
        ctx.errln(f"sendevent: bad number in {' '.join(numbers)}")
        return 1
    touchscreen(ctx.device).event(ctx.device, type_, code, value)
    return 0


@command("getevent")
def _getevent(ctx: Ctx, args: list[str]) -> int:
    if not any(a.startswith("-") and "p" in a for a in args):
        ctx.errln("getevent: only -p (the devices and what they report) is available on this device")
        return 1
    labels = any(a.startswith("-") and "l" in a for a in args)

    def code(name: str, number: int) -> str:
        return name if labels else f"{number:04x}"

    ctx.outln(f"add device 1: {TOUCHSCREEN}")
    ctx.outln(f'  name:     "{NAME}"')
    ctx.outln("  events:")
    ctx.outln(f"    {'ABS' if labels else 'ABS (0003)'}: "
              f"{code('ABS_MT_SLOT', ABS_MT_SLOT)} : value 0, min 0, max {SLOTS - 1}, fuzz 0, flat 0, resolution 0")
    for name, number, top in (("ABS_MT_POSITION_X", ABS_MT_POSITION_X, SCREEN_W - 1),
                              ("ABS_MT_POSITION_Y", ABS_MT_POSITION_Y, SCREEN_H - 1),
                              ("ABS_MT_TRACKING_ID", ABS_MT_TRACKING_ID, 65535)):
        ctx.outln(f"                {code(name, number)} : value 0, min 0, max {top}, fuzz 0, flat 0, resolution 0")
    ctx.outln(f"  input props:\n    {'INPUT_PROP_DIRECT' if labels else '0001'}")
    return 0
