"""Crash records on the virtual device, read through its shell as Mobium and a harness read them: `dumpsys dropbox`
entries with Android's header and the exception, logcat's crash ring, system_server's lines that the app died, and
the records outliving `pm clear` and restarts."""

from __future__ import annotations

import re

import pytest
from mobiumapp_harness import APP, Driver

JS_LINE = ("com.facebook.react.common.JavascriptException: Error: mobium-crash-control: an unhandled JavaScript "
           "error, stack:")
HEADER = ("SystemUptimeMs", "Process", "PID", "UID", "Frozen", "Flags", "Package", "Foreground", "Process-Runtime",
          "Timestamp", "Build", "Crash-Handler", "Loading-Progress", "Dropped-Count")


@pytest.fixture
def d() -> Driver:
    drv = Driver()
    drv.launch()
    return drv


def crash_js(d: Driver) -> int:
    """Opens the Crash Demo and crashes it; returns the pid that died."""
    d.open("crashBtn")
    pid = int(d.shell(f"pidof {APP}").strip())
    d.tap("crashJsBtn")
    return pid


def entries(d: Driver, tag: str = "data_app_crash") -> list[tuple[str, str]]:
    """(id, text) of each entry `dumpsys dropbox -p -f TAG` prints, as Mobium splits them."""
    out = d.shell(f"dumpsys dropbox -p -f {tag}")
    found = []
    for block in out.split("=" * 40 + "\n")[1:]:
        lines = block.split("\n")
        m = re.match(r"^/data/system/dropbox/([a-z_]+)@(\d+)\.txt$", lines[1])
        assert m, lines[:3]
        found.append((f"{m[1]}@{m[2]}", "\n".join(lines[2:])))
    return found


def test_a_javascript_crash_is_a_dropbox_entry_with_androids_header_and_the_error(d):
    pid = crash_js(d)
    assert APP not in d.device.processes
    [(entry_id, text)] = entries(d)
    header, _, body = text.partition("\n\n")
    assert [line.split(":", 1)[0] for line in header.splitlines()] == list(HEADER)
    fields = dict(line.split(": ", 1) for line in header.splitlines())
    assert fields["Process"] == APP and fields["PID"] == str(pid) and fields["Foreground"] == "Yes"
    assert fields["Package"] == f"{APP} v1 (1.0.0)"
    assert fields["Build"] == d.shell("getprop ro.build.fingerprint").strip()
    assert body.splitlines()[0] == JS_LINE
    assert "\tat com.facebook.react.modules.core.ExceptionsManagerModule.reportException" in body
    millis = int(entry_id.split("@")[1])
    assert abs(millis / 1000 - d.clock.wall()) < 60


def test_the_listing_says_the_date_tag_and_size_and_previews_the_entry(d):
    crash_js(d)
    out = d.shell("dumpsys dropbox data_app_crash")
    assert out.startswith("Drop box contents: 1 entries\nMax entries: 1000\n")
    assert "Searching for: data_app_crash\n" in out
    line, preview = out.split("\n\n", 1)[1].splitlines()[:2]
    assert re.fullmatch(r"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d data_app_crash \(text, \d+ bytes\)", line)
    assert preview.startswith("    SystemUptimeMs: ") and " / Process: " in preview
    assert "(No entries found.)" in d.shell("dumpsys dropbox data_app_anr")


def test_search_terms_all_have_to_match(d):
    crash_js(d)
    date = d.shell("dumpsys dropbox data_app_crash").split("\n\n", 1)[1][:10]
    assert "data_app_crash (text" in d.shell(f"dumpsys dropbox {date} data_app_crash")
    assert "(No entries found.)" in d.shell("dumpsys dropbox 1999-01-01 data_app_crash")


def test_the_crash_ring_holds_the_exception_and_the_system_logs_the_death(d):
    pid = crash_js(d)
    crash_ring = d.shell("logcat -d -b crash -v brief")
    assert crash_ring.startswith("--------- beginning of crash\n")
    assert "FATAL EXCEPTION: mqt_native_modules" in crash_ring and JS_LINE in crash_ring
    assert f"Process: {APP}, PID: {pid}" in crash_ring
    assert "FATAL EXCEPTION" not in d.shell("logcat -d -b main")
    everything = d.shell("logcat -d")
    assert f"Force finishing activity {APP}/.MainActivity" in everything
    assert f"Process {APP} (pid {pid}) has died: fg  TOP" in everything
    assert everything.index("mobium-crash-control: throwing now") < everything.index("FATAL EXCEPTION")


def test_records_outlive_pm_clear_and_restarts_and_each_crash_adds_one(d):
    crash_js(d)
    first = entries(d)
    d.shell(f"pm clear {APP}")
    d.launch()
    assert entries(d) == first
    d.clock.advance(120)  # past "keeps stopping"
    crash_js(d)
    after = entries(d)
    assert len(after) == 2 and after[0] == first[0]
    assert int(after[1][0].split("@")[1]) > int(first[0][0].split("@")[1])
    assert "Drop box contents: 2 entries" in d.shell("dumpsys dropbox")


def test_an_app_bug_is_recorded_as_a_java_runtime_exception(d):
    d.open("crashBtn")
    screen = d.device.current_app().screen

    def broken() -> None:
        raise ZeroDivisionError("division by zero")
    screen.log_line = broken
    d.tap("logLineBtn")
    [(_, text)] = entries(d)
    assert "\n\njava.lang.RuntimeException: ZeroDivisionError: division by zero\n\tat broken(" in text


def test_dropbox_keeps_its_newest_thousand_entries(vdevice):
    first = vdevice.dropbox_add("data_app_crash", "Process: dev.test.one\n\nx\n")
    for _ in range(1000):
        vdevice.dropbox_add("data_app_crash", "Process: dev.test.other\n\ny\n")
    assert len(vdevice.dropbox) == 1000 and first not in vdevice.dropbox
    assert len({e.path for e in vdevice.dropbox}) == 1000  # one name each, even within one millisecond
