"""Fixtures the plugin's test folders share."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def phone():
    """One virtual device behind its own ADB server, reached as the harness reaches a device (`Device`)."""
    from pytest_mobium_evals import sim
    from pytest_mobium_evals.reach.device import Device

    server = sim.start(devices=1, port=0)
    try:
        yield Device.connect(server.serials[0], "127.0.0.1", server.port)
    finally:
        server.close()



def pytest_xdist_auto_num_workers(config):
    """`-n auto` for the plugin's own tests: three workers a core. Most of a test's time is waiting, not work (on
    the virtual device's app timers, a subprocess pytest run, the Claude CLI's start, a fault's deadline): on 2
    cores the suite used 9.6 CPU-minutes in 14 wall-minutes with 2 workers, and 9 with 6."""
    import os

    return 3 * (os.cpu_count() or 1)
