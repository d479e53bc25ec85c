"""A debuggable WebView's DevTools socket on the virtual device: listed in /proc/net/unix while a WebView is up,
reached through adb forward, answering /json/list, /json/version and Runtime.evaluate over a WebSocket."""

from __future__ import annotations

import base64
import hashlib
import http.client
import json
import socket

import pytest

from pytest_mobium_evals.mobium_server.devtools import DevToolsLink
from pytest_mobium_evals.mobium_server.errors import MobiumError

APP = "dev.mobium.mobiumapp"
SERIAL = "emulator-5554"


@pytest.fixture
def dev(adb):
    d = adb.device(SERIAL)
    d.shell(f"am start -n {APP}/.MainActivity")
    return d


def show(sim_server, screen: str) -> None:
    sim_server.device(SERIAL).current_app().go(screen)


def socket_name(dev) -> str:
    return f"webview_devtools_remote_{dev.shell(f'pidof {APP}').strip()}"


def get(port: int, path: str) -> tuple[int, bytes]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        conn.request("GET", path)
        answer = conn.getresponse()
        return answer.status, answer.read()
    finally:
        conn.close()


def test_the_socket_is_listed_only_while_a_debuggable_webview_is_up(sim_server, dev):
    assert "webview_devtools_remote" not in dev.shell("cat /proc/net/unix")  # the home screen has no WebView
    show(sim_server, "webform")
    table = dev.shell("cat /proc/net/unix").splitlines()
    assert table[0].split() == ["Num", "RefCount", "Protocol", "Flags", "Type", "St", "Inode", "Path"]
    entry = next(line for line in table if line.endswith("@" + socket_name(dev)))
    assert entry.split()[:6] == ["0000000000000000:", "00000002", "00000000", "00010000", "0001", "01"]
    dev.shell(f"am force-stop {APP}")
    assert "webview_devtools_remote" not in dev.shell("cat /proc/net/unix")


def test_a_webview_that_is_not_debuggable_opens_no_socket(sim_server, dev):
    dev.shell("am start -a android.intent.action.VIEW -d https://example.com com.android.chrome")
    assert "WebView" in dev.shell("uiautomator dump /dev/tty")
    assert "webview_devtools_remote" not in dev.shell("cat /proc/net/unix")


def test_json_list_names_each_page_with_where_its_webview_is(sim_server, dev):
    show(sim_server, "dual")
    port = dev.forward_port(f"localabstract:{socket_name(dev)}")
    status, body = get(port, "/json/list")
    assert status == 200
    pages = json.loads(body)
    assert [p["title"] for p in pages] == ["Plain page", "Second page"]
    assert {p["type"] for p in pages} == {"page"} and {p["url"] for p in pages} == {"about:blank"}
    top, bottom = (json.loads(p["description"]) for p in pages)
    assert top["visible"] and bottom["visible"] and top["screenY"] + top["height"] <= bottom["screenY"]
    assert all(p["webSocketDebuggerUrl"] == f"ws://127.0.0.1:{port}/devtools/page/{p['id']}" for p in pages)
    assert get(port, "/json")[1] == body
    status, body = get(port, "/json/version")
    assert status == 200 and json.loads(body)["Android-Package"] == APP
    assert json.loads(body)["Browser"].startswith("Chrome/")
    assert get(port, "/json/nothing") == (404, b"Unknown command: nothing")


def test_the_websocket_handshake_and_an_unknown_page(sim_server, dev):
    show(sim_server, "webview")
    port = dev.forward_port(f"localabstract:{socket_name(dev)}")
    page = json.loads(get(port, "/json/list")[1])[0]
    key = base64.b64encode(b"0123456789abcdef").decode()
    for path, want in ((f"/devtools/page/{page['id']}", b"HTTP/1.1 101"), ("/devtools/page/NOPE", b"HTTP/1.1 404")):
        with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
            s.sendall(f"GET {path} HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                      f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
            head = s.recv(4096)
        assert head.startswith(want), head
    accept = base64.b64encode(hashlib.sha1((key + "258EAFA5-E914-47DA-95CA-C5AB0DC85B11").encode()).digest())
    assert b"Sec-WebSocket-Accept: " + accept in _handshake(port, page["id"], key)


def _handshake(port: int, page_id: str, key: str) -> bytes:
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(f"GET /devtools/page/{page_id} HTTP/1.1\r\nHost: localhost\r\nUpgrade: websocket\r\n"
                  f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode())
        return s.recv(4096)


def test_runtime_evaluate_reads_the_page_as_it_stands(sim_server, dev):
    show(sim_server, "webform")
    link = DevToolsLink(dev, "127.0.0.1", socket_name(dev))
    [page] = link.pages()
    assert page.title == "Web form" and page.visible
    assert link.evaluate(page, "formState().text") == {"result": {"type": "string", "value": ""}}
    form = sim_server.device(SERIAL).current_app().screen.webview_page("formWebview")
    form.text = "from the page"
    assert link.evaluate(page, "formState().text")["result"]["value"] == "from the page"
    assert link.evaluate(page, "passwordIs('')") == {"result": {"type": "boolean", "value": True}}
    assert link.evaluate(page, "formState()")["result"]["value"]["mirror"] == "mirror: from the page"
    assert link.evaluate(page, "document.getElementById('nope')") == {
        "result": {"type": "object", "subtype": "null", "value": None}}
    assert link.evaluate(page, "undefined") == {"result": {"type": "undefined"}}
    assert link.evaluate(page, "formState().inputs")["result"] == {"type": "number", "value": 0, "description": "0"}


def test_a_script_that_throws_comes_back_as_exception_details(sim_server, dev):
    show(sim_server, "webform")
    link = DevToolsLink(dev, "127.0.0.1", socket_name(dev))
    [page] = link.pages()
    thrown = link.evaluate(page, "nope()")
    details = thrown["exceptionDetails"]
    assert details["text"] == "Uncaught" and details["exception"]["className"] == "ReferenceError"
    assert details["exception"]["description"].startswith("ReferenceError: nope is not defined")
    subset = link.evaluate(page, "1 + 1")["exceptionDetails"]["exception"]
    assert subset["className"] == "SyntaxError" and "evaluates a subset of JavaScript" in subset["description"]


def test_a_page_that_left_the_screen_is_gone(sim_server, dev):
    show(sim_server, "webview")
    link = DevToolsLink(dev, "127.0.0.1", socket_name(dev))
    [page] = link.pages()
    show(sim_server, "frames")
    with pytest.raises(MobiumError) as refused:
        link.evaluate(page, "document.title")
    assert "refused the WebSocket: HTTP/1.1 404" in refused.value.message


def test_cookies_and_dom_storage_of_a_page_with_an_origin(sim_server, dev):
    show(sim_server, "webstorage")
    link = DevToolsLink(dev, "127.0.0.1", socket_name(dev))
    [page] = link.pages()
    assert page.url == "https://mobiumapp.test/"
    sim_server.device(SERIAL).current_app().screen.webview_page("storageWebview").save_visit()
    [cookie] = link.call(page, "Network.getCookies", {})["cookies"]
    assert (cookie["name"], cookie["value"], cookie["domain"], cookie["secure"]) == ("visited", "yes",
                                                                                     "mobiumapp.test", True)
    local = {"securityOrigin": "https://mobiumapp.test", "isLocalStorage": True}
    assert link.call(page, "DOMStorage.getDOMStorageItems", {"storageId": local}) == {"entries": [["visits", "1"]]}
    session = dict(local, isLocalStorage=False)
    assert link.call(page, "DOMStorage.getDOMStorageItems", {"storageId": session}) == {
        "entries": [["lastVisit", "visit 1"]]}
    other = dict(local, securityOrigin="https://elsewhere.test")
    assert link.call(page, "DOMStorage.getDOMStorageItems", {"storageId": other}) == {"entries": []}
    with pytest.raises(MobiumError) as unknown:
        link.call(page, "Page.navigate", {"url": "https://x.test"})
    assert "'Page.navigate' wasn't found" in unknown.value.message
