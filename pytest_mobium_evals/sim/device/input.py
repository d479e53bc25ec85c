"""Touch, swipe, key and text input on the virtual device, as `input` delivers it."""

from __future__ import annotations

from typing import Callable

from .. import views
from ..keycodes import KEY_CHARS
from ..views import Placed
from .defaults import SYSTEMUI_PACKAGE
from .records import ActivityRecord, Dialog, Window


class DeviceInput:
    """Mixed into `VirtualDevice`; reads and writes the device state it sets up."""

    # -- input -------------------------------------------------------------------------------------------------

    def tap(self, x: int, y: int) -> None:
        with self.lock:
            self._touch(x, y, long=False)

    def long_press(self, x: int, y: int) -> None:
        with self.lock:
            self._touch(x, y, long=True)

    def _touch(self, x: int, y: int, *, long: bool) -> None:
        if not self.screen_on:
            return
        frame = self.frame()
        screen = frame.display
        if not (0 <= x < screen.width and 0 <= y < screen.height):
            return
        top = frame.top
        if top.kind == "keyguard":
            return  # the lock screen has nothing to tap: the touch never reaches the app under it
        if top.kind == "shade":
            hit = views.hit_test(top.root, x, y) if top.root else None
            if hit is None:
                self.shade_expanded = False
            else:
                self._activate(hit, SYSTEMUI_PACKAGE, long, x)
            return
        if frame.ime and screen.ime_top <= y < screen.nav_top:
            return  # the keyboard takes the touch and types nothing (a touch on the keyboard is swallowed)
        if y < screen.status_bottom or y >= screen.nav_top:
            return
        if top.kind == "dialog":
            b = top.box
            if not (b[0] <= x < b[2] and b[1] <= y < b[3]):
                if top.dialog is not None and top.dialog.cancelable:
                    self._cancel_dialog(top.activity, top.dialog)
                return
            hit = views.hit_test(top.root, x, y) if top.root else None
            if hit is not None:
                self._activate(hit, top.package, long, x)
            return
        if top.root is None:
            return
        hit = views.hit_test(top.root, x, y)
        if hit is None:
            return
        self._activate(hit, top.package if top.activity is None else top.activity.package.name, long, x)

    def _activate(self, hit: Placed, package: str, long: bool, x: int) -> None:
        node = hit.node
        if not node.enabled or node.touch == "block":
            return
        if node.editable:
            self.focus(node.id or f"#{hit.order}")
            if node.on_tap is not None:
                self._call(package, node.on_tap)
            return
        if node.on_drag is not None:
            l, _, r, _ = hit.bounds or hit.box
            self._call(package, node.on_drag, min(1.0, max(0.0, (x - l) / max(1, r - l))))
            return
        if long and node.on_long_press is not None:
            self._call(package, node.on_long_press)
        elif node.on_tap is not None:
            self._call(package, node.on_tap)

    def _cancel_dialog(self, rec: ActivityRecord | None, dialog: Dialog) -> None:
        if rec is not None and dialog in rec.dialogs:
            rec.dialogs.remove(dialog)
        if dialog.kind == "permission":
            self._answer_permission(dialog, "dismiss")
        elif dialog.on_cancel is not None:
            self._call(dialog.package, dialog.on_cancel)

    def press_dialog_button(self, rec: ActivityRecord, dialog: Dialog, index: int) -> None:
        """A dialog button was tapped: the dialog closes first, then the app hears about it."""
        if dialog in rec.dialogs:
            rec.dialogs.remove(dialog)
        caption, role, callback = dialog.buttons[index]
        if dialog.kind == "permission":
            self._answer_permission(dialog, role)
        elif callback is not None:
            owner = dialog.package if dialog.package in self.packages else None
            self._call(owner, callback)

    def show_dialog(self, title: str, message: str, buttons: list[tuple[str, str, Callable[[], None] | None]],
                    package: str, cancelable: bool = False, on_cancel: Callable[[], None] | None = None,
                    caps: bool = True) -> Dialog:
        """An AlertDialog over `package`'s top activity. roles: positive|negative|neutral (button1|2|3)."""
        for _, role, _ in buttons:
            if role not in ("positive", "negative", "neutral"):
                raise ValueError(f"dialog button role must be positive, negative or neutral, got {role!r}")
        dialog = Dialog(str(title), str(message), list(buttons), package, cancelable, on_cancel, "alert", caps,
                        self.new_hash())
        owner = self._owner_activity(package) or self.current_activity()
        if owner is not None:
            owner.dialogs.append(dialog)
            if owner is self.current_activity():
                self.keyboard_shown = False
        return dialog

    def swipe(self, x1: int, y1: int, x2: int, y2: int, duration_ms: int = 300) -> None:
        with self.lock:
            if not self.screen_on:
                return
            dx, dy = x2 - x1, y2 - y1
            dist = (dx * dx + dy * dy) ** 0.5
            if dist < 24:
                self._touch(x1, y1, long=duration_ms >= 500)
                return
            frame = self.frame()
            screen = frame.display
            top = frame.top
            if top.kind == "shade":
                if dy < -200 and abs(dy) > abs(dx):
                    self.shade_expanded = False
                    return
                self._drag_or_scroll(top, top.root, x1, y1, x2, y2, SYSTEMUI_PACKAGE)
                return
            if top.kind == "keyguard":
                if dy < -200 and abs(dy) > abs(dx):
                    self.dismiss_keyguard("swipe")
                elif y1 < screen.status_bottom and dy > 200:
                    self.shade_expanded = True
                return
            if y1 < screen.status_bottom and dy > 200 and top.kind != "dialog":
                self.shade_expanded = True
                self._clear_focus_keep()
                return
            if y1 >= screen.nav_top - 20 and dy < -200 and top.kind != "dialog":
                self.go_home()  # gesture navigation: swipe up from the bottom edge
                return
            if (x1 < 40 or x1 > screen.width - 40) and abs(dx) > 150 and abs(dx) > abs(dy) \
                    and not self._drag_target_at(top, x1, y1):
                # gesture navigation: swipe in from a side edge (seek bars exclude themselves, as on Android)
                self.key_back()
                return
            if frame.ime and screen.ime_top <= y1 < screen.nav_top:
                return
            if y1 < screen.status_bottom or y1 >= screen.nav_top:
                return
            if top.kind == "dialog":
                b = top.box
                if b[0] <= x1 < b[2] and b[1] <= y1 < b[3]:
                    self._drag_or_scroll(top, top.root, x1, y1, x2, y2, top.package)
                return
            if top.root is not None and top.activity is not None:
                self._drag_or_scroll(top, top.root, x1, y1, x2, y2, top.activity.package.name,
                                     top.activity)

    @staticmethod
    def _drag_target_at(win: Window, x: int, y: int) -> bool:
        hit = views.hit_test(win.root, x, y) if win.root is not None else None
        return hit is not None and hit.node.on_drag is not None

    def _clear_focus_keep(self) -> None:
        self.keyboard_shown = False

    def _drag_or_scroll(self, win: Window, root: Placed | None, x1: int, y1: int, x2: int, y2: int,
                        package: str, rec: ActivityRecord | None = None) -> None:
        if root is None:
            return
        hit = views.hit_test(root, x1, y1)
        if hit is not None and hit.node.on_drag is not None and hit.node.enabled:
            l, _, r, _ = hit.bounds or hit.box
            steps = max(1, int(abs(x2 - x1) // 20))
            for i in range(1, steps + 1):
                x = x1 + (x2 - x1) * i / steps
                self._call(package, hit.node.on_drag, min(1.0, max(0.0, (x - l) / max(1, r - l))))
            return
        dx, dy = x2 - x1, y2 - y1
        axis = "vertical" if abs(dy) >= abs(dx) else "horizontal"
        sc = views.scroll_container_at(root, x1, y1, axis)
        if sc is None:
            return
        offsets = rec.scroll_offsets if rec is not None else {}
        key = sc.node.id or f"#{sc.order}"
        delta = -dy if axis == "vertical" else -dx
        max_off = self._max_offset(sc)
        new = min(max_off, max(0, offsets.get(key, 0) + delta))
        offsets[key] = new
        app = rec.app if rec is not None else None
        if app is not None and hasattr(app, "on_scroll"):
            self._call(package, app.on_scroll, key, new, max_off)

    # keys

    def key(self, code: int, *, longpress: bool = False) -> None:
        with self.lock:
            if self.keyguard_showing and self.screen_on and code not in (26, 223, 224, 83):
                if code == 82:  # MENU dismisses a lock that needs no credential, as on an emulator
                    self.dismiss_keyguard("menu")
                return  # home, back and typing go to the lock screen, which ignores them
            if code == 3:
                self.go_home()
            elif code == 4:
                self.key_back()
            elif code == 187:
                self.go_home()  # recents: the virtual device has no overview screen; home is what it shows
            elif code in (26, 223, 224):
                if code == 26:
                    self.screen_on = not self.screen_on
                else:
                    self.screen_on = code == 224
                if not self.screen_on and not self.keyguard_showing:
                    self.keyguard_showing = True
                    self.shade_expanded = False
                    self.keyboard_shown = False
                self.log("PowerManagerService", "Waking up from Asleep" if self.screen_on
                         else "Going to sleep due to power_button", pid=self.system_pid)
            elif code == 83:
                self.shade_expanded = True
            elif code == 111:
                self.keyboard_shown = False
            elif self.focused_id:
                self._edit_key(code)

    def dismiss_keyguard(self, how: str) -> bool:
        """Takes the lock screen away (a swipe lock needs nothing more); False when none was showing."""
        with self.lock:
            if not self.keyguard_showing:
                return False
            self.keyguard_showing = False
            self.log("KeyguardViewMediator", f"keyguardDone: dismissed by {how}", pid=self.system_pid)
            return True

    def key_back(self) -> None:
        with self.lock:
            if self.shade_expanded:
                self.shade_expanded = False
                return
            if self.keyboard_shown:
                self.keyboard_shown = False
                return
            rec = self.current_activity()
            if rec is None:
                return
            if rec.dialogs:
                d = rec.dialogs[-1]
                if d.cancelable:
                    self._cancel_dialog(rec, d)
                return
            if rec.task.kind == "home":
                return
            handled = self._call(rec.package.name, rec.app.on_back) if rec.app is not None else False
            if handled:
                return
            if rec not in rec.task.activities:
                return
            if len(rec.task.activities) > 1:
                self.finish_current()
            else:
                self.move_task_to_back(rec)

    def _focused_node(self) -> tuple[Placed | None, str]:
        frame = self.frame()
        win = frame.app_window
        if win.root is None or win.activity is None:
            return None, ""
        for p in win.root.walk():
            n = p.node
            if n.editable and (n.id or f"#{p.order}") == self.focused_id:
                return p, win.activity.package.name
        return None, ""

    def type_text(self, text: str) -> bool:
        """Types into the focused field, as `input text` does. False if no field has focus."""
        with self.lock:
            if self.keyguard_showing:
                return False  # the lock screen has the input focus
            p, package = self._focused_node()
            if p is None or p.node.on_text is None or not p.node.enabled:
                return False
            value = p.node.text
            if self._select_all:
                value, cursor = "", 0
                self._select_all = False
            else:
                cursor = len(value) if self._cursor is None else min(self._cursor, len(value))
            new = value[:cursor] + text + value[cursor:]
            self._cursor = None if self._cursor is None else cursor + len(text)
            self._call(package, p.node.on_text, new)
            return True

    def _edit_key(self, code: int) -> None:
        p, package = self._focused_node()
        if p is None:
            return
        node = p.node
        value = node.text
        cursor = len(value) if self._cursor is None else min(self._cursor, len(value))
        if code == 66:  # ENTER
            if node.on_submit is not None:
                self._call(package, node.on_submit)
            return
        if code in (67, 112) and self._select_all:
            self._select_all = False
            self._cursor = None
            if node.on_text is not None:
                self._call(package, node.on_text, "")
            return
        if code == 67:  # DEL: backspace
            if cursor > 0 and node.on_text is not None:
                self._cursor = None if self._cursor is None else cursor - 1
                self._call(package, node.on_text, value[:cursor - 1] + value[cursor:])
            elif cursor == 0 and node.on_text is not None:
                self._call(package, node.on_text, value)  # apps may react to a backspace in an empty field
        elif code == 112:  # FORWARD_DEL
            if cursor < len(value) and node.on_text is not None:
                self._cursor = cursor
                self._call(package, node.on_text, value[:cursor] + value[cursor + 1:])
        elif code == 122:  # MOVE_HOME
            self._cursor = 0
        elif code == 123:  # MOVE_END
            self._cursor = None
        elif code == 21:
            self._cursor = max(0, cursor - 1)
        elif code == 22:
            self._cursor = None if cursor + 1 >= len(value) else cursor + 1
        elif code == 279:  # PASTE: the clipboard goes in as typed text, whatever its characters
            if self.clipboard:
                self.type_text(self.clipboard)
        else:
            ch = KEY_CHARS.get(code)
            if ch is not None:
                self.type_text(ch)

    def select_all(self) -> None:
        if self.focused_id:
            self._select_all = True
