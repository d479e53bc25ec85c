"""app_storage and app_cookies, reading: what the current WebView context's page holds, through its DevTools socket
(Network.getCookies, DOMStorage.getDOMStorageItems).

app_storage's answer is the storage state in the shape Playwright and Vibium save, {cookies, origins: [{origin,
localStorage, sessionStorage}]}, each entry {name, value}; a page with no origin of its own (inline HTML,
about:blank, data:) holds no storage and is refused. Writing (restore, clear, set) is not served yet: refused as
`unsupported`, naming what reads instead.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from .devtools import DevToolsLink, PageTarget
from .errors import MobiumError
from .tool_state import NATIVE, DeviceState, Result

COOKIE_KEYS = ("name", "value", "domain", "path", "expires", "httpOnly", "secure", "sameSite")


def origin_of(url: str) -> str:
    """The page's origin, or "" when it has none (about:blank, data:, inline HTML)."""
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}" if parts.scheme in ("http", "https") and parts.netloc else ""


def _plural(n: int, word: str) -> str:
    return f"{n} {word}" + ("" if n == 1 else "s")


class WebViewStorageTools:
    """Mixed into `Mobium` beside `WebViewEvalTools`, whose `_devtools_page` finds the context's page."""

    def t_app_storage(self, args: dict) -> Result:
        st = self.state(args)
        action = args.get("action", "get")
        self._web_context(st, "app_storage")
        if action != "get":
            raise MobiumError("unsupported", f"app_storage {action}: this server reads a page's storage but does "
                              "not write it yet", "app_storage with no action reads it; app_eval runs script in "
                              "the page", {"tool": "app_storage", "action": action, "context": st.context})
        link, page = self._devtools_page(st, "app_storage")
        origin = self._origin(st, page, "app_storage")
        cookies = self._cookies(link, page)
        local, session = (self._items(link, page, origin, is_local) for is_local in (True, False))
        state = {"cookies": cookies, "origins": [{"origin": origin, "localStorage": local, "sessionStorage": session}]}
        text = (f"{origin}: {_plural(len(cookies), 'cookie')}, {_plural(len(local), 'localStorage item')}, "
                f"{_plural(len(session), 'sessionStorage item')}")
        return Result(text, state)

    def t_app_cookies(self, args: dict) -> Result:
        st = self.state(args)
        action = args.get("action", "get")
        self._web_context(st, "app_cookies")
        if action != "get":
            raise MobiumError("unsupported", f"app_cookies {action}: this server reads a page's cookies but does "
                              "not write them yet", "app_cookies with no action lists them",
                              {"tool": "app_cookies", "action": action, "context": st.context})
        link, page = self._devtools_page(st, "app_cookies")
        cookies = self._cookies(link, page)
        name = args.get("name")
        if name:
            cookies = [c for c in cookies if c["name"] == name]
        lines = [f"{c['name']}={c['value']}  ({c['domain']}{c['path']})" for c in cookies]
        text = "\n".join(lines) if lines else ("no cookie named " + name if name else "no cookies")
        return Result(text, {"cookies": cookies, "context": st.context, "device": st.link.serial})

    # ------------------------------------------------------------------------------------------------------------

    @staticmethod
    def _web_context(st: DeviceState, tool: str) -> None:
        if st.context == NATIVE:
            raise MobiumError("unsupported", f"{tool} runs in a WebView context, and the current one is {NATIVE}",
                              "switch to a WebView with app_context (app_contexts lists them)",
                              {"tool": tool, "context": NATIVE})

    @staticmethod
    def _origin(st: DeviceState, page: PageTarget, tool: str) -> str:
        origin = origin_of(page.url)
        if not origin:
            raise MobiumError("unsupported", f"{tool}: the page in {st.context} ({page.url or 'no URL'}) has no "
                              "origin of its own, so it holds no cookies or web storage", "open a page served "
                              "from an origin (http or https)", {"tool": tool, "context": st.context, "url": page.url})
        return origin

    @staticmethod
    def _cookies(link: DevToolsLink, page: PageTarget) -> list[dict]:
        got = link.call(page, "Network.getCookies", {"urls": [page.url]} if page.url else {})
        return [{k: c[k] for k in COOKIE_KEYS if k in c} for c in got.get("cookies", []) if isinstance(c, dict)]

    @staticmethod
    def _items(link: DevToolsLink, page: PageTarget, origin: str, is_local: bool) -> list[dict]:
        got = link.call(page, "DOMStorage.getDOMStorageItems",
                        {"storageId": {"securityOrigin": origin, "isLocalStorage": is_local}})
        return [{"name": k, "value": v} for k, v in got.get("entries", [])]
