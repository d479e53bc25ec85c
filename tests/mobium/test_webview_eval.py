"""app_eval, app_storage and app_cookies over MCP: script in the current WebView context's page and what it holds,
through its DevTools socket (adb forward); the answers, what the page throws, and the refusals (native context, a
WebView not debuggable, a page with no origin, writes)."""

from __future__ import annotations

import json

APP = "dev.mobium.mobiumapp"



def open_case(tools, button: str) -> list[str]:
    tools.call("app_tap", target="testid=webviewhubBtn")
    tools.call("app_scroll_to", target=f"testid={button}")
    tools.call("app_tap", target=f"testid={button}")
    return [c["id"] for c in tools.call("app_contexts").data["contexts"] if c["id"].startswith("WEBVIEW_")]


def test_eval_answers_the_value_as_json_and_reads_what_typing_changed(fresh):
    [page] = open_case(fresh, "webformBtn")
    fresh.call("app_context", context=page)
    empty = fresh.call("app_eval", expression="formState().text")
    assert empty.text == '""'
    assert empty.data == {"value": "", "type": "string", "context": page, "device": "emulator-5554"}
    ref = next(line.split()[0] for line in fresh.call("app_map").text.splitlines() if "text input (" in line)
    fresh.call("app_type", target=ref, text="hello web")
    assert fresh.call("app_eval", expression="formState().text").text == '"hello web"'
    assert fresh.call("app_eval", expression="passwordIs('')").text == "true"
    state = fresh.call("app_eval", expression="formState()")
    assert json.loads(state.text)["mirror"] == "mirror: hello web" and state.data["type"] == "object"
    assert fresh.call("app_eval", expression="document.getElementById('nope')").text == "null"
    assert fresh.call("app_eval", expression="undefined").text == "undefined"


def test_each_webview_context_evaluates_in_its_own_page(fresh):
    first, second = open_case(fresh, "dualBtn")
    assert (first, second) == (f"WEBVIEW_{APP}", f"WEBVIEW_{APP}_2")
    fresh.call("app_context", context=first)
    assert fresh.call("app_eval", expression="document.title").text == '"Plain page"'
    fresh.call("app_context", context=second)
    assert fresh.call("app_eval", expression="document.title").text == '"Second page"'


def test_a_script_that_throws_is_refused_with_the_pages_error(fresh):
    [page] = open_case(fresh, "webviewBtn")
    fresh.call("app_context", context=page)
    thrown = fresh.call("app_eval", expression="nope()", check=False)
    assert thrown.is_error and thrown.data["code"] == "device_server"
    assert thrown.text.startswith("the page threw ReferenceError: nope is not defined")
    assert thrown.data["details"]["w3c"] == "javascript error"
    outside = fresh.call("app_eval", expression="1 + 1", check=False)
    assert "the virtual device evaluates a subset of JavaScript" in outside.text


def test_native_context_and_a_webview_that_is_not_debuggable_are_refused(fresh):
    native = fresh.call("app_eval", expression="document.title", check=False)
    assert native.data["code"] == "unsupported" and "NATIVE_APP" in native.text
    assert "app_context" in native.data["remedy"]
    fresh.call("app_launch", app="com.android.chrome")
    chrome = "WEBVIEW_com.android.chrome"
    assert chrome in [c["id"] for c in fresh.call("app_contexts").data["contexts"]]
    fresh.call("app_context", context=chrome)
    refused = fresh.call("app_eval", expression="document.title", check=False)
    assert refused.data["code"] == "unsupported"
    assert "the WebView of com.android.chrome is not debuggable" in refused.text
    assert "setWebContentsDebuggingEnabled" in refused.text and refused.data["remedy"]
    fresh.call("app_context", context="NATIVE_APP")


def test_storage_and_cookies_read_what_the_page_holds(fresh):
    [page] = open_case(fresh, "webstorageBtn")
    fresh.call("app_context", context=page)
    empty = fresh.call("app_storage")
    assert empty.text == "https://mobiumapp.test: 0 cookies, 0 localStorage items, 0 sessionStorage items"
    assert fresh.call("app_cookies").text == "no cookies"
    save = next(e["ref"] for e in fresh.call("app_map").data["elements"] if e.get("label") == "Save a visit")
    fresh.call("app_tap", target=save)
    state = fresh.call("app_storage")
    assert state.data == {
        "cookies": [{"name": "visited", "value": "yes", "domain": "mobiumapp.test", "path": "/", "expires": -1,
                     "httpOnly": False, "secure": True, "sameSite": "Lax"}],
        "origins": [{"origin": "https://mobiumapp.test", "localStorage": [{"name": "visits", "value": "1"}],
                     "sessionStorage": [{"name": "lastVisit", "value": "visit 1"}]}]}
    assert state.text == "https://mobiumapp.test: 1 cookie, 1 localStorage item, 1 sessionStorage item"
    cookies = fresh.call("app_cookies")
    assert cookies.text == "visited=yes  (mobiumapp.test/)" and cookies.data["cookies"] == state.data["cookies"]
    assert fresh.call("app_cookies", name="absent").text == "no cookie named absent"
    for tool, action in (("app_storage", "clear"), ("app_storage", "restore"), ("app_cookies", "set")):
        refused = fresh.call(tool, action=action, check=False)
        assert refused.data["code"] == "unsupported" and "does not write" in refused.text, refused.text
    fresh.call("app_context", context="NATIVE_APP")


def test_a_page_with_no_origin_holds_no_storage(fresh):
    [page] = open_case(fresh, "webviewBtn")
    fresh.call("app_context", context=page)
    refused = fresh.call("app_storage", check=False)
    assert refused.data["code"] == "unsupported" and "has no origin of its own" in refused.text
    assert fresh.call("app_cookies").text == "no cookies"
    fresh.call("app_context", context="NATIVE_APP")
    native = fresh.call("app_storage", check=False)
    assert native.data["code"] == "unsupported" and "NATIVE_APP" in native.text
