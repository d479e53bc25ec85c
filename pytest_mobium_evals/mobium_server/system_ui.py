"""The tools for the system around the app: alerts and dialogs, the keyboard, key presses, appearance (dark mode),
permissions and notifications."""

from __future__ import annotations

import re
import shlex
from typing import Any, Optional

from .errors import MobiumError, invalid
from .shapes import parse_notifications
from .snapshot import Snapshot, UiNode, describe, short_id
from .tool_state import KEYBOARD_KEYS, KEYCODES, NATIVE, PERMISSION_SETS, DeviceState, Result


class SystemUiTools:
    """Mixed into `Mobium`, the tool implementations for one server process."""

    def t_app_alert(self, args: dict) -> Result:
        st = self.state(args)
        action = args.get("action", "read")
        if action not in ("accept", "dismiss", "read"):
            raise invalid(f'unknown action "{action}" (want accept, dismiss, or omit it to read)')
        snap = self.snap(st)
        dialog = snap.dialog
        if args.get("text") is not None:
            raise MobiumError("unsupported", "cannot type into a dialog on Android — this driver has no way to "
                              "reach a prompt's field", "tap the dialog's field and use app_type, if it has one")
        if action == "read":
            if dialog is None:
                return Result("no dialog is on screen", {"present": False, "device": st.link.serial})
            body = dialog.title + (f"\n{dialog.message}" if dialog.message else "")
            buttons = ", ".join(f'"{c}"' for c in dialog.captions())
            return Result(f'a dialog is on screen: "{body}"\nbuttons: {buttons}',
                          {"present": True, "text": body, "buttons": dialog.captions(),
                           "permission": dialog.permission, "device": st.link.serial})
        if dialog is None:
            raise MobiumError("no_such_alert", f"there is no dialog to {action} — app_alert with no action reports "
                              "whether one is up", "app_alert with no action, or app_map")
        button = self._dialog_button(dialog, action)
        if button is None:
            raise MobiumError("unsupported", f'"{dialog.title}" has no button for {action} to press',
                              "tap one of its buttons from app_map", {"dialog": dialog.title})
        st.link.tap(*button.center)
        self.drop_refs(st)
        gone = st.link.wait_until(lambda: (lambda d: d is None or d.title != dialog.title)(self.snap(st).dialog),
                                  3.0, 0.1)
        if not gone:
            raise MobiumError("not_confirmed", f'pressed "{button.text or button.desc}" on "{dialog.title}" and it '
                              "is still up after 3s", "app_map, and tap one of its buttons")
        verb = "accepted" if action == "accept" else "dismissed"
        return Result(f'{verb} the dialog "{dialog.title}" — this answered it and did not choose an outcome: on a '
                      "permission prompt accept and dismiss do not mean grant and deny, and on iOS they are the "
                      "other way round. Tap the button by ref if you need a particular answer",
                      {"present": True, "answered": action, "text": dialog.title,
                       "pressed": button.text or button.desc, "device": st.link.serial})

    @staticmethod
    def _dialog_button(dialog, action: str) -> Optional[UiNode]:
        by_id = {b.rid: b for b in dialog.buttons}
        if action == "accept":
            if "android:id/button1" in by_id:
                return by_id["android:id/button1"]
            for b in dialog.buttons:
                cap = (b.text or b.desc).lower()
                if ("allow" in cap or "while" in cap) and "don" not in cap and "deny" not in cap:
                    return b
            return dialog.buttons[0] if dialog.buttons else None
        if "android:id/button2" in by_id:
            return by_id["android:id/button2"]
        for b in dialog.buttons:
            cap = (b.text or b.desc).lower()
            if "don" in cap or "deny" in cap or "cancel" in cap:
                return b
        return dialog.buttons[-1] if dialog.buttons else None

    def t_app_dialogs(self, args: dict) -> Result:
        st = self.state(args)
        when, press, clear = args.get("when"), args.get("press"), args.get("clear", False)
        if clear and (when or press):
            raise invalid("clear removes every rule; it takes no when or press")
        if clear:
            st.rules.clear()
        elif when or press:
            if not (when and press):
                raise invalid("a dialog rule needs both when (text the dialog contains) and press (the caption of "
                              "the button to press)")
            for r in st.rules:
                if r["when"].lower() == when.lower():
                    r["press"] = press
                    break
            else:
                st.rules.append({"when": when, "press": press, "hits": 0})
        rules = [dict(r) for r in st.rules]
        if not rules:
            return Result("no dialog rules", {"rules": [], "device": st.link.serial})
        lines = [f"{len(rules)} dialog rule(s)"] + [f'  when "{r["when"]}": press "{r["press"]}"  '
                                                    f'(answered {r["hits"]})' for r in rules]
        return Result("\n".join(lines), {"rules": rules, "device": st.link.serial})

    def t_app_keyboard(self, args: dict) -> Result:
        st = self.state(args)
        text, key, hide = args.get("text"), args.get("key"), args.get("hide", False)
        if hide and (text is not None or key is not None):
            raise invalid("hide cannot be combined with text or key — type first, then hide in a second call")
        if key is not None and key not in KEYBOARD_KEYS:
            raise invalid(f'unknown key "{key}" (want enter, delete, space)')
        snap = self.snap(st)
        focus = next((n for n in snap.nodes if n.focused and n.editable_class), None)

        def focus_view(n: Optional[UiNode]) -> Optional[dict]:
            if n is None:
                return None
            v = {"id": short_id(n.rid), "kind": n.role(), "value": self._read_value(n) if n.value else "(empty)",
                 "empty": not n.value}
            if n.password:
                v["password"] = True
            return v

        def describe_state(s: Snapshot, n: Optional[UiNode]) -> str:
            if not s.keyboard:
                return "the keyboard is hidden"
            if n is None:
                return "the keyboard is up; no field has focus"
            held = self._read_value(n) if n.value else "(empty)"
            return f"the keyboard is up; focus is on {describe(n)}, holding {held}"

        data: dict[str, Any] = {"shown": bool(snap.keyboard), "device": st.link.serial}
        if hide:
            self.drop_refs(st)
            if not snap.keyboard:
                return Result("the keyboard is already hidden", {**data, "hidden": True})
            st.link.key(4)
            hidden = st.link.wait_until(lambda: not self.snap(st).keyboard, 2.0, 0.1)
            if not hidden:
                raise MobiumError("not_confirmed", "pressed back to hide the keyboard and it is still up",
                                  "app_keyboard with key enter")
            return Result("hid the keyboard", {**data, "shown": False, "hidden": True})
        if text is None and key is None:
            data["focused"] = focus_view(focus)
            return Result(describe_state(snap, focus), data)
        if not snap.keyboard or focus is None:
            raise MobiumError("device_not_ready", "no field has keyboard focus, so there is nowhere to type — tap a "
                              "field first, or use app_type with the field as its target",
                              "app_type with the field as target")
        self.drop_refs(st)
        if text is not None:
            if focus.password and focus.value:
                raise MobiumError("unsupported", "a password field that already holds text cannot be added to on "
                                  "Android: its contents are never read back — app_fill replaces them",
                                  "app_fill the password field")
            st.link.key(123)
            st.link.text(text)
            data["typed"] = None if focus.password else text
        if key is not None:
            st.link.key(KEYBOARD_KEYS[key])
            data["key"] = key
        after = self.snap(st)
        f2 = next((n for n in after.nodes if n.focused and n.editable_class), None)
        data["shown"] = bool(after.keyboard)
        data["focused"] = focus_view(f2)
        if key is not None:
            return Result(f"pressed {key}; " + describe_state(after, f2).replace("the keyboard is up; ", ""), data)
        if focus.password:
            return Result(f"typed {len(text)} characters into {describe(focus)}, a password field — not echoed; it "
                          f"now holds {self._read_value(f2) if f2 else '(unknown)'}", data)
        holds = f2.value if f2 is not None else "(unknown)"
        return Result(f'typed "{text}" into {describe(focus)}, which now holds {holds}', data)

    def t_app_press(self, args: dict) -> Result:
        st = self.state(args)
        button = args.get("button")
        if not button:
            raise invalid("app_press needs a button — this device has back, home, recents, volume-up, volume-down")
        if button not in KEYCODES:
            raise invalid(f'there is no "{button}" button — mobium knows back, home, recents, volume-up, volume-down')
        st.link.key(KEYCODES[button])
        self.drop_refs(st)
        st.context = NATIVE
        data: dict[str, Any] = {"button": button, "confirmed": False, "device": st.link.serial}
        if button == "home":
            front = st.link.foreground()
            data.update(confirmed=True, foreground=front)
            return Result(f"pressed home — {front} is in the foreground", data)
        return Result(f"pressed {button}", data)

    def t_app_appearance(self, args: dict) -> Result:
        st = self.state(args)
        want = args.get("appearance")

        def read() -> str:
            out = st.link.shell("cmd uimode night")
            m = re.search(r"Night mode:\s*(\w+)", out)
            mode = m.group(1) if m else ""
            return {"yes": "dark", "no": "light", "auto": "auto"}.get(mode, mode or "unknown")

        now = read()
        if want is None:
            return Result(now, {"appearance": now, "device": st.link.serial})
        if want not in ("light", "dark", "auto"):
            raise invalid(f'unknown appearance "{want}" (want "light", "dark", or "auto" on Android)')
        if now == want:
            return Result(f"already {want}", {"appearance": want, "device": st.link.serial})
        st.link.shell(f"cmd uimode night {dict(light='no', dark='yes', auto='auto')[want]}")
        self.drop_refs(st)
        after = read()
        if after != want:
            raise MobiumError("not_confirmed", f"asked for {want} and the device reads {after}",
                              "try again, or set it in Settings › Display")
        return Result(f"{want} (was {now})", {"appearance": want, "previous": now, "device": st.link.serial})

    def _permissions(self, st: DeviceState, args: dict, grant: bool) -> Result:
        app = self._need_app(args)
        self._installed(st, app)
        names = args.get("permissions")
        if isinstance(names, str):
            names = [p.strip() for p in names.split(",") if p.strip()]
        if not names:
            raise invalid("permissions needs at least one name, e.g. [\"location\"] or [\"all\"]")
        requested, runtime = st.link.permissions(app)
        perms: list[str] = []
        for name in names:
            low = name.lower()
            if low == "all":
                perms += sorted(runtime) or sorted(requested)
            elif low in PERMISSION_SETS:
                perms += [f"android.permission.{p}" for p in PERMISSION_SETS[low]]
            elif "." in name:
                perms.append(name)
            elif re.fullmatch(r"[A-Z_]+", name):
                perms.append(f"android.permission.{name}")
            else:
                raise invalid(f'unknown permission "{name}" (want all, ' + ", ".join(sorted(PERMISSION_SETS)) +
                              ', or an android.permission.X name)')
        perms = list(dict.fromkeys(perms))
        applied, skipped, failed, views = [], [], [], []
        verb = "grant" if grant else "revoke"
        for p in perms:
            short = p.rsplit(".", 1)[-1]
            if requested and p not in requested:
                skipped.append(short)
                views.append({"name": short, "applied": False, "skipped": "not declared by the app"})
                continue
            out = st.link.shell(f"pm {verb} {app} {p}").strip()
            if out:
                failed.append((short, out.splitlines()[0]))
                views.append({"name": short, "applied": False, "error": out.splitlines()[0]})
                continue
            applied.append(short)
            views.append({"name": short, "applied": True})
        if applied:
            _, after = st.link.permissions(app)
            for v in views:
                if v["applied"]:
                    full = next((p for p in perms if p.endswith("." + v["name"])), v["name"])
                    if full in after and after[full] != grant:
                        failed.append((v["name"], "the command reported success but the state did not change"))
        if failed:
            lines = "\n".join(f"  {n}: {e}" for n, e in failed)
            raise MobiumError("device_server", f"{verb} failed for {app} on {st.link.serial}:\n{lines}",
                              "check the permission names against what the app declares", {"permissions": views})
        past = "granted" if grant else "revoked"
        text = f"{past} {len(applied)} permission{'s' if len(applied) != 1 else ''} for {app}: " + \
            (", ".join(applied) if applied else "none")
        if skipped:
            text += f"\nskipped {len(skipped)} the app does not declare: {', '.join(skipped)}"
        return Result(text, {"app": app, "device": st.link.serial, "granted": grant, "permissions": views})

    def t_app_grant(self, args: dict) -> Result:
        return self._permissions(self.state(args), args, True)

    def t_app_revoke(self, args: dict) -> Result:
        return self._permissions(self.state(args), args, False)

    def t_app_notifications(self, args: dict) -> Result:
        st = self.state(args)
        text, title, tag, shade = args.get("text"), args.get("title"), args.get("tag"), args.get("shade")
        if shade:
            st.link.shell("cmd statusbar " + ("expand-notifications" if shade == "open" else "collapse"))
            self.drop_refs(st)
            return Result(f"{'opened' if shade == 'open' else 'closed'} the notification shade",
                          {"shade": shade, "device": st.link.serial})
        if text is not None:
            t = title or "Mobium"
            g = tag or "mobium"
            out = st.link.shell(f"cmd notification post -t {shlex.quote(t)} {shlex.quote(g)} {shlex.quote(text)}")
            if "Unknown command" in out or "Exception" in out or "Error" in out:
                raise MobiumError("unsupported", "this device cannot post a notification from the shell (cmd "
                                  f"notification post answered: {out.strip().splitlines()[0]})",
                                  "read notifications with app_notifications and no arguments")
            return Result(f'posted "{t}: {text}"', {"posted": {"title": t, "text": text, "tag": g},
                                                     "device": st.link.serial})
        out = st.link.shell("dumpsys notification --noredact")
        items = parse_notifications(out)
        if not items:
            return Result("no notifications", {"notifications": [], "device": st.link.serial})
        lines = [f'{n["app"]}: {n["title"]} — {n["text"]}' for n in items]
        return Result("\n".join(lines), {"notifications": items, "device": st.link.serial})
