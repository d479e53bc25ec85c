"""app_crashes through the MCP stdio client against the virtual device: the Crash Demo's JavaScript error listed
newest first in Mobium's line and structuredContent, read in full by id, not drained, kept across clear-data; and
its refusals. The DropBox parsing itself on Android's own text."""

from __future__ import annotations

import re

import adbutils
import pytest

from pytest_mobium_evals.mobium_server.crash_reports import anr_lead, go_time, parse_dropbox
from pytest_mobium_evals.reach.toolserver import ToolError

APP = "dev.mobium.mobiumapp"
JS_ERROR = "com.facebook.react.common.JavascriptException: Error: mobium-crash-control: an unhandled JavaScript error"
LISTING = re.compile(r"^data_app_crash@(\d{13})  \d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ  crash  dev\.mobium\.mobiumapp — "
                     + re.escape(JS_ERROR) + ", stack:$")


def refused(tools, tool, /, **args) -> ToolError:
    with pytest.raises(ToolError) as e:
        tools.call(tool, **args)
    return e.value


def crash_demo(tools) -> None:
    tools.call("app_tap", target="testid=crashBtn")
    tools.call("app_tap", target="testid=crashJsBtn")


@pytest.fixture
def device(sim_server):
    return adbutils.AdbClient(host="127.0.0.1", port=sim_server.port).device(sim_server.serials[0])


def test_the_crash_demo_is_listed_newest_first_and_read_in_full_by_id(fresh, sim_server, device):
    before = fresh.call("app_crashes", app=APP).data["crashes"]
    crash_demo(fresh)
    assert fresh.call("app_state", app=APP).data["state"] == "not_running"
    listed = fresh.call("app_crashes", app=APP, limit=1)
    assert LISTING.match(listed.text.splitlines()[-1]), listed.text
    [newest] = listed.data["crashes"]
    assert set(newest) == {"id", "time", "kind", "app", "summary"}
    assert newest["kind"] == "crash" and newest["app"] == APP and newest["summary"].startswith(JS_ERROR)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d{1,3})?Z", newest["time"])
    assert newest["id"] not in [c["id"] for c in before]
    assert listed.data["total"] == len(before) + 1 and listed.data["device"] == sim_server.serials[0]
    if before:
        assert listed.text.startswith(f"the newest 1 of {len(before) + 1}\n")

    one = fresh.call("app_crashes", id=newest["id"])
    assert one.text.startswith("SystemUptimeMs: ") and f"\nProcess: {APP}\n" in one.text
    assert f"\n\n{JS_ERROR}, stack:\n" in one.text
    assert one.data["crashes"][0]["text"] == one.text and "total" not in one.data
    assert one.text in device.shell("dumpsys dropbox -p data_app_crash")  # the entry as Android prints it

    again = fresh.call("app_crashes", app=APP, limit=20).data["crashes"]
    assert again[0]["id"] == newest["id"], "the listing was drained"


def test_a_record_outlives_clear_data_and_a_relaunch(fresh):
    crash_demo(fresh)
    newest = fresh.call("app_crashes", app=APP, limit=1).data["crashes"][0]["id"]
    fresh.call("app_clear_data", app=APP)
    fresh.call("app_launch", app=APP)
    assert fresh.call("app_crashes", app=APP, limit=5).data["crashes"][0]["id"] == newest


def test_no_crashes_for_an_app_that_never_crashed(fresh):
    res = fresh.call("app_crashes", app="com.android.settings")
    assert res.text == "no crashes recorded for com.android.settings"
    assert res.data["crashes"] == [] and res.data["app"] == "com.android.settings" and "total" not in res.data


def test_refusals(fresh):
    bad = refused(fresh, "app_crashes", id="x")
    assert bad.code == "invalid_argument"
    assert bad.message == ('"x" is not a crash id — use one from `mobium crashes`, which look like '
                           "data_app_crash@1790357773461")
    assert "not both" in refused(fresh, "app_crashes", id="data_app_crash@1", app=APP).message
    gone = refused(fresh, "app_crashes", id="data_app_crash@1000000000000").message
    assert gone.startswith("no crash data_app_crash@1000000000000 on this device — dropbox keeps a bounded number")


# Android's own text, from an API 35 emulator: an ANR with its Subject below the header, a native crash.
ANR = """========================================
2026-09-25 16:30:00 data_app_anr (text, 900 bytes)
/data/system/dropbox/data_app_anr@1790379000000.txt
Process: dev.mobium.mobiumapp
PID: 11500
Flags: 0x20c8be44
Package: dev.mobium.mobiumapp v1 (1.0.0)
Foreground: Yes

Subject: Input dispatching timed out (dev.mobium.mobiumapp/.MainActivity is not responding. Waited 5001ms)
CPU usage from 0ms to 5000ms later:

========================================
2026-09-22 11:32:22 system_app_native_crash (text, 5421 bytes)
/data/system/dropbox/system_app_native_crash@1790101942587.txt
Process: com.google.android.bluetooth
Dropped-Count: 2

*** *** *** *** *** *** *** *** *** *** *** *** *** *** *** ***
signal 6 (SIGABRT), code -1 (SI_QUEUE), fault addr --------
Abort message: 'hci_layer.cc:478 on_hardware_error'
"""


def test_dropbox_parsing_of_an_anr_and_a_native_crash():
    anr, native = parse_dropbox(ANR)
    assert (anr.id, anr.kind, anr.app) == ("data_app_anr@1790379000000", "anr", APP)
    assert anr.summary.startswith("Input dispatching timed out")
    assert anr_lead(anr.summary, anr.text).startswith("ANR: Input dispatching timed out")
    assert "No thread stacks" in anr_lead(anr.summary, anr.text)
    assert native.kind == "native_crash" and native.summary == "Abort message: 'hci_layer.cc:478 on_hardware_error'"
    assert native.dropped == 2 and native.view(full=False)["dropped"] == 2
    assert go_time(1790101942587) == "2026-09-22T18:32:22.587Z" and go_time(1790101942500) == "2026-09-22T18:32:22.5Z"
