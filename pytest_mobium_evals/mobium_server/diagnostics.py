"""The device's own readings: app_battery (what `dumpsys battery` says, in Mobium's words) and app_logs (the
device log of one app, read by its uid so the lines of a process that has since died still count, each read
giving what arrived since the last)."""

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
        app = args.get("app") or st.link.foreground()
        if not app or not st.link.installed(app):
            raise invalid(f"{app or 'no app'} is not installed on {st.link.serial}", "pass app, a package name")
        uid = self._app_uid(st, app)
        floor = ORDER.index(LEVELS[level]) if level else 0
        out = st.link.shell("logcat -d -v epoch,uid -b main,system,crash", timeout=30)
        mark = st.log_marks.get(app)
        entries = []
        for line in out.splitlines():
            m = LOG_LINE.match(line)
            if not m:
                continue
            secs, millis, who, pid, lvl, tag, message = m.groups()
            stamp = (int(secs), int(millis))
            ours = who == uid or (who == SYSTEM_UID and app in message)
            if not ours or (mark is not None and stamp <= mark) or ORDER.find(lvl) < floor:
                continue
            entries.append((stamp, int(pid), lvl, tag, message))
        first = mark is None
        if entries:
            st.log_marks[app] = max(e[0] for e in entries)
        elif first:
            st.log_marks[app] = (int(time.time()), 999)
        skipped = max(0, len(entries) - lines)
        kept = entries[skipped:]
        data: dict = {"entries": [{"time": self._clock(e[0]), "level": e[2], "tag": e[3], "pid": e[1],
                                   "message": e[4]} for e in kept], "app": app, "first": first,
                      "device": st.link.serial}
        if not kept:
            said = "recently" if first else "since the last read"
            return Result(f"nothing logged {said} by {app}", data)
        text = [f"{self._clock(e[0])} {e[2]} {e[3]}: {e[4]}" for e in kept]
        if skipped:
            data["skipped"] = skipped
            text.insert(0, f"{skipped} earlier lines since the last read were skipped to keep the newest {lines} "
                           "— pass a larger lines to see more")
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
