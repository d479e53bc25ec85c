"""The virtual device's pace: how much device time each command spends at `emulator`, none at `fast`. The device
clock is frozen and the pace's wait moves it instead, so each figure is read back exactly, with no real waiting."""

from __future__ import annotations

import subprocess
import sys

import pytest
from mobiumapp_harness import FROZEN, Driver

from pytest_mobium_evals import sim
from pytest_mobium_evals.sim import pace as pace_module
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
