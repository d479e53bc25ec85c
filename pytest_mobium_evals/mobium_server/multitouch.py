"""Several fingers at once over ADB: `input` moves one pointer only, so these tools write the touchscreen's
multi-touch protocol (type B slots) with `sendevent`, one shell line per gesture with `sleep` between frames, so the
timing is kept on the device. The touchscreen and its coordinate range come from `getevent -pl`.

app_tap with fingers 2..5, app_zoom (two fingers moving apart or together), app_rotate (two fingers turning
about a point). Their answers say the gesture was delivered, which is all a hierarchy can confirm."""

from __future__ import annotations

import math
import re

from .errors import MobiumError, invalid
from .tool_state import DeviceState, Result

EV_SYN, EV_ABS = 0, 3
SLOT, POS_X, POS_Y, TRACKING = 0x2F, 0x35, 0x36, 0x39
FINGER_DOWN_S = 0.08
PINCH_S, PINCH_PAUSE_S, PINCH_STEPS = 0.6, 0.08, 12
ROTATE_S, ROTATE_PAUSE_S = 0.6, 0.08
ZOOM_NOTE = ("the gesture was delivered, which is all this can confirm: neither platform reports a zoom level in "
             "the hierarchy, so ask the thing you zoomed (a WebView knows its own visualViewport.scale)")
ROTATE_NOTE = ("the gesture was delivered, which is all this can confirm: nothing in either hierarchy reports a "
               "rotation, and unlike a zoom there is no WebView property to ask either")


class Touchscreen:
    def __init__(self, path: str, max_x: int, max_y: int, width: int, height: int):
        self.path, self.max_x, self.max_y, self.width, self.height = path, max_x, max_y, width, height

    def frame(self, fingers: dict[int, tuple[int, int] | None], tracking: dict[int, int]) -> list[str]:
        """One frame: each slot's new position (a landing gets a tracking id; None lifts it), then SYN_REPORT."""
        out = []
        for slot, at in fingers.items():
            out.append(f"sendevent {self.path} {EV_ABS} {SLOT} {slot}")
            if at is None:
                out.append(f"sendevent {self.path} {EV_ABS} {TRACKING} -1")
                continue
            if slot not in tracking:
                tracking[slot] = 100 + slot
                out.append(f"sendevent {self.path} {EV_ABS} {TRACKING} {tracking[slot]}")
            x = round(at[0] * self.max_x / max(1, self.width - 1))
            y = round(at[1] * self.max_y / max(1, self.height - 1))
            out += [f"sendevent {self.path} {EV_ABS} {POS_X} {x}", f"sendevent {self.path} {EV_ABS} {POS_Y} {y}"]
        out.append(f"sendevent {self.path} {EV_SYN} 0 0")
        return out


def chain(screen: Touchscreen, frames: list[tuple[float, dict]]) -> str:
    """Frames as (seconds to wait before it, {slot: point or None}) → one shell line."""
    tracking: dict[int, int] = {}
    parts: list[str] = []
    for wait, fingers in frames:
        if wait > 0:
            parts.append(f"sleep {wait:.3f}")
        parts += screen.frame(fingers, tracking)
    return "; ".join(parts)


PRESS_NOTE = "the gesture was delivered; what it did is the app's own state, so map the screen again to see it"
SECOND_DOWN_S, FIRST_AFTER_S = 0.08, 0.12


class MultiTouchTools:
    """Mixed into `Mobium`."""

    def _touchscreen(self, st: DeviceState) -> Touchscreen:
        out = st.link.shell("getevent -pl")
        for block in re.split(r"(?m)^add device \d+: ", out)[1:]:
            path = block.split("\n", 1)[0].strip()
            mx = re.search(r"ABS_MT_POSITION_X\s*:.*?max (\d+)", block)
            my = re.search(r"ABS_MT_POSITION_Y\s*:.*?max (\d+)", block)
            if mx and my and "ABS_MT_SLOT" in block:
                size = re.search(r"(\d+)x(\d+)", st.link.shell("wm size").split("Override size:")[-1])
                w, h = (int(size.group(1)), int(size.group(2))) if size else (1080, 2400)
                return Touchscreen(path, int(mx.group(1)), int(my.group(1)), w, h)
        raise MobiumError("unsupported", f"{st.link.serial} has no multi-touch screen that getevent lists, so "
                          "several fingers cannot be put down at once", "use a one-finger tool")

    def _centre(self, st: DeviceState, target: str | None) -> tuple[tuple[int, int], str]:
        if target:
            _, _, aim, subject = self._acquire(st, target)
            return (aim.x, aim.y), subject
        size = re.search(r"(\d+)x(\d+)", st.link.shell("wm size").split("Override size:")[-1])
        w, h = (int(size.group(1)), int(size.group(2))) if size else (1080, 2400)
        return (w // 2, h // 2), "the screen"

    def multi_tap(self, st: DeviceState, x: int, y: int, fingers: int) -> None:
        screen = self._touchscreen(st)
        gap = screen.width // 10
        xs = [round(x + (i - (fingers - 1) / 2) * gap) for i in range(fingers)]
        down = {i: (xs[i], y) for i in range(fingers)}
        st.link.shell(chain(screen, [(0, down), (FINGER_DOWN_S, {i: None for i in range(fingers)})]))
        self.drop_refs(st)

    def t_app_zoom(self, args: dict) -> Result:
        direction, start, end = args.get("direction"), args.get("from"), args.get("to")
        if (start is None) != (end is None):
            raise invalid("from and to must be given together — they are the half-distance between the fingers at "
                          "the start and at the end")
        if start is not None and direction is not None:
            raise invalid("give either a direction or from/to, not both: from and to already say which way the "
                          "fingers move")
        if start is None:
            direction = direction or "in"
            if direction not in ("in", "out"):
                raise invalid(f'direction must be "in" or "out", got "{direction}"')
            start, end = (80, 320) if direction == "in" else (320, 80)
        if start <= 0 or end <= 0:
            raise invalid(f"from and to are distances in device pixels and must be above zero, got "
                          f"{start if start <= 0 else end}")
        if start == end:
            raise invalid(f"from and to are both {start}, so the fingers would not move — that is a two-finger tap "
                          "rather than a pinch")
        st = self.state(args)
        (cx, cy), subject = self._centre(st, args.get("target"))
        screen = self._touchscreen(st)
        frames = [(0.0, {0: (cx - start, cy), 1: (cx + start, cy)})]
        for i in range(1, PINCH_STEPS + 1):
            half = start + (end - start) * i / PINCH_STEPS
            wait = PINCH_PAUSE_S if i == 1 else PINCH_S / PINCH_STEPS
            frames.append((wait, {0: (round(cx - half), cy), 1: (round(cx + half), cy)}))
        frames.append((PINCH_S / PINCH_STEPS, {0: None, 1: None}))
        st.link.shell(chain(screen, frames))
        self.drop_refs(st)
        way = "in" if end > start else "out"
        about = f"about {subject} at ({cx}, {cy})" if subject != "the screen" else f"about the screen at ({cx}, {cy})"
        return Result(f"pinched {way} {about}, fingers {2 * start} to {2 * end}px apart — {ZOOM_NOTE}",
                      {"direction": way, "x": cx, "y": cy, "from": start, "to": end})

    def t_app_rotate(self, args: dict) -> Result:
        degrees, radius = args.get("degrees", 90), args.get("radius", 200)
        if degrees == 0:
            raise invalid("degrees is 0, so the fingers would go round to where they started — that is a two-finger "
                          "press rather than a rotation")
        if abs(degrees) > 360:
            raise invalid(f"degrees is {degrees:g}, which is more than a full turn — a rotation past 360 is "
                          "indistinguishable from the same angle modulo it, and almost certainly a units mistake")
        if radius <= 0:
            raise invalid(f"radius is a distance in device pixels and must be above zero, got {radius}")
        st = self.state(args)
        (cx, cy), subject = self._centre(st, args.get("target"))
        screen = self._touchscreen(st)
        steps = max(4, math.ceil(abs(degrees) / 10))

        def fingers(angle: float) -> dict:
            a = math.radians(angle)
            dx, dy = radius * math.cos(a), radius * math.sin(a)
            return {0: (round(cx - dx), round(cy - dy)), 1: (round(cx + dx), round(cy + dy))}

        frames = [(0.0, fingers(0))]
        frames += [(ROTATE_PAUSE_S if i == 1 else ROTATE_S / steps, fingers(degrees * i / steps))
                   for i in range(1, steps + 1)]
        frames.append((ROTATE_S / steps, {0: None, 1: None}))
        st.link.shell(chain(screen, frames))
        self.drop_refs(st)
        way = "clockwise" if degrees > 0 else "anticlockwise"
        return Result(f"rotated {subject} {abs(degrees):g} degrees {way} about ({cx}, {cy}), fingers {radius}px "
                      f"from the center — {ROTATE_NOTE}",
                      {"degrees": degrees, "x": cx, "y": cy, "radius": radius})

    def _point(self, st: DeviceState, args: dict, name: str, xk: str, yk: str) -> tuple[tuple[int, int], str]:
        if args.get(name) is not None:
            _, _, aim, subject = self._acquire(st, args[name])
            return (aim.x, aim.y), f"{subject} at ({aim.x},{aim.y})"
        x, y = args.get(xk), args.get(yk)
        return (x, y), f"({x},{y})"

    def t_app_press_tap(self, args: dict) -> Result:
        lead = args.get("lead_ms", 300)
        by_ref = args.get("hold") is not None or args.get("tap") is not None
        if by_ref and (args.get("hold") is None or args.get("tap") is None):
            raise invalid("hold and tap must be given together — one finger holds, the other taps")
        if not by_ref and any(args.get(k) is None for k in ("x1", "y1", "x2", "y2")):
            raise invalid("app_press_tap needs hold and tap (refs or locators), or all four of x1, y1, x2, y2")
        if lead <= 0:
            raise invalid(f"lead_ms is a time and must be above zero, got {lead}")
        st = self.state(args)
        a, said_a = self._point(st, args, "hold", "x1", "y1")
        b, said_b = self._point(st, args, "tap", "x2", "y2")
        screen = self._touchscreen(st)
        st.link.shell(chain(screen, [(0, {0: a}), (lead / 1000, {1: b}), (SECOND_DOWN_S, {1: None}),
                                     (FIRST_AFTER_S, {0: None})]))
        self.drop_refs(st)
        return Result(f"held {said_a} and tapped {said_b} with a second finger, {lead}ms after the first landed — "
                      f"{PRESS_NOTE}", {"hold": list(a), "tap": list(b), "lead_ms": lead})

    def t_app_press_drag(self, args: dict) -> Result:
        lead, duration = args.get("lead_ms", 300), args.get("duration_ms", 600)
        names = ("hold", "from", "to")
        if any(args.get(k) is not None for k in names) and any(args.get(k) is None for k in names):
            raise invalid("hold, from and to must be given together — one finger holds, the other drags")
        if all(args.get(k) is None for k in names) and any(args.get(f"{c}{i}") is None
                                                           for c in "xy" for i in (1, 2, 3)):
            raise invalid("app_press_drag needs hold, from and to (refs or locators), or x1..y3")
        if lead <= 0 or duration <= 0:
            raise invalid(f"lead_ms and duration_ms are times and must be above zero, got {min(lead, duration)}")
        st = self.state(args)
        a, said_a = self._point(st, args, "hold", "x1", "y1")
        b, said_b = self._point(st, args, "from", "x2", "y2")
        c, said_c = self._point(st, args, "to", "x3", "y3")
        if b == c:
            raise invalid(f"from and to are both at ({b[0]}, {b[1]}), so the second finger would not move — that "
                          "is app_press_tap")
        screen = self._touchscreen(st)
        steps = max(5, min(40, int(math.hypot(c[0] - b[0], c[1] - b[1]) / 50)))
        frames = [(0, {0: a}), (lead / 1000, {1: b})]
        frames += [(duration / 1000 / steps, {1: (round(b[0] + (c[0] - b[0]) * i / steps),
                                                   round(b[1] + (c[1] - b[1]) * i / steps))})
                   for i in range(1, steps + 1)]
        frames += [(SECOND_DOWN_S, {1: None}), (FIRST_AFTER_S, {0: None})]
        st.link.shell(chain(screen, frames))
        self.drop_refs(st)
        return Result(f"held {said_a} and dragged a second finger from {said_b} to {said_c} — {PRESS_NOTE}",
                      {"hold": list(a), "from": list(b), "to": list(c), "lead_ms": lead, "duration_ms": duration})
