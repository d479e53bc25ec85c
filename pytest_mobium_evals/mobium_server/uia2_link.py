"""The screen read through Appium's UiAutomator2 server on the device, as Mobium's default driver reads it
(mobiumdev/mobium `internal/mobiumdriver/uia2.go`): when the server and its test package are installed, `am instrument
-w` of its runner is started over ADB and kept running, `adb forward tcp:0 tcp:6790` reaches it, a session is opened
with the idle wait capped at 500 ms (Mobium's `capIdleWait`), and each read is one `GET /session/:id/source`.

Only ADB reaches the device: the same code reads a real emulator that has the server installed. A read that finds the
server gone (the instrumentation stopped, the session replaced by another client) starts it again once, as Mobium's
driver reopens its session."""

from __future__ import annotations

import http.client
import json
import time

import adbutils

from .errors import MobiumError

SERVER_PACKAGE = "io.appium.uiautomator2.server"
TEST_PACKAGE = "io.appium.uiautomator2.server.test"
DEVICE_PORT = 6790
INSTRUMENT = ("am instrument -w -e disableAnalytics true "
              f"{TEST_PACKAGE}/androidx.test.runner.AndroidJUnitRunner")
IDLE_WAIT_MS = 500
READY_TIMEOUT_S = 45.0  # Mobium's serverReadyTimeout
REQUEST_TIMEOUT_S = 60.0


def installed(shell) -> bool:
    """Whether both of the server's packages are on the device (`shell` runs one adb shell command)."""
    listed = set(shell(f"pm list packages {SERVER_PACKAGE}").split())
    return f"package:{SERVER_PACKAGE}" in listed and f"package:{TEST_PACKAGE}" in listed


class Uia2Link:
    def __init__(self, client: adbutils.AdbClient, serial: str):
        self.client = client
        self.serial = serial
        self.instrumentation = None     # the adb shell stream `am instrument -w` runs in, held open
        self.port = 0
        self.session = ""
        self._http: http.client.HTTPConnection | None = None

    # --- starting and stopping -----------------------------------------------------------------------------------
    def start(self) -> None:
        self.close()
        dev = self.client.device(self.serial)
        dev.shell(f"am force-stop {SERVER_PACKAGE}")  # a server left by an earlier client would answer for a moment
        self.instrumentation = dev.shell(INSTRUMENT, stream=True)
        self.port = self._forward()
        deadline = time.monotonic() + READY_TIMEOUT_S
        while not self._ready():
            if time.monotonic() > deadline:
                self.close()
                raise MobiumError("device_server", f"the UiAutomator2 server on {self.serial} did not answer /status "
                                  f"within {READY_TIMEOUT_S:.0f}s of `{INSTRUMENT}`", retryable=True)
            time.sleep(0.05)
        self._open_session()

    def _forward(self) -> int:
        """`adb forward tcp:0 tcp:6790`: the ADB server picks the port and says which."""
        conn = self.client.make_connection()
        try:
            conn.send_command(f"host-serial:{self.serial}:forward:tcp:0;tcp:{DEVICE_PORT}")
            conn.check_okay()
            conn.check_okay()
            return int(conn.read_string_block())
        finally:
            conn.close()

    def _open_session(self) -> None:
        answer = self._call("POST", "/session", {"capabilities": {"firstMatch": [{}], "alwaysMatch": {}}})
        self.session = answer.get("sessionId") or answer["value"]["sessionId"]
        path = f"/session/{self.session}/appium/settings"
        self._call("POST", path, {"settings": {"waitForIdleTimeout": IDLE_WAIT_MS}})
        got = self._call("GET", path)["value"].get("waitForIdleTimeout")
        if got != IDLE_WAIT_MS:
            raise MobiumError("device_server", f"the UiAutomator2 server accepted waitForIdleTimeout {IDLE_WAIT_MS} "
                              f"and reads back {got!r}")

    def close(self) -> None:
        if self.session:
            try:
                self._call("DELETE", f"/session/{self.session}")
            except (OSError, MobiumError, ValueError):
                pass  # already gone
            self.session = ""
        if self._http is not None:
            self._http.close()
            self._http = None
        if self.port:
            try:
                conn = self.client.make_connection()
                conn.send_command(f"host-serial:{self.serial}:killforward:tcp:{self.port}")
                conn.check_okay()
                conn.close()
            except (OSError, adbutils.AdbError):
                pass
            self.port = 0
        if self.instrumentation is not None:
            self.instrumentation.close()
            self.instrumentation = None

    # --- reading -------------------------------------------------------------------------------------------------
    def source(self) -> str:
        """The hierarchy, in the server's XML; a server that went away is started again once."""
        if not self.session:
            self.start()
        try:
            return self._call("GET", f"/session/{self.session}/source")["value"]
        except (OSError, http.client.HTTPException, MobiumError):
            self.start()
            return self._call("GET", f"/session/{self.session}/source")["value"]

    def _ready(self) -> bool:
        try:
            return bool(self._call("GET", "/status")["value"].get("ready"))
        except (OSError, http.client.HTTPException, MobiumError, ValueError):
            return False

    def _call(self, method: str, path: str, body: dict | None = None) -> dict:
        if self._http is None:
            self._http = http.client.HTTPConnection("127.0.0.1", self.port, timeout=REQUEST_TIMEOUT_S)
        data = None if body is None else json.dumps(body).encode()
        try:
            self._http.request(method, path, body=data, headers={"Content-Type": "application/json"})
            response = self._http.getresponse()
            raw = response.read()
        except (OSError, http.client.HTTPException):
            self._http.close()
            self._http = None
            raise
        answer = json.loads(raw or b"{}")
        value = answer.get("value")
        if isinstance(value, dict) and value.get("error"):
            raise MobiumError("device_server", f"UiAutomator2 server: {value['error']}: "
                              f"{str(value.get('message', '')).splitlines()[0] if value.get('message') else ''}",
                              retryable=value["error"] == "invalid session id")
        return answer
