"""The Motion Demo: two targets that slide in over two seconds (one honors Reduce Motion, one never does), a web
page doing the same slide in CSS, and a confetti burst whose pieces can be exposed to automation, where they are
frames that never hold still."""

from __future__ import annotations

from ...views import Node
from ..web import MotionPage, webview
from .screen import Screen
from .ui import CONTENT_HEIGHT_DP, PAD, Theme, back_btn, btn, h1, text

SLIDE_S = 2.0
FALL_S = 3.0
EXPOSED_FALL_S = 12.0  # four times slower, so a tool can find a piece before it leaves
DONE_AFTER_S = 0.2
PIECES = 60
COLORS = ("#3552FD", "#763CFB", "#01CBDD", "#F5B400", "#E5484D", "#30A46C")
WIDTH_DP = 411.43 - 2 * PAD
LEAD = ("Each target slides in over two seconds. With Reduce Motion on, the honoring one and the web page below "
        "appear at once; the ignoring one always slides, as the control. Tap a target and it says how long after "
        "its Replay the tap arrived.")


def ease_out_cubic(x: float) -> float:
    return 1 - (1 - x) ** 3


class Burst:
    """One press of Celebrate: each piece's start, drift and fall time drawn once, as the app draws them."""

    def __init__(self, rng, started: float, seconds: float, height_dp: float):
        self.started = started
        self.seconds = seconds
        self.height = height_dp
        self.pieces = [(rng.random() * WIDTH_DP, -20 - rng.random() * 80, (rng.random() * 2 - 1) * 60,
                        seconds * (0.7 + rng.random() * 0.3)) for _ in range(PIECES)]
        self.ends = started + max(fall for _x, _y, _drift, fall in self.pieces)  # the last piece lands

    def place(self, i: int, now: float) -> tuple[float, float]:
        x0, y0, drift, fall = self.pieces[i]
        k = min(1.0, max(0.0, (now - self.started) / fall))
        y = y0 + (self.height + 20 - y0) * k * k  # Easing.in(quad)
        x = x0 + drift * min(1.0, (now - self.started) / self.seconds)
        return x, y


class Motion(Screen):
    key = "motion"

    def __init__(self, app):
        super().__init__(app)
        now = self.device.now()
        self.reduce = self.reduce_motion
        self.replayed = {"honoring": now, "ignoring": now}
        self.tapped: dict[str, int | None] = {"honoring": None, "ignoring": None}
        self.confetti = "idle"
        self.exposed = False
        self.burst: Burst | None = None
        self.web = MotionPage(self.device.now, self.reduce)

    @property
    def reduce_motion(self) -> bool:
        # React Native's isReduceMotionEnabled reads the transition animation scale, not the animator's.
        return self.device.settings("global").get("transition_animation_scale") in ("0", "0.0")

    def _watch(self) -> None:
        """reduceMotionChanged: a flip of the setting replays both targets."""
        reduce = self.reduce_motion
        if reduce != self.reduce:
            self.reduce = reduce
            for panel in self.replayed:
                self._replay(panel)()

    def web_pages(self) -> dict:
        return {"motionWebview": self.web}

    def _replay(self, panel: str):
        def replay():
            self.replayed[panel] = self.device.now()
            self.tapped[panel] = None
        return replay

    def _tap(self, panel: str):
        def tap():
            self.tapped[panel] = int(round((self.device.now() - self.replayed[panel]) * 1000))
        return tap

    def celebrate(self) -> None:
        if self.reduce:
            self.confetti = "still: reduce motion"
            return
        seconds = EXPOSED_FALL_S if self.exposed else FALL_S
        self.confetti = "falling"
        self.burst = Burst(self.device.random, self.device.now(), seconds, CONTENT_HEIGHT_DP)
        self.after(seconds + DONE_AFTER_S, lambda: setattr(self, "confetti", "done"))

    def animation_frame(self) -> object:
        """The burst's frame (60 a second) from the press until the last piece lands: every piece is animated from
        the start, above the screen's top edge too, so no reader's wait for idle ends during a burst (CHALLENGES
        109: with the default idle wait, a read during a 3 s burst waited it out whole)."""
        burst = self.burst
        now = self.device.now()
        if burst is None or self.reduce or now >= burst.ends:
            return None
        return int((now - burst.started) * 60)

    def _panel(self, t: Theme, panel: str, title: str) -> list[Node]:
        still = panel == "honoring" and self.reduce
        k = 1.0 if still else min(1.0, (self.device.now() - self.replayed[panel]) / SLIDE_S)
        left = 0.45 * (1.0 - ease_out_cubic(k))
        result = self.tapped[panel]
        return [
            btn(t, f"{panel}Replay", f"Replay {title}", self._replay(panel)),
            Node("android.view.ViewGroup", horizontal=True, height=55, children=[
                Node("android.view.View", width=max(0.01, WIDTH_DP * left), height=51, touch="pass"),
                Node("android.widget.Button", id=f"{panel}Target", desc=f"{title} target", width=WIDTH_DP * 0.55,
                     height=51, on_tap=self._tap(panel), bg="#2f7d4f",
                     children=[Node("android.widget.TextView", text=f"{title} target", height=51, fg="#ffffff")]),
            ]),
            text(t, f"{title}: " + ("not tapped" if result is None else f"tapped {result}ms after replay"),
                 f"{panel}Result"),
        ]

    def _pieces(self) -> list[Node]:
        burst = self.burst
        if burst is None or self.reduce:
            return []
        now = self.device.now()
        pieces = []
        for i in range(PIECES):
            x, y = burst.place(i, now)
            if y < 0 or y >= burst.height:
                continue  # above or below the screen: nothing is laid out there
            size = 6 + (i % 4) * 2
            piece = Node("android.view.View", id=f"confetti{i}" if self.exposed else "",
                         desc=f"confetti {i}" if self.exposed else "", width=size, height=size * 1.6,
                         bg=COLORS[i % len(COLORS)], touch="pass", visible_to_a11y=self.exposed)
            pieces.append(Node("android.view.ViewGroup", overlay=True, touch="pass", visible_to_a11y=self.exposed,
                               children=[Node("android.view.View", height=max(0.01, y), touch="pass"),
                                         Node("android.view.ViewGroup", horizontal=True, touch="pass",
                                              children=[Node("android.view.View", width=max(0.01, x),
                                                             touch="pass"), piece])]))
        return pieces

    def render(self, t: Theme) -> Node:
        self._watch()
        shown = self.confetti + ("  \U0001F389 Done" if self.confetti == "still: reduce motion" else "")
        panels = [] if self.reduce is None else [*self._panel(t, "honoring", "Honoring"),
                                                 *self._panel(t, "ignoring", "Ignoring")]
        screen = Node("android.view.ViewGroup", padding=PAD, children=[
            back_btn(t, self.app), h1(t, "Motion"),
            text(t, LEAD, muted=True),
            text(t, f"reduceMotion={str(self.reduce).lower()}", "reduceMotion"),
            *panels,
            btn(t, "celebrateBtn", "Celebrate \U0001F389", self.celebrate),
            Node("android.view.ViewGroup", horizontal=True, height=44, children=[
                Node("android.widget.Switch", id="confettiExposed", desc="Pieces visible to automation",
                     checkable=True, checked=self.exposed, width=60, height=44,
                     on_tap=lambda: setattr(self, "exposed", not self.exposed),
                     bg="#3552FD" if self.exposed else "#B8BCC8"),
                Node("android.widget.TextView", text="  Pieces visible to automation", width=300, height=44,
                     fg=t.ink),
            ]),
            text(t, f"confetti: {shown}", "confettiState"),
        ])
        return Node("android.view.ViewGroup", bg=t.ground, children=[
            screen, *self._pieces(),
            webview("motionWebview", self.web.nodes()),
        ])
