"""MobiumApp on the virtual device: `dev.mobium.mobiumapp/.MainActivity`.

The device installs `APPS`. Besides the screens themselves (driven only through the device's input and read
through its dump), a running `MobiumApp` offers:
- `screen_key`: the screen on show ("home", "secret", "form", …), what the gray-box `screen()` hook answers;
- `web_pages()`: the page models of the WebViews on screen, by WebView testID, each with `evaluate(js)` for the
  expressions the reference flows run (`formState()`, `document.getElementById('frameTyped').textContent`, …);
- `device.audio_players`: the tone player's AudioTrack while it plays, which `dumpsys audio` prints;
- `device.location` (lat, lon), if set, is the fix the Location Demo reports.

Every screen builds on `screen.Screen`; screens live in modules by group: `basic` (home, login, form, slider,
storage, pager), `lists` (feed, busy),
`system` (dialogs, location, interruption, OTP, audio), `obstruction`, `webviews`, `gestures` (the hub and its
cases), `motion`, `others`.
"""

from .app import MobiumApp

APPS = [MobiumApp]  # what the device installs from this package

__all__ = ["APPS", "MobiumApp"]
