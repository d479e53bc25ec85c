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

