"""One virtual device per check module, driven only through the `mobium` CLI face (`bin/mobium` in a subprocess),
with a daemon of its own (`MOBIUM_SESSION`), stopped when the module ends."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

import pytest
from conformance_cli import Cli

from pytest_mobium_evals.reach.device import AUTO_ADVANCE_PROPERTY
from pytest_mobium_evals.sim.clock import HELD_PROPERTY

# MobiumApp's own timers (sign-in 1 s, feed pages 2.5 s, late alert 2 s) run at their own speed, as on a device: a
# check's `wait --timeout 5s` then covers 5 s of the app's time, not 20. A check's `sleep` is the device's clock
# driven ahead (`Cli.advance_clock`), so the pauses cost no wall time.
CLOCK_SPEED = 1.0
# How long each device command takes (sim/pace.py). A check whose loops are counted in an emulator's reads (so many
# looks, not so many seconds) sets PACE = "emulator", with the clock at 1: its looks then span what they span there.
# At that pace the device's clock is held (sim/clock.py): it moves only as the device's commands take an emulator's
# time and as the check's sleeps and Mobium's waits move it, so the app's timers and the reads share one clock, and
# neither the host's load nor the CLI's own start-up (a process per call) shows on the device. It costs no wall time.
PACE = "fast"
# MOBIUM_EVALS_CONFORMANCE_UIA2=1 installs Appium's UiAutomator2 server on each check's device (the APKs Mobium pins,
# from npm's appium-uiautomator2-server@10.6.6 in .clients/), so the built-in server reads the screen through it as
# Mobium's default driver does, instead of `uiautomator dump`; `cli.uia2` says whether it did. With
# MOBIUM_EVALS_CONFORMANCE_PACE=emulator every check runs at the emulator's pace (the manual's figures).
UIA2_SERVER = os.environ.get("MOBIUM_EVALS_CONFORMANCE_UIA2") == "1"
UIA2_APKS = ("appium-uiautomator2-server-v10.6.6.apk", "appium-uiautomator2-server-debug-androidTest.apk")


def uia2_apks() -> list[bytes] | None:
    folder = Path(os.environ.get("MOBIUM_EVALS_CLIENTS") or Path(__file__).resolve().parents[2] / ".clients")
    paths = [folder / "node_modules" / "appium-uiautomator2-server" / "apks" / name for name in UIA2_APKS]
    return [p.read_bytes() for p in paths] if all(p.is_file() for p in paths) else None


@pytest.fixture(scope="module")
def mobium(request):
    from pytest_mobium_evals import sim
    home = tempfile.mkdtemp(prefix="mbh")   # short: it holds the daemon's Unix socket
    with sim.start(devices=1, clock_speed=getattr(request.module, "CLOCK_SPEED", CLOCK_SPEED),
                   pace=os.environ.get("MOBIUM_EVALS_CONFORMANCE_PACE") or getattr(request.module, "PACE", PACE)
                   ) as server:
        env = {**os.environ, "ANDROID_ADB_SERVER_PORT": str(server.port), "MOBIUM_HOME": home,
               "MOBIUM_SESSION": "ck", "MOBIUM_EVALS_PYTHON": sys.executable}
        cli = Cli(env, server.serials[0], pace=lambda name: setattr(server.device(), "pace", sim.PACES[name]))
        apks = uia2_apks() if getattr(request.module, "UIA2_SERVER", UIA2_SERVER) else None
        for apk in apks or ():
            server.device().install_apk(apk, grant_runtime=True)  # as Mobium installs it: adb install -r -g
        cli.uia2 = apks is not None
        if server.device().pace.paced:
            cli.adb_shell(f"setprop {HELD_PROPERTY} 1")
        else:
            # At the fast pace nothing but the check drives the device, so a wait of Mobium's with nothing due (a
            # `background 62`, a poll's pause) may jump the device's clock instead of spending the host's time, as
            # the harness lets a control trial's waits do. The clock still runs with the host's time between calls:
            # at this pace a read takes none of the device's, so a held clock would never let the app's own timers
            # run while a check polls on the host's time (a location route).
            cli.adb_shell(f"setprop {AUTO_ADVANCE_PROPERTY} 1")
        try:
            yield cli
        finally:
            cli.run("daemon", "stop", device=False)
            shutil.rmtree(home, ignore_errors=True)
