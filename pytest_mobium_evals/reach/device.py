"""The harness's own reach into a device, over ADB only (adbutils): the reset, the settings snapshot, the outcome
strings, the foreground app, the device's properties for the record, the final screenshot.

This is the grader's side of the glass. It never goes through the MCP tool server the driver uses, so what it
reads cannot be shaped by what the driver was told. It works the same on the virtual device (an ADB server in
`sim/`) and on a real emulator behind `adb start-server`.

Reading an outcome string may scroll the app (a line scrolled off screen is not in `uiautomator dump`), so
`text()` is only called after the driver has finished and its tool server has stopped."""

from __future__ import annotations

import re
import time
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from typing import Iterator, Optional

from pytest_mobium_evals.core.errors import DeviceError
from pytest_mobium_evals.core.settings_history import History
from pytest_mobium_evals.core.settings_history import parse_dump as parse_settings_dump

from .adb_shell import shell_bytes

SETTINGS_NAMESPACES = ("global", "secure", "system")
DUMP_PATH = "/sdcard/window_dump.xml"
# The virtual device's switch for jumping its clock when a tool server waits (sim/commands/virtual.py reads it):
# written here again because the harness reaches the device only over ADB and never imports it.
AUTO_ADVANCE_PROPERTY = "debug.mobium_evals.auto_advance"
# The virtual device's clock held (sim/clock.py): it moves only as the device's commands take their time and as waits
# move it, never with the host's time.
HELD_CLOCK_PROPERTY = "debug.mobium_evals.held_clock"
_BOUNDS = re.compile(r"\[(-?\d+),(-?\d+)\]\[(-?\d+),(-?\d+)\]")

#: Settings the tasks touch, put back to Android 15's defaults at every reset so trials are independent even when a
#: previous trial (or a person) left them changed. The uimode service holds night mode apart from the setting, so it
#: is reset through `cmd uimode` as well.
DEFAULT_SETTINGS = {
    ("secure", "ui_night_mode"): "1",  # MODE_NIGHT_NO
}


@dataclass(frozen=True)
class UiNode:
    resource_id: str
    text: str
    desc: str
    cls: str
    package: str
    bounds: tuple[int, int, int, int]
    checked: bool
    enabled: bool
    scrollable: bool

    @property
    def center(self) -> tuple[int, int]:
        x1, y1, x2, y2 = self.bounds
        return (x1 + x2) // 2, (y1 + y2) // 2


class Device:
    """One device reached through an ADB server. `adb` is an adbutils AdbDevice (or anything with the same
    `shell(cmd, timeout=, encoding=)` method, which is how tests inject a fake)."""

    def __init__(self, adb_device, serial: str, *, adb_host: str = "127.0.0.1", adb_port: int = 5037,
                 shell_timeout: float = 30.0, client=None):
        self._adb = adb_device
        self._client = client  # the adbutils AdbClient the commands' connections are made by (connect() sets it)
        self.serial = serial
        self.adb_host = adb_host
        self.adb_port = adb_port
        self.shell_timeout = shell_timeout
        self._baseline: Optional[dict] = None
        self._kind: Optional[str] = None

    @classmethod
    def connect(cls, serial: str, host: str = "127.0.0.1", port: int = 5037, **kwargs) -> "Device":
        import adbutils  # noqa: PLC0415  adbutils, only when a device is connected

        client = adbutils.AdbClient(host=host, port=port, socket_timeout=kwargs.pop("socket_timeout", 30))
        return cls(client.device(serial), serial, adb_host=host, adb_port=port, client=client, **kwargs)

    # ---- the shell --------------------------------------------------------------------------------------------

    def shell(self, cmd: str, timeout: Optional[float] = None) -> str:
        try:
            out = self._run(cmd, timeout or self.shell_timeout, "utf-8")
        except Exception as exc:  # adbutils raises AdbError, AdbTimeout, OSError: all mean the device is not usable
            raise DeviceError(f"{self.serial}: `{cmd}` failed: {type(exc).__name__}: {exc}") from exc
        return out if isinstance(out, str) else out.decode("utf-8", "replace")

    def shell_bytes(self, cmd: str, timeout: Optional[float] = None) -> bytes:
        try:
            out = self._run(cmd, timeout or self.shell_timeout, None)
        except Exception as exc:
            raise DeviceError(f"{self.serial}: `{cmd}` failed: {type(exc).__name__}: {exc}") from exc
        return out if isinstance(out, bytes) else str(out).encode()

    def _run(self, cmd: str, timeout: float, encoding: Optional[str]):
        """One shell command on a connection of its own, with `timeout` bounding every wait, the fast way
        (adb_shell.py says why). A stand-in without a client (a test's fake) is asked plainly."""
        if self._client is None:
            return self._adb.shell(cmd, timeout=timeout, encoding=encoding)
        out = shell_bytes(self._client, self.serial, cmd, timeout)
        if encoding is None:
            return out
        return out.decode(encoding, "replace").rstrip()

    def getprop(self, name: str) -> str:
        return self.shell(f"getprop {name}").strip()

    # ---- settings ---------------------------------------------------------------------------------------------

    def settings_snapshot(self, *, before: str = "") -> dict[tuple[str, str], str]:
        """Every setting of the three namespaces, read in one shell round trip (each round trip costs a real
        device, and adbutils itself, tens of milliseconds). `before` is a command run first in the same trip."""
        script = _snapshot_script()
        return self._parse_snapshot(self.shell(f"{before}; {script}" if before else script))

    def settings_with_history(self) -> tuple[dict[tuple[str, str], str], Optional[History]]:
        """Every setting, and each table's historical operations (`dumpsys settings`; None on a build that keeps
        none), in one shell round trip: read before and after a driver, they say what it wrote, put back or not."""
        out = self.shell(f"echo {DUMP_MARKER}; dumpsys settings; {_snapshot_script()}")
        start = out.find(DUMP_MARKER)
        end = out.find(NAMESPACE_MARKER)
        history = parse_settings_dump(out[start + len(DUMP_MARKER):end]) if 0 <= start < end else None
        return self._parse_snapshot(out), history

    def _parse_snapshot(self, out: str) -> dict[tuple[str, str], str]:
        snapshot: dict[tuple[str, str], str] = {}
        ns = None
        for line in out.splitlines():
            line = line.rstrip("\r")
            if line.startswith(NAMESPACE_MARKER):
                ns = line[len(NAMESPACE_MARKER):]
                continue
            if ns is None or "=" not in line:
                continue  # output of a command before, or a line that is not a setting
            key, value = line.split("=", 1)
            snapshot[(ns, key)] = value
        missing = [n for n in SETTINGS_NAMESPACES if f"{NAMESPACE_MARKER}{n}" not in out]
        if missing:
            raise DeviceError(f"{self.serial}: `settings list` gave no answer for {', '.join(missing)}")
        return snapshot

    def setting(self, namespace: str, key: str) -> Optional[str]:
        value = self.shell(f"settings get {namespace} {key}").strip()
        return None if value == "null" else value

    def night_mode(self) -> str:
        """"yes", "no", "auto" or "custom", from `cmd uimode night` ("Night mode: yes")."""
        out = self.shell("cmd uimode night").strip()
        return out.split(":", 1)[1].strip() if ":" in out else out

    def take_baseline(self) -> None:
        """Remember the settings as they are when this session leased the device: every reset puts back what a
        trial changed, so one trial's dark mode is not the next trial's starting state."""
        self._baseline = self.settings_snapshot()

    def restore_settings(self, ignored: Optional[set[str]] = None) -> list[str]:
        """Put back the baseline (and the task-relevant Android defaults). Returns what was restored."""
        restored = []
        current = self.settings_snapshot(before="cmd uimode night no >/dev/null")
        wanted = dict(self._baseline or current)
        wanted.update(DEFAULT_SETTINGS)
        for (ns, key), value in sorted(wanted.items()):
            if ignored and f"{ns}/{key}" in ignored:
                continue
            if current.get((ns, key)) != value:
                self.shell(f"settings put {ns} {key} {_quote(value)}")
                restored.append(f"{ns}/{key}")
        if self._baseline is not None:
            for (ns, key) in sorted(set(current) - set(self._baseline)):
                if not (ignored and f"{ns}/{key}" in ignored) and (ns, key) not in DEFAULT_SETTINGS:
                    self.shell(f"settings delete {ns} {key}")
                    restored.append(f"{ns}/{key}")
        return restored

    def measure_drift(self, seconds: float, *, interval: float = 1.0) -> dict[str, tuple[Optional[str], Optional[str]]]:
        """Which settings change on their own: snapshots `seconds` apart with nothing driving the device (the
        shell is still poked every `interval` so a virtual device's timers run). Returns "ns/key" -> (before,
        after) for every key that changed; what it finds belongs in grading.DRIFTING_SETTINGS, with its reason."""
        before = self.settings_snapshot()
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            time.sleep(min(interval, max(0.0, deadline - time.monotonic())))
            self.shell("true")
        after = self.settings_snapshot()
        return {f"{ns}/{key}": (before.get((ns, key)), after.get((ns, key)))
                for ns, key in sorted(set(before) | set(after)) if before.get((ns, key)) != after.get((ns, key))}

    # ---- apps -------------------------------------------------------------------------------------------------

    def stop(self, package: str) -> None:
        self.shell(f"am force-stop {package}")

    def clear(self, package: str) -> None:
        out = self.shell(f"pm clear {package}").strip()
        if out and "Success" not in out:
            raise DeviceError(f"{self.serial}: pm clear {package}: {out}")

    def launch(self, package: str, extras: str = "") -> None:
        component = self.shell(f"cmd package resolve-activity --brief {package}").strip().splitlines()
        component = [line for line in component if "/" in line]
        if not component:
            raise DeviceError(f"{self.serial}: {package} is not installed (no launchable activity)")
        out = self.shell(f"am start -n {component[-1].strip()} {extras}".strip())
        if "Error" in out:
            raise DeviceError(f"{self.serial}: cannot start {package}: {out.strip()}")

    def grant(self, package: str, permission: str) -> None:
        out = self.shell(f"pm grant {package} {permission}").strip()
        if out:
            raise DeviceError(f"{self.serial}: pm grant {package} {permission}: {out}")

    def foreground_package(self) -> Optional[str]:
        out = self.shell("dumpsys window displays")
        m = re.search(r"mCurrentFocus=Window\{\S+ \S+ ([^/\s}]+)", out) or \
            re.search(r"mFocusedApp=\S*ActivityRecord\{\S+ \S+ ([^/\s}]+)", out)
        if m:
            return m.group(1)
        out = self.shell("dumpsys activity activities")
        m = re.search(r"(?:topResumedActivity|mResumedActivity)[=:].*?\s([\w.]+)/", out)
        return m.group(1) if m else None

    def reset_app(self, package: str, *, ready_testid: Optional[str] = None, timeout: float = 20.0) -> None:
        """Force-stop, clear the app's data (which also revokes its runtime grants), dismiss what is left on
        screen (a keyboard, a system dialog, the lock screen), and launch it cold; wait until `ready_testid` is on
        screen."""
        # One round trip for the steps that need no answer but pm clear's. A screen a previous trial left off
        # or locked is woken and its (swipe-only) lock screen dismissed first, or home would not reach home.
        out = self.shell(f"input keyevent KEYCODE_WAKEUP; wm dismiss-keyguard; am force-stop {package}; "
                         f"pm clear {package}; input keyevent KEYCODE_HOME").strip()
        if "Success" not in out:
            raise DeviceError(f"{self.serial}: pm clear {package}: {out or 'no answer'}")
        self.launch(package)
        if ready_testid:
            self.wait_for(ready_testid, timeout=timeout, scroll=False)

    # ---- the screen -------------------------------------------------------------------------------------------

    def dump(self) -> list[UiNode]:
        # Dump and read back in one round trip; the status line ("UI hierchary dumped to: …") precedes the XML.
        xml = self.shell(f"uiautomator dump {DUMP_PATH} && cat {DUMP_PATH}")
        if "ERROR" in xml and "<hierarchy" not in xml:
            raise DeviceError(f"{self.serial}: uiautomator dump failed: {xml.strip()[:200]}")
        start = xml.find("<?xml")
        if start < 0:
            start = xml.find("<hierarchy")
        end = xml.rfind("</hierarchy>")
        if start < 0 or end < 0:
            raise DeviceError(f"{self.serial}: uiautomator dump gave no hierarchy: {xml[:120]!r}")
        try:
            root = ET.fromstring(xml[start:end + len("</hierarchy>")])
        except ET.ParseError as exc:
            raise DeviceError(f"{self.serial}: unreadable uiautomator dump: {exc}") from exc
        return list(_nodes(root))

    def find(self, testid: str, nodes: Optional[list[UiNode]] = None) -> Optional[UiNode]:
        for node in nodes if nodes is not None else self.dump():
            if node.resource_id == testid or node.resource_id.endswith(f":id/{testid}"):
                return node
        return None

    def text(self, testid: str, *, scroll: bool = True, max_swipes: int = 12) -> Optional[str]:
        """The text of the node whose resource-id is `testid` (MobiumApp's outcome lines), or None when the screen
        does not hold it. With `scroll`, a line scrolled off screen is brought back by swiping the app's scroll
        container: down first, then up. Call only after the driver has finished."""
        node = self.find_scrolling(testid, max_swipes=max_swipes) if scroll else self.find(testid)
        return None if node is None else node.text

    def find_scrolling(self, testid: str, *, max_swipes: int = 12) -> Optional[UiNode]:
        nodes = self.dump()
        node = self.find(testid, nodes)
        if node is not None:
            return node
        if self.hide_keyboard():  # a soft keyboard left up hides what is under it and blocks the swipes
            nodes = self.dump()
            node = self.find(testid, nodes)
            if node is not None:
                return node
        for direction in ("down", "up"):
            last_signature = None
            for _ in range(max_swipes):
                container = _scroll_container(nodes)
                if container is None:
                    return None
                self._swipe(container, direction)
                nodes = self.dump()
                node = self.find(testid, nodes)
                if node is not None:
                    return node
                signature = tuple((n.resource_id, n.text, n.bounds) for n in nodes)
                if signature == last_signature:
                    break  # the list did not move: its end in this direction
                last_signature = signature
        return None

    def _swipe(self, container: UiNode, direction: str) -> None:
        x1, y1, x2, y2 = container.bounds
        x = (x1 + x2) // 2
        top, bottom = y1 + (y2 - y1) // 5, y2 - (y2 - y1) // 5
        # "down" brings content further down the list into view: the finger moves up.
        start, end = (bottom, top) if direction == "down" else (top, bottom)
        self.shell(f"input swipe {x} {start} {x} {end} 300")

    def keyboard_shown(self) -> bool:
        return bool(re.search(r"mInputShown=true", self.shell("dumpsys input_method")))

    def hide_keyboard(self) -> bool:
        """Press BACK only when the soft keyboard is up (BACK with no keyboard would leave the screen)."""
        if not self.keyboard_shown():
            return False
        self.shell("input keyevent 4")
        return True

    def tap(self, testid: str, *, scroll: bool = True) -> None:
        """Tap a node by resource-id over ADB. For preconditions and outcome reads that must navigate (t06 reads
        the Storage Demo after a relaunch): never used while a driver runs."""
        node = self.find_scrolling(testid) if scroll else self.find(testid)
        if node is None:
            raise DeviceError(f"{self.serial}: no node {testid!r} on screen to tap")
        x, y = node.center
        self.shell(f"input tap {x} {y}")

    def wait_for(self, testid: str, *, text: Optional[str] = None, timeout: float = 10.0,
                 scroll: bool = False, interval: float = 0.2) -> UiNode:
        """Wait until `testid` is on screen (and, with `text`, reads it or starts with it). Raises DeviceError on
        the deadline, naming what was last seen."""
        deadline = time.monotonic() + timeout
        seen = None
        while True:
            node = self.find_scrolling(testid) if scroll else self.find(testid)
            if node is not None:
                seen = node.text
                if text is None or node.text == text or node.text.startswith(text):
                    return node
            if time.monotonic() >= deadline:
                what = f"{testid!r}" + (f" reading {text!r}" if text else "")
                raise DeviceError(f"{self.serial}: {what} not on screen after {timeout:g}s"
                                  + (f" (it read {seen!r})" if seen is not None else ""))
            time.sleep(interval)

    def screencap(self) -> Optional[bytes]:
        try:
            data = self.shell_bytes("screencap -p", timeout=20)
        except DeviceError:
            return None
        start = data.find(b"\x89PNG")
        return data[start:] if start >= 0 else None

    # ---- what the record says about the device ----------------------------------------------------------------

    def properties(self, package: Optional[str] = None) -> dict:
        props = {
            "serial": self.serial,
            "adb": f"{self.adb_host}:{self.adb_port}",
            "release": self.getprop("ro.build.version.release"),
            "sdk": self.getprop("ro.build.version.sdk"),
            "model": self.getprop("ro.product.model"),
            "image": self.getprop("ro.build.fingerprint"),
            "kind": self.kind(),
        }
        if package:
            props["app"] = package
            props["app_build"] = self.app_version(package)
        return props

    def bring_to_front(self, package: str) -> None:
        """Bring `package`'s task to the front as a launcher tap does when the driver left it: resumed with its
        screen as it was, not relaunched (an app already in front is left alone). A screen that went to sleep
        while the driver thought is woken and its swipe lock put away first, or what the check reads would be the
        lock screen."""
        self.shell("input keyevent KEYCODE_WAKEUP; wm dismiss-keyguard")
        if self.foreground_package() == package:
            return
        if not self.shell(f"pidof {package}").strip():
            return  # an app the driver left stopped is graded stopped: launching it would be a restart it never made
        self.launch(package)

    def pass_time(self, seconds: float) -> None:
        """Let `seconds` of the app's time go by: the virtual device's clock is advanced at once (its timers fire
        as on a device that waited); any other device is really waited on."""
        if self._kind is None:
            self._kind = self.kind()
        if self._kind == "virtual":
            out = self.shell(f"virtual-clock advance {seconds:g}").strip()
            if out:
                raise DeviceError(f"{self.serial}: virtual-clock advance {seconds:g}: {out}")
        else:
            time.sleep(seconds)

    def set_auto_advance(self, on: bool) -> None:
        """Whether the virtual device's clock may jump while the trial's tool server waits (`virtual-clock wait`):
        on for a control trial at the fast pace, where only a script drives and nothing could tell a jump from a
        wait; off for every other, so an agent meets the app's timers in real time. Said at every reset, since the
        device outlives trials; other devices have no such clock and are left alone."""
        if self._kind is None:
            self._kind = self.kind()
        if self._kind == "virtual":
            self.shell(f"setprop {AUTO_ADVANCE_PROPERTY} {1 if on else 0}")

    def hold_clock(self, on: bool) -> None:
        """Whether the virtual device's clock is held: on for a trial only a script drives at a paced speed (the
        emulator's), where every read takes device time, so the device moves on as the script works it, by the
        pace's figures and the tool server's waits, and never by how long the host took; the app's timers then
        meet a script the same on a quiet host and a loaded one. Off for every other trial: an agent's thinking
        is time the app lives through. Said at every reset; other devices have no such clock."""
        if self._kind is None:
            self._kind = self.kind()
        if self._kind == "virtual":
            self.shell(f"setprop {HELD_CLOCK_PROPERTY} {1 if on else 0}")

    def kind(self) -> str:
        """"virtual" (this project's virtual device, which says so in a property of its own), "emulator" (an
        Android emulator: ro.kernel.qemu), or "physical"."""
        if self.getprop("ro.mobium_evals.virtual_device") == "1":
            return "virtual"
        if self.getprop("ro.kernel.qemu") == "1" or self.getprop("ro.boot.qemu") == "1":
            return "emulator"
        return "physical"

    def app_version(self, package: str) -> Optional[str]:
        out = self.shell(f"dumpsys package {package}")
        name = re.search(r"versionName=(\S+)", out)
        code = re.search(r"versionCode=(\d+)", out)
        if not name and not code:
            return None
        return f"{name.group(1) if name else '?'} ({code.group(1) if code else '?'})"


def _nodes(root: ET.Element) -> Iterator[UiNode]:
    for el in root.iter("node"):
        m = _BOUNDS.match(el.get("bounds", ""))
        bounds = tuple(int(v) for v in m.groups()) if m else (0, 0, 0, 0)
        yield UiNode(
            resource_id=el.get("resource-id", ""), text=el.get("text", ""), desc=el.get("content-desc", ""),
            cls=el.get("class", ""), package=el.get("package", ""), bounds=bounds,  # type: ignore[arg-type]
            checked=el.get("checked") == "true", enabled=el.get("enabled") != "false",
            scrollable=el.get("scrollable") == "true")


def _scroll_container(nodes: list[UiNode]) -> Optional[UiNode]:
    """The app's vertical scroll container: the tallest scrollable node (a horizontal pager is wide, not tall)."""
    candidates = [n for n in nodes if n.scrollable and (n.bounds[3] - n.bounds[1]) > 0]
    if not candidates:
        return None
    return max(candidates, key=lambda n: ((n.bounds[3] - n.bounds[1]) > (n.bounds[2] - n.bounds[0]) * 0.5,
                                          n.bounds[3] - n.bounds[1]))


#: Marker lines between what one shell round trip prints: a setting's value never holds a whole line like them.
NAMESPACE_MARKER = "--mobium-evals-namespace--"
DUMP_MARKER = "--mobium-evals-settings-dump--"


def _snapshot_script() -> str:
    return "; ".join(f"echo {NAMESPACE_MARKER}{ns}; settings list {ns}" for ns in SETTINGS_NAMESPACES)


def _quote(value: str) -> str:
    if value == "":
        return "''"
    if re.fullmatch(r"[\w.,:/@%+=-]+", value):
        return value
    return "'" + value.replace("'", "'\\''") + "'"
