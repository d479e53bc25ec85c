"""The tools for apps: app_launch, app_terminate, app_current, app_state, app_clear_data."""

from __future__ import annotations

import re
import shlex
from typing import Any

from .errors import MobiumError, invalid
from .tool_state import NATIVE, UNLOCK_REMEDY, DeviceState, Result


class AppTools:
    """Mixed into `Mobium`, the tool implementations for one server process."""

    def _need_app(self, args: dict) -> str:
        app = args.get("app")
        if not app:
            raise invalid('this tool needs an app id — a package name on Android ("com.example.shop") or a bundle '
                          'id on iOS ("com.example.Shop")')
        if not re.fullmatch(r"[A-Za-z0-9_.]+", app):
            raise invalid(f'"{app}" is not a package name', "give a package name such as dev.mobium.mobiumapp")
        return app

    def _installed(self, st: DeviceState, app: str) -> None:
        if not st.link.installed(app):
            raise invalid(f"{app} is not installed on {st.link.serial}", "check the package name (app_devices, or "
                          "the app's id)", app=app)

    def t_app_launch(self, args: dict) -> Result:
        st = self.state(args)
        app = self._need_app(args)
        self._installed(st, app)
        out = st.link.shell(f"cmd package resolve-activity --brief -c android.intent.category.LAUNCHER {app}")
        comp = next((ln.strip() for ln in reversed(out.splitlines()) if "/" in ln and "=" not in ln), "")
        if comp:
            st.link.shell(f"am start -n {shlex.quote(comp)}")
        else:
            st.link.shell(f"monkey -p {app} -c android.intent.category.LAUNCHER 1")
        self.drop_refs(st)
        st.context = NATIVE
        front = st.link.wait_until(lambda: (lambda f: f if f == app else None)(st.link.foreground()), 3.0, 0.1)
        data = {"app": app, "device": st.link.serial}
        if self._locked(st):
            raise MobiumError("device_not_ready", f"launched {app}, but the device is locked, so it is behind the "
                              "lock screen and nothing after this would reach it — run `mobium lock unlock` "
                              f"({UNLOCK_REMEDY}), then act", UNLOCK_REMEDY, {**data, "locked": True})
        if front:
            return Result(f"launched {app}", data)
        other = st.link.foreground()
        data["foreground"] = other
        return Result(f"launched {app}, but {other or 'something else'} is in the foreground", data)

    def t_app_terminate(self, args: dict) -> Result:
        st = self.state(args)
        app = self._need_app(args)
        st.link.shell(f"am force-stop {app}")
        self.drop_refs(st)
        st.context = NATIVE
        return Result(f"terminated {app}", {"app": app, "device": st.link.serial})

    def t_app_current(self, args: dict) -> Result:
        st = self.state(args)
        app = st.link.foreground()
        data: dict[str, Any] = {"app": app, "device": st.link.serial}
        if st.context != NATIVE:
            data["context"] = st.context
        return Result(app or "could not determine the foreground app", data)

    def t_app_state(self, args: dict) -> Result:
        st = self.state(args)
        app = self._need_app(args)
        data: dict[str, Any] = {"app": app, "device": st.link.serial}
        if not st.link.installed(app):
            return Result(f"{app} is not installed", {**data, "state": "not_installed"})
        if not st.link.running(app):
            return Result(f"{app} is installed and not running", {**data, "state": "not_running"})
        front = st.link.foreground()
        if front == app:
            return Result(f"{app} is in front", {**data, "state": "foreground"})
        if front in ("com.google.android.permissioncontroller", "com.android.permissioncontroller"):
            return Result(f"{app} is in front, under {front}", {**data, "state": "foreground", "covered_by": front})
        return Result(f"{app} is running in the background", {**data, "state": "background"})

    def t_app_clear_data(self, args: dict) -> Result:
        st = self.state(args)
        app = self._need_app(args)
        if not st.link.installed(app):
            raise invalid(f"{app} is not installed on {st.link.serial}, so there is no data to clear", app=app)
        st.link.shell(f"am force-stop {app}")
        out = st.link.shell(f"pm clear {app}").strip()
        self.drop_refs(st)
        st.context = NATIVE
        if "Success" not in out:
            raise MobiumError("device_server", f"pm clear {app} did not succeed: {out or 'no answer'}",
                              "check that the app is installed and not a protected system app")
        _, runtime = st.link.permissions(app)
        still = sorted(p.rsplit(".", 1)[-1] for p, g in runtime.items() if g)
        emptied = ["the app's private files, databases and preferences (pm clear: Success)",
                   "its runtime permission grants (pm clear revokes them)"]
        text = (f"cleared {app}\n  emptied: app data, by pm clear, which answered Success\n"
                f"  kept:    the installed app; shared storage (/sdcard) is not the app's to clear\n"
                f"  runtime permissions still granted: {', '.join(still) if still else 'none'}")
        return Result(text, {"app": app, "device": st.link.serial, "emptied": emptied,
                             "kept": ["the installed app", "shared storage"], "still_granted": still})
