"""Contexts (native and WebViews), sessions and batches: app_contexts, app_context, app_session, app_batch."""

from __future__ import annotations

from typing import Any

from .errors import MobiumError, invalid
from .snapshot import Snapshot
from .tool_state import NATIVE, DeviceState, Result, without_nulls


class SessionTools:
    """Mixed into `Mobium`, the tool implementations for one server process."""

    def _contexts(self, st: DeviceState, snap: Snapshot) -> list[dict]:
        out = [{"id": NATIVE}]
        for cid, wv in snap.context_ids():
            title = next((d.text for d in wv.descendants() if d.text), "")
            out.append({"id": cid, "title": title})
        for c in out:
            if c["id"] == st.context:
                c["current"] = True
        return out

    def t_app_contexts(self, args: dict) -> Result:
        st = self.state(args)
        snap = self.snap(st)
        if st.context != NATIVE and snap.webview_of(st.context) is None:
            st.context = NATIVE
        ctxs = self._contexts(st, snap)
        lines = [c["id"] + (f'  "{c["title"]}"' if c.get("title") else "") + ("  (current)" if c.get("current")
                                                                             else "") for c in ctxs]
        return Result("\n".join(lines), {"contexts": ctxs, "current": st.context})

    def t_app_context(self, args: dict) -> Result:
        st = self.state(args)
        want = args.get("context")
        if want is None:
            return Result(st.context, {"context": st.context, "device": st.link.serial})
        if want.lower() in ("native", "native_app"):
            want = NATIVE
        snap = self.snap(st)
        ids = [c["id"] for c in self._contexts(st, snap)]
        if want not in ids:
            raise MobiumError("no_such_context", f'no context "{want}" on screen (have: {", ".join(ids)})',
                              "app_contexts lists them; a WebView context exists only while a WebView is on screen",
                              {"context": want, "contexts": ids})
        before = st.context
        st.context = want
        if before != want:
            self.drop_refs(st)
        return Result(f"switched to {want}" if before != want else f"already in {want}",
                      {"context": want, "previous": before, "device": st.link.serial})

    # ================================================================================================================
    # Sessions and batches

    def t_app_session(self, args: dict) -> Result:
        action = args.get("action", "status")
        if action not in ("start", "end", "status"):
            raise invalid(f'unknown action "{action}" (want "start", "end" or "status")')
        if args.get("platform") == "ios":
            raise MobiumError("unsupported", "this server drives Android only", "omit platform")
        if action == "status":
            open_ = self._open_sessions()
            text = "open: " + "; ".join(f'{o["device"]} (android, uiautomator2)' for o in open_) if open_ else \
                "no session is open"
            return Result(text, {"action": "status", "ended": False, "sessions": open_})
        if action == "end":
            return self._end_asked(args)
        st = self.state(args, open_session=False)
        serial = st.link.serial
        reused = st.session_open
        st.session_open = True
        app = args.get("app")
        text = (f"session already open on {serial} (android, uiautomator2)" if reused else
                f"session started on {serial} (android, uiautomator2)")
        data: dict[str, Any] = {"action": "start", "device": serial, "platform": "android", "driver": "uiautomator2",
                                "reused": reused, "ended": False, "sessions": self._open_sessions()}
        if app:
            self.t_app_terminate({"app": app, "device": serial})
            res = self.t_app_launch({"app": app, "device": serial})
            st.session_app = app
            data["app"] = app
            text += f"; {app} was launched fresh and " + ("is in the foreground" if res.text == f"launched {app}"
                                                          else res.text.split(", but ", 1)[-1])
        return Result(text, data)

    def _open_sessions(self) -> list[dict]:
        return [{"device": s, "platform": "android", "driver": "uiautomator2"}
                for s, d in sorted(self.devices.items()) if d.session_open]

    def _end_asked(self, args: dict) -> Result:
        """app_session end: the session of the device named (or pinned), or the only one open; ending none is not
        an error (Mobium's sessionEnd, as Appium's quit of a session already gone)."""
        want = args.get("device") or self.pinned or ""
        open_ = [s for s, d in sorted(self.devices.items()) if d.session_open and (not want or s == want)]
        if not open_:
            return Result(f"no session was open on {want or 'any device'}",
                          {"action": "end", "device": want, "ended": False, "sessions": self._open_sessions()})
        if len(open_) > 1:
            raise invalid(f"sessions are open on {len(open_)} devices ({', '.join(open_)}); name one with device, "
                          "or stop the server to end them all")
        st = self.devices[open_[0]]
        ended = self.end_session(st)
        text = f"session ended on {st.link.serial}; anything it changed for the session is put back"
        data: dict[str, Any] = {"action": "end", "device": st.link.serial, "platform": "android",
                                "driver": "uiautomator2", "ended": True, "sessions": self._open_sessions()}
        if ended.get("network"):
            text += "; the network is as it was before app_network changed it"
        if ended.get("terminated"):
            text += f"; {ended['terminated']}, which the session launched, was stopped"
            data["terminated"] = ended["terminated"]
        if ended.get("restored"):
            data["restored"] = ended["restored"]
        return Result(text, data)

    def end_session(self, st: DeviceState) -> dict:
        """One device's session ended, as Mobium ends one (app_session end, or the server going): the app its start
        launched stopped, its location route stopped, the network and the settings it changed put back, its refs,
        dialog rules and context forgotten. Says what it did."""
        done: dict[str, Any] = {}
        st.session_open = False
        if st.session_app:
            st.link.shell(f"am force-stop {st.session_app}")
            done["terminated"], st.session_app = st.session_app, None
        self._stop_route(st)
        done["network"] = self.put_back_network(st)
        done["restored"] = self.put_back_settings(st)
        self.drop_refs(st)
        st.rules.clear()
        st.context = NATIVE
        return done

    def t_app_batch(self, args: dict) -> Result:
        steps = args.get("steps")
        if not isinstance(steps, list) or not steps:
            raise invalid('steps must be a non-empty list of {"name": tool, "arguments": {...}}')
        # A step's null arguments are absent too, as they are in a call of their own (tools.without_nulls).
        steps = [{**step, "arguments": without_nulls(step["arguments"])}
                 if isinstance(step, dict) and isinstance(step.get("arguments"), dict) else step for step in steps]
        if len(steps) > 100:
            raise invalid(f"a batch takes at most 100 steps, got {len(steps)}")
        for i, step in enumerate(steps, 1):
            if not isinstance(step, dict) or "name" not in step and "arguments" not in step:
                raise invalid(f'step {i} is not an object with "name" and "arguments"')
            extra = [k for k in step if k not in ("name", "arguments")]
            if extra:
                raise invalid(f'step {i} has "{extra[0]}"; a step has only "name" and "arguments"')
            name = step.get("name")
            if not name:
                raise invalid(f"step {i} has no tool name")
            if name == "app_batch":
                raise invalid(f"step {i} is app_batch; a batch cannot contain another — list its steps in this one")
            if name not in self.tools:
                raise invalid(f'step {i} names "{name}", which is not a tool (have: {", ".join(self.tools)})')
            sargs = step.get("arguments", {})
            if not isinstance(sargs, dict):
                raise invalid(f"step {i} ({name}): arguments must be an object")
            if "device" in sargs:
                raise invalid(f"step {i} ({name}) names a device; a batch runs on one device, so give it to the "
                              "batch")
            props = self.tools[name].schema["properties"]
            for k in sargs:
                if k not in props:
                    raise invalid(f'step {i} ({name}) has an argument "{k}" that {name} does not take (it takes: '
                                  f'{", ".join(sorted(p for p in props if p not in ("device", "driver")))})')
            for req in self.tools[name].schema.get("required", []):
                if req not in sargs:
                    raise invalid(f'step {i} ({name}) is missing "{req}"')
            self.check_args(name, sargs, where=f"step {i}: ")
        done: list[dict] = []
        images: list[bytes] = []
        for i, step in enumerate(steps, 1):
            name = step["name"]
            sargs = dict(step.get("arguments", {}))
            if args.get("device"):
                sargs["device"] = args["device"]
            try:
                res = getattr(self, "t_" + name)(sargs)
            except MobiumError as err:
                if i == 1:
                    tail = "; nothing ran before it"
                elif i == 2:
                    tail = "; step 1 ran before it, and nothing after"
                else:
                    tail = f"; steps 1-{i - 1} ran before it, and nothing after"
                raise MobiumError(err.code, f"step {i} of {len(steps)} ({name}) failed: {err.message}{tail}",
                                  err.remedy, {**err.details, "step": i, "completed": done}, err.retryable) from None
            entry: dict[str, Any] = {"name": name, "text": res.text}
            if res.data is not None:
                entry["data"] = res.data
            if res.image is not None:
                entry["image"] = True
                images.append(res.image)
                entry["text"] = f"image {len(images)} below"
            done.append(entry)
        text = "\n".join(f"{i}. {d['name']}: {d['text']}" for i, d in enumerate(done, 1))
        res = Result(text, {"steps": done})
        if images:
            res.image = images[0]
        return res
