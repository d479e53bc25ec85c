"""The device's own readings: app_battery (what `dumpsys battery` says, in Mobium's words) and app_logs (the
device's log, or one app's read by its uid so the lines of a process that has since died still count, each read
giving what arrived since the last read of the same app and level)."""

from __future__ import annotations

import re
import time

from .errors import MobiumError, invalid
from .tool_state import DeviceState, Result

LEVELS = {"verbose": "V", "debug": "D", "info": "I", "warn": "W", "error": "E", "fatal": "F"}
ORDER = "VDIWEF"
# `logcat -v epoch,uid`: seconds.millis, uid, pid, tid, level, tag: message
LOG_LINE = re.compile(r"^\s*(\d+)\.(\d{3})\s+(\S+)\s+(\d+)\s+\d+\s+([VDIWEFA])\s+(.*?)\s*: (.*)$")
SYSTEM_UID = "1000"

STATUS = {2: "charging", 3: "discharging", 4: "not_charging", 5: "full"}
PLUGS = (("AC powered", "ac"), ("USB powered", "usb"), ("Wireless powered", "wireless"), ("Dock powered", "dock"))


def battery_fields(out: str) -> dict[str, str]:
    fields = {}
    for line in out.splitlines():
        if line.startswith("  ") and ":" in line:
            key, value = line.strip().split(":", 1)
            fields.setdefault(key.strip(), value.strip())
    return fields


class DiagnosticTools:
    """Mixed into `Mobium`."""

    def t_app_battery(self, args: dict) -> Result:
        st = self.state(args)
        f = battery_fields(st.link.shell("dumpsys battery"))
        serial = st.link.serial
        if f.get("present") != "true":
            return Result("no battery — a simulator has none", {"device": serial, "present": False})
        try:
            level = round(int(f.get("level", "0")) * 100 / max(1, int(f.get("scale", "100"))))
            status = int(f.get("status", "1"))
        except ValueError:
            level, status = 0, 1
        state = STATUS.get(status, "unknown")
        plugged = next((name for key, name in PLUGS if f.get(key) == "true"), "")
        where = f", plugged into {plugged}" if plugged else ", not plugged in"
        return Result(f"{level}%, {state.replace('_', ' ')}{where}",
                      {"device": serial, "present": True, "level": level, "state": state,
                       "plugged": plugged or None})

    def t_app_logs(self, args: dict) -> Result:
        source, level, lines = args.get("source"), args.get("level"), args.get("lines", 100)
        if level is not None and level not in LEVELS:
            raise invalid(f'unknown device log level "{level}" (want one of {", ".join(LEVELS)})')
        if lines < 1:
            raise invalid(f"lines must be at least 1, got {lines}")
        st = self.state(args)
        if source == "webview":
            raise MobiumError("unsupported", "this server reads no WebView console: it reaches the device over ADB "
                              "only, and a page's console is not in the device log", 'use source "device"')
        # No app: the whole device's log, as Mobium reads it; an app: its uid's lines and the system's about it.
        app = args.get("app") or ""
        if app and not st.link.installed(app):
            raise invalid(f"{app} is not installed on {st.link.serial}", "pass app, a package name")
        uid = self._app_uid(st, app) if app else None
        floor = ORDER.index(LEVELS[level]) if level else 0
        out = st.link.shell("logcat -d -v epoch,uid -b main,system,crash", timeout=30)
        # One mark per app and level, each the newest line a read of that pair handed out: an empty read sets
        # none, so it stays a first read.
        key = f"{app}|{level or ''}"
        mark = st.log_marks.get(key)
        entries = []
        for line in out.splitlines():
            m = LOG_LINE.match(line)
            if not m:
                continue
            secs, millis, who, pid, lvl, tag, message = m.groups()
            stamp = (int(secs), int(millis))
            ours = uid is None or who == uid or (who == SYSTEM_UID and app in message)
            if not ours or (mark is not None and stamp <= mark) or ORDER.find(lvl) < floor:
                continue
            entries.append((stamp, int(pid), lvl, tag, message))
        first = mark is None
        if entries:
            st.log_marks[key] = max(e[0] for e in entries)
        skipped = max(0, len(entries) - lines)
        kept = entries[skipped:]
        data: dict = {"entries": [{"time": self._clock(e[0]), "level": e[2], "tag": e[3], "pid": e[1],
                                   "message": e[4]} for e in kept]}
        if app:
            data["app"] = app
        data["first"] = first
        if skipped:
            data["skipped"] = skipped
        data["device"] = st.link.serial
        if not kept:
            said = "nothing logged recently" if first else "nothing logged since the last read"
            by = f" by {app}" if app else ""
            at = f' at level "{level}"' if level else ""
            return Result(f"{said}{by}{at}", data)
        text = [f"{self._clock(e[0])} {e[2]} {e[3]}: {e[4]}" for e in kept]
        if skipped and first:
            text.insert(0, f"the most recent {lines} line{'s' if lines != 1 else ''} — later reads return only "
                           "what is new")
        elif skipped:
            text.insert(0, f"{skipped} earlier lines since the last read were skipped to keep the newest {lines} "
                           "— narrow with app or level, or raise lines, to see them")
        return Result("\n".join(text), data)

    @staticmethod
    def _clock(stamp: tuple[int, int]) -> str:
        return time.strftime("%H:%M:%S", time.localtime(stamp[0])) + f".{stamp[1]:03d}"

    def _app_uid(self, st: DeviceState, app: str) -> str:
        out = st.link.shell(f"cmd package list packages -U {app}")
        m = re.search(rf"package:{re.escape(app)} uid:(\d+)", out)
        if not m:
            raise invalid(f"{app} is not installed on {st.link.serial}", "pass app, a package name")
        return m.group(1)
