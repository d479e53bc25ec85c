"""The display's geometry for each rotation: the panel is 1080x2400 at 420 dpi, and a quarter turn lays the screen
out at 2400x1080 with the status bar along the new top edge and the gesture bar along the new bottom one.

`wm size` and the touchscreen stay physical whatever the rotation; the view dump, the layout, the screencap and the
viewports dumpsys prints follow it, as on Android."""

from __future__ import annotations

from dataclasses import dataclass

from .views import IME_BOX, NAV_BAR_TOP, SCREEN_H, SCREEN_W, STATUS_BAR_BOTTOM, Box

LANDSCAPE_STATUS_BAR_PX = 63  # 24 dp: the camera cutout sits at a side edge in landscape, not along the top
GESTURE_BAR_PX = SCREEN_H - NAV_BAR_TOP
LANDSCAPE_KEYBOARD_PX = 560


@dataclass(frozen=True)
class Display:
    rotation: int  # quarter turns from the panel's natural (portrait) position
    width: int
    height: int
    status_bottom: int
    nav_top: int
    ime_top: int

    @property
    def box(self) -> Box:
        return (0, 0, self.width, self.height)

    @property
    def content_box(self) -> Box:
        return (0, self.status_bottom, self.width, self.nav_top)

    @property
    def ime_box(self) -> Box:
        return (0, self.ime_top, self.width, self.nav_top)

    @property
    def landscape(self) -> bool:
        return self.rotation % 2 == 1


def display_for(rotation: int) -> Display:
    if rotation % 2 == 0:
        return Display(rotation, SCREEN_W, SCREEN_H, STATUS_BAR_BOTTOM, NAV_BAR_TOP, IME_BOX[1])
    nav_top = SCREEN_W - GESTURE_BAR_PX
    return Display(rotation, SCREEN_H, SCREEN_W, LANDSCAPE_STATUS_BAR_PX, nav_top, nav_top - LANDSCAPE_KEYBOARD_PX)


PORTRAIT = display_for(0)
