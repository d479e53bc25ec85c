"""app_wait_for: waiting on a target, a text or the screen to settle, with Mobium's conditions and timeouts."""

from __future__ import annotations

from typing import Any, Optional

from .elements import build_elements, element_for, find
from .errors import MobiumError, invalid
from .shapes import duration_text
from .snapshot import Snapshot, UiNode
from .tool_state import NATIVE, POLL, Result


class WaitingTools:
    """Mixed into `Mobium`, the tool implementations for one server process."""

    def t_app_wait_for(self, args: dict) -> Result:
        st = self.state(args)
        target = args.get("target")
        if not target:
            raise invalid('app_wait_for needs a target ("testid=welcomeText")')
        if st.context != NATIVE:
            raise MobiumError("unsupported", "app_wait_for works on the native context — switch back with "
                              "app_context NATIVE_APP, or poll the page with app_map", "app_context NATIVE_APP")
        cond = args.get("condition", "visible")
        conds = ("visible", "hidden", "text", "enabled", "disabled", "value", "checked", "unchecked", "focused",
                 "count")
        if cond not in conds:
            raise invalid(f'unknown condition "{cond}" (want {", ".join(conds)})')
        want_text = args.get("text")
        if cond in ("text", "value") and want_text is None:
            raise invalid(f'condition "{cond}" needs text')
        count = args.get("count")
        if cond == "count" and count is None:
            raise invalid('condition "count" needs count')
        timeout_ms = args.get("timeout_ms", 10000)
        if timeout_ms > 120000:
            raise invalid(f"timeout_ms of {timeout_ms} exceeds the 2m0s ceiling on a single tool call")
        negate, exact = args.get("not", False), args.get("exact", False)
        loc, subject = self._target(st, target)
        start = st.link.monotonic()
        deadline = start + timeout_ms / 1000

        def holds(snap: Snapshot) -> tuple[bool, str, Optional[UiNode]]:
            hits = [n for n in find(snap, loc, NATIVE) if not n.empty]
            if cond == "count":
                return len(hits) == count, f"it matches {len(hits)}", None
            if cond == "hidden":
                return not hits, f"{len(hits)} still on screen", None
            if not hits:
                if snap.dialog is not None:
                    return False, f'it is under a dialog, "{snap.dialog.title}" — answer it first', None
                return False, "it is not on screen", None
            n = hits[0]
            if cond == "visible":
                return True, "", n
            if cond in ("enabled", "disabled"):
                return n.enabled == (cond == "enabled"), f"it is {'enabled' if n.enabled else 'disabled'}", n
            if cond in ("checked", "unchecked"):
                if not (n.checkable or n.role() in ("checkbox", "radio", "switch")):
                    raise invalid(f"{subject} has no checked state, so it can never be {cond}")
                return n.checked == (cond == "checked"), f"it is {'checked' if n.checked else 'unchecked'}", n
            if cond == "focused":
                return n.focused, ("it has keyboard focus" if n.focused else "it does not have keyboard focus"), n
            if n.password:
                raise invalid(f"{subject} is a password field; its text is never read, so it cannot be waited for")
            current = n.value if n.editable_class else self._read_value(n)
            if cond == "value":
                return current == want_text, f'its value is "{current}"', n
            if exact:
                return current == want_text, f'its text is "{current}"', n
            return want_text in current, f'its text is "{current}"', n

        while True:
            snap = self.snap(st)
            ok, why, node = holds(snap)
            if negate:
                ok = not ok
            if ok:
                waited = int((st.link.monotonic() - start) * 1000)
                data: dict[str, Any] = {"target": target, "condition": cond, "waited_ms": waited}
                phrase = {"visible": "is visible", "hidden": "is hidden", "enabled": "is enabled",
                          "disabled": "is disabled", "checked": "is checked", "unchecked": "is unchecked",
                          "focused": "has keyboard focus", "text": f'says "{want_text}"',
                          "value": f'holds exactly "{want_text}"',
                          "count": f"matches {count} on screen"}[cond]
                if exact and cond == "text":
                    phrase = f'says exactly "{want_text}"'
                if negate:
                    phrase = "is no longer true: " + phrase
                text = f"{subject} {phrase} after {duration_text(waited)}"
                if node is not None and not negate:
                    elements = build_elements(snap, NATIVE)
                    self._remember(st, snap, elements, NATIVE)
                    el = element_for(snap, node, elements)
                    if el is not None:
                        text += f" — {el.line()}"
                        data["element"] = el.to_json()
                return Result(text, data)
            if st.link.monotonic() >= deadline:
                waited = st.link.monotonic() - start
                goal = {"visible": "to be visible", "hidden": "to be hidden", "enabled": "to be enabled",
                        "disabled": "to be disabled", "checked": "to become checked",
                        "unchecked": "to stop being checked",
                        "focused": "to have keyboard focus", "text": f'to say "{want_text}"',
                        "value": f'to hold exactly "{want_text}"', "count": f"to match {count}"}[cond]
                if negate:
                    goal = "to stop " + goal[3:]
                raise MobiumError("timeout", f"timed out after {waited:.3f}s waiting for {subject} {goal} — {why}",
                                  "wait longer with timeout_ms, or check the screen with app_map",
                                  {"locator": subject, "condition": cond})
            st.link.pause(POLL)
