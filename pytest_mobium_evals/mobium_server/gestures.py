"""The gesture tools that need a finger held over time: app_drag (a press, a hold, a move, a hold, a release).

ADB offers a held finger as `input motionevent DOWN/MOVE/UP`; the whole chain goes to the device as one shell
command with `sleep` between the events, so the holds are timed on the device rather than across the ADB link."""

from __future__ import annotations

import math

from .errors import MobiumError, invalid
from .tool_state import DeviceState, Result

DRAG_HOLD_MS = 700
DRAG_DURATION_MS = 800
STEP_PX = 50
MIN_STEPS, MAX_STEPS = 5, 40
DELIVERED = ("the gesture was delivered; whether the drop was accepted is the app's own state, so map the screen "
             "again to see it")


def motion_chain(points: list[tuple[int, int]], hold_s: float, step_s: float) -> str:
    """One shell line: down at the first point, hold, a move to each later point `step_s` apart, hold, up."""
    (x0, y0), rest = points[0], points[1:]
    parts = [f"input motionevent DOWN {x0} {y0}", f"sleep {hold_s:.3f}"]
    for i, (x, y) in enumerate(rest):
        parts.append(f"input motionevent MOVE {x} {y}")
        if i < len(rest) - 1:
            parts.append(f"sleep {step_s:.3f}")
    parts += [f"sleep {hold_s:.3f}", f"input motionevent UP {rest[-1][0]} {rest[-1][1]}"]
    return "; ".join(parts)


class GestureTools:
    """Mixed into `Mobium`."""

    def _ends(self, st: DeviceState, args: dict) -> tuple[tuple[int, int], tuple[int, int], str, str]:
        ends = [args.get(k) for k in ("from", "to")]
        coords = [args.get(k) for k in ("x1", "y1", "x2", "y2")]
        if any(e is not None for e in ends) and any(c is not None for c in coords):
            raise invalid("give either from/to or x1,y1,x2,y2, not both")
        if any(e is not None for e in ends):
            if None in ends:
                raise invalid("from and to must be given together — a drag has two ends")
            _, _, a, sa = self._acquire(st, ends[0])
            _, _, b, sb = self._acquire(st, ends[1])
            return (a.x, a.y), (b.x, b.y), sa, sb
        if None in coords:
            raise invalid("app_drag needs both from and to (refs or locators), or all four of x1, y1, x2, y2")
        x1, y1, x2, y2 = coords
        return (x1, y1), (x2, y2), "", ""

    def t_app_drag(self, args: dict) -> Result:
        hold, duration = args.get("hold_ms", DRAG_HOLD_MS), args.get("duration_ms", DRAG_DURATION_MS)
        if hold <= 0 or duration <= 0:
            bad = hold if hold <= 0 else duration
            raise invalid(f"hold_ms and duration_ms are times and must be above zero, got {bad}")
        if args.get("driver") == "uiautomator":
            raise MobiumError("unsupported", "the uiautomator backend cannot drag: it can swipe, but a swipe has no "
                              "hold at either end and a drag is mostly the holds — switch to --driver uiautomator2",
                              "leave driver out, or pass uiautomator2")
        st = self.state(args)
        (x1, y1), (x2, y2), sa, sb = self._ends(st, args)
        if (x1, y1) == (x2, y2):
            named = f"{sa} and {sb} resolved to the same place" if sa else "the two points are one"
            raise invalid(f"from and to are both at ({x1}, {y1}), so nothing would move — {named}")
        steps = max(MIN_STEPS, min(MAX_STEPS, int(math.hypot(x2 - x1, y2 - y1) / STEP_PX)))
        points = [(x1, y1)] + [(round(x1 + (x2 - x1) * i / steps), round(y1 + (y2 - y1) * i / steps))
                               for i in range(1, steps + 1)]
        st.link.shell(motion_chain(points, hold / 1000, duration / 1000 / steps),
                      timeout=30 + (2 * hold + duration) / 1000)
        self.drop_refs(st)
        if sa:
            text = f"dragged {sa} at ({x1},{y1}) onto {sb} at ({x2},{y2}), holding {hold}ms at each end — {DELIVERED}"
        else:
            text = f"dragged ({x1},{y1}) to ({x2},{y2}), holding {hold}ms at each end — {DELIVERED}"
        data = {"from": args.get("from"), "to": args.get("to"), "x1": x1, "y1": y1, "x2": x2, "y2": y2,
                "hold_ms": hold, "duration_ms": duration}
        return Result(text, data)
