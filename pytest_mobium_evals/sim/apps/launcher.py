"""The Pixel launcher's home screen: a grid of app icons (the stock apps, then whatever else is installed)."""

from __future__ import annotations

from ..views import Node
from .base import App

LAUNCHER_ID = "com.google.android.apps.nexuslauncher:id/"
# Home-screen order of the preinstalled apps; other launchable packages follow in install order.
HOME_ORDER = ("com.google.android.deskclock", "com.google.android.calculator", "com.google.android.contacts",
              "com.android.camera2", "com.android.chrome", "com.android.settings", "dev.mobium.mobiumapp")
#: The dock under the grid, as the Pixel's: the phone app sits there, not among the other icons.
HOTSEAT = ("com.google.android.dialer",)
COLUMNS = 4


class Launcher(App):
    package = "com.google.android.apps.nexuslauncher"
    label = "Pixel Launcher"
    activity = ".NexusLauncherActivity"
    launcher = False
    system = True
    version_name = "15"
    version_code = 35
    screen_orientation = "portrait"  # a phone's home screen does not rotate unless allowed in its settings
    background = "#3a4a63"  # the wallpaper
    foreground = "#ffffff"
    follows_night_mode = True
    dark_background = "#1c2331"

    def render(self) -> Node:
        device = self.device
        pkgs = [p for p in device.launchable() if p.name != self.package and p.name not in HOTSEAT]
        dock = [device.packages[name] for name in HOTSEAT if name in device.packages]
        order = {name: i for i, name in enumerate(HOME_ORDER)}
        pkgs.sort(key=lambda p: (order.get(p.name, len(order)), list(device.packages).index(p.name)))
        rows = []
        for start in range(0, len(pkgs), COLUMNS):
            icons = [Node("android.widget.TextView", text=p.label, desc=p.label, height=110, margin_right=0,
                          on_tap=(lambda name=p.name: device.launch(name)), long_clickable=True)
                     for p in pkgs[start:start + COLUMNS]]
            icons += [Node("android.view.View", height=110, visible_to_a11y=False)
                      for _ in range(COLUMNS - len(icons))]
            rows.append(Node("android.view.ViewGroup", horizontal=True, height=110, margin_bottom=24,
                             children=icons))
        return Node("android.widget.FrameLayout", id=LAUNCHER_ID + "launcher", children=[
            Node("android.view.ViewGroup", id=LAUNCHER_ID + "workspace", desc="Home", scroll=None,
                 height=600, padding=16, children=rows),
            Node("android.view.View", height=40, visible_to_a11y=False),
            Node("android.view.ViewGroup", id=LAUNCHER_ID + "hotseat", horizontal=True, height=110, margin_bottom=30,
                 children=[Node("android.widget.TextView", text=p.label, desc=p.label, height=110,
                                on_tap=(lambda name=p.name: device.launch(name)), long_clickable=True)
                           for p in dock] + [Node("android.view.View", height=110, visible_to_a11y=False)
                                             for _ in range(COLUMNS - len(dock))]),
            Node("android.widget.FrameLayout", id=LAUNCHER_ID + "search_container_hotseat", desc="Google search",
                 height=56, on_tap=lambda: device.launch("com.android.chrome")
                 if "com.android.chrome" in device.packages else None),
        ])
