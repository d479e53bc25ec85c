"""Surface variants and their comparison: a virtual device per module, the surface-sensitive stand-in agent."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tests" / "agents"))  # surface_standin.py

CLOCK_SPEED = 4.0


@pytest.fixture(scope="module")
def sim_server():
    from pytest_mobium_evals import sim

    with sim.start(devices=1, clock_speed=CLOCK_SPEED) as server:
        yield server
