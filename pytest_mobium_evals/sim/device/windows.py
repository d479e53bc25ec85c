"""The virtual device's windows: keyboard focus, the frame (app, dialog, shade, keyboard, toast windows), the
view dump, and the focus summaries dumpsys prints."""

from __future__ import annotations

from .. import views
from ..apps.keyguard import BACKGROUND as KEYGUARD_BACKGROUND
from ..apps.keyguard import render_keyguard
from ..apps.system import render_dialog, render_shade
from ..views import CONTENT_BOX, IME_BOX, NAV_BAR_TOP, SCREEN_H, SCREEN_W, STATUS_BAR_BOTTOM, Node, Placed
from .defaults import PERMISSION_PACKAGE, SYSTEMUI_PACKAGE
from .records import ActivityRecord, Dialog, Frame, Window


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

    # -- the frame: windows, dump, hit-testing -------------------------------------------------------------------

    def frame(self) -> Frame:
        """Renders every window. Apps' `render` runs here, so the frame is always the state of now."""
        with self.lock:
            self.frames += 1
            windows: list[Window] = []
            rec = self.current_activity()
            if rec is None:
                rec = self._home_task().top
            windows.append(self._app_window(rec))
            if rec is not None and rec.dialogs:
                windows.append(self._dialog_window(rec.dialogs[-1], rec))
            if self.keyguard_showing:
                # Over the app and its dialogs, in the NotificationShade window, as SystemUI draws it since
                # Android 12; the shade pulled down over the lock screen still comes above it.
                root = views.layout(render_keyguard(self), (0, 0, SCREEN_W, SCREEN_H), {})
                windows.append(Window("keyguard", SYSTEMUI_PACKAGE, root, "NotificationShade",
                                      background=KEYGUARD_BACKGROUND, foreground="#e6e8f0"))
            if self.shade_expanded:
                root = views.layout(render_shade(self), (0, 0, SCREEN_W, SCREEN_H), {})
                windows.append(Window("shade", SYSTEMUI_PACKAGE, root, "NotificationShade",
                                      background="#1f1f24", foreground="#e6e8f0"))
            ime = bool(self.keyboard_shown and self.focused_id and windows[-1].kind == "app"
                       and rec is not None and rec.package.name == self._focus_package)
            return Frame(windows, ime, self.active_toast(), self.screen_on)

    def _app_window(self, rec: ActivityRecord | None) -> Window:
        if rec is None or rec.app is None:
            return Window("app", "android", None, "null")
        node = self._call(rec.package.name, rec.app.render)
        if rec.app is None or node is None or self.current_activity() not in (rec, None):
            # the app crashed while rendering: show whatever is now in front
            nxt = self.current_activity()
            if nxt is not None and nxt is not rec:
                return self._app_window(nxt)
            node = Node("android.widget.FrameLayout")
        content = views.layout(node, CONTENT_BOX, rec.scroll_offsets)
        package = rec.package.name
        decor = Placed(Node("android.widget.FrameLayout"), (0, 0, SCREEN_W, SCREEN_H), 0, 0, None)
        linear = Placed(Node("android.widget.LinearLayout"), (0, 0, SCREEN_W, SCREEN_H), 0, 0, decor)
        frame = Placed(Node("android.widget.FrameLayout", id="android:id/content"), CONTENT_BOX, 0, 0, linear)
        content.parent = frame
        frame.children = [content]
        linear.children = [frame]
        status = Placed(Node(id="android:id/statusBarBackground"), (0, 0, SCREEN_W, STATUS_BAR_BOTTOM), 1, 0, decor)
        nav = Placed(Node(id="android:id/navigationBarBackground"), (0, NAV_BAR_TOP, SCREEN_W, SCREEN_H), 2, 0, decor)
        decor.children = [linear, status, nav]
        views._clip(decor, (0, 0, SCREEN_W, SCREEN_H), False)
        views._clip(content, CONTENT_BOX, False)  # the window's content never draws over the system bars
        app = rec.app
        dark = self.night_mode and getattr(app, "follows_night_mode", False)
        bg = getattr(app, "dark_background", "#141826") if dark else app.background
        fg = getattr(app, "dark_foreground", "#e6e8f0") if dark else app.foreground
        if hasattr(app, "theme_colors"):
            bg, fg = app.theme_colors()
        return Window("app", package, decor, rec.full, background=bg, foreground=fg, activity=rec)

    def _dialog_window(self, dialog: Dialog, rec: ActivityRecord) -> Window:
        node, height = render_dialog(self, dialog, rec)
        top = max(STATUS_BAR_BOTTOM + 40, (SCREEN_H - height) // 2)
        box = (63, top, SCREEN_W - 63, top + height)
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
            exclude = IME_BOX if (frame.ime and win.kind == "app") else None
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
