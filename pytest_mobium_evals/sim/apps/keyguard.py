"""The lock screen SystemUI shows over everything once the screen has been off, on a device locked by a swipe
(no PIN): the clock, the date, the notification count and the hint to swipe up. It has nothing to tap; a swipe up
anywhere on it, the menu key or `wm dismiss-keyguard` takes it away (the device decides that, not this view)."""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from ..views import Node

if TYPE_CHECKING:  # pragma: no cover
    from ..device import VirtualDevice

SUI = "com.android.systemui:id/"
HINT = "Swipe up to open"  # a Pixel's keyguard indication on a swipe-only lock
BACKGROUND = "#101318"


def render_keyguard(device: "VirtualDevice") -> Node:
    wall = time.gmtime(device.clock.wall())
    count = len(device.notifications)
    rows: list[Node | None] = [
        Node("android.widget.TextView", id=SUI + "lockscreen_clock_view", text=time.strftime("%H:%M", wall),
             height=96, margin_bottom=8),
        Node("android.widget.TextView", id=SUI + "date_view", text=time.strftime("%a, %b ", wall) + str(wall.tm_mday),
             height=32, margin_bottom=24),
        Node("android.widget.TextView", id=SUI + "keyguard_notification_count",
             text=f"{count} notification{'s' if count != 1 else ''}", height=32) if count else None,
        Node("android.view.View", id=SUI + "keyguard_spacer", height=520),
        Node("android.widget.ImageView", id=SUI + "lock_icon", desc="Device locked", height=48, width=48,
             margin_bottom=16),
        Node("android.widget.TextView", id=SUI + "keyguard_indication_text", text=HINT, height=32),
    ]
    return Node("android.widget.FrameLayout", id=SUI + "notification_panel", padding=24, bg=BACKGROUND,
                touch="block", children=[Node("android.widget.LinearLayout", id=SUI + "keyguard_status_view",
                                              children=rows)])
