"""How many processes a run uses when it does not say: a control trial on the virtual device mostly waits on the
app's own timers (a sign-in spinner, a toast), so several trials at once, each on its own virtual device in its own
xdist worker, finish the suite in a fraction of the time on the same cores.

The number comes from the `mobium_workers` ini value (this repository sets `auto`); it applies only where nothing
was said about processes (no -n, --dist or --tx, xdist loaded, no --pdb, not --collect-only), to the virtual
device (`--device sim`: every worker starts its own) and to the control drivers (an agent's trials are the model's
time, and its API's rate limit, not the machine's). `-n 0` runs everything in one process."""

from __future__ import annotations

import os

import pytest

from pytest_mobium_evals.core.setting import includes_agent
from pytest_mobium_evals.core.verdicts import AGENT

MAX_WORKERS = 8
PER_CORE = 2  # a control trial keeps a core busy less than half its time (bench_scale.py)


def default_workers(config: pytest.Config) -> int:
    """The -n to add for this run, 0 for none."""
    if os.environ.get("PYTEST_XDIST_WORKER") or not config.pluginmanager.hasplugin("xdist"):
        return 0
    known = config.known_args_namespace
    said = (getattr(known, "numprocesses", None) is not None or getattr(known, "dist", "no") != "no"
            or getattr(known, "tx", None) or getattr(known, "distload", False))
    if said or getattr(known, "usepdb", False) or getattr(known, "collectonly", False):
        return 0
    drivers = str(getattr(known, "mobium_driver", AGENT)).split(",")
    if getattr(known, "mobium_device", "sim") != "sim" or includes_agent(drivers):
        return 0
    return parse_workers(str(config.getini("mobium_workers")).strip(), os.cpu_count() or 1)


def parse_workers(value: str, cores: int) -> int:
    if value in ("", "0"):
        return 0
    if value == "auto":
        return max(2, min(MAX_WORKERS, PER_CORE * cores))
    if value.isdigit():
        return int(value)
    raise pytest.UsageError(f"mobium_workers = {value!r} (ini): expected a number of workers or auto")
