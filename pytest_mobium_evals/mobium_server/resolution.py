"""The resolution pipeline every action with a target goes through (the auto-wait): refs, locators, misses and
ambiguity, rules, scrolling to find a target, and aiming at a clear point."""

from __future__ import annotations

from typing import Optional

from .elements import Aim, Locator, aim_at, cover_label, find, parse_locator, spinners
from .errors import KEYBOARD_HIDE, KEYBOARD_REMEDY, MobiumError, failed_check, invalid
from .shapes import box_text
from .snapshot import Snapshot, UiNode
from .tool_state import IMPLICIT_WAIT, NATIVE, POLL, SETTLE_LIMIT, SETTLE_WINDOW, UNLOCK_REMEDY, DeviceState


class Resolution:
    """Mixed into `Mobium`, the tool implementations for one server process."""

    def _target(self, st: DeviceState, target: str) -> tuple[Locator, str]:
        """(locator, subject): the subject is what messages call the target (a ref's stored locator)."""
        target = target.strip()
        if target.startswith("@") and len(target) >= 2:
            if st.refs is None:
                raise invalid(f"no map for {st.link.serial} yet — run app_map first",
                              "run app_map, then use a ref from it", ref=target)
            entry = st.refs.get(target)
            if entry is None:
                refs = list(st.refs)
                if not refs:
                    have = "the last map found no elements"
                elif len(refs) <= 8:
                    have = "the last map has " + " ".join(refs)
                else:
                    have = f"the last map has {len(refs)} refs, {refs[0]} through {refs[-1]}"
                raise invalid(f"unknown ref {target} — {have}", "run app_map again and use one of its refs",
                              ref=target)
            if entry.context != st.context:
                raise invalid(f"{target} was mapped in {entry.context}, and the current context is {st.context}",
                              f"app_context {entry.context}, or run app_map again", ref=target)
            return entry.locator, str(entry.locator)
        loc = parse_locator(target)
        return loc, str(loc)

    def _miss(self, st: DeviceState, snap: Snapshot, loc: Locator, subject: str) -> MobiumError:
        if snap.lock_screen:
            return MobiumError("device_not_ready", f"no element matches {subject}: the device is locked, and the "
                               "lock screen is all there is to reach — unlock it first", UNLOCK_REMEDY,
                               {"locator": subject, "locked": True})
        dialog = snap.dialog
        if dialog is not None:
            return MobiumError(
                "device_not_ready",
                f"a dialog is over the app — \"{dialog.title}\" — and nothing on it matches {subject}; if the target "
                "is behind it, answer the dialog first, and if it is one of the dialog's buttons, take its ref from "
                "app_map", "app_map for the dialog's buttons, or app_alert with accept or dismiss",
                {"locator": subject, "dialog": dialog.title, "buttons": dialog.captions()})
        if snap.keyboard:
            seen = st.seen.get(str(loc))
            if seen and seen[3] > snap.keyboard[1]:
                return failed_check(subject, "receivesEvents", "the keyboard is over it", KEYBOARD_HIDE,
                                    code="device_not_ready", remedy=KEYBOARD_REMEDY, locator=subject)
            return MobiumError("no_such_element", f"no element matches {subject}, and the keyboard is up — it may "
                               f"be covering it; hide it and try again: {KEYBOARD_HIDE}", KEYBOARD_REMEDY,
                               {"locator": subject})
        hint = ""
        if loc.kind in ("text", "label", "testid") and not loc.exact:
            for other in ("text", "label", "testid"):
                if other != loc.kind and find(snap, Locator(other, loc.value, role=loc.role), st.context):
                    hint = f", but {other}={loc.value} does"
                    break
        if hint:
            return MobiumError("no_such_element", f"no element matches {subject}{hint}",
                               f"use {hint[6:].split(' does')[0]}", {"locator": subject})
        return MobiumError("no_such_element",
                           f"no element matches {subject} on the current screen — the screen may have changed, run "
                           "app_map again", "run app_map again, or app_scroll_to if it may be off screen",
                           {"locator": subject})

    def _ambiguous(self, loc: Locator, subject: str, count: int) -> MobiumError:
        if loc.kind == "role" or loc.role:
            hint = "use a ref from app_map"
        else:
            hint = "narrow it by appending \",role=button\" (or whichever role), or use a ref from app_map"
        return MobiumError("ambiguous_locator", f"{subject} matches {count} elements — {hint}", hint,
                           {"locator": subject, "matches": count})

    def _fire_rules(self, st: DeviceState, snap: Snapshot, handled: list[dict]) -> bool:
        dialog = snap.dialog
        if dialog is None or not st.rules or len(handled) >= 3:
            return False
        words = (dialog.title + " " + dialog.message).lower()
        for rule in st.rules:
            if rule["when"].lower() in words:
                button = next((b for b in dialog.buttons if (b.text or b.desc).lower() == rule["press"].lower()),
                              None)
                if button is None:
                    raise MobiumError("no_such_element", f'a rule says to press "{rule["press"]}" on '
                                      f'"{dialog.title}", and the dialog\'s buttons are '
                                      + ", ".join(f'"{c}"' for c in dialog.captions()),
                                      "change the rule's press to one of the dialog's buttons (app_dialogs)")
                st.link.tap(*button.center)
                rule["hits"] += 1
                # Mobium answers with the caption as the rule gives it ("Keep Editing"), not as Android draws it
                # (in capitals).
                handled.append({"dialog": dialog.title, "press": rule["press"]})
                self.drop_refs(st)
                st.link.wait_until(lambda: (self.snap(st).dialog or None) is None, 2.0, 0.1)
                return True
        return False

    def _acquire(self, st: DeviceState, target: str, *, kind: str = "tap",
                 handled: Optional[list] = None) -> tuple[Snapshot, UiNode, Aim, str]:
        """Find the one node `target` names and where to touch it, waiting as Mobium's auto-wait does."""
        loc, subject = self._target(st, target)
        handled = handled if handled is not None else []
        deadline = st.link.monotonic() + IMPLICIT_WAIT
        # The settle's own budget, from the first read that resolves the target, as Mobium's settle starts its
        # timeout once the node is resolved.
        settle_deadline: Optional[float] = None
        covered_since: Optional[float] = None
        scrolled = False
        pans = 0
        # The read before this one, in this call: what the settle compares with. Only reads of this call count,
        # one after another, as Mobium compares them; a read from an earlier call, before whatever the agent did
        # since, says nothing about whether the target is moving now.
        prev: Optional[Snapshot] = None
        while True:
            snap = self.snap(st)
            context = self._context_ok(st, snap)
            if self._fire_rules(st, snap, handled):
                prev = None  # a dialog was answered: the screen the earlier read saw is gone
                continue
            hits = find(snap, loc, context)
            now = st.link.monotonic()
            if context != NATIVE and pans < 3 and len(hits) <= 1 \
                    and self._pan_into_view(st, snap, loc, hits[0] if hits else None):
                pans += 1
                prev = None
                continue
            if len(hits) > 1:
                if now < deadline:
                    st.link.pause(POLL)
                    prev = snap
                    continue
                raise self._ambiguous(loc, subject, len(hits))
            if not hits:
                if now < deadline:
                    st.link.pause(POLL)
                    prev = snap
                    continue
                if not scrolled and snap.dialog is None and not snap.keyboard and context == NATIVE \
                        and loc.kind != "path":
                    scrolled = True
                    found = self._scroll_search(st, snap, loc, "down")
                    if found is not None:
                        deadline = st.link.monotonic() + IMPLICIT_WAIT
                        prev = None
                        continue
                    snap = st.last or snap
                raise self._miss(st, snap, loc, subject)
            node = hits[0]
            st.seen[str(loc)] = node.bounds
            if kind in ("type", "fill"):
                self._check_editable(node, target, kind)
            if node.empty:
                raise failed_check(subject, "visible", "it is in the hierarchy but not on screen",
                                   "app_scroll_to with a direction brings it into view", code="element_not_reachable",
                                   remedy="app_scroll_to with a direction", locator=subject)
            if not node.enabled:
                if now < deadline:
                    st.link.pause(POLL)
                    prev = snap
                    continue
                raise failed_check(subject, "enabled", "it is disabled, and stayed disabled for 2s",
                                   "a disabled control ignores input; do what enables it, or wait for it with "
                                   "app_wait_for and condition \"enabled\"", code="timeout",
                                   remedy="app_wait_for with condition \"enabled\", or do what enables it first",
                                   locator=subject)
            # Settle, as Mobium's: the target is still when the read before this one, at least a settle window
            # earlier, saw it at the same place. Reads are compared in the order they were taken, however long each
            # took: a slow read (a loaded host, an emulator's dump) is still a read, and two that agree are rest.
            # The window keeps reads a few ms apart from taking an easing animation's sub-pixel tail for rest.
            if settle_deadline is None:
                settle_deadline = now + SETTLE_LIMIT
            before = find(prev, loc, context) if prev is not None else []
            if not (len(before) == 1 and before[0].bounds == node.bounds):
                if prev is None or now < settle_deadline:
                    prev = snap
                    st.link.pause(SETTLE_WINDOW)
                    continue
                was = f"it was at {box_text(before[0].bounds)} and is now at " if len(before) == 1 else "it is now at "
                raise failed_check(subject, "stable", f"it is still moving after {SETTLE_LIMIT:g}s — {was}"
                                   f"{box_text(node.bounds)}", "something on this screen animates continuously, so act "
                                   "on it with app_tap x/y if that is expected", code="timeout", remedy="",
                                   locator=subject)
            if snap.in_keyboard(node):
                raise failed_check(subject, "receivesEvents", "the keyboard is over it", KEYBOARD_HIDE,
                                   code="device_not_ready", remedy=KEYBOARD_REMEDY, locator=subject)
            aim = aim_at(snap, node)
            if aim is None:
                covered_since = covered_since or now
                if now - covered_since < IMPLICIT_WAIT:
                    st.link.pause(POLL)
                    prev = snap
                    continue
                cover = cover_label(snap, node) or "another control"
                raise failed_check(subject, "receivesEvents", f'it is covered by "{cover}", and was for 2s',
                                   "a touch there would press that instead; wait for it to go, dismiss it, or tap "
                                   "its own ref from app_map if it is what you meant", code="element_not_reachable",
                                   remedy="dismiss what is over it, wait for it to go, or tap the cover's own ref "
                                   "from app_map", locator=subject, cover=cover)
            return snap, node, aim, subject

    def _pan_into_view(self, st: DeviceState, snap: Snapshot, loc: Locator, node: Optional[UiNode]) -> bool:
        """In a page, what `loc` names is brought into the page's visible part before acting on it, as a DevTools
        client scrolls an element into view: dragged up from under the keyboard (or the WebView's bottom), or the
        page dragged down to an element scrolled away above it. False when it is in view, or was never seen."""
        page = next((w for w in snap.webviews if w.scrollable), None)
        box = node.bounds if node is not None else st.seen.get(str(loc))
        if page is None or not box:
            return False
        top, bottom = page.bounds[1], page.bounds[3]
        if snap.keyboard:
            bottom = min(bottom, snap.keyboard[1])
        if node is not None and box[1] >= top and box[3] <= bottom:
            return False
        x = (page.bounds[0] + page.bounds[2]) // 2
        if box[3] > bottom:
            start = bottom - 24
            end = max(top + 24, start - (box[3] - bottom + 48))
        else:
            # Above the visible part, or gone from it since it was seen: the page scrolled it away upwards.
            start = top + 24
            end = min(bottom - 24, start + (top - box[1] + 48)) if box[1] < top else bottom - 24
        st.link.swipe(x, start, x, end, 600)  # slow: a pan that stops where the finger does, not a fling
        return True

    def _check_editable(self, node: UiNode, target: str, tool: str) -> None:
        if node.is_slider:
            raise failed_check(target, "editable", "it is a slider, not a text field",
                               "a slider is set with app_fill and a position from 0 to 1, e.g. 0.5 for the middle",
                               code="invalid_argument", remedy="app_fill with a position from 0 to 1")
        if node.editable_class:
            if not node.enabled and node.webview is not None:
                return  # a page's disabled input is refused by the enabled check, as Mobium's ("failed check enabled")
            if not node.enabled or not node.focusable:
                raise failed_check(target, "editable", "it is a read-only field — the device says it cannot take "
                                   "focus or input", "app_type types into a field that accepts text; this one only "
                                   "shows it (read it with app_text)", code="invalid_argument",
                                   remedy="app_text to read it; app_type for a field that accepts input")
            return
        if node.webview is not None and node is not node.webview and node.focusable and \
                node.role() in ("input", "password"):
            return
        role = node.role() or "text"
        what = {"list": "a scrolling list"}.get(role, f"a {role}")
        raise failed_check(target, "editable", f"it is {what}, not a text field",
                           "app_type types into a field; to press it, use app_tap", code="invalid_argument",
                           remedy="app_tap for a button; app_type for a text field")

    def _scroll_container(self, snap: Snapshot, direction: str, context: str = NATIVE) -> Optional[UiNode]:
        lists = [n for n in snap.scope(context) if n.scrollable and not n.empty]
        if not lists:
            return None
        horiz = direction in ("left", "right")

        def fits(n: UiNode) -> bool:
            wide = "Horizontal" in n.cls or (n.bounds[2] - n.bounds[0]) > 2 * (n.bounds[3] - n.bounds[1])
            return wide == horiz

        cands = [n for n in lists if fits(n)] or lists
        return max(cands, key=lambda n: (n.bounds[2] - n.bounds[0]) * (n.bounds[3] - n.bounds[1]))

    def _swipe_in(self, st: DeviceState, box, direction: str, keyboard=None) -> None:
        x1, y1, x2, y2 = box
        if keyboard:
            y2 = min(y2, keyboard[1])
        w, h = x2 - x1, y2 - y1
        cx, cy = x1 + w // 2, y1 + h // 2
        # Scrolling "down" brings what is below into view: the finger moves up, as on a phone.
        if direction == "down":
            st.link.swipe(cx, y1 + int(h * 0.8), cx, y1 + int(h * 0.3), 400)
        elif direction == "up":
            st.link.swipe(cx, y1 + int(h * 0.3), cx, y1 + int(h * 0.8), 400)
        elif direction == "right":
            st.link.swipe(x1 + int(w * 0.8), cy, x1 + int(w * 0.2), cy, 400)
        else:
            st.link.swipe(x1 + int(w * 0.2), cy, x1 + int(w * 0.8), cy, 400)

    @staticmethod
    def _signature(snap: Snapshot, box) -> tuple:
        x1, y1, x2, y2 = box
        return tuple((n.rid, n.text, n.desc, n.bounds) for n in snap.nodes
                     if n.bounds[0] >= x1 and n.bounds[2] <= x2 and n.bounds[1] >= y1 and n.bounds[3] <= y2)

    def _scroll_search(self, st: DeviceState, snap: Snapshot, loc: Locator, direction: str,
                       limit: int = 15) -> Optional[tuple[Snapshot, int]]:
        """Swipe the screen's scroll container until `loc` matches; None at the end of the list (a list whose
        spinner is up is waited out first: a loading page end is not the end) or after `limit` swipes."""
        self.scrolls = 0
        self.scroll_end = False
        context = st.context
        while self.scrolls < limit:
            box = self._scroll_container(snap, direction, context)
            if box is None:
                return None
            before = self._signature(snap, box.bounds)
            self._swipe_in(st, box.bounds, direction, snap.keyboard)
            self.scrolls += 1
            snap = self.snap(st)
            if find(snap, loc, context):
                return snap, self.scrolls
            if self._signature(snap, box.bounds) == before:
                # Did not move: the end, unless something is still loading.
                if spinners(snap, context):
                    st.link.wait_until(lambda: not spinners(self.snap(st), context), 15.0, POLL)
                    snap = st.last or snap
                    if find(snap, loc, context):
                        return snap, self.scrolls
                    continue
                self.scroll_end = True
                return None
        return None
