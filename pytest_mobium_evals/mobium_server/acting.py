"""The tools that act on a target: app_tap, app_long_press, app_type, app_fill (sliders too), app_check,
app_swipe, app_scroll_to."""

from __future__ import annotations

import json
from typing import Any

from .elements import Aim, build_elements, element_for, find, slider_value
from .errors import MobiumError, failed_check, invalid
from .snapshot import UiNode, describe
from .tool_state import NATIVE, DeviceState, Result


class ActingTools:
    """Mixed into `Mobium`, the tool implementations for one server process."""

    def _result_note(self, aim: Aim) -> str:
        return f"; {aim.note}" if aim.note else ""

    def t_app_tap(self, args: dict) -> Result:
        target, x, y = args.get("target"), args.get("x"), args.get("y")
        double, fingers = args.get("double", False), args.get("fingers", 1)
        if target and (x is not None or y is not None):
            raise invalid("give either target or x/y, not both")
        if (x is None) != (y is None):
            raise invalid("x and y must be given together")
        if not target and x is None:
            raise invalid('app_tap needs a target ("@e5" or "text=Sign In") or x and y')
        if double and fingers != 1:
            raise invalid("a double tap with several fingers is not supported — give double or fingers, not both")
        if not 1 <= fingers <= 5:
            raise invalid(f"fingers is how many touch at once, 1 to 5, got {fingers}")
        st = self.state(args)
        if fingers > 1:
            if args.get("driver") == "uiautomator":
                raise MobiumError("unsupported", "the uiautomator backend cannot put several fingers down at once — "
                                  "switch to --driver uiautomator2", "leave driver out, or pass uiautomator2")
            if target is None:
                self.multi_tap(st, x, y, fingers)
                return Result(f"tapped with {fingers} fingers ({x}, {y})", {"action": "multi_tap", "x": x, "y": y})
            _, _, aim, subject = self._acquire(st, target)
            self.multi_tap(st, aim.x, aim.y, fingers)
            return Result(f"tapped with {fingers} fingers {subject} at ({aim.x}, {aim.y})",
                          {"action": "multi_tap", "target": target, "x": aim.x, "y": aim.y, "fingers": fingers})
        action = "double_tap" if double else "tap"
        verb = "double-tapped" if double else "tapped"
        if target is None:
            st.link.tap(x, y)
            if double:
                st.link.tap(x, y)
            return Result(f"{verb} ({x}, {y})", {"action": action, "x": x, "y": y})
        handled: list[dict] = []
        snap, node, aim, subject = self._acquire(st, target, handled=handled)
        st.link.tap(aim.x, aim.y)
        if double:
            st.link.tap(aim.x, aim.y)
        data: dict[str, Any] = {"action": action, "target": target, "x": aim.x, "y": aim.y}
        if st.context != NATIVE:
            data["context"] = st.context
        if aim.cover:
            data["cover"] = aim.cover
        text = f"{verb} {subject} at ({aim.x}, {aim.y}){self._result_note(aim)}"
        return self._with_rules(Result(text, data), handled)

    def _with_rules(self, res: Result, handled: list[dict]) -> Result:
        if handled:
            for h in handled:
                res.text += f'\nanswered by a dialog rule on the way: "{h["dialog"]}" — pressed "{h["press"]}"'
            res.data["dialogs_handled"] = handled
        return res

    def t_app_long_press(self, args: dict) -> Result:
        target, x, y = args.get("target"), args.get("x"), args.get("y")
        ms = args.get("duration_ms", 800)
        if target is None and (x is None or y is None):
            raise invalid("app_long_press needs a target or both x and y")
        if target is not None and (x is not None or y is not None):
            raise invalid("give either target or x/y, not both")
        st = self.state(args)
        if target is None:
            st.link.swipe(x, y, x, y, ms)
            return Result(f"long-pressed ({x}, {y}) for {ms}ms", {"action": "long_press", "x": x, "y": y})
        snap, node, aim, subject = self._acquire(st, target)
        st.link.swipe(aim.x, aim.y, aim.x, aim.y, ms)
        return Result(f"long-pressed {subject} at ({aim.x}, {aim.y}) for {ms}ms{self._result_note(aim)}",
                      {"action": "long_press", "target": target, "x": aim.x, "y": aim.y})

    def _focus(self, st: DeviceState, node: UiNode, aim: Aim) -> None:
        if not node.focused:
            st.link.tap(aim.x, aim.y)

    def _typing(self, st: DeviceState, args: dict, tool: str) -> Result:
        target, text = args.get("target"), args.get("text")
        if not target:
            raise invalid(f'{tool} needs a target ("@e3" or "testid=search")')
        if text is None:
            raise invalid(f'{tool} needs text (pass "" to clear the field)')
        fill = tool == "app_fill"
        loc, subject0 = self._target(st, target)
        # A slider is filled with a position; check the position before anything moves.
        snap0 = self.snap(st)
        pre = find(snap0, loc, st.context)
        if fill and len(pre) == 1 and pre[0].is_slider:
            return self._fill_slider(st, target, text)
        snap, node, aim, subject = self._acquire(st, target, kind="fill" if fill else "type")
        if node.is_slider:
            return self._fill_slider(st, target, text)
        if st.context != NATIVE and node.rid:
            self._check_page_editable(st, snap, node, subject)
        held = node.value
        if node.password and held and not fill and text:
            raise MobiumError("unsupported", f"{subject} is a password field that already holds "
                              f"{len(held)} characters; its contents cannot be read back to add to them — app_fill "
                              "replaces them instead", "app_fill replaces a password's contents")
        self._focus(st, node, aim)
        clear = fill or text == ""
        if clear and held:
            st.link.key(123)                        # MOVE_END: delete from the end, whatever the cursor did
            st.link.key(*([67] * len(held)))
        elif not clear:
            st.link.key(123)
        if text:
            st.link.text(text)
        # Read the field back.
        after = self.snap(st)
        again = find(after, loc, st.context)
        if not again and node.rid:
            again = [n for n in after.nodes if n.rid == node.rid]
        now = again[0].value if len(again) == 1 else None
        action = "type" if text and not fill else ("fill" if text else "clear")
        data = {"action": action, "target": target, "x": 0, "y": 0}
        if node.password:
            if not text:
                return Result(f"cleared {subject}", data)
            return Result(f"typed {len(text)} characters into {subject}, a password field — not echoed", data)
        if not text:
            msg = f"cleared {subject}"
            if now:
                msg += f"; it still holds {now!r}"
            return Result(msg, data)
        want = text if fill else held + text
        if now == held and want != held and st.context != NATIVE:
            # A page's read-only input takes focus and drops every key: what it holds is unchanged.
            raise failed_check(subject, "editable", f'it is readonly: it took focus and still holds "{held}" after '
                               "the text was typed", "app_type types into a field that accepts text; read this one "
                               "with app_text", code="invalid_argument", remedy="app_text to read it", locator=subject)
        msg = f'typed "{text}" into {subject}'
        if now is not None and now != want:
            msg += f'; it now holds "{now}"'
        return Result(msg, data)

    def _check_page_editable(self, st, snap, node, subject: str) -> None:
        """A page's field marked readonly or aria-readonly is refused as not editable, asked of the page as
        Playwright's editable check asks it (the accessibility tree shows both as fields). A page without DevTools
        (not debuggable) is not asked: the tree is all there is."""
        try:
            link, page = self._devtools_page(st, "app_type", snap)
            said = link.evaluate(page, "(() => { const e = document.getElementById(" + json.dumps(node.rid)
                                 + "); return e ? (e.getAttribute('readonly') !== null ? 'readonly' : "
                                 "e.getAttribute('aria-readonly') === 'true' ? 'aria-readonly' : '') : '' })()")
        except MobiumError:
            return
        marked = (said.get("result") or {}).get("value")
        if marked in ("readonly", "aria-readonly"):
            # Refused before a key is sent: a read-only field does not take focus from the one that has it, so a
            # key sent anyway would land in that other field.
            raise failed_check(subject, "editable", f"it is {marked}: the page marks it read-only",
                               "app_type types into a field that accepts text; read this one with app_text",
                               code="invalid_argument", remedy="app_text to read it", locator=subject)

    def t_app_type(self, args: dict) -> Result:
        self._typing_args(args, "app_type")
        return self._typing(self.state(args), args, "app_type")

    def t_app_fill(self, args: dict) -> Result:
        self._typing_args(args, "app_fill")
        return self._typing(self.state(args), args, "app_fill")

    @staticmethod
    def _typing_args(args: dict, tool: str) -> None:
        if not args.get("target"):
            raise invalid(f'{tool} needs a target ("@e3" or "testid=search")')
        if args.get("text") is None:
            raise invalid(f'{tool} needs text (pass "" to clear the field)')

    def _fill_slider(self, st: DeviceState, target: str, text: str) -> Result:
        try:
            pos = float(text)
        except ValueError:
            pos = -1.0
        if not 0.0 <= pos <= 1.0 or text.strip() == "":
            raise invalid(f'a slider is filled with its position, a number from 0 (the start of its track) to 1 '
                          f'(the end), not "{text}"; map shows the value it reads now',
                          "app_fill with a number from 0 to 1, e.g. 0.5 for the middle", target=target)
        snap, node, aim, subject = self._acquire(st, target)
        label = describe(node)
        was = slider_value(snap, node, label)
        x1, y1, x2, y2 = node.bounds
        # The track spans the bar's bounds (the virtual device maps a touch across the whole width; a real
        # SeekBar insets it by its padding, which the dump does not give).
        pad = 0
        x = int(round(x1 + pad + pos * (x2 - x1 - 2 * pad)))
        x = max(x1, min(x2 - 1, x))
        st.link.swipe(x, (y1 + y2) // 2, x, (y1 + y2) // 2, 60)
        after = self.snap(st)
        loc, _ = self._target(st, target)
        again = find(after, loc, st.context)
        now = slider_value(after, again[0], label) if len(again) == 1 else "?"
        return Result(f'moved {subject} to position {pos:g} — it reads "{now}", was "{was}"',
                      {"action": "fill", "target": target, "value": now, "was": was, "position": pos, "x": 0, "y": 0})

    def t_app_check(self, args: dict) -> Result:
        st = self.state(args)
        target = args.get("target")
        if not target:
            raise invalid('app_check needs a target ("@e3" or "testid=termsCheck")')
        if st.context != NATIVE:
            raise MobiumError("unsupported", "app_check works on the native context; in a page, tap the box",
                              "app_tap the checkbox, then app_map to read it")
        wanted = args.get("checked", True)
        snap, node, aim, subject = self._acquire(st, target)
        role = node.role()
        if not (node.checkable or role in ("checkbox", "radio", "switch")):
            raise invalid(f"{subject} is not a checkbox, radio or switch, so it has no checked state to set — "
                          "app_tap is what acts on it", "app_tap to press it", target=target)
        if role == "radio" and not wanted:
            raise invalid(f"a radio button cannot be unchecked — choose a different one in the group instead, "
                          f"which clears {subject}", "app_tap another radio in the group", target=target)
        state = "checked" if wanted else "unchecked"
        base = {"target": target, "role": role, "wanted": wanted}
        if node.checked == wanted:
            return Result(f"{subject} is already {state}", {**base, "checked": wanted, "changed": False})
        st.link.tap(aim.x, aim.y)
        loc, _ = self._target(st, target)

        def flipped():
            hits = find(self.snap(st), loc, st.context)
            return len(hits) == 1 and hits[0].checked == wanted

        if not st.link.wait_until(flipped, 1.5, 0.1):
            raise MobiumError("not_confirmed", f"tapped {subject} to make it {state} and it is still "
                              f"{'unchecked' if wanted else 'checked'} — the control did not respond, so nothing "
                              "here can make it", "read the screen with app_map; something may be in the way",
                              {"target": target})
        return Result(f"{subject} is now {state}", {**base, "checked": wanted, "changed": True})

    def t_app_swipe(self, args: dict) -> Result:
        d = args.get("direction", "")
        coords = [args.get(k) for k in ("x1", "y1", "x2", "y2")]
        ms = args.get("duration_ms", 300)
        if d and any(c is not None for c in coords):
            raise invalid("give a direction or x1/y1/x2/y2, not both")
        if any(c is not None for c in coords) and not all(c is not None for c in coords):
            raise invalid("an exact swipe needs all four of x1, y1, x2, y2")
        if not d and not any(c is not None for c in coords):
            raise invalid("app_swipe needs a direction (up, down, left, right) or all four of x1, y1, x2, y2; "
                          'got direction=""')
        st = self.state(args)
        if all(c is not None for c in coords):
            st.link.swipe(*coords, ms)
            return Result(f"swiped ({coords[0]},{coords[1]}) to ({coords[2]},{coords[3]}) over {ms}ms",
                          {"action": "swipe", "x": coords[2], "y": coords[3]})
        if d not in ("up", "down", "left", "right"):
            raise invalid("app_swipe needs a direction (up, down, left, right) or all four of x1, y1, x2, y2; "
                          f'got direction="{d}"')
        if args.get("target"):
            snap, node, aim, subject = self._acquire(st, args["target"])
            x1, y1, x2, y2 = node.bounds
        else:
            snap = st.last or self.snap(st)
            x1, y1, x2, y2 = 0, 0, snap.width, snap.height
        w, h = x2 - x1, y2 - y1
        fr = {"up": (0.5, 0.7, 0.5, 0.3), "down": (0.5, 0.3, 0.5, 0.7), "left": (0.7, 0.5, 0.3, 0.5),
              "right": (0.3, 0.5, 0.7, 0.5)}[d]
        a, b = (x1 + int(w * fr[0]), y1 + int(h * fr[1])), (x1 + int(w * fr[2]), y1 + int(h * fr[3]))
        st.link.swipe(a[0], a[1], b[0], b[1], ms)
        return Result(f"swiped {d}: ({a[0]},{a[1]}) to ({b[0]},{b[1]})",
                      {"action": "swipe", "target": d, "x": b[0], "y": b[1]})

    def t_app_scroll_to(self, args: dict) -> Result:
        st = self.state(args)
        target = args.get("target")
        if not target:
            raise invalid('app_scroll_to needs a target ("label=Row 55")')
        direction = args.get("direction", "down")
        if st.context != NATIVE:
            raise MobiumError("unsupported", "app_scroll_to works on the native context — switch back with "
                              "app_context NATIVE_APP, or app_swipe over the page", "app_swipe, then app_map")
        loc, subject = self._target(st, target)
        snap = self.snap(st)
        hits = find(snap, loc, NATIVE)
        scrolls = 0
        if not hits:
            box = self._scroll_container(snap, direction)
            if box is None:
                raise MobiumError("no_such_element", f"no element matches {subject} and nothing on this screen "
                                  "scrolls", "run app_map to see what is on screen", {"locator": subject})
            found = self._scroll_search(st, snap, loc, direction)
            scrolls = self.scrolls
            if found is None:
                if self.scroll_end:
                    raise MobiumError("no_such_element", f"no element matches {subject} — scrolled {direction} to "
                                      f"the end of the list ({scrolls} scrolls) without bringing it into view",
                                      "check the locator with app_map, or try another direction",
                                      {"locator": subject, "scrolls": scrolls, "end": True})
                raise MobiumError("no_such_element", f"no element matches {subject} after scrolling {direction} "
                                  f"{scrolls} times — the list is longer than mobium will swipe; try a deep link "
                                  "with app_open_url", "app_scroll_to again to go further",
                                  {"locator": subject, "scrolls": scrolls})
            snap = found[0]
            hits = find(snap, loc, NATIVE)
        if len(hits) > 1:
            raise self._ambiguous(loc, subject, len(hits))
        elements = build_elements(snap, NATIVE)
        self._remember(st, snap, elements, NATIVE)
        el = element_for(snap, hits[0], elements)
        where = "is on screen already" if not scrolls else \
            f"is on screen after {scrolls} scroll{'s' if scrolls != 1 else ''} {direction}"
        text = f"{subject} {where}" + (f" — {el.line()}" if el else "")
        data = {"target": target, "direction": direction, "scrolls": scrolls}
        if el:
            data["element"] = el.to_json()
        return Result(text, data)
