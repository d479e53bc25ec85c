"""mobile-mcp 1.0.4 from npm, unchanged, over MCP (the `mcp` Python client, through the harness's `Tools` and
`--tool-server`'s spec) against the virtual device: every tool but the cloud ones called once, each answering
without error, and what it did read back from the device's own state."""

from __future__ import annotations

import json
import re
import sys
import threading
from pathlib import Path

import pytest

from pytest_mobium_evals import sim
from pytest_mobium_evals.reach.toolserver import Tools, ToolServerSpec

CLOUD_TOOLS = {"mobile_login_to_cloud_provider", "mobile_list_remote_devices", "mobile_allocate_remote_device",
               "mobile_release_remote_device"}
# mobile-mcp answers a mistake it can name (a device not found, a bad argument) as text, not isError.
REFUSAL = re.compile(r"Please fix the issue and try again\.$")


@pytest.fixture
def device_and_tools(mobile_mcp, tmp_path, monkeypatch):
    monkeypatch.setenv("HOME", str(tmp_path))  # the emulator console's token file, the test's own
    with sim.start(devices=1, console=True) as server:
        serial = server.serials[0]
        spec = ToolServerSpec.external(mobile_mcp, serial, "127.0.0.1", server.port)
        with Tools(spec, timeout=120) as tools:
            yield server.device(), serial, tools


def answer(tools: Tools, name: str, **arguments):
    result = tools.call(name, check=False, **arguments)
    assert not result.is_error, f"{name}: {result.text}"
    assert not REFUSAL.search(result.text or ""), f"{name}: {result.text}"
    return result


def element_centre(listing: str, text: str, kind: str = r"\w+") -> tuple[int, int]:
    m = re.search(rf'^@e\d+ {kind} text="{re.escape(text)}".*? at=(\d+),(\d+) size=(\d+)x(\d+)', listing, re.M)
    assert m, f"no element {text!r} in:\n{listing}"
    x, y, w, h = map(int, m.groups())
    return x + w // 2, y + h // 2


def test_every_non_cloud_tool_answers_on_the_virtual_device(device_and_tools, tmp_path):
    device, serial, tools = device_and_tools
    names = set(tools.tool_names)
    called: set[str] = set()

    def call(name: str, **arguments):
        called.add(name)
        return answer(tools, name, **({"device": serial} | arguments) if name != "mobile_list_available_devices"
                      else arguments)

    listed = json.loads(call("mobile_list_available_devices").text)["devices"]
    assert [(d["id"], d["platform"], d["version"]) for d in listed] == [(serial, "android", "15")]
    assert "Settings (com.android.settings)" in call("mobile_list_apps").text
    call("mobile_launch_app", packageName="com.android.settings")
    assert "com.android.settings" in call("mobile_get_foreground_app").text
    assert "1080x2400" in call("mobile_get_screen_size").text

    listing = call("mobile_list_elements_on_screen").text
    x, y = element_centre(listing, "Display")
    call("mobile_click_on_screen_at_coordinates", x=x, y=y)
    assert 'text="Dark theme"' in call("mobile_list_elements_on_screen").text
    call("mobile_press_button", button="BACK")
    call("mobile_double_tap_on_screen", x=540, y=1200)
    call("mobile_long_press_on_screen_at_coordinates", x=540, y=1200)
    call("mobile_swipe_on_screen", direction="up")

    # Typing: ASCII through `input text`, the rest through the DeviceServer's clipboard and a paste.
    call("mobile_terminate_app", packageName="com.android.settings")  # Settings reopens on its main list
    assert "com.android.settings" not in device.processes
    call("mobile_launch_app", packageName="com.android.settings")
    x, y = element_centre(call("mobile_list_elements_on_screen").text, "Search Settings")
    call("mobile_click_on_screen_at_coordinates", x=x, y=y)
    x, y = element_centre(call("mobile_list_elements_on_screen").text, "Search settings", kind="EditText")
    call("mobile_click_on_screen_at_coordinates", x=x, y=y)  # the field, focused
    call("mobile_type_keys", text="dark ", submit=False)
    call("mobile_type_keys", text="thème ✓", submit=False)
    listing = call("mobile_list_elements_on_screen").text
    assert 'text="dark thème ✓"' in listing, listing

    assert call("mobile_take_screenshot").image
    call("mobile_save_screenshot", saveTo=str(tmp_path / "shot.png"))
    assert (tmp_path / "shot.png").read_bytes()[:4] == b"\x89PNG"

    call("mobile_set_orientation", orientation="landscape")
    assert device.settings("system")["user_rotation"] == "1"
    assert "landscape" in call("mobile_get_orientation").text
    call("mobile_set_orientation", orientation="portrait")
    assert device.settings("system")["user_rotation"] == "0"

    call("mobile_set_location", latitude=48.8566, longitude=2.3522)  # through `adb emu geo fix`
    assert device.location == (48.8566, 2.3522)
    call("mobile_clipboard", text="copié ✓")
    assert device.clipboard == "copié ✓" and call("mobile_clipboard").text == "copié ✓"

    # Live logs, as the tool's description asks: the behaviour to watch happens during the call (an app logging
    # a line every 100 ms), and the call ends at its limit, mobilecli counting the lines `logcat -T 1` streams.
    logs = [json.loads(line) for line in while_logging(device, "McpProbe", lambda: call(
        "mobile_get_device_logs", limit=5, filter=["tag=McpProbe"])).text.splitlines()]
    assert [(e["tag"], e["level"]) for e in logs] == [("McpProbe", "Info")] * 5, logs
    assert re.match(r"^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}$", logs[0]["timestamp"])

    video = tmp_path / "rec.mp4"
    call("mobile_start_screen_recording", output=str(video))
    call("mobile_get_screen_size")
    assert "Recording stopped. File:" in call("mobile_stop_screen_recording").text
    assert video.read_bytes()[4:12] == b"ftypisom"

    call("mobile_launch_app", packageName="dev.mobium.mobiumapp")
    with device.lock:  # an app's code raising: the device records the crash as Android does
        device._call("dev.mobium.mobiumapp", _raise)
    crashes = json.loads(call("mobile_list_crashes").text)
    assert crashes, "the crash is listed"
    assert "mobium-test-crash" in call("mobile_get_crash", id=crashes[0]["id"]).text

    call("mobile_open_url", url="https://example.com")
    assert device.current_activity().package.name == "com.android.chrome"
    assert "HOME" in call("mobile_batch_commands",
                          steps=[{"name": "mobile_press_button", "arguments": {"button": "HOME"}}]).text

    install_tools = {"mobile_install_app", "mobile_uninstall_app"}  # test_install_and_uninstall, below
    assert names - CLOUD_TOOLS - install_tools == called


def while_logging(device, tag: str, act):
    """`act()`'s answer, with the device's app logging a line under `tag` every 100 ms while it runs."""
    stop = threading.Event()

    def app() -> None:
        n = 0
        while not stop.wait(0.1):
            with device.lock:
                device.log(tag, f"line {n}", "I", pid=4242)
            n += 1

    thread = threading.Thread(target=app, daemon=True)
    thread.start()
    try:
        return act()
    finally:
        stop.set()
        thread.join()


def _raise() -> None:
    raise RuntimeError("mobium-test-crash")


def test_install_and_uninstall(device_and_tools, tmp_path):
    """An APK built here (tests/sim/apk_builder.py: a manifest with a launcher activity) installed with
    `adb install -r` and removed with `adb uninstall`, both through mobile-mcp; the package manager reads it back."""
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "sim"))
    from apk_builder import build_apk, launcher_activity, manifest

    device, serial, tools = device_and_tools
    apk = tmp_path / "tiny.apk"
    apk.write_bytes(build_apk(manifest("dev.example.tiny", version_code=7, version_name="7.1",
                                       activities=[launcher_activity(".MainActivity")])))
    answer(tools, "mobile_install_app", device=serial, path=str(apk))
    assert device.packages["dev.example.tiny"].version_name == "7.1"
    assert "(dev.example.tiny)" in answer(tools, "mobile_list_apps", device=serial).text
    answer(tools, "mobile_uninstall_app", device=serial, bundle_id="dev.example.tiny")
    assert "dev.example.tiny" not in device.packages
