"""The device-state readings: app_battery (what `dumpsys battery` says, in Mobium's words)."""

from __future__ import annotations

from .tool_state import Result

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
