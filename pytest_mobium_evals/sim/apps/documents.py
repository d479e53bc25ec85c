"""DocumentsUI's picker (`ACTION_OPEN_DOCUMENT`): the system screen an app's "pick a file" opens. It lists the
Download folder; tapping a file hands it back to the app and closes, Back closes with nothing picked."""

from __future__ import annotations

from ..views import Node
from .base import App

DOWNLOAD = "/sdcard/Download/"


class DocumentsPicker(App):
    package = "com.google.android.documentsui"
    label = "Files"
    activity = "com.android.documentsui.picker.PickActivity"
    system = True
    launcher = False

    def _files(self) -> list[tuple[str, bytes]]:
        return sorted((path[len(DOWNLOAD):], body) for path, body in self.device.files.items()
                      if path.startswith(DOWNLOAD) and "/" not in path[len(DOWNLOAD):])

    def _pick(self, name: str, body: bytes):
        def pick():
            callback = self.extras.pop("on_pick", None)
            self.extras.pop("on_close", None)
            self.device.finish_current()
            if callable(callback):
                callback(name, body)
        return pick

    def render(self) -> Node:
        rows = [Node("android.widget.LinearLayout", id="com.google.android.documentsui:id/item_root", height=72,
                     on_tap=self._pick(name, body), children=[
                         Node("android.widget.TextView", id="android:id/title", text=name, height=40),
                         Node("android.widget.TextView", id="com.google.android.documentsui:id/size",
                              text=f"{len(body)} B", height=32)])
                for name, body in self._files()]
        return Node("android.widget.FrameLayout", children=[
            Node("android.widget.LinearLayout", padding=16, children=[
                Node("android.widget.TextView", text="Downloads", height=48, margin_bottom=8),
                *(rows or [Node("android.widget.TextView", text="No items", height=48)]),
            ])])

    def on_back(self) -> bool:
        # started for a result: Back finishes the picker and returns to the app that asked
        self.device.finish_current()
        return True

    def on_stop(self) -> None:
        callback = self.extras.pop("on_close", None)
        self.extras.pop("on_pick", None)
        if callable(callback):
            callback()


APPS = [DocumentsPicker]
