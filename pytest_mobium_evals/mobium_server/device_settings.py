"""The tools for the device's own state: app_orientation, app_lock, app_locale, app_timezone, app_time,
app_network, app_accessibility, app_clipboard, app_screen, app_doctor (app_location is in location.py).

Each change is made with the shell command a real Android 12–15 emulator takes, then read back: a change the
device did not take is `not_confirmed`, never reported as done."""

from __future__ import annotations

import re
import shlex

from .device import device_list
from .errors import MobiumError, invalid
from .tool_state import Result

ROTATIONS = {"portrait": "0", "landscape": "1", "portrait-reverse": "2", "landscape-reverse": "3"}
ORIENTATIONS = tuple(ROTATIONS)  # by quarter turns from the natural position

# Mobium's accessibility names on Android: (settings namespace, key, value when on, value when off).
ACCESSIBILITY = {
    "reduce_motion": ("global", "transition_animation_scale", "0", "1"),
    "bold_text": ("secure", "font_weight_adjustment", "300", "0"),
    "increase_contrast": ("secure", "high_text_contrast_enabled", "1", "0"),
    "invert_colors": ("secure", "accessibility_display_inversion_enabled", "1", "0"),
    "grayscale": ("secure", "accessibility_display_daltonizer_enabled", "1", "0"),
    "text_scale": ("system", "font_scale", "", "1.0"),
}
NOT_ON_ANDROID = {
    "reduce_transparency": "Android has no reduce-transparency setting",
    "text_size": "Android sizes text by a scale: use text_scale with a number such as \"1.3\"",
    "button_shapes": "Android has no button-shapes setting",
    "differentiate_without_color": "Android has no differentiate-without-color setting",
}


class DeviceSettingTools:
    """Mixed into `Mobium`, the tool implementations for one server process."""

    def _setting(self, st, namespace: str, key: str) -> str:
        value = st.link.shell(f"settings get {namespace} {key}").strip()
        return "" if value == "null" else value

    def _orientation(self, st) -> tuple[str, bool]:
        """Which way the display is turned (its rotation, which a portrait-only app in front holds upright whatever
        the setting asks) and whether rotation is locked rather than following the sensor."""
        out = st.link.shell("dumpsys window displays; echo; settings get system accelerometer_rotation")
        m = re.search(r"\bmRotation=(\d)\b", out) or re.search(r"mCurrentRotation=ROTATION_(\d+)", out)
        quarter = (int(m.group(1)) // 90 if int(m.group(1)) >= 90 else int(m.group(1))) if m else 0
        auto = out.strip().splitlines()[-1].strip() == "1" if out.strip() else False
        return ORIENTATIONS[quarter % 4], not auto

    def t_app_orientation(self, args: dict) -> Result:
        st = self.state(args)
        want = args.get("orientation")
        if want is not None and want != "auto" and want not in ROTATIONS:
            raise invalid(f'unknown orientation "{want}" (want "portrait", "landscape", "portrait-reverse", '
                          f'"landscape-reverse", or "auto")')
        before, locked_before = self._orientation(st)
        if want is None:
            return Result(f"{before} ({'locked' if locked_before else 'following the sensor'})",
                          {"orientation": before, "locked": locked_before, "device": st.link.serial})
        if want != "auto" and before == want and locked_before:
            return Result(f"already {want}", {"orientation": want, "locked": True, "device": st.link.serial})
        st.link.shell("cmd window user-rotation free" if want == "auto" else
                      f"cmd window user-rotation lock {ROTATIONS[want]}")
        self.drop_refs(st)  # every bound on screen moved with the rotation
        now, locked = self._orientation(st)
        if (want == "auto" and locked) or (want != "auto" and now != want):
            front = st.link.foreground()
            raise MobiumError("not_confirmed", f"asked for {want} and the screen is still {now}"
                              + (f": {front} in front holds it {now}" if front and want != "auto" else ""),
                              "the app in front may be fixed to one orientation; app_orientation with no argument "
                              "reads which way the screen is turned",
                              {"orientation": now, "wanted": want, "locked": locked})
        text = f"{now} ({'locked' if locked else 'following the sensor'})"
        if now != before:
            text += f" (was {before})"
        data = {"orientation": now, "locked": locked, "device": st.link.serial}
        if now != before:
            data["previous"] = before
        return Result(text, data)

    def _locked(self, st) -> bool:
        out = st.link.shell("dumpsys window policy; dumpsys power")
        if re.search(r"showing=true|mDreamingLockscreen=true|isKeyguardShowing=true", out):
            return True
        return bool(re.search(r"mWakefulness=(Asleep|Dozing)", out))

    def t_app_lock(self, args: dict) -> Result:
        st = self.state(args)
        want = args.get("state")
        was = self._locked(st)
        data = {"locked": was, "device": st.link.serial}
        if want is None:
            return Result("locked" if was else "unlocked", data)
        if (want == "lock") == was:
            return Result(f"already {want}ed", data)
        if want == "lock":
            st.link.key(26)
        else:
            st.link.shell("input keyevent 224; wm dismiss-keyguard")
        now = self._locked(st)
        if now != (want == "lock"):
            raise MobiumError("not_confirmed", f"pressed to {want} and the device is still "
                              f"{'locked' if now else 'unlocked'}", "a device with a PIN must be unlocked by hand",
                              {"locked": now})
        return Result(f"{want}ed (was {'locked' if was else 'unlocked'})",
                      {"locked": now, "previous": was, "device": st.link.serial})

    def t_app_locale(self, args: dict) -> Result:
        st = self.state(args)
        app = self._need_app(args)
        self._installed(st, app)

        def read() -> str:
            out = st.link.shell(f"cmd locale get-app-locales {app}").strip()
            m = re.search(r"Locales:\s*\[?([^\]]*)\]?", out)
            return m.group(1).strip() if m else ""

        want = args.get("locale")
        if want is not None:
            st.link.shell(f"cmd locale set-app-locales {app} --locales {shlex.quote(want)}" if want else
                          f"cmd locale set-app-locales {app} --locales ''")
        now = read()
        if want is not None and now.replace(" ", "") != want.replace(" ", ""):
            raise MobiumError("not_confirmed", f"asked to pin {app} to {want or 'the device'} and it reads "
                              f"{now or 'the device'}", "check the locale is a BCP-47 tag such as ja-JP",
                              {"app": app, "locale": now})
        text = f"{app} is pinned to {now}" if now else f"{app} follows the device"
        return Result(text, {"app": app, "locale": now, "device": st.link.serial})

    def t_app_timezone(self, args: dict) -> Result:
        st = self.state(args)
        want = args.get("timezone")
        before = st.link.getprop("persist.sys.timezone")
        if want is None:
            return Result(before or "unknown", {"timezone": before, "device": st.link.serial})
        st.link.shell(f"cmd alarm set-timezone {shlex.quote(want)}")
        now = st.link.getprop("persist.sys.timezone")
        if now != want:
            return Result(f"{now} — {want} was accepted and ignored: the device does not know that zone",
                          {"timezone": now, "previous": before, "device": st.link.serial})
        return Result(f"{now} (was {before})", {"timezone": now, "previous": before, "device": st.link.serial})

    def t_app_time(self, args: dict) -> Result:
        st = self.state(args)
        shown = st.link.shell("date '+%Y-%m-%dT%H:%M:%S%z %Z'").strip()
        return Result(shown, {"time": shown, "timezone": st.link.getprop("persist.sys.timezone"),
                              "device": st.link.serial})

    def t_app_network(self, args: dict) -> Result:
        st = self.state(args)
        for key in ("latency_ms", "download_kbps", "upload_kbps"):
            if args.get(key) is not None:
                raise MobiumError("unsupported", f"{key} shapes traffic through an emulator's console, which this "
                                  "server does not reach over ADB", "use offline true/false to cut the network",
                                  {"argument": key})
        offline = args.get("offline")
        if args.get("reset"):
            offline = False
        if offline is not None:
            if args.get("reset"):
                st.airplane_before = None  # put back by asking: nothing left for the session's end to undo
            elif st.airplane_before is None:
                st.airplane_before = self._airplane(st)
            st.link.shell(f"cmd connectivity airplane-mode {'enable' if offline else 'disable'}")
        airplane = self._airplane(st)
        if offline is not None and airplane != offline:
            raise MobiumError("not_confirmed", f"airplane mode is still {'on' if airplane else 'off'}",
                              "app_network again, or toggle it from the quick settings", {"airplane": airplane})
        text = "offline (airplane mode)" if airplane else "online"
        return Result(text, {"airplane": airplane, "online": not airplane, "device": st.link.serial})

    def t_app_accessibility(self, args: dict) -> Result:
        st = self.state(args)
        name, value = args.get("setting"), args.get("value")
        if name in NOT_ON_ANDROID:
            raise MobiumError("unsupported", f"{name}: {NOT_ON_ANDROID[name]}",
                              "app_accessibility with no setting lists what Android has", {"setting": name})

        def read(n: str) -> str:
            ns, key, on, _ = ACCESSIBILITY[n]
            raw = self._setting(st, ns, key)
            if n == "text_scale":
                return raw or "1.0"
            return "on" if raw == on else "off"

        if name is None:
            if value is not None:
                raise invalid("value needs a setting to change", "pass setting too")
            settings = {n: read(n) for n in ACCESSIBILITY}
            return Result("\n".join(f"{n}: {v}" for n, v in settings.items()),
                          {"settings": settings, "device": st.link.serial})
        if value is None:
            return Result(f"{name}: {read(name)}", {"settings": {name: read(name)}, "device": st.link.serial})
        ns, key, on, off = ACCESSIBILITY[name]
        if name == "text_scale":
            try:
                raw = str(float(value))
            except ValueError:
                raise invalid(f'text_scale is a number such as "1.3", not "{value}"', "pass a number") from None
        elif value in ("on", "off"):
            raw = on if value == "on" else off
        else:
            raise invalid(f'{name} is "on" or "off", not "{value}"', 'pass "on" or "off"')
        before = read(name)
        keys = [(ns, key)]
        if name == "reduce_motion":
            # Android's "Remove animations" sets all three scales; apps read whichever they use.
            keys = [("global", "window_animation_scale"), ("global", "transition_animation_scale"),
                    ("global", "animator_duration_scale")]
        for k in keys:
            if k not in st.put_back:
                st.put_back[k] = self._setting(st, *k)
        st.link.shell("; ".join(f"settings put {n} {k} {raw}" for n, k in keys))
        now = read(name)
        return Result(f"{name}: {now} (was {before}) — put back when the session ends",
                      {"settings": {name: now}, "previous": before, "device": st.link.serial})

    @staticmethod
    def _airplane(st) -> bool:
        return st.link.shell("cmd connectivity airplane-mode").strip() == "enabled"

    def put_back_network(self, st) -> bool:
        """Airplane mode as it was before app_network first changed it; whether there was anything to put back."""
        before, st.airplane_before = st.airplane_before, None
        if before is None:
            return False
        if self._airplane(st) != before:
            st.link.shell(f"cmd connectivity airplane-mode {'enable' if before else 'disable'}")
        return True

    def put_back_settings(self, st) -> list[str]:
        """What the session changed, set as it was (deleted where it was unset); the keys put back."""
        if not st.put_back:
            return []
        lines = [f"settings put {n} {k} {v}" if v else f"settings delete {n} {k}" for (n, k), v in st.put_back.items()]
        st.link.shell("; ".join(lines))
        done = [f"{n} {k}" for n, k in st.put_back]
        st.put_back.clear()
        return done

    def t_app_clipboard(self, args: dict) -> Result:
        st = self.state(args)
        text = args.get("text")
        if text is None:
            raise MobiumError("unsupported", "cannot read the clipboard on Android: only the app in front, or the "
                              "keyboard, may read it", "paste it into a field (tap the field, then press paste) "
                              "and read the field with app_text")
        if not st.link.write_clipboard(text):
            raise MobiumError("unsupported", f"cannot write the clipboard on {st.link.serial}: no clipboard "
                              "receiver (clipper.set) answered", "install a clipboard helper that answers the "
                              "clipper.set broadcast")
        return Result(f"the clipboard holds {len(text)} characters", {"length": len(text),
                                                                      "device": st.link.serial})

    def t_app_screen(self, args: dict) -> Result:
        st = self.state(args)
        profile = args.get("profile")
        if args.get("inspect"):
            raise MobiumError("unsupported", "inspecting the layout for findings is not done by this server",
                              "app_map lists every element with its bounds")
        if profile is not None:
            if profile == "reset":
                st.link.shell("wm size reset; wm density reset")
            else:
                m = re.fullmatch(r"(\d+)x(\d+)(?:@(\d+))?", profile)
                if not m:
                    raise invalid(f'"{profile}" is not a display profile (want WIDTHxHEIGHT, WIDTHxHEIGHT@DPI or '
                                  '"reset")', 'pass e.g. "720x1280@320"')
                st.link.shell(f"wm size {m.group(1)}x{m.group(2)}" + (f"; wm density {m.group(3)}" if m.group(3)
                                                                      else ""))
            self.drop_refs(st)
        size = st.link.shell("wm size").strip().splitlines()
        density = st.link.shell("wm density").strip().splitlines()
        return Result("\n".join(size + density), {"size": size[-1].split(": ")[-1] if size else "",
                                                  "density": density[-1].split(": ")[-1] if density else "",
                                                  "device": st.link.serial})

    def t_app_doctor(self, args: dict) -> Result:
        try:
            devs = device_list(self.host, self.port)
        except Exception as exc:  # the ADB server itself is what is being checked
            raise MobiumError("toolchain_missing", f"no ADB server answers at {self.host}:{self.port}: {exc}",
                              "start one with `adb start-server`") from exc
        lines = [f"adb server: {self.host}:{self.port} answers", f"devices: {len(devs)}"]
        lines += [f"  {s}  {state}" for s, state in devs]
        lines.append("driver: uiautomator2-compatible over adb shell (uiautomator dump, input)")
        return Result("\n".join(lines), {"adb": f"{self.host}:{self.port}",
                                         "devices": [{"id": s, "state": state} for s, state in devs]})
