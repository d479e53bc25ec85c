"""Fixtures for t25's device-backed tests: one virtual device per module, reached as the harness reaches any device
(an ADB server), with its clock sped up so Morpho Market's 1.5 s checkout takes a fraction of that."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from pytest_mobium_evals import sim
from pytest_mobium_evals.reach.device import Device

ROOT = Path(__file__).resolve().parents[2]
CLOCK_SPEED = 5.0


def load_t25():
    """tasks/test_t25.py as a module (tasks/ is a folder of test files, not a package)."""
    name = "mobium_tasks_t25"
    if name in sys.modules:
        return sys.modules[name]
    spec = importlib.util.spec_from_file_location(name, ROOT / "tasks" / "t25" / "test_t25_refactor_test.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules[name] = module
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def t25():
    return load_t25()


@pytest.fixture(scope="module")
def sim_server():
    with sim.start(devices=1, clock_speed=CLOCK_SPEED) as server:
        yield server


@pytest.fixture(scope="module")
def market_device(sim_server, t25):
    """The harness's Device on the virtual device, with Morpho Market launched (the trial's reset does this)."""
    device = Device.connect(sim_server.serials[0], "127.0.0.1", sim_server.port)
    device.reset_app(t25.PACKAGE, ready_testid="productList")
    return device
