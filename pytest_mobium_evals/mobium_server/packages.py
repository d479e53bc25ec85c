"""The tools for packages and app lifecycle beyond launching: app_list_apps, app_install, app_uninstall,
app_open_url, app_background, app_reset_permissions."""

from __future__ import annotations

import os
import shlex

import adbutils

from .errors import MobiumError, invalid
from .tool_state import NATIVE, Result

LAUNCHERS = ("com.google.android.apps.nexuslauncher", "com.android.launcher3")


class PackageTools:
    """Mixed into `Mobium`, the tool implementations for one server process."""

    def _packages(self, st, flag: str) -> list[str]:
        out = st.link.shell(f"pm list packages {flag}".strip())
        return sorted(ln.split(":", 1)[1].strip() for ln in out.splitlines() if ln.startswith("package:"))

    def t_app_list_apps(self, args: dict) -> Result:
        st = self.state(args)
        system = set(self._packages(st, "-s"))
        names = self._packages(st, "") if args.get("system") else self._packages(st, "-3")
        apps = [{"id": n, "system": n in system} for n in names]
        text = "\n".join(n + ("  (system)" if n in system else "") for n in names) or "no apps installed"
        return Result(text, {"apps": apps, "device": st.link.serial})

    def t_app_install(self, args: dict) -> Result:
        st = self.state(args)
        path = args.get("path")
        if args.get("content") is not None:
            raise MobiumError("unsupported", "this server installs from a path on this machine, not from content",
                              "save the .apk and pass its path")
        if not path:
            raise invalid("app_install needs the path of an .apk on this machine", "pass path")
        if not os.path.isfile(path):
            raise invalid(f"no file at {path}", "pass the path of an .apk on this machine", path=path)
        before = set(self._packages(st, ""))
        try:
            st.link.dev.install(path, nolaunch=True, silent=True)
        except (adbutils.AdbError, adbutils.AdbInstallError, OSError) as exc:
            raise MobiumError("device_server", f"installing {os.path.basename(path)} failed on {st.link.serial}: "
                              f"{exc}", "check the .apk is built for this device's ABI and API level") from exc
        added = sorted(set(self._packages(st, "")) - before)
        return Result(f"installed {', '.join(added) or os.path.basename(path)}",
                      {"path": path, "apps": added, "device": st.link.serial})

    def t_app_uninstall(self, args: dict) -> Result:
        st = self.state(args)
        app = self._need_app(args)
        self._installed(st, app)
        out = st.link.shell(f"pm uninstall {app}")
        if st.link.installed(app):
            raise MobiumError("device_server", f"uninstalling {app} failed: {out.strip()}",
                              "a system app cannot be uninstalled; app_clear_data empties it instead", {"app": app})
        self.drop_refs(st)
        return Result(f"uninstalled {app}", {"app": app, "device": st.link.serial})

    def t_app_open_url(self, args: dict) -> Result:
        st = self.state(args)
        url = args.get("url") or ""
        if "://" not in url and not url.startswith(("mailto:", "tel:", "geo:", "sms:")):
            raise invalid(f'"{url}" is not a URL (want a scheme, e.g. https://example.com or myapp://cart)',
                          "pass a full URL with its scheme")
        out = st.link.shell(f"am start -W -a android.intent.action.VIEW -d {shlex.quote(url)}")
        if "Error" in out or "unable to resolve" in out.lower():
            raise MobiumError("no_such_element", f"nothing on {st.link.serial} opens {url}: {out.strip()[-200:]}",
                              "install the app that handles it, or check the scheme", {"url": url})
        self.drop_refs(st)
        st.context = NATIVE
        front = st.link.foreground()
        data = {"url": url, "device": st.link.serial}
        if front:
            data["app"] = front
        web = url.startswith(("http://", "https://"))
        return Result(f"opened {url}" + (f" in {front}" if web and front else ""), data)

    def t_app_background(self, args: dict) -> Result:
        st = self.state(args)
        seconds = args.get("seconds", 5)
        if not 0 < seconds <= 180:
            raise invalid("seconds must be more than 0 and at most 180", "pass seconds between 1 and 180")
        front = st.link.foreground()
        app = args.get("app") or front
        if not app or app != front or app in LAUNCHERS:
            raise invalid(f"{app or 'no app'} is not in front (background), so there is nothing to send away",
                          "app_launch it first", app=app)
        started = st.link.monotonic()
        st.link.key(3)
        st.link.pause(seconds)  # the app must really be away this long: it is what the caller is testing
        self.t_app_launch({"app": app, "device": st.link.serial})
        back = st.link.wait_until(lambda: st.link.foreground() == app, 5.0, 0.2)
        away_ms = int((st.link.monotonic() - started) * 1000)
        if not back:
            raise MobiumError("not_confirmed", f"{app} was sent to the background and did not come back to the "
                              f"front: {st.link.foreground() or 'something else'} is there",
                              "app_launch it", {"app": app, "away_ms": away_ms})
        self.drop_refs(st)
        shown = f"{seconds:g}s"
        return Result(f"{app} was in the background for {shown} and is in front again",
                      {"app": app, "device": st.link.serial, "seconds": seconds, "away_ms": away_ms})

    def t_app_reset_permissions(self, args: dict) -> Result:
        st = self.state(args)
        app = args.get("app")
        if app:
            app = self._need_app(args)
            self._installed(st, app)
            st.link.shell(f"pm reset-permissions -p {app}")
            return Result(f"reset permissions for {app}: its next request asks again",
                          {"app": app, "device": st.link.serial})
        st.link.shell("pm reset-permissions")
        return Result("reset permissions for every app on the device", {"device": st.link.serial})
