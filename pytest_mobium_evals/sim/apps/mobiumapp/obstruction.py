"""Obstruction Demo (t13, t14, t15): targets with something drawn over them.

Each case is a target button and, drawn after it (so on top), a cover over the button's box. What a tap reaches is
decided by the device's hit-testing in z-order: a cover with a handler takes it, a `pointerEvents="none"` cover lets
it through, a plain view swallows it.
"""

from __future__ import annotations

from ...views import Node
from .screen import Screen
from .ui import COVER, Theme, back_btn, btn, note, page, text

TOAST_S = 1.5


class Obstruction(Screen):
    key = "obstruction"

    def __init__(self, app):
        super().__init__(app)
        self.taps = 0
        self.outcome = "nothing yet"
        self.toast_up = False
        self._toast_timer = None

    def _hit(self, what: str):
        def hit():
            self.taps += 1
            self.outcome = what
        return hit

    def show_toast(self) -> None:
        if self._toast_timer is not None:
            self._toast_timer.cancel()
        self.toast_up = True

        def gone():
            self.toast_up = False
            self._toast_timer = None

        self._toast_timer = self.after(TOAST_S, gone)

    def _target(self, t: Theme, id: str, label: str) -> Node:
        return btn(t, id, label, self._hit(f"target {id}"))

    def _cover(self, id: str, label: str, *, width: float = 1.0, bg: str = COVER, pressable: bool = True,
               **extra) -> Node:
        return Node("android.widget.Button" if pressable else "android.view.ViewGroup", id=id, desc=label,
                    overlay=True, width_frac=width, bg=bg,
                    on_tap=self._hit(f"cover {id or label}") if pressable else None, **extra,
                    children=[Node("android.widget.TextView", text=label, height=51, fg="#ffffff")])

    def _case(self, t: Theme, title: str, target: Node, cover: Node | None) -> list[Node]:
        return [text(t, title, muted=True, size=22),
                Node("android.view.ViewGroup", children=[target, cover])]

    def render(self, t: Theme) -> Node:
        items = [
            back_btn(t, self.app),
            note(t, "Each button has something drawn over it. The line says which one a tap really reached."),
            text(t, f"{self.taps}: {self.outcome}", "obstructionOutcome"),
        ]
        items += self._case(t, "Fully covered", self._target(t, "fullTarget", "Fully covered"),
                            self._cover("fullCover", "full cover"))
        items += self._case(t, "Center covered", self._target(t, "halfTarget", "Center covered"),
                            self._cover("halfCover", "half cover", width=0.6))
        items += self._case(t, "Edge covered, center clear", self._target(t, "edgeTarget", "Edge covered"),
                            self._cover("edgeCover", "edge cover", width=0.25))
        items += self._case(t, "Covered by a view that takes no touches",
                            self._target(t, "passTarget", "Pass-through"),
                            # accessible, pointerEvents="none": in the tree, but touches go through it.
                            self._cover("passCover", "pass-through cover", pressable=False, touch="pass",
                                        bg="#9C88FC"))
        items += self._case(t, "Covered by a plain view", self._target(t, "plainTarget", "Under a plain view"),
                            # A plain View with no handler still receives the touch and keeps it.
                            self._cover("plainCover", "plain cover", pressable=False, touch="block"))
        items.append(note(t, "A view with no touch handler of its own: it reports nothing when tapped, and the "
                             "button under it gets nothing either — so a tap here should leave the line above "
                             "unchanged."))
        # accessible={false} + no-hide-descendants: TalkBack skips it, but UiAutomator2's full tree still holds it.
        hidden = Node("android.view.ViewGroup", overlay=True, bg=COVER, on_tap=self._hit("cover hidden overlay"),
                      clickable=False, focusable=False,
                      children=[Node("android.widget.TextView", text="hidden overlay", height=51, fg="#ffffff")])
        items += self._case(t, "Under an overlay hidden from accessibility",
                            self._target(t, "hiddenTarget", "Under a hidden overlay"), hidden)
        items += self._case(t, "Under a translucent scrim", self._target(t, "scrimTarget", "Under a scrim"),
                            self._cover("scrimCover", "scrim", bg="#5F6270"))
        items.append(text(t, "Covered for a moment", muted=True, size=22))
        items.append(btn(t, "toastBtn", "Show a toast", self.show_toast))
        items.append(Node("android.view.ViewGroup", children=[
            self._target(t, "toastTarget", "Under a toast"),
            self.toast_up and self._cover("toastCover", "toast", bg="#141A21"),
        ]))
        items.append(note(t, "The toast covers the button below it for 1.5 seconds and takes touches while it "
                             "is up."))
        return page(t, items)
