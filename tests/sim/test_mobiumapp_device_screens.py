"""The screens that read the device's own state (Battery), driven by what moves that state on Android
(`dumpsys battery set`), with the device clock held or advanced rather than slept through."""

from __future__ import annotations

import pytest
from mobiumapp_harness import FROZEN, Driver


@pytest.fixture
def d():
    driver = Driver(speed=FROZEN)
    driver.launch()
    return driver


def lines(d, *ids):
    return [d.text(i) for i in ids]


def test_battery_reads_the_broadcast_in_the_apps_own_words(d):
    d.open("batteryBtn")
    assert lines(d, "batteryLevel", "batteryRaw", "batteryState", "batteryLowPower", "batteryReads") == [
        "level: 100%", "raw: 1", "state: full", "low power mode: off", "reads: 1"]
    d.shell("dumpsys battery set ac 0")
    d.shell("dumpsys battery set status 3")
    d.shell("dumpsys battery set level 42")
    assert d.text("batteryLevel") == "level: 100%"  # nothing changes until the next once-a-second read
    d.clock.advance(1.0)
    d.device.run_due()
    assert lines(d, "batteryLevel", "batteryRaw", "batteryState", "batteryReads") == [
        "level: 42%", "raw: 0.42", "state: unplugged", "reads: 2"]
    assert d.need("batteryGauge")["content-desc"] == "Battery 42 percent, unplugged"
    out = d.shell("dumpsys battery")
    assert "  AC powered: false\n" in out and "  status: 3\n" in out and "  level: 42\n" in out


def test_battery_charging_low_power_and_no_battery(d):
    d.open("batteryBtn")
    d.shell("dumpsys battery set level 73")
    d.shell("dumpsys battery set status 2")
    d.shell("settings put global low_power 1")
    d.clock.advance(1.0)
    d.device.run_due()
    assert lines(d, "batteryLevel", "batteryState", "batteryLowPower") == [
        "level: 73%", "state: charging", "low power mode: on"]
    d.shell("dumpsys battery set present 0")
    d.clock.advance(1.0)
    d.device.run_due()
    assert d.text("batteryLevel") == "level: none"
    assert d.text("batteryReads") == ("reads: 3 \u2014 stopped: this device reports no battery (level -1), and "
                                      "there is nothing to watch")
    d.clock.advance(3.0)
    d.device.run_due()
    assert d.text("batteryReads").startswith("reads: 3 ")
    d.shell("dumpsys battery reset")
    assert "  AC powered: true\n" in d.shell("dumpsys battery")


def test_accessibility_motion_is_the_transition_scale_and_arrives_live(d):
    d.shell("settings put global animator_duration_scale 0")
    d.open("a11yBtn")
    assert "motion=false" in d.text("a11yState")  # the animator scale is not what React Native reads
    d.shell("settings put global transition_animation_scale 0")
    assert d.text("a11yState").endswith("fontScale=1.00 changes=1") and "motion=true" in d.text("a11yState")


def test_layout_sizes_the_narrow_bar_from_the_window(d):
    d.open("layoutBtn")
    assert d.text("layoutWidth") == "window 411dp, narrow target 51dp"
    d.tap("tinyTarget")
    assert d.text("layoutLast") == "last: tiny"
    d.shell("wm size 720x1520")
    d.shell("wm density 320")
    d.back()
    d.open("layoutBtn")
    assert d.text("layoutWidth") == "window 360dp, narrow target 45dp"
    d.shell("wm size reset")
    d.shell("wm density reset")


def test_interruption_labels_both_drafts(d):
    d.open("popupBtn")
    assert d.need("lostDraft")["content-desc"] == "lost draft" and d.need("keptDraft")["content-desc"] == "kept draft"
    assert d.find(text="Lost draft \u2014 rebuilt empty afterwards") is not None


def test_files_saves_the_report_and_picks_a_download_with_the_system_picker(d):
    d.open("filesBtn")
    assert d.text("pickedFile") == "picked: nothing yet"
    d.tap("saveReportBtn")
    d.tap("saveReportBtn")
    assert d.text("savedFile") == "saved: Download/mobium-report.txt (44 bytes) \u2014 MobiumApp report 2"
    assert d.shell("cat /sdcard/Download/mobium-report.txt").startswith("MobiumApp report 2\n")
    d.shell("echo alpha-7731 > /sdcard/Download/notes-7731.txt")
    d.tap("pickFileBtn")
    assert d.device.current_activity().package.name == "com.google.android.documentsui"
    d.tap(text="notes-7731.txt")
    assert d.text("pickedFile") == "picked: notes-7731.txt (11 bytes) \u2014 alpha-7731"
    d.tap("pickFileBtn")
    d.back()
    assert d.text("pickedFile") == "picked: canceled"


def test_biometrics_reads_the_sensor_and_answers_the_prompt(d):
    d.open("biometricsBtn")
    assert lines(d, "bioHardware", "bioEnrolled", "bioLevel", "bioPending", "bioOutcome", "bioAttempts") == [
        "hardware: yes (fingerprint)", "enrolled: no", "security level: none", "prompt: none", "outcome: none yet",
        "attempts: 0"]
    d.tap("bioSignIn")
    assert d.text("bioOutcome") == "outcome: #1: failed (not_enrolled)"
    d.device.lock_pin, d.device.fingerprints = "1111", 1
    d.clock.advance(1.0)
    d.device.run_due()
    assert (d.text("bioEnrolled"), d.text("bioLevel")) == ("enrolled: yes", "security level: biometric (strong)")
    d.tap("bioSignIn")
    assert d.dialog_up and d.find(text="Sign in to MobiumApp") is not None
    d.tap(text="Cancel")
    assert lines(d, "bioOutcome", "bioPending", "bioAttempts") == [
        "outcome: #2: failed (user_cancel)", "prompt: none", "attempts: 2"]
