"""The WebView pages that read fingers: Pinch and Spread (the browser's own zoom, visualViewport.scale) and Rotate
(the angle between two touches, summed). Each page's WebView hands it the raw touch stream (`on_touch`)."""

from __future__ import annotations

import math

from ..views import Node
from .web import WebPage, p

MAX_SCALE = 5.0
PINCH_SLOP_PX = 59      # finger travel a pinch needs before the zoom starts to follow it
SCALE_PER_PX = 0.0102   # fitted to a Pixel 7 AVD: 100 px of travel gave 1.42, 160 px 2.03, 50 px nothing
PINCH_TEXT = ("Pinch in and spread out anywhere on this page. The number in the box is the browser's own zoom "
              "level, read from visualViewport. It sits in the middle, where a pinch about the screen's center "
              "lands, so a picture taken after a zoom shows it magnified.")


def _two(e) -> tuple[tuple[float, float], tuple[float, float]] | None:
    if len(e.pointers) < 2:
        return None
    a, b = (e.pointers[k] for k in sorted(e.pointers)[:2])
    return a, b


class PinchPage(WebPage):
    """A zoomable page (initial-scale=1, so the minimum is 1): two fingers moving apart zoom in, together out."""

    title = "Pinch and Spread"

    def __init__(self):
        super().__init__()
        self.scale = 1.0
        self._start: tuple[float, float] | None = None  # (half-distance, scale) when the second finger landed
        self.element_texts = {"scale": self.scale_text}

    def scale_text(self) -> str:
        return f"scale {self.scale:.2f}"

    def on_touch(self, e) -> None:
        fingers = _two(e)
        if fingers is None:
            self._start = None
            return
        (ax, ay), (bx, by) = fingers
        half = math.hypot(bx - ax, by - ay) / 2
        if self._start is None:
            self._start = (half, self.scale)
            return
        start_half, start_scale = self._start
        travel = abs(half - start_half)
        factor = 1 + SCALE_PER_PX * max(0.0, travel - PINCH_SLOP_PX)
        scaled = start_scale * factor if half > start_half else start_scale / factor
        self.scale = min(MAX_SCALE, max(1.0, scaled))

    def globals(self):
        return {"pinchScale": lambda: self.scale, "visualViewport": {"scale": self.scale}}

    def nodes(self) -> list[Node]:
        return [p(PINCH_TEXT), Node("android.view.View", id="target", height=220, width=220, bg="#DDE1F0",
                                    children=[p(self.scale_text(), "scale")])]


class RotatePage(WebPage):
    """A pad with touch-action none: two touches' angle, wrapped to ±180 per move and summed; a lift keeps the
    total. Clockwise on screen (y down) is positive."""

    title = "Rotate"

    def __init__(self):
        super().__init__()
        self.total = 0.0
        self._base: float | None = None
        self.element_texts = {"deg": lambda: f"{self.total:.1f}"}

    def on_touch(self, e) -> None:
        if e.kind in ("up", "cancel"):
            self._base = None
            return
        fingers = _two(e)
        if e.kind != "move" or fingers is None:
            return
        (ax, ay), (bx, by) = fingers
        angle = math.degrees(math.atan2(by - ay, bx - ax))
        if self._base is None:
            self._base = angle
            return
        d = angle - self._base
        d = (d + 180) % 360 - 180
        self.total += d
        self._base = angle

    def globals(self):
        return {"rotation": lambda: self.total}

    def nodes(self) -> list[Node]:
        return [Node("android.view.View", id="pad", height=600, bg="#EEEEFF",
                     children=[p(f"{self.total:.1f}", "deg"), p("degrees turned")])]
