"""Drives MobiumApp on a virtual device the way a harness does, through the device's shell: `uiautomator dump`,
`input tap` at node centres, `input text`, `input keyevent`, `input swipe`, `am start`. Waits poll the device with
a real-time deadline (the device clock runs fast), never sleep."""

from __future__ import annotations

import contextlib
import re
import shlex
import xml.etree.ElementTree as ET

from polling import wait_for

from pytest_mobium_evals.sim.clock import Clock
from pytest_mobium_evals.sim.device import VirtualDevice
from pytest_mobium_evals.sim.shell import Shell

APP = "dev.mobium.mobiumapp"
COMPONENT = f"{APP}/.MainActivity"
SPEED = 25.0  # device seconds per real second: a 2.5 s feed page takes 0.1 s
FROZEN = 1e-6  # a clock that only moves when a test advances it
IME_TOP = 1500


def bounds_of(node: dict) -> tuple[int, int, int, int]:
    x1, y1, x2, y2 = map(int, re.findall(r"-?\d+", node["bounds"]))
    return x1, y1, x2, y2


class Driver:
    def __init__(self, speed: float = SPEED, seed: int = 7):
        self.clock = Clock(speed)
        self.device = VirtualDevice(clock=self.clock, seed=seed)
        self.sh = Shell(self.device)

    # -- the shell a harness uses ---------------------------------------------------------------------------------
    def shell(self, command: str) -> str:
        """One `adb shell` command; a failing one fails the test with what the device said."""
        out, status = self.sh.run(command)
        text = out.merged().decode("utf-8", "replace")
        if status != 0:
            raise AssertionError(f"`{command}` exited {status}: {text}")
        return text

    def launch(self, extras: dict | None = None) -> None:
        flags = "".join(f" --ez {k} {str(v).lower()}" for k, v in (extras or {}).items())
        self.shell(f"am force-stop {APP}")
        self.shell(f"am start -n {COMPONENT}{flags}")

    def dump(self) -> list[dict]:
        """Every node's attributes, plus `label`: its own text or else the first text below it (what a
        Pressable around a Text shows)."""
        raw = self.shell("uiautomator dump /dev/tty")
        root = ET.fromstring(raw[raw.index("<?xml"):raw.rindex("</hierarchy>") + len("</hierarchy>")])
        nodes = []
        for el in root.iter("node"):
            attrs = dict(el.attrib)
            attrs["label"] = attrs["text"] or next((c.get("text") for c in el.iter("node") if c.get("text")), "")
            nodes.append(attrs)
        return nodes

    def find(self, id: str | None = None, *, desc: str | None = None, text: str | None = None) -> dict | None:
        for node in self.dump():
            if id is not None and node["resource-id"] != id:
                continue
            if desc is not None and node["content-desc"] != desc:
                continue
            if text is not None and node["text"].lower() != text.lower():
                continue
            return node
        return None

    def ids(self) -> list[str]:
        return [n["resource-id"] for n in self.dump() if n["resource-id"]]

    def text(self, id: str) -> str | None:
        node = self.find(id)
        return None if node is None else node["text"]

    def label(self, id: str) -> str | None:
        node = self.find(id)
        return None if node is None else node["label"]

    def need(self, id: str | None = None, **kw) -> dict:
        node = self.find(id, **kw)
        if node is None:
            raise AssertionError(f"no node {id or kw} on screen; ids: {self.ids()}")
        return node

    # -- input ------------------------------------------------------------------------------------------------------
    def tap_xy(self, x: int, y: int) -> None:
        self.shell(f"input tap {x} {y}")

    def tap(self, id: str | None = None, **kw) -> None:
        x1, y1, x2, y2 = bounds_of(self.need(id, **kw))
        self.tap_xy((x1 + x2) // 2, (y1 + y2) // 2)

    def type(self, text: str) -> None:
        self.shell("input text " + shlex.quote(text.replace(" ", "%s")))

    def select_all(self) -> None:
        self.shell("input keycombination KEYCODE_CTRL_LEFT KEYCODE_A")

    def key(self, code: int) -> None:
        self.shell(f"input keyevent {code}")

    def back(self) -> None:
        self.key(4)

    def swipe(self, x1: int, y1: int, x2: int, y2: int, ms: int = 300) -> None:
        self.shell(f"input swipe {x1} {y1} {x2} {y2} {ms}")

    def scroll_to(self, id: str | None = None, *, direction: str = "down", tries: int = 30, along: str = "",
                  **kw) -> dict:
        """Swipes until the node is on screen (a tap at its centre must land on it); `along` names the scroll
        container to swipe in for a horizontal scroll."""
        for _ in range(tries):
            node = self.find(id, **kw)
            if node is not None:
                x1, y1, x2, y2 = bounds_of(node)
                if direction == "right":
                    if x2 < bounds_of(self.need(along))[2]:  # no longer clipped by the container's right edge
                        return node
                elif y2 - y1 >= 40 and y1 > 140 and y2 < 2330:
                    return node
            if direction == "down":
                self.swipe(540, 1700, 540, 1000)
            elif direction == "up":
                self.swipe(540, 900, 540, 1600)
            elif direction == "right":
                cx1, cy1, cx2, cy2 = bounds_of(self.need(along))
                self.swipe(900, (cy1 + cy2) // 2, 300, (cy1 + cy2) // 2)
            else:
                raise ValueError(direction)
        raise AssertionError(f"{id or kw} never scrolled into view; ids: {self.ids()}")

    def open(self, menu_id: str) -> None:
        """From home: scroll the menu to an entry and tap it."""
        self.scroll_to(menu_id)
        self.tap(menu_id)

    # -- waiting ------------------------------------------------------------------------------------------------------
    @contextlib.contextmanager
    def paused(self):
        """Stops the device clock for a block of commands that must all happen "at once" (a tap before a 0.4 s
        refresh lands), however slow the host is."""
        speed = self.clock.speed
        self.clock.speed = FROZEN
        try:
            yield
        finally:
            self.clock.speed = speed

    def wait(self, predicate, device_seconds: float, what: str = "the state"):
        """Polls until `predicate()` is truthy; fails after `device_seconds` of device time (plus a margin)."""
        return wait_for(predicate, (device_seconds + 2.0) / self.clock.speed + 2.0, what)

    def wait_text(self, id: str, expected: str, device_seconds: float = 5.0) -> float:
        """Waits until node `id` reads `expected`; returns the device time it was first seen."""
        self.wait(lambda: self.text(id) == expected, device_seconds, f"{id} == {expected!r} (now {self.text(id)!r})")
        return self.device.now()

    @property
    def dialog_up(self) -> bool:
        self.device.run_due()
        return self.device.frame().top.kind == "dialog"
