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
