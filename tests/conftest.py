"""Fixtures the plugin's test folders share."""

from __future__ import annotations

import pytest


@pytest.fixture(scope="module")
def phone():
    """One virtual device behind its own ADB server, reached as the harness reaches a device (`Device`)."""
    from pytest_mobium_evals import sim
    from pytest_mobium_evals.device import Device

    server = sim.start(devices=1, port=0)
    try:
        yield Device.connect(server.serials[0], "127.0.0.1", server.port)
    finally:
        server.close()


@pytest.fixture(autouse=True)
def _a_run_a_test_starts_is_no_xdist_worker(request, monkeypatch):
    """Under `-n`, this process is an xdist worker, and a pytest run one of its tests starts (pytester, in-process
    or as a subprocess) would inherit the variables that say so: the plugin would take the run for a worker and
    skip what a worker skips (its controller's checks). The run a test starts is a run of its own."""
    if "pytester" in request.fixturenames:
        for name in ("PYTEST_XDIST_WORKER", "PYTEST_XDIST_WORKER_COUNT", "PYTEST_XDIST_TESTRUNUID"):
            monkeypatch.delenv(name, raising=False)
