"""App crashes as Android records them: the AndroidRuntime lines in logcat's crash buffer, system_server's lines
that the activity was finished and the process died, a DropBox entry (`data_app_crash`, or `system_app_crash` for
a system app) with Android's header lines and the exception, and "keeps stopping" on a second crash soon after.

DropBox is the record that lasts: it outlives the app's data (`pm clear`), its restarts and a reboot, and nothing
but its own size bound removes an entry, so a reader finds a crash by being newer than a moment it knows."""

from __future__ import annotations

import time
import traceback
from dataclasses import dataclass

from .records import Dialog

# What Android's crash handler is called on a Java thread (the header's Crash-Handler line).
KILL_HANDLER = "com.android.internal.os.RuntimeInit$KillApplicationHandler"
# DropBox's own bound on entries (`Max entries:`); the oldest goes first past it.
MAX_ENTRIES = 1000
# A second crash of one app within this long raises "keeps stopping" (Android's AppErrors, for a foreground app).
KEEPS_STOPPING_S = 60.0


@dataclass(frozen=True)
class DropBoxEntry:
    tag: str
    millis: int      # the wall-clock time it was added: with the tag, the entry's name
    text: str

    @property
    def path(self) -> str:
        return f"/data/system/dropbox/{self.tag}@{self.millis}.txt"


def java_exception(exc: BaseException) -> tuple[str, list[str]]:
    """The thread an exception killed and the exception as a Java stack prints it. An app's exception may say
    both itself (`android_thread`, `android_lines()`); any other is a RuntimeException carrying the Python error,
    its frames as `at` lines, so a bug in a virtual app still reads as an Android crash."""
    lines = getattr(exc, "android_lines", None)
    if callable(lines):
        return getattr(exc, "android_thread", "main"), list(lines())
    head = f"java.lang.RuntimeException: {type(exc).__name__}: {exc}"
    frames = traceback.extract_tb(exc.__traceback__)[-8:]
    return "main", [head] + [f"\tat {f.name}({f.filename.rsplit('/', 1)[-1]}:{f.lineno})" for f in reversed(frames)]


class DeviceCrashes:
    """Mixed into `VirtualDevice`; reads and writes the device state it sets up."""

    def dropbox_add(self, tag: str, text: str) -> DropBoxEntry:
        millis = int(self.clock.wall(self.now()) * 1000)
        while any(e.tag == tag and e.millis == millis for e in self.dropbox):
            millis += 1  # one name per entry, as DropBox's file names are
        entry = DropBoxEntry(tag, millis, text)
        self.dropbox.append(entry)
        del self.dropbox[:-MAX_ENTRIES]
        return entry

    def _crash(self, package: str, exc: BaseException) -> None:
        proc = self.processes.get(package)
        pid = proc.pid if proc else 0
        pkg = self.packages.get(package)
        thread, java = java_exception(exc)
        self.log("AndroidRuntime", f"FATAL EXCEPTION: {thread}", "E", pid=pid, buffer="crash")
        self.log("AndroidRuntime", f"Process: {package}, PID: {pid}", "E", pid=pid, buffer="crash")
        for line in java:
            self.log("AndroidRuntime", line, "E", pid=pid, buffer="crash")
        top = self.current_activity()
        foreground = top is not None and top.package.name == package
        if pkg is not None and proc is not None:
            self.dropbox_add("system_app_crash" if pkg.system else "data_app_crash",
                             self._crash_report(pkg, proc, foreground, java))
        if foreground:
            self.log("ActivityTaskManager", f"  Force finishing activity {top.package.short(top.cls)}", "W",
                     pid=self.system_pid)
        self.kill_process(package, reason="crash")
        if proc is not None:
            self.log("ActivityManager", f"Process {package} (pid {pid}) has died: {'fg  TOP' if foreground else 'cch'}",
                     pid=self.system_pid)
        now = self.now()
        recent = [t for t in self._crashes.get(package, []) if now - t < KEEPS_STOPPING_S] + [now]
        self._crashes[package] = recent
        if len(recent) >= 2:
            label = pkg.label if pkg else package
            home = self._home_task().top
            if home is not None:
                home.dialogs.append(Dialog(f"{label} keeps stopping", "", [
                    ("App info", "neutral", lambda: self.start_activity(
                        "com.android.settings/.applications.InstalledAppDetailsTop", {"package": package})),
                    ("Close app", "positive", None)], "android", cancelable=True, kind="crash",
                    caps=False, token=self.new_hash()))

    def _crash_report(self, pkg, proc, foreground: bool, java: list[str]) -> str:
        """The entry's text: Android's header lines up to a blank line, then the exception and its stack."""
        now = self.now()
        wall = self.clock.wall(now)
        stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(wall)) + f".{int(wall * 1000) % 1000:03d}+0000"
        header = [
            f"SystemUptimeMs: {int(now * 1000)}",
            f"Process: {pkg.name}",
            f"PID: {proc.pid}",
            f"UID: {pkg.uid}",
            "Frozen: false",
            f"Flags: 0x{0x38cbbe45 if pkg.system else 0x20c8be44:08x}",
            f"Package: {pkg.name} v{pkg.version_code} ({pkg.version_name})",
            f"Foreground: {'Yes' if foreground else 'No'}",
            f"Process-Runtime: {int((now - proc.started) * 1000)}",
            f"Timestamp: {stamp}",
            f"Build: {self.props.get('ro.build.fingerprint', '')}",
            f"Crash-Handler: {KILL_HANDLER}",
            "Loading-Progress: 1.0",
            "Dropped-Count: 0",
        ]
        return "\n".join(header) + "\n\n" + "\n".join(java) + "\n"
