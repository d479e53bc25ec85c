"""W3C WebDriver actions (`POST /session/:id/actions`) on the virtual device's touchscreen and keyboard.

The input sources run in lockstep, as the specification has it: tick i takes every source's i-th action and lasts as
long as the longest of them. A `pointerMove` with a duration is injected as a move every frame along a straight
line; `pointerDown`/`pointerUp` are a finger landing and lifting; several pointer sources are several fingers of one
gesture (pointer ids 0, 1, … in the order the sources come). Each event carries the device time it is due at, as the
MotionEvents the server injects do. Like the server, the call returns once the last event is injected: when the
gesture goes to a view that reads raw touches, or the device runs at a paced speed, the events wait for their time
(device seconds, so a sped-up clock speeds them up too); otherwise they are stamped and delivered at once, and the
device reads the stroke from the stamps.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Callable

from ..pace import spend

if TYPE_CHECKING:  # pragma: no cover
    from ..device import VirtualDevice

FRAME_S = 0.016  # one move per display frame
ELEMENT_KEY = "element-6066-11e4-a52e-4f735466cecf"
# WebDriver's key codes (the Private Use Area values clients send) and the Android key codes they press.
SPECIAL_KEYS = {"\ue003": 67, "\ue006": 66, "\ue007": 66, "\ue004": 61, "\ue00c": 111, "\ue012": 21, "\ue013": 19,
                "\ue014": 22, "\ue015": 20, "\ue011": 122, "\ue010": 123, "\ue017": 112, "\ue00d": 62}


class ActionsError(ValueError):
    """The actions payload breaks the specification: W3C `invalid argument`."""


@dataclass
class Event:
    t: float           # seconds after the start
    order: int
    kind: str          # down, move, up, key
    pointer: int = 0
    x: float = 0.0
    y: float = 0.0
    key: str = ""


def _number(action: dict, name: str, default: float | None = None) -> float:
    value = action.get(name, default)
    if value is None or isinstance(value, bool) or not isinstance(value, (int, float)):
        raise ActionsError(f"'{name}' of a {action.get('type')} action must be a number, got {value!r}")
    return float(value)


def plan(payload: dict, element_center: Callable[[str], tuple[float, float]],
         start: tuple[float, float] = (0.0, 0.0)) -> tuple[list[Event], float]:
    """The events `payload` asks for, in the order they happen, and how long the whole takes (trailing pauses
    included), in seconds."""
    sources = payload.get("actions")
    if not isinstance(sources, list):
        raise ActionsError("'actions' must be a list of input sources")
    events: list[Event] = []
    seq = 0
    pointers: dict[str, dict] = {}
    chains: list[tuple[dict, list]] = []
    for source in sources:
        if not isinstance(source, dict) or source.get("type") not in ("pointer", "key", "none", "wheel"):
            raise ActionsError(f"an input source's type must be pointer, key, none or wheel, got {source!r}")
        actions = source.get("actions")
        if not isinstance(actions, list):
            raise ActionsError(f"input source '{source.get('id')}' has no list of actions")
        if source["type"] == "pointer":
            pointers[str(source.get("id"))] = {"index": len(pointers), "x": start[0], "y": start[1], "down": False}
        chains.append((source, actions))
    ticks = max((len(a) for _, a in chains), default=0)
    t = 0.0
    for tick in range(ticks):
        longest = 0.0
        for source, actions in chains:
            if tick >= len(actions):
                continue
            action = actions[tick]
            if not isinstance(action, dict):
                raise ActionsError(f"an action must be an object, got {action!r}")
            kind = action.get("type")
            if kind == "pause":
                longest = max(longest, _number(action, "duration", 0) / 1000)
                continue
            if source["type"] == "key":
                if kind not in ("keyDown", "keyUp"):
                    raise ActionsError(f"a key source cannot {kind}")
                if kind == "keyDown":
                    seq += 1
                    events.append(Event(t, seq, "key", key=str(action.get("value", ""))))
                continue
            if source["type"] != "pointer":
                raise ActionsError(f"a {source['type']} source cannot {kind}")
            p = pointers[str(source.get("id"))]
            if kind == "pointerDown":
                p["down"] = True
                seq += 1
                events.append(Event(t, seq, "down", p["index"], p["x"], p["y"]))
            elif kind == "pointerUp":
                p["down"] = False
                seq += 1
                events.append(Event(t, seq, "up", p["index"], p["x"], p["y"]))
            elif kind == "pointerMove":
                duration = _number(action, "duration", 0) / 1000
                x, y = _number(action, "x", 0), _number(action, "y", 0)
                origin = action.get("origin", "viewport")
                if origin == "pointer":
                    x, y = p["x"] + x, p["y"] + y
                elif isinstance(origin, dict):
                    ref = origin.get(ELEMENT_KEY) or origin.get("ELEMENT")
                    if not ref:
                        raise ActionsError(f"a pointerMove origin must be viewport, pointer or an element, "
                                           f"got {origin!r}")
                    cx, cy = element_center(str(ref))
                    x, y = cx + x, cy + y
                elif origin != "viewport":
                    raise ActionsError(f"a pointerMove origin must be viewport, pointer or an element, got {origin!r}")
                if p["down"]:
                    steps = max(1, round(duration / FRAME_S))
                    x0, y0 = p["x"], p["y"]
                    for i in range(1, steps + 1):
                        seq += 1
                        events.append(Event(t + duration * i / steps, seq, "move", p["index"],
                                            x0 + (x - x0) * i / steps, y0 + (y - y0) * i / steps))
                p["x"], p["y"] = x, y
                longest = max(longest, duration)
            else:
                raise ActionsError(f"unknown pointer action '{kind}'")
        t += longest
    events.sort(key=lambda e: (e.t, e.order))
    return events, t


def perform(device: "VirtualDevice", events: list[Event], end: float | None = None) -> None:
    """Injects the events on the device. The caller holds `device.lock`."""
    d = device
    t0 = d.now()
    for e in events:
        due = t0 + e.t
        gesture = getattr(d, "_gesture", None)
        if d.pace.paced or (gesture is not None and gesture.target is not None):
            spend(d, due - d.now())
        x, y = int(round(e.x)), int(round(e.y))
        if e.kind == "down":
            d.pointer_down(x, y, pointer=e.pointer, t=due)
        elif e.kind == "move":
            d.pointer_move(x, y, pointer=e.pointer, t=due)
        elif e.kind == "up":
            d.pointer_up(x, y, pointer=e.pointer, t=due)
        elif e.kind == "key":
            press_key(d, e.key)
    if end is not None and d.pace.paced:
        spend(d, t0 + end - d.now())


def press_key(device: "VirtualDevice", value: str) -> None:
    code = SPECIAL_KEYS.get(value)
    if code is not None:
        device.key(code)
    elif value and not ("\ue000" <= value[0] <= "\uf8ff"):
        device.type_text(value)  # a character goes in as the keyboard commits it, whatever its script


def release(device: "VirtualDevice") -> None:
    """`DELETE /actions`: every finger still down lifts where it is."""
    gesture = getattr(device, "_gesture", None)
    if gesture is None:
        return
    for pointer, (x, y) in list(gesture.pointers.items()):
        device.pointer_up(int(x), int(y), pointer=pointer)
