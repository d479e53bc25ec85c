"""The virtual device's windows: keyboard focus, the frame (app, dialog, shade, keyboard, toast windows), the
view dump, and the focus summaries dumpsys prints."""

from __future__ import annotations

from .. import views
from ..apps.keyguard import BACKGROUND as KEYGUARD_BACKGROUND
from ..apps.keyguard import render_keyguard
from ..apps.system import render_dialog, render_shade
from ..display import Display, display_for
from ..views import Node, Placed
from .defaults import PERMISSION_PACKAGE, SYSTEMUI_PACKAGE
from .records import ActivityRecord, Dialog, Frame, Window

DIALOG_MAX_W = 1470  # 560 dp: an alert stops growing on a wide (landscape) screen


class DeviceWindows:
    """Mixed into `VirtualDevice`; reads and writes the device state it sets up."""

    # -- the keyboard and focus -------------------------------------------------------------------------------------

    def focus(self, node_id: str | None) -> None:
        if not node_id:
            self._clear_focus()
            return
        rec = self.current_activity()
        self.focused_id = node_id
        self._focus_package = rec.package.name if rec else None
        self.keyboard_shown = True
        self._cursor = None
        self._select_all = False

    def hide_keyboard(self) -> None:
        self.keyboard_shown = False

    # -- the display's rotation ------------------------------------------------------------------------------------

    @property
    def user_rotation(self) -> int:
        """The rotation the settings ask for: user_rotation with auto-rotate off; with it on, the sensor's, and an
        emulator's sensor reads upright."""
        system = self._settings["system"]
        if system.get("accelerometer_rotation", "0") == "1":
            return 0
        value = system.get("user_rotation", "0")
        return int(value) if value in ("0", "1", "2", "3") else 0

    def requested_orientation(self) -> str:
        """The screen orientation the activity in front asks for (its manifest's)."""
        rec = self.current_activity() or self._home_task().top
        app = rec.app if rec is not None else None
        return getattr(app, "screen_orientation", "unspecified")

    @property
    def rotation(self) -> int:
        """The display's rotation: the user's, unless the activity in front is fixed to portrait."""
        wanted = self.user_rotation
        if wanted % 2 == 1 and self.requested_orientation() == "portrait":
            return 0
        return wanted

    @property
    def display(self) -> Display:
        return display_for(self.rotation)

    # -- the frame: windows, dump, hit-testing -------------------------------------------------------------------

    def frame(self) -> Frame:
        """Renders every window. Apps' `render` runs here, so the frame is always the state of now."""
        with self.lock:
            self.frames += 1
            screen = self.display
            windows: list[Window] = []
            rec = self.current_activity()
            if rec is None:
                rec = self._home_task().top
            windows.append(self._app_window(rec, screen))
            if rec is not None and rec.dialogs:
                windows.append(self._dialog_window(rec.dialogs[-1], rec, screen))
            if self.keyguard_showing:
                # Over the app and its dialogs, in the NotificationShade window, as SystemUI draws it since
                # Android 12; the shade pulled down over the lock screen still comes above it.
                root = views.layout(render_keyguard(self), screen.box, {})
                windows.append(Window("keyguard", SYSTEMUI_PACKAGE, root, "NotificationShade", box=screen.box,
                                      background=KEYGUARD_BACKGROUND, foreground="#e6e8f0"))
            if self.shade_expanded:
                root = views.layout(render_shade(self), screen.box, {})
                windows.append(Window("shade", SYSTEMUI_PACKAGE, root, "NotificationShade", box=screen.box,
                                      background="#1f1f24", foreground="#e6e8f0"))
            ime = bool(self.keyboard_shown and self.focused_id and windows[-1].kind == "app"
                       and rec is not None and rec.package.name == self._focus_package)
            return Frame(windows, ime, self.active_toast(), self.screen_on, screen)

    def _app_window(self, rec: ActivityRecord | None, screen: Display) -> Window:
        if rec is None or rec.app is None:
            return Window("app", "android", None, "null", box=screen.box)
        node = self._call(rec.package.name, rec.app.render)
        if rec.app is None or node is None or self.current_activity() not in (rec, None):
            # the app crashed while rendering: show whatever is now in front
            nxt = self.current_activity()
            if nxt is not None and nxt is not rec:
                return self._app_window(nxt, screen)
            node = Node("android.widget.FrameLayout")
        content_box = screen.content_box
        # Placed and clipped to its content box: the window's content never draws over the system bars.
        content = views.layout(node, content_box, rec.scroll_offsets)
        package = rec.package.name
        decor = Placed(Node("android.widget.FrameLayout"), screen.box, 0, 0, None)
        linear = Placed(Node("android.widget.LinearLayout"), screen.box, 0, 0, decor)
        frame = Placed(Node("android.widget.FrameLayout", id="android:id/content"), content_box, 0, 0, linear)
        linear.children = [frame]
        status = Placed(Node(id="android:id/statusBarBackground"), (0, 0, screen.width, screen.status_bottom), 1, 0,
                        decor)
        nav = Placed(Node(id="android:id/navigationBarBackground"), (0, screen.nav_top, screen.width, screen.height),
                     2, 0, decor)
        decor.children = [linear, status, nav]
        views._clip(decor, screen.box, False)  # the window's own views; its content was clipped as it was placed
        content.parent = frame
        frame.children = [content]
        app = rec.app
        dark = self.night_mode and getattr(app, "follows_night_mode", False)
        bg = getattr(app, "dark_background", "#141826") if dark else app.background
        fg = getattr(app, "dark_foreground", "#e6e8f0") if dark else app.foreground
        if hasattr(app, "theme_colors"):
            bg, fg = app.theme_colors()
        return Window("app", package, decor, rec.full, background=bg, foreground=fg, activity=rec, box=screen.box)

    def _dialog_window(self, dialog: Dialog, rec: ActivityRecord, screen: Display) -> Window:
        width = min(screen.width - 126, DIALOG_MAX_W)
        node, height = render_dialog(self, dialog, rec, width)
        top = max(screen.status_bottom + 40, (screen.height - height) // 2)
        left = (screen.width - width) // 2
        box = (left, top, left + width, top + height)
        root = views.layout(node, box, {})
        package = dialog.package if dialog.package != "android" else "android"
        if dialog.kind == "permission":
            title = f"{PERMISSION_PACKAGE}/com.android.permissioncontroller.permission.ui.GrantPermissionsActivity"
        elif dialog.kind == "crash":
            title = "Application Error: " + dialog.title.replace(" keeps stopping", "")
        else:
            title = rec.full
        dark = self.night_mode and dialog.kind != "alert"
        return Window("dialog", package, root, title, box=box, activity=rec, dialog=dialog,
                      background="#2b2d33" if dark else "#ffffff", foreground="#e6e8f0" if dark else "#1b1b1f")

    def dump_xml(self, frame: Frame | None = None) -> str:
        """The active window's hierarchy as `uiautomator dump` writes it (one line, no trailing newline)."""
        frame = frame or self.frame()
        out = ["<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>",
               f'<hierarchy rotation="{self.rotation}">']
        win = frame.top
        if win.root is not None:
            exclude = frame.display.ime_box if (frame.ime and win.kind == "app") else None
            focused = self.focused_id if win.kind == "app" else None
            views.dump_nodes(win.root, win.package, out, exclude, focused)
        out.append("</hierarchy>")
        return "".join(out)


    # -- state summaries used by dumpsys ----------------------------------------------------------------------

    def focus_window(self, frame: Frame | None = None) -> str:
        frame = frame or self.frame()
        top = frame.top
        if top.kind in ("shade", "keyguard"):
            return "Window{%s u0 NotificationShade}" % self._systemui_token
        if top.kind == "dialog" and top.dialog is not None:
            if top.dialog.kind == "permission":
                return f"Window{{{top.dialog.token} u0 {top.title}}}"
            if top.dialog.kind == "crash":
                return f"Window{{{top.dialog.token} u0 {top.title}}}"
        rec = top.activity or frame.app_window.activity
        return rec.window() if rec is not None else "null"

    @property
    def _systemui_token(self) -> str:
        if not hasattr(self, "_sysui_tok"):
            self._sysui_tok = self.new_hash()
        return self._sysui_tok
