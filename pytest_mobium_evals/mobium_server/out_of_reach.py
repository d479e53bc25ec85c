"""The tools this server refuses, each as Mobium refuses what a device or driver cannot do: code `unsupported`,
the reason in the message, and a remedy naming what works instead. They stay in the tool list so an agent sees
Mobium's whole surface and learns why a tool does not apply, rather than finding it missing."""

from __future__ import annotations

from .errors import MobiumError
from .tool_state import Result

CONSOLE = "the emulator's console (telephony, sensors, fingerprint, audio), which this server does not reach over ADB"
NOT_YET = "this server does not drive {what} yet"

# tool -> (message, remedy)
REFUSALS: dict[str, tuple[str, str]] = {
    "app_call": (f"an incoming call is rung through {CONSOLE}", "post a notification with app_notifications to "
                 "interrupt the app instead"),
    "app_sms": (f"a text message is delivered through {CONSOLE}", "post a notification with app_notifications"),
    "app_shake": (f"a shake is played through {CONSOLE}", "open the app's developer menu by its deep link with "
                  "app_open_url, if it has one"),
    "app_biometric": (f"the fingerprint is enrolled and matched through {CONSOLE}", "answer the prompt's fallback "
                      "(PIN or password) with app_tap and app_type"),
    "app_audio": (f"audio is captured through {CONSOLE}", "read what the app shows about its sound with app_text"),
    "app_record": (NOT_YET.format(what="screen recording"), "take screenshots with app_screenshot"),
    "app_trace": (NOT_YET.format(what="traces"), "the harness keeps every call and answer in its transcript"),
    "app_boot": ("this server drives the devices its ADB server already has; it does not start emulators",
                 "start the emulator first, then app_devices"),
    "app_shutdown": ("this server drives the devices its ADB server already has; it does not stop emulators",
                     "stop the emulator from its own window or `adb emu kill`"),
    "app_hit_test": ("Android needs no hit test: a touch goes to the view app_map shows at that point",
                     "app_map, and app_tap the element's ref"),
    "app_audit": ("the accessibility audit runs inside the app on iOS (XCUITest); on Android it is outside the app "
                  "— use the layout inspection, --inspect", "app_map lists every element with its label and bounds"),
    "app_hook": ("no app here answers gray-box hooks: launch it with gray_box first, and this server does not "
                 "launch with the gray box", "drive the app through its screens with app_map and app_tap"),
}


def _refuse(name: str):
    def tool(self, args: dict) -> Result:
        if name not in ("app_boot", "app_shutdown"):
            self.state(args)  # the device named must exist before its tool is refused for what it cannot do
        message, remedy = REFUSALS[name]
        raise MobiumError("unsupported", message, remedy, {"tool": name})
    tool.__name__ = "t_" + name
    return tool


class OutOfReachTools:
    """Mixed into `Mobium`: one method per refused tool, so dispatch finds each by name."""


for _name in REFUSALS:
    setattr(OutOfReachTools, "t_" + _name, _refuse(_name))
