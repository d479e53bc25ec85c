"""MobiumApp (`dev.mobium.mobiumapp/.MainActivity`): the app shell, navigation, theme and gray box.

As in the real MobiumApp's app shell, the only state that outlives a screen is the screen key, the
Form Demo's dark theme and the login session; every screen remounts (fresh state) when opened. Android back goes to
the screen's parent (the gestures hub, the WebViews hub, or home) and finishes the activity on home.
"""

from __future__ import annotations

import zlib

from ...views import Node
from ..base import App
from .screen import CAMERA, COARSE, FINE, NOTIFICATIONS, Screen
from .screens import SCREENS
from .ui import PACKAGE, Theme


class GrayBox:
    """The gray-box module: busy/idle lines in logcat (tag MobiumGrayBox), only in a `--ez MobiumGrayBox true`
    launch."""

    TAG = "MobiumGrayBox"

    def __init__(self, app: "MobiumApp", on: bool):
        self.app = app
        self.on = on
        self.count = 0
        self._lease = None
        if on:
            self._log("on")

    def _log(self, what: str) -> None:
        device = self.app.device
        millis = int(device.clock.wall(device.now()) * 1000)  # System.currentTimeMillis()
        device.log(self.TAG, f"MOBIUM-GRAYBOX {what} t={millis}")

    def busy(self, tag: str) -> None:
        self.count += 1
        if self.on:
            self._log(f"busy={self.count} tag={'_'.join(tag.split())}")
            self._restate()

    def idle(self, tag: str) -> None:
        self.count = max(0, self.count - 1)
        if self.on:
            self._log(f"busy={self.count} tag={'_'.join(tag.split())}")

    def _restate(self) -> None:
        # The native side restates "still busy" every 500 ms while anything is in flight: a lease the tool renews.
        if self._lease is not None:
            return

        def tick():
            self._lease = None
            if self.count > 0:
                self._log(f"still busy={self.count}")
                self._restate()

        self._lease = self.app.device.after(0.5, tick)


class JavascriptException(RuntimeError):
    """An unhandled JS error: in a release build React Native's ExceptionsManager rethrows it on the native
    modules thread as a JavascriptException, which kills the app; Android's crash report carries its text."""

    android_thread = "mqt_native_modules"

    def android_lines(self) -> list[str]:
        # The bundle's one line and a column within it: where a minified release build says the error was thrown.
        column = 700000 + zlib.crc32(str(self).encode()) % 90000
        return [f"com.facebook.react.common.JavascriptException: Error: {self}, stack:", f"anonymous@1:{column}", "",
                *(f"\tat {frame}" for frame in RN_EXCEPTION_FRAMES)]


# The Java frames a JavascriptException is thrown through (React Native 0.7x, as an API 35 emulator reports them).
RN_EXCEPTION_FRAMES = (
    "com.facebook.react.modules.core.ExceptionsManagerModule.reportException(ExceptionsManagerModule.kt:52)",
    "com.facebook.jni.NativeRunnable.run(Native Method)",
    "android.os.Handler.handleCallback(Handler.java:959)",
    "android.os.Handler.dispatchMessage(Handler.java:100)",
    "com.facebook.react.bridge.queue.MessageQueueThreadHandler.dispatchMessage(MessageQueueThreadHandler.kt:21)",
    "android.os.Looper.loopOnce(Looper.java:232)",
    "android.os.Looper.loop(Looper.java:317)",
    "com.facebook.react.bridge.queue.MessageQueueThreadImpl$Companion.startNewBackgroundThread$lambda$0"
    "(MessageQueueThreadImpl.kt:152)",
)


class LivePlayers(list):
    """`device.audio_players` (what `dumpsys audio` lists): entries drop out once they stop being live, so a
    force-stopped app leaves no player behind."""

    def __iter__(self):
        return iter([p for p in list(super().__iter__()) if p.live()])


class Player:
    """One AudioTrack as AudioService prints it (AudioPlaybackConfiguration), while it plays."""

    def __init__(self, tone: "Tone", sound: dict, piid: int):
        self.tone = tone
        self.sound = sound
        self.piid = piid
        device = tone.app.device
        proc = device.processes.get(PACKAGE)
        self.pid = proc.pid if proc else 0
        self.uid = device.packages[PACKAGE].uid

    def live(self) -> bool:
        proc = self.tone.app.device.processes.get(PACKAGE)
        return self.tone.current is self.sound and proc is not None and proc.pid == self.pid

    def __str__(self) -> str:
        usage = "USAGE_ALARM" if self.sound["usage"] == "alarm" else "USAGE_MEDIA"
        return (f"AudioPlaybackConfiguration piid:{self.piid} deviceId:2 u/pid:{self.uid}/{self.pid} "
                f"type:android.media.AudioTrack state:started attr:AudioAttributes: usage={usage} "
                f"content=CONTENT_TYPE_SONIFICATION flags=0x0 tags= bundle=null sessionId:{self.piid * 8 + 1}")


class Tone:
    """The tone module's player (one per process): 48 kHz mono PCM, a new sound stops the previous one, which
    resolves false. While a sound plays, `dumpsys audio` lists its AudioTrack as started (silence included)."""

    def __init__(self, app: "MobiumApp"):
        self.app = app
        self.current: dict | None = None
        self._piids = 31

    def play(self, what: str, usage: str, segments, report) -> None:
        # The sound cut off resolves false, but the app only reports for the sound it is still playing, so the
        # screen keeps "playing: <new>".
        self.stop(report=False)
        seconds = sum(ms for _, ms in segments) / 1000
        sound = {"what": what, "usage": usage, "segments": list(segments), "report": report,
                 "started": self.app.device.now(), "seconds": seconds}

        def done():
            if self.current is sound:
                self.current = None
                report(f"finished: {what} ({usage})")

        sound["timer"] = self.app.device.after(seconds, done)
        self.current = sound
        self._piids += 8
        players = getattr(self.app.device, "audio_players", None)
        if not isinstance(players, LivePlayers):
            players = LivePlayers(players or [])
            self.app.device.audio_players = players
        # Entries of sounds that ended are pruned here; `LivePlayers` hides them meanwhile.
        players[:] = [p for p in list.__iter__(players) if not isinstance(p, Player) or p.live()]
        players.append(Player(self, sound, self._piids))

    def stop(self, report: bool = True) -> None:
        sound, self.current = self.current, None
        if sound is not None:
            sound["timer"].cancel()
            if report:
                sound["report"](f"stopped: {sound['what']} ({sound['usage']})")


class MobiumApp(App):
    package = PACKAGE
    label = "MobiumApp"
    activity = ".MainActivity"
    permissions = (FINE, COARSE, CAMERA, NOTIFICATIONS)
    version_name = "1.0.0"
    version_code = 1
    webview_debugging = True  # a release build, but its WebViews are inspectable, as Mobium's checks need
    screen_orientation = "portrait"  # app.json's orientation

    def __init__(self, device):
        super().__init__(device)
        self._screens = SCREENS
        self.dark = False
        self.logged_in_as: str | None = None
        self.gray_box = GrayBox(self, False)
        self.player = Tone(self)
        self.screen: Screen = SCREENS["home"](self)
        self._configuration = self.configuration()

    # --- lifecycle -------------------------------------------------------------------------------------------------
    def on_start(self, extras: dict) -> None:
        flag = (extras or {}).get("MobiumGrayBox")
        self.gray_box = GrayBox(self, flag is True or str(flag).lower() == "true")

    def crash(self, message: str) -> None:
        """An unhandled JS error: the device turns the exception into a crash of this process."""
        raise JavascriptException(message)

    # --- navigation ------------------------------------------------------------------------------------------------
    @property
    def screen_key(self) -> str:
        return self.screen.key

    def go(self, key: str) -> None:
        if key not in self._screens:
            raise KeyError(f"MobiumApp has no screen {key!r}")
        self.screen.unmount()
        if self.device.current_app() is self:
            # A remounted screen starts at the top: drop the old screen's scroll offsets. Its focused field is
            # gone too, and the keyboard with it.
            self.device.scroll_offsets.clear()
            if self.device.focused_id:
                self.device.focus(None)
        self.screen = self._screens[key](self)

    def back(self) -> None:
        self.go(self.screen.parent)

    def animation_frame(self) -> object:
        return self.screen.animation_frame()

    def on_back(self) -> bool:
        if self.screen.key == "home":
            return False
        self.back()
        return True

    def web_pages(self) -> dict:
        """The pages in the WebViews on screen, by WebView testID (for a DevTools stand-in); {} elsewhere."""
        pages = getattr(self.screen, "web_pages", None)
        return pages() if pages is not None else {}

    def on_scroll(self, key: str, offset: int, max_offset: int) -> None:
        handler = getattr(self.screen, "on_scroll", None)
        if handler is not None:
            handler(key, offset, max_offset)

    # --- drawing ---------------------------------------------------------------------------------------------------
    @property
    def theme(self) -> Theme:
        return Theme(self.dark)

    def theme_colors(self) -> tuple[str, str]:
        # userInterfaceStyle "light": only the Form Demo switch makes the app dark, never the system night mode.
        t = self.theme
        return t.ground, t.ink

    def configuration(self) -> tuple[float, str]:
        """The parts of Android's configuration whose change recreates this activity: its manifest handles
        orientation, screen size and night mode itself, but not the font scale nor the font weight."""
        try:
            scale = float(self.device.settings("system").get("font_scale") or 1.0)
        except ValueError:
            scale = 1.0
        return scale, self.device.settings("secure").get("font_weight_adjustment") or "0"

    def render(self) -> Node:
        now = self.configuration()
        if now != self._configuration:
            # Recreated: React Native mounts the root component again, so the app is back on its first screen.
            self._configuration = now
            self.go("home")
        t = self.theme
        return Node("android.widget.FrameLayout", bg=t.ground, fg=t.ink, children=[self.screen.render(t)])
