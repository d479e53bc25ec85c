"""The tools that read the screen: app_devices, app_map, app_find, app_text, app_source, app_screenshot."""

from __future__ import annotations

import json
import os
import time
from typing import Any
from urllib.parse import urlsplit

from .device import devices_long
from .elements import build_elements, element_of, find, parse_locator, spinners
from .errors import MobiumError, invalid
from .map_diff import LastMap, diff, seen_of
from .shapes import bounds_json, box_text, mask_passwords
from .snapshot import Snapshot, UiNode, clean, describe, short_id
from .tool_state import IMPLICIT_WAIT, LOCKED_NOTE, NATIVE, PASSWORD_NOTE, POLL, Result


class ReadingTools:
    """Mixed into `Mobium`, the tool implementations for one server process."""

    def t_app_devices(self, args: dict) -> Result:
        # What Mobium's handlers.go (devices) says of an Android device: its serial, state, whether it is an emulator
        # and the model `adb devices -l` names, nothing read from the device itself (its version is the device's to
        # tell: Settings' About page, or getprop).
        devs = devices_long(self.host, self.port)
        if not devs:
            return Result("No devices found. Start an Android emulator or an iOS simulator, then try again.",
                          {"devices": []})
        lines, views = [], []
        for serial, state, model in devs:
            emulator = serial.startswith("emulator-")
            line = f"{serial:<38} {state:<10} (android {'emulator' if emulator else 'device'}"
            view: dict[str, Any] = {"id": serial, "platform": "android", "state": state}
            if model:
                line += f", model: {model}"
                view["model"] = model
            view["emulator"] = emulator
            lines.append(line + ")")
            views.append(view)
        return Result("\n".join(lines), {"devices": views})

    def t_app_map(self, args: dict) -> Result:
        st = self.state(args)
        snap = self.snap(st)
        context = self._context_ok(st, snap)
        elements = build_elements(snap, context)
        cross: list[str] = []
        if context != NATIVE:
            # A page's map is read through the page, which cannot see into a cross-origin frame: its controls are
            # left out and counted, and NATIVE_APP (the accessibility tree) is where they are reached.
            cross = self._cross_origin_frames(st, snap, sorted({el.frames[0] for el in elements if el.frames}))
            elements = [el for el in elements if not (el.frames and el.frames[0] in cross)]
        self._remember(st, snap, elements, context)
        lines = [el.line() for el in elements]
        data: dict[str, Any] = {"elements": [el.to_json() for el in elements], "context": context,
                                "device": st.link.serial}
        notes = self._screen_notes(snap, context, data)
        if cross:
            data["cross_origin_frames"] = cross
            notes.append(f"{len(cross)} frame{' on this page is' if len(cross) == 1 else 's on this page are'} "
                         f"cross-origin ({', '.join('iframe#' + f for f in cross)}): the page cannot see into "
                         f"{'it' if len(cross) == 1 else 'them'}, so what is inside is not listed — switch to "
                         "NATIVE_APP with app_context and map there to reach it")
        text = "\n".join(lines) if lines else "No actionable elements found"
        if notes:
            text += "\n" + "\n".join(notes)
        now = [seen_of(el) for el in elements]
        last, st.previous_map = st.previous_map, LastMap(now, time.time())
        if args.get("diff"):
            text, data["diff"] = diff(last, now)
        return Result(text, data)

    def _cross_origin_frames(self, st, snap: Snapshot, frames: list[str]) -> list[str]:
        """Which of the page's frames (by id) are cross-origin, asked of the page over DevTools: a data: URL has an
        origin of its own, and so has a URL on another scheme, host or port. None are when the page cannot be asked."""
        if not frames:
            return []
        try:
            link, page = self._devtools_page(st, "app_map", snap)

            def value(expression: str):
                return (link.evaluate(page, expression).get("result") or {}).get("value")

            here = value("document.URL") or ""
            sources = {f: value("(() => { const f = document.getElementById(" + json.dumps(f) + "); return f ? "
                                "f.getAttribute('src') : null })()") for f in frames}
        except MobiumError:
            return []
        return [f for f in frames if isinstance(sources[f], str) and _other_origin(sources[f], here)]

    def _screen_notes(self, snap: Snapshot, context: str, data: dict) -> list[str]:
        notes = []
        if snap.lock_screen:
            data["locked"] = True
            notes.append(LOCKED_NOTE)
        busy = spinners(snap, context)
        if busy:
            names = [clean(n.desc) or clean(n.text) or short_id(n.rid) or "a spinner" for n in busy]
            data["loading"] = names
            notes.append("loading… " + ", ".join(f'"{n}"' for n in names) + " is on screen: content is still "
                         "arriving, so what is listed may not be all there is — wait for it to go "
                         "(app_wait_for role=progressbar, condition hidden)")
        if snap.keyboard:
            focus = next((n for n in snap.nodes if n.focused and n.editable_class), None)
            data["keyboard"] = {"shown": True, "region": bounds_json(snap.keyboard),
                                "focused": describe(focus) if focus else None}
            notes.append(f"the keyboard is up over {box_text(snap.keyboard)}" +
                         (f", focus on {describe(focus)}" if focus else "") +
                         " — anything under it is left out of this map; app_keyboard with hide puts it away")
        dialog = snap.dialog
        if dialog is not None:
            data["dialog"] = {"title": dialog.title, "message": dialog.message, "buttons": dialog.captions(),
                              "package": dialog.package}
            notes.append(f'a dialog is on screen: "{dialog.title}" — only the dialog can be reached until it is '
                         "answered: tap one of its buttons, or app_alert")
        return notes

    def t_app_find(self, args: dict) -> Result:
        st = self.state(args)
        if "locator" not in args:
            raise invalid("app_find needs a locator (\"role=button\", \"text=Sign In\")")
        loc = parse_locator(args["locator"])
        snap = self.snap(st)
        context = self._context_ok(st, snap)
        elements = build_elements(snap, context)
        self._remember(st, snap, elements, context)
        hits = find(snap, loc, context)
        out, lines, used = [], [], set()
        for n in hits:
            el = element_of(n, elements)
            if el is not None:
                if id(el) in used:
                    continue
                used.add(id(el))
                out.append(el.to_json())
                lines.append(el.line())
            else:
                x1, y1, x2, y2 = n.bounds
                label = describe(n)
                out.append({"ref": "", "label": label, "bounds": {"x1": x1, "y1": y1, "x2": x2, "y2": y2}})
                lines.append(f"(no ref) {label} {box_text(n.bounds)}")
        data = {"elements": out, "context": context, "device": st.link.serial}
        return Result("\n".join(lines) if lines else f"No element matches {loc}", data)

    def _read_value(self, node: UiNode) -> str:
        if node.password:
            n = len(node.value)
            return f"{'•' * n} ({n} characters, {PASSWORD_NOTE})" if n else "(empty, showing its placeholder)"
        if node.editable_class and node.value:
            return node.value
        # An empty field answers with what the device reports for it (Android puts the placeholder in its text), as
        # Mobium does; "(empty, showing its placeholder)" is Mobium's answer for a password field only.
        if node.text:
            return node.text
        if node.desc:
            return node.desc
        # A container: the words inside it.
        parts = []
        for d in node.descendants():
            t = d.text or d.desc
            if t and t not in parts and not d.password:
                parts.append(t)
        return "\n".join(parts)

    def t_app_text(self, args: dict) -> Result:
        st = self.state(args)
        target = args.get("target")
        if not target:
            snap = self.snap(st)
            context = self._context_ok(st, snap)
            seen, parts = set(), []
            for n in snap.scope(context):
                if n.empty:
                    continue
                if n.password:
                    t = self._read_value(n) if n.value else ""
                else:
                    t = (n.value if n.editable_class else n.text).strip() or n.desc.strip()
                if t and t not in seen:
                    seen.add(t)
                    parts.append(t)
            text = "\n".join(parts)
            return Result(text, {"text": text})
        if st.context != NATIVE:
            raise MobiumError("unsupported", "app_text with a target works on the native context — switch back with "
                              "app_context NATIVE_APP, or read the page with app_text and no target",
                              "app_text with no target reads the page")
        loc, subject = self._target(st, target)
        deadline = st.link.monotonic() + IMPLICIT_WAIT
        while True:
            snap = self.snap(st)
            hits = find(snap, loc, NATIVE)
            if len(hits) == 1:
                value = self._read_value(hits[0])
                return Result(value, {"text": value, "target": target})
            if st.link.monotonic() >= deadline:
                if hits:
                    raise self._ambiguous(loc, subject, len(hits))
                raise self._miss(st, snap, loc, subject)
            st.link.pause(POLL)

    def t_app_source(self, args: dict) -> Result:
        st = self.state(args)
        snap = self.snap(st)
        xml = mask_passwords(snap.xml)
        return Result(xml, {"source": xml, "format": "uiautomator", "context": st.context,
                            "device": st.link.serial})

    def t_app_screenshot(self, args: dict) -> Result:
        st = self.state(args)
        png = st.link.shell_bytes("screencap -p")
        if not png.startswith(b"\x89PNG"):
            raise MobiumError("device_server", "screencap returned no PNG", "try again", retryable=True)
        path = args.get("path")
        if path:
            try:
                with open(path, "wb") as fh:
                    fh.write(png)
            except OSError as exc:
                raise invalid(f"cannot write the screenshot to {path}: {exc.strerror}",
                              "give a writable path") from None
            full = os.path.abspath(path)
            return Result(f"saved {full} ({len(png)} bytes)", {"path": full, "bytes": len(png)})
        return Result("", None, image=png)


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("http", "https") and parts.netloc else ""


def _other_origin(src: str, page_url: str) -> bool:
    """A frame loaded from `src` is cross-origin to a page at `page_url`: a data: URL always (its origin is
    opaque), an absolute http(s) URL when its scheme, host and port differ; srcdoc, about:blank and relative URLs
    share the page's."""
    if src.startswith("data:"):
        return True
    theirs = _origin(src)
    return bool(theirs) and theirs != _origin(page_url)
