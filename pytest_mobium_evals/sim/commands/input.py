"""`wm` and `input` on the virtual device: screen size and density, taps, swipes, key events, text."""

from __future__ import annotations

import re

from ..keycodes import KEY_NAMES
from ..pace import spend
from .base import Ctx, command, java_exception, sleep_real


@command("wm")
def window_command(ctx: Ctx, args: list[str]) -> int:
    """`wm`, which is `cmd window`."""
    d = ctx.device
    overrides = d.display_overrides
    if not args:
        ctx.outln("Window manager (window) commands:\n  help\n      Print this help text.\n"
                  "  size [reset|WxH|WdpxHdp] [-d DISPLAY_ID]\n      Return or override display size.\n"
                  "  density [reset|DENSITY] [-d DISPLAY_ID]\n      Return or override display density.")
        return 255
    sub, rest = args[0], [a for a in args[1:] if a != "-d"]
    if sub == "size":
        if rest and rest[0] == "reset":
            overrides.pop("size", None)
        elif rest:
            if not re.fullmatch(r"\d+x\d+", rest[0]):
                ctx.errln(f"Error: bad size {rest[0]}")
                return 255
            overrides["size"] = rest[0]
        else:
            ctx.outln("Physical size: 1080x2400")
            if "size" in overrides:
                ctx.outln(f"Override size: {overrides['size']}")
        return 0
    if sub == "dismiss-keyguard":
        d.dismiss_keyguard("wm dismiss-keyguard")
        return 0
    if sub == "user-rotation":
        return _user_rotation(ctx, rest)
    if sub == "fixed-to-user-rotation":
        return 0
    if sub == "density":
        if rest and rest[0] == "reset":
            overrides.pop("density", None)
        elif rest:
            if not rest[0].isdigit():
                ctx.errln(f"Error: bad number {rest[0]}")
                return 255
            overrides["density"] = rest[0]
        else:
            ctx.outln("Physical density: 420")
            if "density" in overrides:
                ctx.outln(f"Override density: {overrides['density']}")
        return 0
    ctx.outln(f"Unknown command: {sub}")
    return 255


def _user_rotation(ctx: Ctx, rest: list[str]) -> int:
    """`wm user-rotation [free|lock [ROTATION]]`: the lock writes what the settings hold (auto-rotate off and the
    user rotation), free hands rotation back to the sensor; with no argument, the mode and rotation."""
    system = ctx.device.settings("system")
    if not rest:
        mode = "free" if system.get("accelerometer_rotation", "0") == "1" else "lock"
        ctx.outln(f"{mode} {system.get('user_rotation', '0')}")
        return 0
    if rest[0] == "free":
        system["accelerometer_rotation"] = "1"
        return 0
    if rest[0] == "lock":
        if len(rest) > 1:
            if rest[1] not in ("0", "1", "2", "3"):
                ctx.errln(f"Error: bad rotation {rest[1]}")
                return 255
            system["user_rotation"] = rest[1]
        system["accelerometer_rotation"] = "0"
        return 0
    ctx.errln(f"Error: unknown rotation mode {rest[0]}; want free or lock")
    return 255


INPUT_USAGE = """Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]

The sources are:
      dpad
      keyboard
      mouse
      touchpad
      gamepad
      touchnavigation
      joystick
      touchscreen
      stylus
      trackball

-d: specify the display ID.
      (Default: -1 for key event, 0 for motion event if not specified.)
The commands and default sources are:
      text <string> (Default: keyboard)
      keyevent [--longpress|--duration <duration to hold key down in ms>] [--doubletap] [--async] [--delay <duration between keycodes in ms>] <key code number or name> ... (Default: keyboard)
      tap <x> <y> (Default: touchscreen)
      swipe <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      draganddrop <x1> <y1> <x2> <y2> [duration(ms)] (Default: touchscreen)
      press (Default: trackball)
      roll <dx> <dy> (Default: trackball)
      motionevent <DOWN|UP|MOVE|CANCEL> <x> <y> (Default: touchscreen)
      keycombination [-t duration(ms)] <key code 1> <key code 2> ... (Default: keyboard, the key order is important here.)
"""  # noqa: E501  (Android's own usage text, verbatim)
SOURCES = ("dpad", "keyboard", "mouse", "touchpad", "gamepad", "touchnavigation", "joystick", "touchscreen",
           "stylus", "trackball")


def keycode(name: str) -> int:
    """KeyEvent.keyCodeFromString: a number, KEYCODE_NAME, or NAME; anything else is KEYCODE_UNKNOWN (0)."""
    s = name.strip()
    if s.upper().startswith("KEYCODE_"):
        s = s[8:]
    if s.isdigit():
        return int(s)
    return KEY_NAMES.get(s.upper(), 0)


@command("input")
def input_command(ctx: Ctx, args: list[str]) -> int:
    d = ctx.device
    args = list(args)
    if args and args[0] in SOURCES:
        args = args[1:]
    if len(args) >= 2 and args[0] == "-d":
        if not re.fullmatch(r"-?\d+", args[1]):
            return java_exception(ctx, args[2] if len(args) > 2 else "input", "java.lang.IllegalArgumentException",
                                  "Error: Invalid arguments for display ID.",
                                  "com.android.server.input.InputShellCommand.onCommand(InputShellCommand.java:239)")
        args = args[2:]
    if not args or args[0] in ("help", "-h"):
        ctx.out(INPUT_USAGE)
        return 0 if args else 255
    sub, rest = args[0], args[1:]

    def bad(message: str | None = None) -> int:
        return java_exception(ctx, sub, "java.lang.IllegalArgumentException",
                              message or f"Error: Invalid arguments for command: {sub}",
                              f"com.android.server.input.InputShellCommand.run{sub.title()}"
                              "(InputShellCommand.java:402)")

    def coords(values: list[str]) -> list[int] | None:
        try:
            return [int(float(v)) for v in values]
        except ValueError:
            return None

    if sub == "tap":
        if len(rest) < 2:
            return bad(f'Argument expected after "{(["tap"] + rest)[-1]}"')
        xy = coords(rest[:2])
        if xy is None:
            return bad()
        spend(d, d.pace.tap)  # the command starts up before it injects: the touch lands this much later
        if d.streams_at(*xy):
            t = d.now()  # a tap is a down and an up at the same point, a moment apart
            d.pointer_down(*xy, t=t)
            d.pointer_up(*xy, t=t + 0.05)
        else:
            d.tap(*xy)
        return 0
    if sub in ("swipe", "draganddrop"):
        if len(rest) < 4:
            return bad(f'Argument expected after "{([sub] + rest)[-1]}"')
        pts = coords(rest[:4])
        dur = coords(rest[4:5]) if len(rest) > 4 else [300]
        if pts is None or dur is None:
            return bad()
        duration = dur[0] if dur else 300
        spend(d, d.pace.tap)
        if d.streams_at(pts[0], pts[1]):
            stream_swipe(d, *pts, duration)
        else:
            if d.pace.swipe_blocks:
                # Android injects the moves over the duration and returns after the last; what the swipe does
                # to the screen is done by the time the command returns.
                spend(d, max(0, duration) / 1000)
            d.swipe(*pts, duration_ms=duration)
        return 0
    if sub == "text":
        if not rest:
            return bad('Argument expected after "text"')
        text = " ".join(rest).replace("%s", " ")
        typed = "".join(ch for ch in text if 32 <= ord(ch) < 127 or ch == "\n")
        spend(d, d.pace.tap + d.pace.text_per_char * len(typed))
        if typed:
            d.type_text(typed)
        return 0
    if sub == "keyevent":
        longpress = False
        codes = []
        it = iter(rest)
        for a in it:
            if a == "--longpress":
                longpress = True
            elif a in ("--doubletap", "--async"):
                continue
            elif a in ("--delay", "--duration"):
                next(it, None)
            else:
                codes.append(keycode(a))
        if not codes:
            return bad('Argument expected after "keyevent"')
        spend(d, d.pace.tap)
        for c in codes:
            d.key(c, longpress=longpress)
        return 0
    if sub == "keycombination":
        codes = []
        it = iter(rest)
        for a in it:
            if a == "-t":
                next(it, None)  # the hold duration
            else:
                codes.append(keycode(a))
        if 113 in codes or 114 in codes:  # CTRL_LEFT / CTRL_RIGHT with a letter: the text field's shortcuts
            if 29 in codes:
                d.select_all()
            elif 50 in codes:  # CTRL+V
                d.type_text(d.clipboard)
            elif 31 in codes:  # CTRL+C
                pass
        return 0
    if sub == "motionevent":
        if len(rest) < 3 or rest[0].upper() not in ("DOWN", "UP", "MOVE", "CANCEL"):
            return bad()
        xy = coords(rest[1:3])
        if xy is None:
            return bad()
        kind = rest[0].upper()
        spend(d, d.pace.tap)
        if kind == "DOWN":
            d.pointer_down(*xy)
        elif kind == "MOVE":
            d.pointer_move(*xy)
        elif kind == "UP":
            d.pointer_up(*xy)
        else:
            d.pointer_cancel()
        return 0
    if sub in ("press", "roll"):
        return 0
    ctx.errln(f"Error: Unknown command: {sub}")
    ctx.out(INPUT_USAGE)
    return 255


SWIPE_FRAME_S = 0.008  # InputShellCommand injects moves back to back; a few ms apart on an emulator


def stream_swipe(d, x1: int, y1: int, x2: int, y2: int, duration_ms: int) -> None:
    """`input swipe` as Android injects it: a down, moves spread evenly over the duration, and the up at the
    last point right after the last move (a swipe has no hold at either end). Each event carries the time it was
    due, as the injected MotionEvent's eventTime does, however late the host runs the loop."""
    seconds = max(0, duration_ms) / 1000
    frames = max(1, round(seconds / SWIPE_FRAME_S))
    start = d.now()
    d.pointer_down(x1, y1, t=start)
    for i in range(1, frames + 1):
        due = start + seconds * i / frames
        sleep_real(d, due - d.now())
        d.pointer_move(x1 + (x2 - x1) * i / frames, y1 + (y2 - y1) * i / frames, t=due)
    d.pointer_up(x2, y2, t=start + seconds)
