"""openatx's AdbKeyboard (`com.github.uiautomator/.AdbKeyboard`, in app-uiautomator.apk, which uiautomator2 installs
for `send_keys`) as its code behaves on a device while it is the input method in use: its service registers a
receiver for the ADB_KEYBOARD_* broadcasts when the system binds it, and each broadcast acts on the field being
edited through its input connection (android-uiautomator-server's AdbKeyboard.java, InputMessageReceiver):

- with no field being edited (no input connection) it answers RESULT_OK with the action's name as data;
- ADB_KEYBOARD_INPUT_TEXT commits the base64 `text` extra's UTF-8 at the cursor, SET_TEXT replaces the field's text,
  CLEAR_TEXT empties it, INPUT_KEYCODE sends the `code` extra's key, EDITOR_CODE and SMART_ENTER perform the
  editor's action (SMART_ENTER answers its name, "Enter" for a field that names none), HIDE and SHOW the keyboard,
  GET_CLIPBOARD answers the clipboard in base64;
- anything that throws answers RESULT_CANCELED with "error:" and the message."""

from __future__ import annotations

import base64
import binascii
from typing import TYPE_CHECKING, Optional

if TYPE_CHECKING:  # pragma: no cover
    from ..device import VirtualDevice

PACKAGE = "com.github.uiautomator"
SERVICE = f"{PACKAGE}.AdbKeyboard"
RESULT_OK, RESULT_CANCELED = -1, 0


class AdbKeyboard:
    """The receiver the AdbKeyboard service registers (its KeyboardAction values)."""

    ACTIONS = frozenset({"ADB_KEYBOARD_SMART_ENTER", "ADB_KEYBOARD_INPUT_TEXT", "ADB_KEYBOARD_CLEAR_TEXT",
                         "ADB_KEYBOARD_SET_TEXT", "ADB_KEYBOARD_INPUT_KEYCODE", "ADB_KEYBOARD_EDITOR_CODE",
                         "ADB_KEYBOARD_GET_CLIPBOARD", "ADB_KEYBOARD_HIDE", "ADB_KEYBOARD_SHOW"})

    def __init__(self, device: VirtualDevice):
        self.device = device

    def receive(self, action: str, extras: dict) -> tuple[int, Optional[str]]:
        """The broadcast's result code and data, as onReceive sets them."""
        try:
            return RESULT_OK, self._handle(action, extras)
        except Exception as exc:  # noqa: BLE001 - onReceive catches every Exception into RESULT_CANCELED
            return RESULT_CANCELED, f"error:{exc}"

    def _handle(self, action: str, extras: dict) -> Optional[str]:
        d = self.device
        node, package = d._focused_node()
        if node is None or d.keyguard_showing:
            return action  # getCurrentInputConnection() is null: no field is being edited
        d.log("AdbKeyboard", f"KeyboardAction received:{action}", pid=self._pid())
        if action == "ADB_KEYBOARD_INPUT_TEXT":
            text = extras.get("text")
            if text is None:
                return action
            d.type_text(_decoded(str(text)))
        elif action == "ADB_KEYBOARD_INPUT_KEYCODE":
            code = extras.get("code", -1)
            if isinstance(code, int) and code != -1:
                d.key(code)
        elif action == "ADB_KEYBOARD_CLEAR_TEXT":
            self._set(node, package, "")
        elif action == "ADB_KEYBOARD_SET_TEXT":
            self._set(node, package, _decoded(str(extras.get("text") or "")))
        elif action == "ADB_KEYBOARD_EDITOR_CODE":
            code = extras.get("code", -1)
            if isinstance(code, int) and code != -1 and node.node.on_submit is not None:
                d._call(package, node.node.on_submit)
        elif action == "ADB_KEYBOARD_GET_CLIPBOARD":
            return base64.b64encode((d.clipboard or "").encode()).decode()
        elif action == "ADB_KEYBOARD_HIDE":
            d.hide_keyboard()
        elif action == "ADB_KEYBOARD_SHOW":
            d.keyboard_shown = True
        elif action == "ADB_KEYBOARD_SMART_ENTER":
            # A field that names no editor action (the virtual device's do not) gets KEYCODE_ENTER's action.
            if node.node.on_submit is not None:
                d._call(package, node.node.on_submit)
            return "Enter"
        return None

    def _set(self, node, package: str, text: str) -> None:
        d = self.device
        d._cursor = None
        d._select_all = False
        if node.node.on_text is not None and node.node.enabled:
            d._call(package, node.node.on_text, text)

    def _pid(self) -> int:
        proc = self.device.processes.get(PACKAGE)
        return proc.pid if proc is not None else self.device.system_pid


def _decoded(text: str) -> str:
    """Android's Base64.decode(…, DEFAULT) (padding optional; IllegalArgumentException "bad base-64" otherwise),
    then UTF-8."""
    try:
        return base64.b64decode(text + "=" * (-len(text) % 4)).decode("utf-8", errors="replace")
    except (binascii.Error, ValueError):
        raise ValueError("bad base-64") from None


# (package, service class in full) -> the behaviour of the input method's code on a device
IME_BEHAVIOURS = {(PACKAGE, SERVICE): AdbKeyboard}
