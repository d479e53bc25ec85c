"""The virtual device's UiAutomator2 server, spoken to over HTTP on a plain socket: sessions, the page source in the
server's own XML, the locator strategies, element commands, W3C actions, settings, alerts and the W3C error shape."""

from __future__ import annotations

import base64
import http.client
import json
import socket
import threading
import xml.etree.ElementTree as ET

import pytest
from polling import wait_for

from pytest_mobium_evals.sim.clock import Clock
from pytest_mobium_evals.sim.device import VirtualDevice
from pytest_mobium_evals.sim.pace import EMULATOR, STILL_WINDOW_S
from pytest_mobium_evals.sim.shell import Shell
from pytest_mobium_evals.sim.uia2.server import ELEMENT_KEY, UiAutomator2Server

APP = "dev.mobium.mobiumapp"


class Client:
    """A W3C client: one keep-alive HTTP connection, answers as (status, body)."""

    def __init__(self, port: int):
        self.conn = http.client.HTTPConnection("127.0.0.1", port, timeout=30)
        self.sid = ""

    def call(self, method: str, path: str, body=None) -> tuple[int, dict]:
        data = None if body is None else (body if isinstance(body, bytes) else json.dumps(body).encode())
        self.conn.request(method, path, body=data, headers={"Content-Type": "application/json"})
        r = self.conn.getresponse()
        return r.status, json.loads(r.read())

    def ok(self, method: str, suffix: str, body=None):
        status, answer = self.call(method, f"/session/{self.sid}{suffix}", body)
        assert status == 200, answer
        return answer["value"]

    def find(self, using: str, value: str) -> str:
        return self.ok("POST", "/element", {"using": using, "value": value})[ELEMENT_KEY]

    def by_id(self, test_id: str) -> str:
        return self.find("xpath", f'//*[@resource-id="{test_id}"]')

    def source(self) -> str:
        return self.ok("GET", "/source")


@pytest.fixture
def served():
    device = VirtualDevice(clock=Clock(25.0), seed=3)
    Shell(device).run(f"am start -n {APP}/.MainActivity")
    server = UiAutomator2Server(device)
    listener = socket.create_server(("127.0.0.1", 0))

    def accept() -> None:
        while True:
            try:
                sock, _ = listener.accept()
            except OSError:
                return
            threading.Thread(target=server.serve, args=(sock,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
    client = Client(listener.getsockname()[1])
    status, answer = client.call("POST", "/session", {"capabilities": {"firstMatch": [{}], "alwaysMatch": {}}})
    assert status == 200 and answer["sessionId"] == answer["value"]["sessionId"]
    client.sid = answer["sessionId"]
    yield device, client
    server.stop()
    listener.close()


def test_status_sessions_and_one_session_at_a_time(served):
    device, c = served
    assert c.call("GET", "/status") == (200, {"sessionId": c.sid, "value": {
        "ready": True, "message": "UiAutomator2 Server is ready to accept commands"}})
    assert c.call("GET", "/wd/hub/status")[0] == 200  # the old prefix still answers
    assert [s["id"] for s in c.call("GET", "/sessions")[1]["value"]] == [c.sid]
    old = c.sid
    status, answer = c.call("POST", "/session", {"capabilities": {"alwaysMatch": {"platformName": "Android"}}})
    assert status == 200 and answer["value"]["capabilities"] == {"platformName": "Android"}
    status, answer = c.call("GET", f"/session/{old}/source")
    assert status == 404 and answer["value"]["error"] == "invalid session id"
    c.sid = answer_sid = c.call("GET", "/sessions")[1]["value"][0]["id"]
    assert answer_sid != old
    assert c.call("DELETE", f"/session/{c.sid}")[0] == 200
    assert c.call("GET", "/sessions")[1]["value"] == []


def test_page_source_is_the_servers_xml_over_the_same_views_as_uiautomator_dump(served):
    device, c = served
    source = c.source()
    assert source.startswith("<?xml version='1.0' encoding='UTF-8' standalone='yes' ?>\n"
                             '<hierarchy index="0" class="hierarchy" rotation="0" width="1080" height="2400">\n'
                             '  <android.widget.FrameLayout index="0" package="dev.mobium.mobiumapp" '
                             'class="android.widget.FrameLayout" text="" checkable="false"')
    root = ET.fromstring(source.split("\n", 1)[1])
    elements = list(root.iter())[1:]
    assert all(el.tag == el.get("class") and el.get("displayed") == "true" for el in elements)
    logo = next(el for el in elements if el.get("resource-id") == "mobiumLogo")
    assert list(logo.attrib) == [
        "index", "package", "class", "text", "content-desc", "resource-id", "checkable", "checked", "clickable",
        "enabled", "focusable", "focused", "long-clickable", "password", "scrollable", "selected", "bounds",
        "displayed", "a11y-important", "screen-reader-focusable", "drawing-order", "showing-hint", "text-entry-key",
        "dismissable", "a11y-focused", "heading", "live-region", "context-clickable", "content-invalid", "window-id"]
    assert "resource-id" not in elements[0].attrib and "content-desc" not in elements[0].attrib
    dump = ET.fromstring(device.dump_xml())
    assert [el.get("bounds") for el in elements] == [n.get("bounds") for n in dump.iter("node")]


def test_locators_id_accessibility_id_xpath_uiautomator_and_their_errors(served):
    device, c = served
    logo = c.find("accessibility id", "Mobium")
    assert c.ok("GET", f"/element/{logo}/attribute/resource-id") == "mobiumLogo"
    assert c.find("xpath", "//android.widget.ImageView[@content-desc='Mobium']") == logo
    assert c.find("xpath", "/hierarchy/*[1]") == c.find("class name", "android.widget.FrameLayout")
    # a UiSelector's find is a UiObject (its selector kept), another element than the UiObject2 the others find
    by_selector = c.find("-android uiautomator", 'new UiSelector().description("Mobium")')
    assert by_selector != logo and c.ok("GET", f"/element/{by_selector}/attribute/resource-id") == "mobiumLogo"
    texts = [c.ok("GET", f"/element/{e[ELEMENT_KEY]}/text") for e in c.ok("POST", "/elements", {
        "using": "-android uiautomator", "value": 'new UiSelector().textContains("Demo").instance(1)'})]
    assert texts == ["OTP Demo"]
    button = c.find("-android uiautomator", 'new UiSelector().resourceId("loginBtn")')
    assert c.find("-android uiautomator", '.text("Login Demo")') != button  # the shortcut without `new UiSelector()`
    # `id` puts the package in front of a bare name (React Native's ids are bare, so it finds nothing) ...
    status, answer = c.call("POST", f"/session/{c.sid}/element", {"using": "id", "value": "loginBtn"})
    assert status == 404 and answer["value"]["error"] == "no such element"
    # ... unless the session turned that off
    c.ok("POST", "/appium/settings", {"settings": {"disableIdLocatorAutocompletion": True}})
    found = c.find("id", "loginBtn")
    assert c.ok("GET", f"/element/{found}/attribute/resource-id") == c.ok("GET", f"/element/{button}/attribute/"
                                                                                 "resource-id") == "loginBtn"
    assert c.ok("POST", "/elements", {"using": "xpath", "value": "//*[@text='no such text']"}) == []
    for using, value, error in (("xpath", "//*[", "invalid selector"), ("css selector", "a", "invalid selector"),
                                ("-android uiautomator", "new UiSelector().bogus(1)", "invalid selector")):
        status, answer = c.call("POST", f"/session/{c.sid}/element", {"using": using, "value": value})
        assert (status, answer["value"]["error"]) == (400, error), answer
        assert answer["value"]["message"] and "stacktrace" in answer["value"]


def test_sign_in_with_element_value_clear_click_and_text(served):
    device, c = served
    c.ok("POST", f"/element/{c.by_id('loginBtn')}/click", {})
    user = wait_for(lambda: c.ok("POST", "/elements", {"using": "xpath", "value": '//*[@resource-id="username"]'}),
                    what="the login screen")[0][ELEMENT_KEY]
    assert c.ok("GET", f"/element/{user}/text") == "username"  # an empty field reads its hint
    assert c.ok("GET", f"/element/{user}/attribute/showing-hint") == "true"
    c.ok("POST", f"/element/{user}/value", {"text": "héllo ✓ 日本", "value": list("héllo ✓ 日本")})
    assert c.ok("GET", f"/element/{user}/text") == "héllo ✓ 日本"
    c.ok("POST", f"/element/{user}/clear", {})
    c.ok("POST", f"/element/{user}/value", {"text": "mob"})
    c.ok("POST", f"/element/{user}/value", {"text": "mobium", "replace": False})  # value replaces, as 10.x's does
    assert c.ok("GET", f"/element/{user}/text") == "mobium"
    password = c.by_id("password")
    c.ok("POST", f"/element/{password}/value", {"text": "hunter2"})
    assert c.ok("GET", f"/element/{password}/attribute/password") == "true"
    assert c.ok("GET", f"/element/{password}/text") == "\u2022" * 7
    c.ok("POST", f"/element/{c.by_id('loginBtn')}/click", {})
    wait_for(lambda: "You are logged in." in c.source(), what="the signed-in screen")
    status, answer = c.call("GET", f"/session/{c.sid}/element/{user}/text")
    assert status == 404 and answer["value"]["error"] == "stale element reference"
    status, answer = c.call("POST", f"/session/{c.sid}/element/{c.by_id('secretText')}/value", {"text": "x"})
    assert status == 400 and answer["value"]["error"] == "invalid element state"


def test_keys_type_into_the_focused_field(served):
    device, c = served
    c.ok("POST", f"/element/{c.by_id('loginBtn')}/click", {})
    c.ok("POST", f"/element/{c.by_id('username')}/click", {})
    assert c.ok("GET", f"/element/{c.by_id('username')}/attribute/focused") == "true"
    c.ok("POST", "/keys", {"text": "mob"})
    c.ok("POST", "/keys", {"text": "mobium"})  # Mobium's app_type: what the field held, plus the text
    assert c.ok("GET", f"/element/{c.by_id('username')}/text") == "mobium"
    active = c.ok("GET", "/element/active")[ELEMENT_KEY]
    assert c.ok("GET", f"/element/{active}/attribute/resource-id") == "username"


def test_element_geometry_and_state(served):
    device, c = served
    logo = c.find("accessibility id", "Mobium")
    rect = c.ok("GET", f"/element/{logo}/rect")
    assert rect["width"] == rect["height"] == 252  # 96 dp at 2.625 px/dp
    assert c.ok("GET", f"/element/{logo}/location") == {"x": rect["x"], "y": rect["y"]}
    assert c.ok("GET", f"/element/{logo}/size") == {"width": 252, "height": 252}
    assert c.ok("GET", f"/element/{logo}/displayed") is True and c.ok("GET", f"/element/{logo}/enabled") is True
    assert c.ok("GET", f"/element/{logo}/selected") is False
    assert c.ok("GET", f"/element/{logo}/name") == "android.widget.ImageView"
    assert c.ok("GET", f"/element/{logo}/attribute/contentDescription") == "Mobium"
    status, answer = c.call("GET", f"/session/{c.sid}/element/{logo}/attribute/nonsense")
    assert status == 400 and answer["value"]["error"] == "invalid argument"
    png = base64.b64decode(c.ok("GET", f"/element/{logo}/screenshot"))
    assert png[:8] == b"\x89PNG\r\n\x1a\n"


def test_w3c_actions_tap_swipe_and_two_fingers(served):
    device, c = served
    login = c.by_id("loginBtn")
    tap = [{"type": "pointerMove", "duration": 0, "origin": {ELEMENT_KEY: login}, "x": 0, "y": 0},
           {"type": "pointerDown", "button": 0}, {"type": "pause", "duration": 60}, {"type": "pointerUp", "button": 0}]
    c.ok("POST", "/actions", {"actions": [{"type": "pointer", "id": "finger1",
                                           "parameters": {"pointerType": "touch"}, "actions": tap}]})
    assert "username" in c.source()
    c.ok("POST", "/back", {})
    assert 'resource-id="homeList"' in c.source()
    swipe = [{"type": "pointerMove", "duration": 0, "x": 540, "y": 1800}, {"type": "pointerDown", "button": 0},
             {"type": "pointerMove", "duration": 300, "x": 540, "y": 800}, {"type": "pointerUp", "button": 0}]
    c.ok("POST", "/actions", {"actions": [{"type": "pointer", "id": "f", "actions": swipe}]})
    assert device.current_activity().scroll_offsets.get("homeList", 0) == 1000  # a slow drag scrolls what it moved
    c.ok("POST", "/appium/device/press_keycode", {"keycode": 3})  # home
    Shell(device).run(f"am start -n {APP}/.MainActivity")
    c.ok("POST", f"/element/{c.by_id('gesturehubBtn')}/click", {})
    c.ok("POST", f"/element/{c.by_id('multitouchBtn')}/click", {})
    zone = c.ok("GET", f"/element/{c.by_id('tapZone')}/rect")
    x, y = zone["x"] + zone["width"] // 2, zone["y"] + zone["height"] // 2

    def finger(dx: int) -> list:
        return [{"type": "pointerMove", "duration": 0, "x": x + dx, "y": y}, {"type": "pointerDown", "button": 0},
                {"type": "pause", "duration": 80}, {"type": "pointerUp", "button": 0}]
    c.ok("POST", "/actions", {"actions": [{"type": "pointer", "id": "finger1", "actions": finger(-54)},
                                          {"type": "pointer", "id": "finger2", "actions": finger(54)}]})
    assert c.ok("GET", f"/element/{c.by_id('multiResult')}/text") == "multi: 2-finger tap"
    status, answer = c.call("POST", f"/session/{c.sid}/actions", {"actions": [{"type": "pointer", "id": "f",
                                                                             "actions": [{"type": "fly"}]}]})
    assert status == 400 and answer["value"]["error"] == "invalid argument"


def test_settings_screen_alerts_orientation_and_device(served):
    device, c = served
    assert c.ok("GET", "/appium/settings")["waitForIdleTimeout"] == 10000
    c.ok("POST", "/appium/settings", {"settings": {"waitForIdleTimeout": 500}})
    assert c.ok("GET", "/appium/settings")["waitForIdleTimeout"] == 500
    status, answer = c.call("POST", f"/session/{c.sid}/appium/settings", {"settings": {"waitForIdleTimeout": "x"}})
    assert status == 400 and answer["value"]["error"] == "invalid argument"
    assert c.ok("GET", "/window/current/size") == {"width": 1080, "height": 2400}
    assert c.ok("GET", "/window/rect") == {"x": 0, "y": 0, "width": 1080, "height": 2400}
    assert base64.b64decode(c.ok("GET", "/screenshot"))[:8] == b"\x89PNG\r\n\x1a\n"
    assert c.ok("GET", "/appium/device/system_bars")["statusBar"] == 136
    assert c.ok("GET", "/appium/device/info")["apiVersion"] == "35"
    assert c.ok("GET", "/orientation") == "PORTRAIT"
    status, answer = c.call("GET", f"/session/{c.sid}/alert/text")
    assert status == 404 and answer["value"]["error"] == "no such alert"
    answered = []
    with device.lock:
        device.show_dialog("Delete?", "Delete the draft?", [("Delete", "positive", lambda: answered.append("yes")),
                                                           ("Cancel", "negative", None)], APP)
    assert c.ok("GET", "/alert/text") == "Delete the draft?"
    c.ok("POST", "/alert/accept", {})
    assert answered == ["yes"] and c.call("GET", f"/session/{c.sid}/alert/text")[0] == 404
    c.ok("POST", "/appium/device/set_clipboard", {"content": base64.b64encode("pâte ✓".encode()).decode(),
                                                  "contentType": "plaintext"})
    assert device.clipboard == "pâte ✓"
    status, answer = c.call("GET", f"/session/{c.sid}/no/such/route")
    assert status == 404 and answer["value"]["error"] == "unknown command"
    status, answer = c.call("POST", f"/session/{c.sid}/element", b"{not json")
    assert status == 400 and answer["value"]["error"] == "invalid argument"


def test_the_servers_own_gestures_click_swipe_and_their_errors(served):
    device, c = served
    c.ok("POST", "/appium/gestures/swipe", {"origin": {ELEMENT_KEY: c.by_id("homeList")}, "direction": "up",
                                             "percent": 0.5, "speed": 3000})
    scrolled = device.current_activity().scroll_offsets.get("homeList", 0)
    assert scrolled > 0
    c.ok("POST", "/appium/gestures/swipe", {"area": {"left": 0, "top": 300, "width": 1080, "height": 1800},
                                             "direction": "down", "percent": 0.9})
    assert device.current_activity().scroll_offsets.get("homeList", 0) == 0
    c.ok("POST", "/appium/gestures/click", {"origin": {ELEMENT_KEY: c.by_id("loginBtn")}})
    assert 'resource-id="username"' in c.source()
    status, answer = c.call("POST", f"/session/{c.sid}/appium/gestures/swipe", {"direction": "sideways"})
    assert status == 400 and answer["value"]["error"] == "invalid argument"
    status, answer = c.call("POST", f"/session/{c.sid}/appium/gestures/click", {})
    assert status == 400 and answer["value"]["error"] == "invalid argument"


def test_scroll_and_fling_move_the_content_and_say_whether_it_can_go_further(served):
    """`/appium/gestures/scroll` and `fling` (what Appium's `mobile: scrollGesture` / `flingGesture` send): the
    direction is the content's, the finger goes the other way; the answer is whether more is left that way."""
    device, c = served
    home = {"origin": {ELEMENT_KEY: c.by_id("homeList")}}

    def offset() -> int:
        return device.current_activity().scroll_offsets.get("homeList", 0)

    def most() -> int:
        return device.scroll_state("homeList")[1]

    assert most() > 0
    assert c.ok("POST", "/appium/gestures/scroll", {**home, "direction": "down", "percent": 0.3}) is True
    assert 0 < offset() < most()
    assert c.ok("POST", "/appium/gestures/scroll", {**home, "direction": "down", "percent": 50}) is False
    assert offset() == most()  # stopped at the end, not 50 areas later
    assert c.ok("POST", "/appium/gestures/scroll", {**home, "direction": "down", "percent": 0.5}) is False
    assert c.ok("POST", "/appium/gestures/fling", {**home, "direction": "up"}) == (offset() > 0)
    assert offset() < most()
    assert c.ok("POST", "/appium/gestures/scroll", {**home, "direction": "up", "percent": 50}) is False
    assert offset() == 0
    # Nothing under the area scrolls sideways: nothing moved, nothing further.
    assert c.ok("POST", "/appium/gestures/scroll", {**home, "direction": "right", "percent": 0.5}) is False
    for route, body, problem in [
        ("scroll", {**home, "direction": "down"}, "'percent'"),
        ("scroll", {**home, "direction": "across", "percent": 0.5}, "'direction'"),
        ("fling", {**home, "direction": "down", "speed": 10}, "minimum fling velocity"),
        ("fling", {"direction": "down"}, "an area"),
    ]:
        status, answer = c.call("POST", f"/session/{c.sid}/appium/gestures/{route}", body)
        assert status == 400 and answer["value"]["error"] == "invalid argument", (route, answer)
        assert problem in answer["value"]["message"], (route, answer)


def test_pinch_open_and_close_zoom_the_page_with_two_fingers(served):
    """`/appium/gestures/pinch_open` and `pinch_close` (`mobile: pinchOpenGesture` / `pinchCloseGesture`): two
    fingers together on the element, which the Pinch and Spread page reads as its zoom."""
    device, c = served
    c.ok("POST", f"/element/{c.by_id('gesturehubBtn')}/click", {})
    wait_for(lambda: 'resource-id="pinchBtn"' in c.source(), what="the gesture hub")
    c.ok("POST", f"/element/{c.by_id('pinchBtn')}/click", {})
    wait_for(lambda: "scale 1.00" in c.source(), what="the pinch page")
    page = {"origin": {ELEMENT_KEY: c.by_id("pinchWebview")}}

    def scale() -> float:
        import re

        return float(re.search(r"scale (\d+\.\d+)", c.source()).group(1))

    c.ok("POST", "/appium/gestures/pinch_open", {**page, "percent": 0.8})
    grown = scale()
    assert grown > 1.5
    c.ok("POST", "/appium/gestures/pinch_close", {**page, "percent": 0.8, "speed": 3000})
    assert scale() < 0.7 * grown
    status, answer = c.call("POST", f"/session/{c.sid}/appium/gestures/pinch_open", {**page, "percent": 1.5})
    assert status == 400 and "'percent'" in answer["value"]["message"]


def test_a_read_of_a_screen_in_motion_takes_what_an_emulators_does(served):
    # CHALLENGES 109, on a Pixel 7 AVD with Mobium's 500 ms idle wait: a read mid-burst took 1.3-1.7 s, the idle
    # wait and a slow snapshot of views in motion. A held clock at the emulator's pace reads the time spent exactly.
    device, c = served
    device.pace = EMULATOR
    device.clock.hold(True)
    c.ok("POST", "/appium/settings", {"settings": {"waitForIdleTimeout": 500}})
    Shell(device).run(f"am start -n {APP}/.MainActivity")
    c.ok("POST", f"/element/{c.find('accessibility id', 'Motion Demo')}/click")
    device.clock.advance(3)  # its two targets slide in as it opens: past that, it holds still
    before = device.clock.now()
    c.source()
    still = device.clock.now() - before
    assert still == pytest.approx(EMULATOR.uia2_read + STILL_WINDOW_S)  # one look a window later: it holds still
    c.ok("POST", f"/element/{c.by_id('celebrateBtn')}/click")
    before = device.clock.now()
    c.source()  # the burst has just begun: every piece is still above the screen, and falling
    assert device.clock.now() - before == pytest.approx(EMULATOR.uia2_read_moving)
