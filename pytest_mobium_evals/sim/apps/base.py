"""The base class of every app on the virtual device (one class per activity)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ..views import Node

if TYPE_CHECKING:  # pragma: no cover
    from ..device import VirtualDevice


class App:
    """An activity. The device makes a fresh instance each time the activity is created (a cold start after a
    force-stop or `pm clear` always creates one), calls `on_start`, then `render` for every frame.

    Class attributes describe the package to the package manager: `package`, `label`, `activity` (short form,
    `.MainActivity`), `permissions` (declared runtime permissions), `launcher` (shown on the home screen),
    `version_name`/`version_code`, `system` (a preinstalled system app).
    """

    package = "dev.example"
    label = "Example"
    activity = ".MainActivity"
    permissions: tuple[str, ...] = ()
    launcher = True
    version_name = "1.0"
    version_code = 1
    system = False
    target_sdk = 35
    # WebView.setWebContentsDebuggingEnabled(true): its WebViews open a DevTools socket (`sim.devtools`).
    webview_debugging = False
    # Intent actions this activity answers (`am start -a ACTION`), besides MAIN/LAUNCHER for the launcher activity.
    actions: tuple[str, ...] = ()
    # The manifest's android:screenOrientation: "portrait" holds the display upright while the activity is in
    # front, whatever the user rotation says; "unspecified" follows it.
    screen_orientation = "unspecified"
    # The colours the screenshot renderer uses when nodes don't say (the app's theme).
    background = "#ffffff"
    foreground = "#141826"

    def __init__(self, device: "VirtualDevice"):
        self.device = device
        self.extras: dict = {}  # the extras of the intent that started it

    def on_start(self, extras: dict) -> None:
        """Called once after creation with the intent's extras ({"MobiumGrayBox": True} …); kept as `extras`."""
        self.extras = extras

    def on_new_intent(self, extras: dict) -> None:
        """Called when `am start` reaches the already-running activity at the top of its task."""

    def render(self) -> Node:
        return Node("android.widget.TextView", text=self.label)

    def animation_frame(self) -> object:
        """While the app runs an animation, something that changes from frame to frame (its frame count); None when
        it runs none. Views moving on screen show themselves; this is for an animation whose views are off it, which
        keeps the app from going idle all the same (a reader's wait for idle, `pace.drawn`)."""
        return None

    def on_back(self) -> bool:
        """True when the app handled the back key; False lets the system finish (move back) the activity."""
        return False

    def on_stop(self) -> None:
        """The activity left the screen (home, another app, back)."""

    def on_scroll(self, scroll_id: str, offset: int, max_offset: int) -> None:
        """A swipe moved the scroll container `scroll_id` to `offset` px (of `max_offset`): lists load more here."""

    @classmethod
    def component(cls) -> str:
        return f"{cls.package}/{cls.activity}"
