"""The scenario a new user met: the controls run against a virtual device started on its own, and the device is
stopped while they run. Every trial after that is an infrastructure error, the one mid-way included, and each
setting's summary adds up: scheduled = graded + infra errors."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fault_invariant import check_invariant

pytest_plugins = ["pytester"]
ROOT = Path(__file__).resolve().parents[2]


def test_a_device_stopped_mid_run_leaves_no_trial_without_a_verdict(pytester: pytest.Pytester):
    from pytest_mobium_evals import sim

    shutil.copytree(ROOT / "tasks" / "mobiumapp_tasks", pytester.path / "mobiumapp_tasks")
    # an outer xdist worker's variables would make the run think it is a worker of another session
    env = {k: v for k, v in os.environ.items() if not k.startswith(("MOBIUM_EVALS_", "PYTEST_XDIST", "PYTEST_CURRENT"))}
    run = pytester.path / "run"
    server = sim.start(devices=1, clock_speed=4.0)
    try:
        proc = subprocess.Popen([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "mobiumapp_tasks",
                                 "-k", "t01 or t02 or t03 or t05", "--driver=reference,null,wrong",
                                 "--device", "emulator-5554",
                                 "--adb", f"127.0.0.1:{server.port}", "--run-dir", str(run), "--tool-timeout", "10"],
                                cwd=pytester.path, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                text=True)
        deadline = time.monotonic() + 240
        # t01's three controls graded: the device then goes away under t02's reference
        while len(list(run.glob("trials/t01-*/verdict.json"))) < 3:
            if time.monotonic() > deadline or proc.poll() is not None:
                pytest.fail(f"t01 never finished: {proc.communicate()[0][-3000:]}")
            try:
                proc.wait(timeout=0.05)
            except subprocess.TimeoutExpired:
                pass
    finally:
        server.close()
    out, _ = proc.communicate(timeout=300)
    stored = check_invariant(run, out)
    assert len(stored) == 12
    assert stored["t02-reference-none-r0"]["verdict"] == "infra_error", stored["t02-reference-none-r0"]["infra_error"]
    assert all(stored[f"t01-{d}-none-r0"]["verdict"] != "infra_error" for d in ("reference", "null", "wrong"))
    assert "Traceback" not in out
    assert "reference: " in out and "scheduled 4, graded 1, infra errors 3" in out
