"""A MobiumApp screen: what every screen module builds on (mounting, timers, revealing a field above the
keyboard), and the runtime permissions the screens ask for."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...views import DP, IME_BOX, Node
from .ui import Theme

if TYPE_CHECKING:
    from .app import MobiumApp

FINE = "android.permission.ACCESS_FINE_LOCATION"
COARSE = "android.permission.ACCESS_COARSE_LOCATION"
CAMERA = "android.permission.CAMERA"
NOTIFICATIONS = "android.permission.POST_NOTIFICATIONS"


REVEAL_MARGIN_PX = 24


class Screen:
    """One mounted screen. A new instance per visit, so leaving and coming back resets its state."""

    key = ""
    parent = "home"

    def __init__(self, app: "MobiumApp"):
        self.app = app
        self.device = app.device
        self._timers: list = []
        self.mounted = True

    def after(self, seconds: float, callback):
        """A timer that dies with the screen (React clears its timeouts on unmount)."""
        def fire():
            if timer in self._timers:
                self._timers.remove(timer)
            if self.mounted:
                callback()

        timer = self.device.after(seconds, fire)
        self._timers.append(timer)
        return timer

    def every(self, seconds: float, callback):
        """A `setInterval` that lives as long as the screen."""
        def tick():
            callback()
            self.after(seconds, tick)

        return self.after(seconds, tick)

    def keyboard_room(self) -> Node | None:
        """While the keyboard is up, the end of a scrolling form gets room to scroll its last field above the
        keyboard (what KeyboardAvoidingView-style insets give). Views outside the scroll view stay covered."""
        if self.device.keyboard_shown and self.device.focused_id:
            return Node("android.view.View", height=(IME_BOX[3] - IME_BOX[1]) / DP, touch="pass")
        return None

    def reveal(self, node_id: str) -> None:
        """Scrolls a just-focused field up out from under the soft keyboard, as Android does for the focused view
        of a scrolling form: each scrolling ancestor, innermost first, moves as far as it can. Fields outside a
        scroll view (or pinned) stay where they are."""
        frame = self.device.frame()
        root = frame.app_window.root
        placed = root.find(node_id) if root is not None else None
        if placed is None:
            return
        overlap = placed.box[3] - (IME_BOX[1] - REVEAL_MARGIN_PX)
        offsets = self.device.scroll_offsets
        container = placed.parent
        while overlap > 0 and container is not None:
            if container.node.scroll == "vertical":
                key = container.node.id or f"#{container.order}"
                viewport = container.box[3] - container.box[1] - 2 * round(container.node.padding * DP)
                current = offsets.get(key, 0)
                room = max(0, container.content_extent - viewport) - current
                take = min(room, overlap)
                if take > 0:
                    offsets[key] = current + take
                    overlap -= take
            container = container.parent

    def animation_frame(self) -> object:
        """An animation this screen runs whose views are off the screen (`App.animation_frame`): None, no such."""
        return None

    def unmount(self) -> None:
        self.mounted = False
        for timer in self._timers:
            timer.cancel()
        self._timers.clear()

    def render(self, t: Theme) -> Node:  # pragma: no cover - every screen overrides it
        raise NotImplementedError
