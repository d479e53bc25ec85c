"""app_eval: a JavaScript expression run in the current WebView context's page, through its DevTools socket.

The context WEBVIEW_<package>[_N] names a WebView on screen; its page is the DevTools target of that package's
process whose WebView is where the context's is. The answer's text is the value as JSON (`undefined` when there is
none); a script that throws is refused with the page's own error. A WebView that opens no DevTools socket (a
release build that never enabled WebView debugging) is refused as `unsupported`, naming what is missing.
"""

from __future__ import annotations

import json
import shlex
from typing import Optional

from .devtools import DevToolsLink, PageTarget, devtools_socket, pick_target
from .errors import MobiumError
from .snapshot import Snapshot
from .tool_state import NATIVE, DeviceState, Result

READ_INSTEAD = "read the page with app_map and app_text in this context"


class WebViewEvalTools:
    """Mixed into `Mobium`: app_eval."""

    def t_app_eval(self, args: dict) -> Result:
        st = self.state(args)
        expression = args.get("expression")
        if not isinstance(expression, str) or not expression.strip():
            raise MobiumError("invalid_argument", "app_eval needs an expression, e.g. \"document.title\"")
        if st.context == NATIVE:
            raise MobiumError("unsupported", f"app_eval runs in a WebView context, and the current one is {NATIVE}",
                              "switch to a WebView with app_context (app_contexts lists them)",
                              {"tool": "app_eval", "context": NATIVE})
        link, page = self._devtools_page(st, "app_eval")
        answer = link.evaluate(page, expression)
        thrown = answer.get("exceptionDetails")
        if thrown:
            error = thrown.get("exception") or answer.get("result") or {}
            said = (error.get("description") or thrown.get("text") or "an exception").split("\n", 1)[0]
            raise MobiumError("device_server", f"the page threw {said}", "fix the expression; it runs in the "
                              "page as the DevTools console runs it",
                              {"w3c": "javascript error", "context": st.context, "exception": said,
                               "expression": expression})
        result = answer.get("result") or {}
        kind = result.get("type", "undefined")
        value = result.get("value") if "value" in result else None
        text = "undefined" if kind == "undefined" else json.dumps(value, ensure_ascii=False)
        data = {"value": value, "type": kind, "context": st.context, "device": st.link.serial}
        if result.get("subtype"):
            data["subtype"] = result["subtype"]
        return Result(text, data)

    def _devtools_page(self, st: DeviceState, tool: str,
                       snap: Optional[Snapshot] = None) -> tuple[DevToolsLink, PageTarget]:
        """The DevTools connection and the page target behind the current WebView context (`snap`: a look at the
        screen the caller has just taken, so it is not taken twice)."""
        if snap is None:
            snap = self.snap(st)
        self._context_ok(st, snap)
        webview = snap.webview_of(st.context)
        package = webview.package or snap.foreground
        pid = st.link.shell(f"pidof {shlex.quote(package)}").strip().split()
        name = devtools_socket(st.link.shell("cat /proc/net/unix"), pid[0]) if pid and pid[0].isdigit() else None
        if name is None:
            raise MobiumError("unsupported", f"{tool}: the WebView of {package} is not debuggable — its process "
                              f"({pid[0] if pid else 'not running'}) opens no DevTools socket "
                              f"(@webview_devtools_remote_<pid> in /proc/net/unix), which it does only when the app "
                              "calls WebView.setWebContentsDebuggingEnabled(true)", READ_INSTEAD,
                              {"tool": tool, "context": st.context, "package": package})
        link = DevToolsLink(st.link.dev, st.link.host, name)
        page = pick_target(link.pages(), tuple(webview.bounds))
        if page is None:
            raise MobiumError("no_such_context", f"the DevTools socket of {package} lists no page on screen where "
                              f"the WebView of {st.context} is", "run app_contexts again: the page may have "
                              "changed", {"context": st.context})
        return link, page
