"""The server's only reach into a device: adbutils over an ADB server (the virtual device's, or a real one's).

Every command is an ordinary `adb shell` command a real Android 12–15 emulator understands, so the same server drives
either. One screen read is one shell round trip: the IME state and the uiautomator dump, chained with `;`."""

from __future__ import annotations

import re
import shlex
import time

import adbutils

from pytest_mobium_evals.reach.adb_shell import shell_bytes

from .errors import MobiumError
from .snapshot import Snapshot, parse_dump
from .uia2_link import Uia2Link, installed

DUMP_PATH = "/data/local/tmp/mobium-dump.xml"
# Properties only the virtual device sets: that it is the virtual one, and that its clock is held (sim/clock.py: it
# moves only with what is done to the device, never with the host's time).
VIRTUAL_PROPERTY = "ro.mobium_evals.virtual_device"
HELD_CLOCK_PROPERTY = "debug.mobium_evals.held_clock"
_REGION = re.compile(r"touchable region=SkRegion\(\((\d+),(\d+),(\d+),(\d+)\)\)")
_FOCUS = re.compile(r"mCurrentFocus=Window\{\S+ \S+ ([^/}\s]+)")
_FOCUSED_APP = re.compile(r"mFocusedApp=\S*ActivityRecord\{\S+ \S+ ([^/}\s]+)")


class AdbLink:
    def __init__(self, serial: str, host: str = "127.0.0.1", port: int = 5037):
        self.serial = serial
        self.host, self.port = host, port
        self.client = adbutils.AdbClient(host=host, port=port)
        self.dev = self.client.device(serial)
        self.dumps = 0                      # how many screen reads this link made (benchmarks count them)
        # Appium's UiAutomator2 server on the device, when it is installed there (None: not looked for yet; False:
        # not installed, so reads are `uiautomator dump`s)
        self.uia2: Uia2Link | bool | None = None
        # The waits' clock: seconds the device's clock jumped for this server's waits (auto-advance), on top of the
        # host's; or, on a virtual device whose clock is held, the device's clock itself. None until asked whether
        # the device is the virtual one (only it has `virtual-clock`) and whether its clock is held.
        self._jumped = 0.0
        self._virtual: bool | None = None
        self._held = False

    # --- plumbing ------------------------------------------------------------------------------------------------
    def shell(self, cmd: str | list[str], timeout: float = 30) -> str:
        if isinstance(cmd, list):
            cmd = " ".join(shlex.quote(c) for c in cmd)
        try:
            return self._run(cmd, timeout).decode("utf-8", "replace").rstrip()
        except adbutils.AdbError as exc:
            text = str(exc)
            if "not found" in text or "offline" in text:
                raise MobiumError("no_device", f"no device with serial {self.serial} (see app_devices): {text}",
                                  "run app_devices and pass one of its ids as device") from exc
            raise MobiumError("device_server", f"adb shell failed on {self.serial}: {text}") from exc
        except (OSError, adbutils.AdbTimeout) as exc:
            raise MobiumError("device_server", f"adb shell did not answer on {self.serial}: {exc}",
                              retryable=True) from exc

    def shell_bytes(self, cmd: str) -> bytes:
        try:
            return self._run(cmd, 30)
        except (adbutils.AdbError, OSError) as exc:
            raise MobiumError("device_server", f"adb shell failed on {self.serial}: {exc}") from exc

    def _run(self, cmd: str, timeout: float) -> bytes:
        """One shell command's output, the fast way (adb_shell.py says why: a tool call makes several)."""
        return shell_bytes(self.client, self.serial, cmd, timeout)

    def state(self) -> str:
        try:
            return self.dev.get_state()
        except adbutils.AdbError:
            return "offline"

    # --- waiting -----------------------------------------------------------------------------------------------
    def _ask_virtual(self) -> bool:
        """Whether the device is the virtual one, and whether its clock is held (both asked once, in one round trip:
        a device's clock is held or not from before its tool server starts)."""
        if self._virtual is None:
            said = self.shell(f"getprop {VIRTUAL_PROPERTY}; getprop {HELD_CLOCK_PROPERTY}").splitlines() + ["", ""]
            self._virtual = said[0].strip() == "1"
            self._held = self._virtual and said[1].strip() == "1"
        return self._virtual

    def monotonic(self) -> float:
        """Now, for a wait's deadline: the host's monotonic clock plus every jump the device's clock made for this
        server's waits, so a deadline counts the time the device lived through, jumped or waited. A virtual device
        whose clock is held lives through none of the host's time, so there it is the device's own clock."""
        self._ask_virtual()
        if self._held:
            said = self.shell("virtual-clock now").strip()
            try:
                return float(said)
            except ValueError:
                raise MobiumError("device_server", f"virtual-clock now on {self.serial} said: {said[-300:]}") from None
        return time.monotonic() + self._jumped

    def pause(self, seconds: float) -> None:
        """Let `seconds` go by between two looks at the device. The virtual device with auto-advance on (a control
        trial at the fast pace), or with its clock held, jumps its clock instead, its timers firing in order, and
        answers at once; any other device is waited on in real time."""
        if seconds <= 0:
            return
        if self._ask_virtual():
            said = self.shell(f"virtual-clock wait {seconds:.3f}").strip()
            if said == "advanced":
                self._jumped += seconds
                return
            if said != "real":
                raise MobiumError("device_server", f"virtual-clock wait on {self.serial} said: {said[-300:]}")
        time.sleep(seconds)

    def wait_until(self, pred, timeout: float, interval: float = 0.1):
        """`pred()` until it is truthy or `timeout` seconds have gone by on the waits' clock; its last value."""
        deadline = self.monotonic() + timeout
        while True:
            value = pred()
            if value or self.monotonic() >= deadline:
                return value
            self.pause(min(interval, max(0.0, deadline - self.monotonic())))

    # --- the screen --------------------------------------------------------------------------------------------
    def snapshot(self) -> Snapshot:
        """One read of the screen: through the device's UiAutomator2 server when it is installed (Mobium's default
        driver; a read there is not a dump's second), else `uiautomator dump`; with the IME state either way."""
        if self.uia2 is None:
            self.uia2 = Uia2Link(self.client, self.serial) if installed(self.shell) else False
        if self.uia2:
            out = self.shell("dumpsys input_method") + "\n" + self.uia2.source()
        else:
            out = self.shell(f"dumpsys input_method; uiautomator dump {DUMP_PATH}; cat {DUMP_PATH}")
        self.dumps += 1
        cut = out.find("<?xml")
        if cut < 0:
            raise MobiumError("device_server", "the screen read returned no hierarchy: " + out.strip()[-300:],
                              "try again; if it keeps failing, the device's UiAutomation may be held by another "
                              "client", retryable=True)
        head = out[:cut]
        shown = bool(re.search(r"mInputShown=true", head)) or bool(re.search(r"mIsInputViewShown=true", head))
        snap = parse_dump(out[cut:])
        keyboard = None
        if shown:
            # Where the keyboard takes touches: the IME window's touchable region (read while it is up, since it
            # depends on the keyboard and the rotation).
            m = _REGION.search(self.shell("dumpsys window InputMethod"))
            if m and int(m.group(4)) > int(m.group(2)):
                keyboard = tuple(int(v) for v in m.groups())
            else:
                # The region a 1080x2400 gesture-navigation emulator's keyboard covers, scaled to this screen.
                keyboard = (0, int(snap.height * 0.625), snap.width, snap.height - 63)
        snap.keyboard = keyboard  # type: ignore[assignment]
        return snap

    def foreground(self) -> str:
        out = self.shell("dumpsys window displays")
        m = _FOCUS.search(out) or _FOCUSED_APP.search(out)
        if not m:
            out = self.shell("dumpsys window")
            m = _FOCUS.search(out) or _FOCUSED_APP.search(out)
        return m.group(1) if m else ""

    # --- input -------------------------------------------------------------------------------------------------
    def tap(self, x: int, y: int) -> None:
        self.shell(f"input tap {int(x)} {int(y)}")

    def swipe(self, x1: int, y1: int, x2: int, y2: int, ms: int = 300) -> None:
        self.shell(f"input swipe {int(x1)} {int(y1)} {int(x2)} {int(y2)} {int(ms)}")

    def key(self, *codes: int | str) -> None:
        self.shell("input keyevent " + " ".join(str(c) for c in codes))

    def text(self, s: str) -> None:
        """Types into the focused field. `input text` carries printable ASCII only (it turns %s into a space, and
        everything must survive sh, hence the quoting); any other run of characters goes through the clipboard and
        a paste key, so quotes, spaces and non-ASCII arrive intact."""
        for run, ascii_only in _ascii_runs(s):
            if ascii_only:
                for chunk in _chunks(run, 200):
                    self.shell("input text " + shlex.quote(chunk.replace(" ", "%s")))
            else:
                self.paste(run)

    def write_clipboard(self, s: str) -> bool:
        """Puts `s` on the clipboard through the clipper.set broadcast; False when no receiver answered it."""
        return "result=-1" in self.shell("am broadcast -a clipper.set -e text " + shlex.quote(s))

    def paste(self, s: str) -> None:
        if not self.write_clipboard(s):
            raise MobiumError("unsupported", f"cannot type {s!r} on {self.serial}: `input text` carries ASCII only, "
                              "and no clipboard receiver (clipper.set) answered to paste the rest",
                              "install a clipboard helper that answers the clipper.set broadcast, or type ASCII "
                              "text only", {"text": s})
        self.shell("input keyevent 279")

    # --- properties, packages ----------------------------------------------------------------------------------
    def getprop(self, name: str) -> str:
        return self.shell(f"getprop {name}").strip()

    def installed(self, package: str) -> bool:
        return "package:" in self.shell(f"pm path {shlex.quote(package)}")

    def running(self, package: str) -> bool:
        out = self.shell(f"pidof {shlex.quote(package)}").strip()
        if out and out.split()[0].isdigit():
            return True
        ps = self.shell("ps -A")
        return any(line.split()[-1] == package for line in ps.splitlines() if line.split())

    def permissions(self, package: str) -> tuple[set[str], dict[str, bool]]:
        """(requested permissions, runtime permission -> granted) from `dumpsys package`."""
        out = self.shell(f"dumpsys package {shlex.quote(package)}")
        requested: set[str] = set()
        runtime: dict[str, bool] = {}
        section = ""
        for line in out.splitlines():
            s = line.strip()
            if s.endswith("permissions:"):
                section = s
                continue
            m = re.match(r"([\w.]+\.permission\.[\w.]+)(?::\s*granted=(true|false))?", s)
            if not m:
                if s and not s.startswith("android.") and ":" in s:
                    section = "" if not s.startswith(("User ", "gids")) else section
                continue
            if section.startswith("requested"):
                requested.add(m.group(1))
            elif section.startswith("runtime") and m.group(2):
                runtime[m.group(1)] = m.group(2) == "true"
        return requested, runtime


def _ascii_runs(s: str) -> list[tuple[str, bool]]:
    """`s` cut into runs that `input text` can carry (printable ASCII) and runs it cannot."""
    runs: list[tuple[str, bool]] = []
    for ch in s:
        plain = 32 <= ord(ch) < 127
        if runs and runs[-1][1] == plain:
            runs[-1] = (runs[-1][0] + ch, plain)
        else:
            runs.append((ch, plain))
    return runs


def _chunks(s: str, n: int):
    for i in range(0, len(s), n):
        yield s[i:i + n]


def device_list(host: str, port: int) -> list[tuple[str, str]]:
    return [(serial, state) for serial, state, _ in devices_long(host, port)]


def devices_long(host: str, port: int) -> list[tuple[str, str, str]]:
    """`adb devices -l` as Mobium reads it (internal/device/adb.go, parseDevices): each device's serial, state and
    the model its line names (empty when it names none: an offline device's line has no model)."""
    client = adbutils.AdbClient(host=host, port=port)
    try:
        return [(d.serial, d.state, d.tags.get("model", "")) for d in client.list(extended=True)]
    except (adbutils.AdbError, OSError):
        return []


__all__ = ["AdbLink", "device_list", "devices_long"]
