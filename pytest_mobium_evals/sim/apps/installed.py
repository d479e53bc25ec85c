"""The activities of a package installed from an APK (`adb install`): the package manager knows them from the
manifest, so `am start`, the launcher and `dumpsys package` see them, but the APK's code does not run on the virtual
device. Each shows an empty window titled with its label, as an app whose layout has not drawn yet; an on-device
server the package stands for (an instrumentation runner) is started by `am instrument`, not by these."""

from __future__ import annotations

from ..views import Node
from .appium_settings import BEHAVIOURS
from .base import App


class InstalledActivity(App):
    """The base of the classes made for an APK's activities (`activity_class`)."""

    background = "#ffffff"

    def render(self) -> Node:
        return Node("android.widget.FrameLayout", id="android:id/content", children=[
            Node("android.widget.TextView", text=self.label, height=160, padding=48),
        ])


def activity_class(package: str, class_name: str, *, label: str, launcher: bool, actions: tuple[str, ...],
                   permissions: tuple[str, ...], version_name: str, version_code: int,
                   target_sdk: int) -> type[App]:
    """An App class for one activity the manifest declares (`class_name` in full)."""
    short = class_name[len(package):] if class_name.startswith(package + ".") else class_name
    attrs = {"package": package, "label": label, "activity": short, "launcher": launcher, "actions": actions,
             "permissions": permissions, "version_name": version_name, "version_code": version_code,
             "target_sdk": target_sdk, "__doc__": f"{class_name}, from an installed APK."}
    base = BEHAVIOURS.get((package, class_name), InstalledActivity)  # the few APKs whose code the device runs
    return type(class_name.rsplit(".", 1)[-1].replace("$", "_"), (base,), attrs)
