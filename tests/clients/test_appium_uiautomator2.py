"""Appium 3 with its UiAutomator2 driver, from npm and unchanged, drives MobiumApp on the virtual device.

The session has the default capabilities (`appium:automationName UiAutomator2`, and the ADB server's port, since the
virtual device's ADB server is not on 5037): the driver installs io.appium.settings and the UiAutomator2 server's two
APKs with the stock `adb` (Debian's, as ANDROID_HOME/platform-tools/adb), starts the server with `am instrument`,
forwards to it, and proxies the W3C commands below to it. The client is Python's standard library speaking W3C
WebDriver to Appium's server, which is the lightest to install; the point is Appium's server and driver.

Appium lives in the one folder of real clients (`.clients/`, or $MOBIUM_EVALS_CLIENTS), with APPIUM_HOME there; .ci/run
fills it with `npm install --prefix .clients appium@3.8.0 appium-uiautomator2-driver@8.7.0 …`. Without it, or without
node or adb, the test skips and says why.
"""

from __future__ import annotations

import base64
import io
import json
import os
import shutil
import socket
import subprocess
import urllib.error
import urllib.request
from pathlib import Path

import pytest
from polling import wait_for

REPO = Path(__file__).resolve().parents[2]
APP = "dev.mobium.mobiumapp"
ELEMENT_KEY = "element-6066-11e4-a52e-4f735466cecf"


def clients_dir() -> Path:
    return Path(os.environ.get("MOBIUM_EVALS_CLIENTS") or REPO / ".clients")


def appium_binary() -> Path:
    appium = clients_dir() / "node_modules" / ".bin" / "appium"
    driver = clients_dir() / "node_modules" / "appium-uiautomator2-driver" / "package.json"
    if not appium.is_file() or not driver.is_file():
        pytest.skip(f"Appium is not in {clients_dir()}: run `npm install --prefix .clients appium@3.8.0 "
                    "appium-uiautomator2-driver@8.7.0` (as .ci/run does)")
    if shutil.which("node") is None:
        pytest.skip("node is not installed (Appium runs on it)")
    version = subprocess.run(["node", "--version"], capture_output=True, text=True).stdout.strip()
    major, minor = (int(p) for p in version.lstrip("v").split(".")[:2])
    if not (major == 20 and minor >= 19 or major == 22 and minor >= 12 or major >= 24):
        pytest.skip(f"node {version} is older than Appium 3 runs on (^20.19, ^22.12 or >=24; its package.json)")
    adb = shutil.which("adb")
    if adb is None:
        pytest.skip("Debian's `adb` is not installed (apt-get install adb)")
    return appium


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class W3C:
    """A W3C WebDriver client in a few lines of the standard library: Appium's answers are {"value": …}."""

    def __init__(self, port: int):
        self.base = f"http://127.0.0.1:{port}"
        self.sid = ""

    def call(self, method: str, path: str, body: dict | None = None, timeout: float = 300):
        data = None if body is None else json.dumps(body).encode()
        request = urllib.request.Request(self.base + path, data=data, method=method,
                                         headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(request, timeout=timeout) as answer:
                return json.loads(answer.read())["value"]
        except urllib.error.HTTPError as exc:
            raise AssertionError(f"{method} {path}: HTTP {exc.code} {exc.read()[:2000]!r}") from None

    def session(self, method: str, suffix: str, body: dict | None = None):
        return self.call(method, f"/session/{self.sid}{suffix}", body)

    def find_all(self, using: str, value: str) -> list[str]:
        return [e[ELEMENT_KEY] for e in self.session("POST", "/elements", {"using": using, "value": value})]

    def find(self, using: str, value: str, timeout: float = 30) -> str:
        # each look has the device build its page source: ten a second, not two hundred
        return wait_for(lambda: (self.find_all(using, value) or [None])[0], timeout, f"{using}={value}", 0.1)


@pytest.fixture
def appium(tmp_path):
    binary = appium_binary()
    from pytest_mobium_evals import sim

    android_home = tmp_path / "android-sdk"
    (android_home / "platform-tools").mkdir(parents=True)
    (android_home / "platform-tools" / "adb").symlink_to(shutil.which("adb"))
    with sim.start(devices=1) as server:
        port = free_port()
        env = {**os.environ, "APPIUM_HOME": str(clients_dir()), "ANDROID_HOME": str(android_home),
               "ANDROID_SDK_ROOT": str(android_home)}
        log = tmp_path / "appium.log"
        with open(log, "w") as out:
            process = subprocess.Popen([str(binary), "--address", "127.0.0.1", "--port", str(port),
                                        "--log-no-colors", "--log-level", "debug"], env=env, stdout=out,
                                       stderr=subprocess.STDOUT)
        client = W3C(port)
        try:
            wait_for(lambda: _answers(client), 120, "Appium's server to answer /status", 0.1)
            yield client, server, log
        finally:
            if client.sid:
                try:
                    client.call("DELETE", f"/session/{client.sid}", timeout=60)
                except (AssertionError, OSError):
                    pass
            process.terminate()
            try:
                process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                process.kill()


def _answers(client: W3C) -> bool:
    try:
        client.call("GET", "/status", timeout=5)
        return True
    except (AssertionError, OSError):
        return False


def test_appium_runs_a_session_and_drives_mobiumapp(appium):
    client, server, log = appium
    from PIL import Image

    created = client.call("POST", "/session", {"capabilities": {"firstMatch": [{}], "alwaysMatch": {
        "platformName": "Android", "appium:automationName": "UiAutomator2", "appium:adbPort": server.port}}})
    client.sid = created["sessionId"]
    caps = created["capabilities"]
    assert (caps["deviceName"], caps["deviceApiLevel"], caps["deviceScreenSize"]) == ("emulator-5554", 35,
                                                                                      "1080x2400")
    device = server.device()
    assert device.instrumentation("io.appium.uiautomator2.server.test/androidx.test.runner.AndroidJUnitRunner")
    assert "io.appium.settings" in device.packages

    client.session("POST", "/execute/sync", {"script": "mobile: activateApp", "args": [{"appId": APP}]})
    home = client.find("accessibility id", "Mobium")
    assert client.session("GET", f"/element/{home}/attribute/resource-id") == "mobiumLogo"

    # a swipe up the home list, as W3C actions through Appium to the device's server
    title = client.find("xpath", "//*[@resource-id='title']")
    before = client.session("GET", f"/element/{title}/rect")["y"]
    client.session("POST", "/actions", {"actions": [{"type": "pointer", "id": "finger1",
                                                     "parameters": {"pointerType": "touch"}, "actions": [
        {"type": "pointerMove", "duration": 0, "x": 540, "y": 1500}, {"type": "pointerDown", "button": 0},
        {"type": "pointerMove", "duration": 400, "x": 540, "y": 1200}, {"type": "pointerUp", "button": 0}]}]})
    assert client.session("GET", f"/element/{title}/rect")["y"] == before - 300

    # the server's own gestures through Appium's `mobile:` commands: a scroll answers whether more is left
    listed = client.find("xpath", "//*[@resource-id='homeList']")

    def scroll(direction: str, percent: float) -> bool:
        return client.session("POST", "/execute/sync", {"script": "mobile: scrollGesture", "args": [
            {"elementId": listed, "direction": direction, "percent": percent}]})

    assert scroll("down", 0.3) is True
    assert scroll("up", 20) is False  # back at the top, where the title is where it was
    title = client.find("xpath", "//*[@resource-id='title']")
    assert client.session("GET", f"/element/{title}/rect")["y"] == before

    # the server's own scrolls to an element (`mobile: scroll`: /gestures/scroll_to; `mobile: scrollBackTo`:
    # /appium/element/:id/scroll_to/:id2) and the driver's first-visible-child locator
    # (/appium/element/:id/first_visible)
    def execute(script: str, **args):
        return client.session("POST", "/execute/sync", {"script": script, "args": [args]})

    uiselector = "-android uiautomator"
    home_list = client.find(uiselector, 'new UiSelector().resourceId("homeList")')
    logo = client.find(uiselector, 'new UiSelector().description("Mobium")')  # held as UiObjects
    content = client.find("xpath", "//*[@resource-id='homeList']/*")

    def first_visible() -> str:
        child = client.session("POST", f"/element/{content}/element",
                               {"using": "xpath", "value": '/*[@firstVisible="true"]'})[ELEMENT_KEY]
        return client.session("GET", f"/element/{child}/attribute/resource-id")

    assert first_visible() == "mobiumLogo" and not client.find_all("accessibility id", "Accessibility Demo")
    assert execute("mobile: scroll", strategy="accessibility id", selector="Accessibility Demo") is None
    a11y = client.find("accessibility id", "Accessibility Demo")
    assert client.session("GET", f"/element/{a11y}/rect")["y"] < 2337  # on screen, above the navigation bar
    assert first_visible() != "mobiumLogo"
    with pytest.raises(AssertionError, match="Unsupported strategy: .+id.+ The only supported"):
        execute("mobile: scroll", strategy="id", selector="loginBtn")
    with pytest.raises(AssertionError, match="Cannot scroll to the element"):
        execute("mobile: scroll", strategy="accessibility id", selector="No Such Row", maxSwipes=2)
    with pytest.raises(AssertionError, match="only UiSelector is supported"):
        execute("mobile: scrollBackTo", elementId=content, elementToId=logo)
    assert execute("mobile: scrollBackTo", elementId=home_list, elementToId=logo) is None  # the driver drops the answer
    assert client.session("GET", f"/element/{client.find('accessibility id', 'Mobium')}/rect")["y"] == 188

    # sign in as app_fill types: the field's value set whole (non-ASCII too), then the button
    client.session("POST", f"/element/{client.find('accessibility id', 'Login Demo')}/click", {})
    user = client.find("xpath", "//android.widget.EditText[@resource-id='username']")
    client.session("POST", f"/element/{user}/value", {"text": "mobium ✓"})
    assert client.session("GET", f"/element/{user}/text") == "mobium ✓"
    client.session("POST", f"/element/{user}/clear", {})
    client.session("POST", f"/element/{user}/value", {"text": "mobium"})
    password = client.find("-android uiautomator", 'new UiSelector().resourceId("password")')
    client.session("POST", f"/element/{password}/value", {"text": "hunter2"})
    log_in = client.find("xpath", '//*[@resource-id="loginBtn"]')
    client.session("POST", f"/element/{log_in}/click", {})
    client.find("xpath", "//*[@text='You are logged in.']")

    # the server's other gestures and device calls, through Appium's own commands, on Settings' list
    execute("mobile: setClipboard", content=base64.b64encode("copié ✓".encode()).decode())
    assert base64.b64decode(execute("mobile: getClipboard")).decode() == "copié ✓" == device.clipboard
    execute("mobile: activateApp", appId="com.android.settings")
    rows = client.find(uiselector, "new UiSelector().scrollable(true)")
    execute("mobile: dragGesture", startX=540, startY=1800, endX=540, endY=1300)
    assert execute("mobile: flingGesture", elementId=rows, direction="up") is False  # back at the top
    execute("mobile: pinchOpenGesture", elementId=rows, percent=0.5)
    assert client.session("GET", "/orientation") == "PORTRAIT"
    client.session("POST", "/orientation", {"orientation": "LANDSCAPE"})
    assert client.session("GET", "/orientation") == "LANDSCAPE" and device.settings("system")["user_rotation"] == "1"
    client.session("POST", "/orientation", {"orientation": "PORTRAIT"})
    execute("mobile: doubleClickGesture", elementId=client.find("xpath", "//*[@text='Display']"))
    client.find("xpath", "//*[@text='Dark theme']")  # the double click opened Display
    execute("mobile: activateApp", appId=APP)
    secret = client.find("xpath", "//*[@resource-id='secretText']")
    execute("mobile: longClickGesture", elementId=secret, duration=600)

    source = client.session("GET", "/source")
    assert source.startswith("<?xml") and '<hierarchy index="0" class="hierarchy"' in source
    assert 'resource-id="secretText"' in source and "<node" not in source
    png = base64.b64decode(client.session("GET", "/screenshot"))
    assert Image.open(io.BytesIO(png)).size == (1080, 2400)

    # what the driver ran on the device, and that none of it failed
    text = log.read_text()
    for step in ("install -g", "settings_apk-debug.apk", "appium-uiautomator2-server-v10.6.6.apk",
                 "[Instrumentation] INSTRUMENTATION_STATUS_CODE: 1", "forward tcp:"):
        assert step in text, f"Appium's log does not show `{step}`"
    failed = [line for line in text.splitlines() if "exited with code" in line and "[Instrumentation]" not in line]
    assert not failed, "\n".join(failed)
