"""How long the virtual device's commands take: `fast` answers at once (the device's own speed), `emulator` takes
as long as an Android 15 emulator does, so a tool, a harness or an agent meets the latency a real device gives it.

The latency is spent on the device's side of ADB, in the command itself, so every client meets it alike: the
harness, the built-in Mobium server and a real `mobium` binary. It is a wait with the device unlocked (not work),
so many paced devices fit on a few cores, and it is counted in device seconds: with the clock sped up for a test,
the command speeds up with everything else and its relation to the app's timers holds.

The figures and where they come from are in the manual (docs/explanation/virtual-device.md, "The virtual device's
pace")."""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # pragma: no cover
    from .device import VirtualDevice

ENV = "MOBIUM_EVALS_SIM_PACE"


@dataclass(frozen=True)
class Pace:
    """Device seconds each command takes. A command whose input moves (a swipe, typed text) also takes its own
    duration on top, in every pace but `fast`, as Android's `input` blocks until the gesture is injected."""

    name: str
    dump: float = 0.0            # uiautomator dump of a screen that holds still
    dump_moving: float = 0.0     # ... of a screen in motion, whose wait for idle lasts longer
    screencap: float = 0.0
    tap: float = 0.0             # input tap / keyevent / motionevent: the command starting and injecting
    text_per_char: float = 0.0   # input text: each character is a key down and up, injected one after another
    swipe_blocks: bool = False   # input swipe/draganddrop return only once their duration has passed
    am_start: float = 0.0        # am start -W also waits out the launch's TotalTime, as it reports it
    force_stop: float = 0.0
    pm_clear: float = 0.0
    settings_put: float = 0.0
    uia2_read: float = 0.0       # the UiAutomator2 server's page source or find on a still screen (its own snapshot)
    uia2_read_moving: float = 0.0  # ... its whole time when its wait for idle gave up on a screen still moving

    @property
    def paced(self) -> bool:
        return self.name != "fast"


FAST = Pace("fast")
EMULATOR = Pace("emulator", dump=1.0, dump_moving=1.5, screencap=0.13, tap=0.1, text_per_char=0.02,
                swipe_blocks=True, am_start=0.15, force_stop=0.2, pm_clear=0.6, settings_put=0.1,
                uia2_read=0.15, uia2_read_moving=1.5)
PACES = {p.name: p for p in (FAST, EMULATOR)}
# The window a moving screen is told apart in: what changes within it is motion (Mobium's settle uses the same).
STILL_WINDOW_S = 0.1


class PaceError(ValueError):
    """An unknown pace name: the message names the choices."""


def pace_named(name: str | None) -> Pace:
    if name is None or name == "":
        return FAST
    try:
        return PACES[name]
    except KeyError:
        raise PaceError(f"pace {name!r}: choose one of {', '.join(PACES)}") from None


def spend(device: "VirtualDevice", seconds: float) -> None:
    """Let `seconds` of device time pass, then run the timers that came due. On a running clock that is a wait with
    the device unlocked (other connections go on meanwhile); a held clock is moved on by exactly `seconds`, however
    long the host took to get here. The caller holds the device lock, as every shell command does."""
    wait = device.clock.spend(seconds)
    if wait > 0:
        device.lock.release()
        try:
            time.sleep(wait)
        finally:
            device.lock.acquire()
    device.run_due()


def drawn(device: "VirtualDevice") -> tuple:
    """What the screen shows, every view placed and drawn, whether or not accessibility sees it: an animation of
    views hidden from the dump (decorative confetti) keeps a real screen from going idle all the same. So does one
    the app runs whose views are not on the screen yet (`App.animation_frame`: pieces falling from above its top)."""
    frame = device.frame()
    app = device.current_app()
    seen: list = [frame.ime, frame.toast is not None, app.animation_frame() if app is not None else None]
    for window in frame.windows:
        if window.root is not None:
            seen += [(p.bounds, p.node.text, p.node.checked, p.node.bg) for p in window.root.walk()]
    return tuple(seen)


def paced_dump(device: "VirtualDevice") -> str:
    """The hierarchy as `uiautomator dump` hands it over at this pace: after its start-up and its wait for the
    screen to go idle, which lasts longer while the screen moves. Motion is read off the screen itself, two looks
    a window apart at the end of the still screen's wait, so any app's animation counts, not a list of known ones."""
    pace = device.pace
    if not pace.paced or pace.dump <= 0:
        return device.dump_xml()
    spend(device, max(0.0, pace.dump - STILL_WINDOW_S))
    first = drawn(device)
    spend(device, STILL_WINDOW_S)
    if drawn(device) != first:
        spend(device, pace.dump_moving - pace.dump)
    return device.dump_xml()
