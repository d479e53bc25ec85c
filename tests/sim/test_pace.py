"""The virtual device's pace: how much device time each command spends at `emulator`, none at `fast`. The device
clock is frozen and the pace's wait moves it instead, so each figure is read back exactly, with no real waiting."""

from __future__ import annotations

import subprocess
import sys

import pytest
from mobiumapp_harness import FROZEN, Driver

from pytest_mobium_evals import sim
from pytest_mobium_evals.sim import clock as clock_module
from pytest_mobium_evals.sim import pace as pace_module
from pytest_mobium_evals.sim.clock import COMMAND_TICK_S, HELD_PROPERTY
from pytest_mobium_evals.sim.pace import EMULATOR, FAST, PaceError


@pytest.fixture
def paced(monkeypatch):
    """A MobiumApp driver whose device waits at `emulator` pace by moving its frozen clock."""
    d = Driver(speed=FROZEN)
    monkeypatch.setattr(pace_module.time, "sleep", lambda real: d.clock.advance(real * FROZEN))
    d.launch()
    d.device.pace = EMULATOR
    return d


def spent(d: Driver, command: str) -> float:
    before = d.clock.now()
    d.shell(command)
    return round(d.clock.now() - before, 3)


def test_each_command_takes_the_emulators_time(paced):
    assert spent(paced, "uiautomator dump /sdcard/w.xml") == EMULATOR.dump
    assert spent(paced, "screencap -p /sdcard/s.png") == EMULATOR.screencap
    assert spent(paced, "input tap 10 10") == EMULATOR.tap
    assert spent(paced, "input keyevent 4") == EMULATOR.tap
    assert spent(paced, "settings put global pace_probe 1") == EMULATOR.settings_put
    assert spent(paced, "am force-stop dev.mobium.mobiumapp") == EMULATOR.force_stop
    assert spent(paced, "pm clear dev.mobium.mobiumapp") == EMULATOR.pm_clear
    # -W also waits out the cold launch it reports
    assert spent(paced, "am start -W -n dev.mobium.mobiumapp/.MainActivity") == round(EMULATOR.am_start + 0.38, 3)


def test_swipe_and_text_block_for_their_own_duration(paced):
    assert spent(paced, "input swipe 540 1800 540 900 800") == round(EMULATOR.tap + 0.8, 3)
    assert spent(paced, "input text hello") == round(EMULATOR.tap + 5 * EMULATOR.text_per_char, 3)


def test_a_screen_in_motion_is_read_more_slowly_and_as_it_is_at_the_end(paced):
    paced.open("motionBtn")
    paced.tap("confettiExposed")
    paced.tap("celebrateBtn")
    paced.clock.advance(2.0)  # the pieces start above the screen: by now they are falling across it
    before = paced.clock.now()
    nodes = paced.dump()
    assert round(paced.clock.now() - before, 3) == EMULATOR.dump_moving
    pieces = [n for n in nodes if n["resource-id"].startswith("confetti") and n["resource-id"][8:].isdigit()]
    assert pieces, "the burst was not in the dump"


def test_motion_accessibility_cannot_see_still_slows_the_read(paced):
    paced.open("motionBtn")
    paced.tap("celebrateBtn")  # pieces hidden from automation: not in the dump, but falling on the screen
    before = paced.clock.now()
    nodes = paced.dump()
    assert round(paced.clock.now() - before, 3) == EMULATOR.dump_moving
    assert not [n for n in nodes if n["resource-id"].startswith("confetti") and n["resource-id"][8:].isdigit()]


def test_a_burst_still_above_the_screen_keeps_it_from_going_idle(paced):
    # An exposed burst falls for 8-12 s: its pieces come down from above the top edge and none is on the screen a
    # dump's second after Celebrate. The app is animating them all the same, as it is on a device (CHALLENGES
    # 109), so the read is one of a screen in motion: a check's looks then span what they span on an emulator.
    paced.open("motionBtn")
    paced.tap("confettiExposed")
    paced.tap("celebrateBtn")
    burst = paced.device.current_app().screen.burst
    # when each piece's top crosses the screen's top edge (y = y0 + (height + 20 - y0) k^2, k the fall's share)
    arrivals = [fall * (-y0 / (burst.height + 20 - y0)) ** 0.5 for _x, y0, _drift, fall in burst.pieces]
    assert min(arrivals) > EMULATOR.dump, "a piece is on the screen when the read looks: not the case meant"
    before = paced.clock.now()
    paced.dump()
    assert round(paced.clock.now() - before, 3) == EMULATOR.dump_moving


@pytest.fixture
def held(monkeypatch):
    """A MobiumApp driver at the emulator's pace with its clock held, and a host clock the test moves itself."""
    host = [1000.0]
    monkeypatch.setattr(clock_module.time, "monotonic", lambda: host[0])
    d = Driver(speed=1.0)
    d.launch()
    d.device.pace = EMULATOR
    d.shell(f"setprop {HELD_PROPERTY} 1")
    slept: list[float] = []
    monkeypatch.setattr(pace_module.time, "sleep", slept.append)
    d.host, d.slept = host, slept
    return d


def test_a_held_clock_lives_through_none_of_the_hosts_time(held):
    before = held.clock.now()
    held.host[0] += 30.0  # the host is slow: half a minute goes by between two commands
    assert held.clock.now() == before
    held.shell("setprop " + HELD_PROPERTY + " 0")
    released = held.clock.now()
    assert released - before < 0.01  # let go, it runs on from where it stood: no jump
    held.host[0] += 2.0
    assert held.clock.now() - released == pytest.approx(2.0)


def test_on_a_held_clock_a_command_takes_its_pace_and_none_of_the_hosts_time(held):
    # The read moves the device on by exactly the emulator's figure (and the tick of the command starting), and
    # the host waits for none of it: the app's timers and the reads share one clock, whatever the host's speed.
    assert spent(held, "uiautomator dump /sdcard/w.xml") == round(EMULATOR.dump + COMMAND_TICK_S, 3)
    assert spent(held, "input swipe 540 1800 540 900 800") == round(EMULATOR.tap + 0.8 + COMMAND_TICK_S, 3)
    assert spent(held, "sleep 3") == round(3 + COMMAND_TICK_S, 3)  # a shell's sleep is the clock moved on
    assert held.slept == []


def test_a_wait_on_a_held_clock_is_the_clock_moved_on(held):
    # Nothing else moves a held clock, so a client's wait (a tool server's poll, a settle window) moves it, at the
    # emulator's pace too, where a running clock keeps real time.
    before = held.clock.now()
    assert held.shell("virtual-clock wait 2.5").strip() == "advanced"
    assert held.clock.now() - before == pytest.approx(2.5)
    assert float(held.shell("virtual-clock now")) == pytest.approx(held.clock.now())


def test_log_lines_on_a_held_clock_keep_the_order_the_commands_ran_in(held):
    # Every command takes a moment of a held clock, as a device's do: a line logged after a read of the log is
    # stamped after the last line that read saw, to the millisecond logcat prints (a reader's mark depends on it).
    held.shell("log -t HeldCheck first")
    seen = held.shell("logcat -d -v epoch -s HeldCheck").splitlines()[-1]
    held.shell("log -t HeldCheck second")
    later = held.shell("logcat -d -v epoch -s HeldCheck").splitlines()[-1]
    assert "second" in later and float(later.split()[0]) > float(seen.split()[0])


def test_fast_spends_no_device_time():
    d = Driver(speed=FROZEN)
    d.launch()
    assert d.device.pace is FAST
    for command in ("uiautomator dump /sdcard/w.xml", "input swipe 540 1800 540 900 800", "pm clear x"):
        before = d.clock.now()
        d.sh.run(command)
        assert d.clock.now() - before < 1e-3


def test_an_unknown_pace_is_one_clear_line():
    with pytest.raises(PaceError, match="pace 'slow': choose one of fast, emulator"):
        sim.start(pace="slow")
    ran = subprocess.run([sys.executable, "-m", "pytest_mobium_evals.commands.cli", "sim", "--port", "0", "--pace",
                          "slow"],
                         capture_output=True, text=True, timeout=60)
    assert ran.returncode == 2
    assert "invalid choice: 'slow'" in ran.stderr


def test_ps_honours_its_output_fields(sh):
    lines = sh.out("ps -A -o PID,ARGS").splitlines()
    assert lines[0].split() == ["PID", "ARGS"]
    assert ["1", "init"] in [line.split() for line in lines]
    assert sh.out("ps -A -o ARGS=").splitlines()[0] == "init"
    # the kernel's thread name is 15 bytes: a long process name shows its tail
    assert "u0_a120 ndroid.systemui" in [" ".join(line.split()) for line in sh.out("ps -A -o USER,CMD").splitlines()]
    out, err, status = sh("ps -A -o BOGUS")
    assert status == 1 and err == "ps: bad -o BOGUS\n"
