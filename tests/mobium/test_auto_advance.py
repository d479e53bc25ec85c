"""Auto-advance: the virtual device's clock jumps when the tool server waits, only while the harness has said so
(`debug.mobium_evals.auto_advance`, set at reset for a control trial at the fast pace); otherwise the server waits in
real time. Real waits are caught here (time.sleep replaced), never slept through."""

from __future__ import annotations

import pytest

from pytest_mobium_evals import sim
from pytest_mobium_evals.mobium_server import device as server_device
from pytest_mobium_evals.mobium_server.device import HELD_CLOCK_PROPERTY, AdbLink
from pytest_mobium_evals.reach.device import AUTO_ADVANCE_PROPERTY, Device
from pytest_mobium_evals.reach.toolserver import Tools, ToolServerSpec

APP = "dev.mobium.mobiumapp"


@pytest.fixture(scope="module")
def server():
    with sim.start(devices=1) as s:
        yield s


@pytest.fixture
def slept(monkeypatch):
    """What the server would have slept on the host, instead of sleeping it."""
    seen: list[float] = []
    monkeypatch.setattr(server_device.time, "sleep", seen.append)
    return seen


def auto_advance(server, on: bool) -> Device:
    device = Device.connect(server.serials[0], "127.0.0.1", server.port)
    device.set_auto_advance(on)
    return device


def test_the_harness_says_it_at_reset_on_the_virtual_device_only(server):
    device = auto_advance(server, True)
    assert device.getprop(AUTO_ADVANCE_PROPERTY) == "1"
    device.set_auto_advance(False)
    assert device.getprop(AUTO_ADVANCE_PROPERTY) == "0"


def test_a_wait_with_auto_advance_off_is_real_time_and_moves_nothing(server, slept):
    auto_advance(server, False)
    link = AdbLink(server.serials[0], "127.0.0.1", server.port)
    clock = server.device(server.serials[0]).clock
    before_device, before_link = clock.now(), link.monotonic()
    link.pause(30)
    assert slept == [30]
    assert clock.now() - before_device < 30  # the host's sleep was caught, so the device lived through none of it
    assert link.monotonic() - before_link < 30


def test_a_wait_with_auto_advance_on_jumps_the_device_and_the_waits_clock_alike(server, slept):
    auto_advance(server, True)
    link = AdbLink(server.serials[0], "127.0.0.1", server.port)
    clock = server.device(server.serials[0]).clock
    before_device, before_link = clock.now(), link.monotonic()
    link.pause(30)
    assert slept == []
    assert clock.now() - before_device >= 30
    assert link.monotonic() - before_link >= 30


def test_the_device_fires_timers_in_order_on_a_wait_and_says_which_it_did(server):
    vd = server.device(server.serials[0])
    fired: list[float] = []
    device = auto_advance(server, True)
    with vd.lock:
        vd.after(2.0, lambda: fired.append(vd.now()))
        vd.after(1.0, lambda: fired.append(vd.now()))
    assert device.shell("virtual-clock wait 5").strip() == "advanced"
    assert len(fired) == 2 and fired[0] < fired[1]  # each at its own due time, in order
    device.set_auto_advance(False)
    with vd.lock:
        vd.after(60.0, lambda: fired.append(vd.now()))
    assert device.shell("virtual-clock wait 5").strip() == "real"
    assert len(fired) == 2


@pytest.mark.parametrize("bad", ["-1", "nan", "inf", "soon"])
def test_a_wait_of_no_real_number_of_seconds_is_one_line(server, bad):
    device = auto_advance(server, True)
    out = device.shell(f"virtual-clock wait {bad}; echo rc=$?")
    assert "virtual-clock:" in out and out.strip().endswith("rc=2")


def test_app_wait_for_meets_the_late_alert_without_waiting_when_auto_advance_is_on(server):
    """Late Alert's dialog comes 2 s after the button: with the clock jumping, the tool sees it after 2 s of the
    device's time however fast the host is, and says so in its own words; the trial's server is a fresh process that
    asks the device, so nothing here reaches into it."""
    auto_advance(server, True)
    vd = server.device(server.serials[0])
    with Tools(ToolServerSpec.builtin(server.serials[0], "127.0.0.1", server.port), timeout=60) as tools:
        tools.call("app_launch", app=APP)
        tools.call("app_scroll_to", target="label=Dialog Demo", direction="down")
        tools.tap(target="label=Dialog Demo")
        tools.tap(target="testid=lateAlertBtn")
        before = vd.clock.now()
        result = tools.call("app_wait_for", target="text=Session expiring", timeout_ms=10000)
        assert vd.clock.now() - before >= 1.5  # the device lived through the delay (the tap took part of it)
        assert "is visible after" in result.text


def test_a_device_at_the_emulator_pace_keeps_real_time_whatever_the_property_says():
    with sim.start(devices=1, pace="emulator") as paced:
        device = auto_advance(paced, True)
        assert device.getprop(AUTO_ADVANCE_PROPERTY) == "1"
        assert device.shell("virtual-clock wait 30").strip() == "real"


def test_on_a_held_clock_the_waits_clock_is_the_devices_own_and_a_wait_moves_it(server, slept):
    """A held clock (sim/clock.py) lives through none of the host's time: the server's deadlines are counted on the
    device's clock, and its waits move that clock, at any pace; a slow host then changes no wait's outcome."""
    device = Device.connect(server.serials[0], "127.0.0.1", server.port)
    device.shell(f"setprop {HELD_CLOCK_PROPERTY} 1")
    try:
        link = AdbLink(server.serials[0], "127.0.0.1", server.port)
        clock = server.device(server.serials[0]).clock
        assert link.monotonic() == pytest.approx(clock.now(), abs=1e-3)
        before = link.monotonic()
        link.pause(30)
        assert slept == []
        assert link.monotonic() - before == pytest.approx(30, abs=0.05)  # and the command's own tick or two
    finally:
        device.shell(f"setprop {HELD_CLOCK_PROPERTY} 0")
