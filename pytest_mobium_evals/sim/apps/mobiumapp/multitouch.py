"""The Multi-Touch case: a pad whose own touch handlers see every finger wherever it lands, and say what the
fingers did: an n-finger tap, a press and tap (or drag) with a second finger, one finger, or something else."""

from __future__ import annotations

import math

from ...views import DP, Node
from .screen import Screen
from .ui import Theme, back_btn, h1, page, text

TOGETHER_MS = 60
STILL_DP = 20
LEAD_MS = 100


class MultiTouch(Screen):
    key = "multitouch"
    parent = "gesturehub"

    def __init__(self, app):
        super().__init__(app)
        self.result = "nothing yet"
        self.detail = ""
        self.events = ""
        self.fingers: dict[int, dict] = {}
        self._log: list[str] = []
        self._t0 = 0.0

    def _ms(self, t: float) -> int:
        return round((t - self._t0) * 1000)

    def on_touch(self, e) -> None:
        x, y = e.x / DP, e.y / DP
        if e.kind == "down":
            if not [f for f in self.fingers.values() if f["up"] is None]:
                self.fingers, self._log, self._t0 = {}, [], e.t  # a first finger starts a new gesture
            self.fingers[e.pointer] = {"down": e.t, "up": None, "start": (x, y), "last": (x, y), "lost": False}
        elif e.pointer in self.fingers:
            finger = self.fingers[e.pointer]
            finger["last"] = (x, y)
            if e.kind in ("up", "cancel"):
                finger["up"] = e.t
        if e.kind in ("down", "up"):
            still = sum(1 for f in self.fingers.values() if f["up"] is None)
            self._log.append(f"{e.kind} {e.pointer}({round(x)},{round(y)})@{self._ms(e.t)} n={still}")
            self.events = ", ".join(self._log)
        if e.kind in ("up", "cancel") and not e.pointers:
            for finger in self.fingers.values():
                if finger["up"] is None:
                    finger["up"], finger["lost"] = e.t, True
            self._verdict()

    @staticmethod
    def _moved(f: dict) -> float:
        return math.hypot(f["last"][0] - f["start"][0], f["last"][1] - f["start"][1])

    def _verdict(self) -> None:
        fs = sorted(self.fingers.values(), key=lambda f: f["down"])
        self.detail = " ".join(f"[{self._ms(f['down'])}-{self._ms(f['up'])} moved {round(self._moved(f))}"
                               f"{' no lift seen' if f['lost'] else ''}]" for f in fs)
        n = len(fs)
        first_up = min(f["up"] for f in fs)
        if n >= 2 and all((f["down"] - fs[0]["down"]) * 1000 <= TOGETHER_MS for f in fs) \
                and all((f["up"] - first_up) * 1000 <= TOGETHER_MS for f in fs) \
                and all(self._moved(f) <= STILL_DP for f in fs):
            self.result = f"{n}-finger tap"
        elif n == 2 and (fs[1]["down"] - fs[0]["down"]) * 1000 >= LEAD_MS and fs[1]["up"] <= fs[0]["up"]:
            second, first = round(self._moved(fs[1])), round(self._moved(fs[0]))
            kind = "press and tap" if second <= STILL_DP else "press and drag"
            self.result = (f"{kind}, lead {round((fs[1]['down'] - fs[0]['down']) * 1000)}ms, second moved {second}, "
                           f"first moved {first}, held {round((fs[0]['up'] - fs[0]['down']) * 1000)}ms")
        elif n == 1:
            f = fs[0]
            self.result = f"one finger, moved {round(self._moved(f))}, held {round((f['up'] - f['down']) * 1000)}ms"
        else:
            self.result = f"other, {n} fingers, landed over {round((fs[-1]['down'] - fs[0]['down']) * 1000)}ms"

    def _zone(self, id: str, label: str, caption: str, height: float, bg: str, **kw) -> Node:
        return Node("android.view.ViewGroup", id=id, desc=label, clickable=True, focusable=True, height=height,
                    bg=bg, on_touch=self.on_touch, children=[
                        Node("android.widget.TextView", text=caption, height=height, fg="#ffffff", touch="pass")],
                    **kw)

    def render(self, t: Theme) -> Node:
        return page(t, [
            back_btn(t, self.app), h1(t, "Multi-Touch"),
            text(t, f"multi: {self.result}", "multiResult"),
            text(t, f"fingers: {self.detail}", "multiDetail"),
            text(t, f"events: {self.events}", "multiEvents"),
            Node("android.view.ViewGroup", on_touch=self.on_touch, children=[
                Node("android.view.ViewGroup", horizontal=True, height=140, margin_bottom=10, children=[
                    self._zone("holdZone", "Hold zone", "Hold", 140, "#b4443a", margin_right=10),
                    self._zone("actZone", "Act zone", "Tap or drag", 140, "#3a5cb4"),
                ]),
                self._zone("dragEnd", "Drag end", "Drag to here", 100, "#6a3ab4", margin_bottom=10),
                self._zone("tapZone", "Finger tap zone", "Tap with several fingers", 140, "#2f7d4f"),
            ]),
        ])
