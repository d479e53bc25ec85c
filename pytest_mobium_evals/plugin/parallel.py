"""How many processes a run uses when it does not say: a control trial on the virtual device mostly waits on the
app's own timers (a sign-in spinner, a toast), so several trials at once, each on its own virtual device in its own
xdist worker, finish the suite in a fraction of the time on the same cores.

The number comes from the `mobium_workers` ini value (this repository sets `auto`); it applies only where nothing
was said about processes (no -n, --dist or --tx, xdist loaded, no --pdb, not --collect-only), to the virtual
device (`--device sim`: every worker starts its own) and to the control drivers (an agent's trials are the model's
time, and its API's rate limit, not the machine's). `-n 0` runs everything in one process.

Where xdist starts its workers here as plain `popen` processes (its `-n`), each is a fork of one prepared Python
(prepared_python.py) that has made a worker's imports once, before the first worker asks: the four workers of the
main job do not each import pytest, the plugin and the MCP SDK again on two cores, nor do thirty-two beside their
emulators. A `--tx` of the user's own (another python, a folder, ssh) is left as it is, and so is every run where
the `mobium_prepared_workers` ini value is false."""

from __future__ import annotations

import os
import shlex
import sys

import pytest

from pytest_mobium_evals.core.setting import includes_agent
from pytest_mobium_evals.core.verdicts import AGENT

from .prepared_python import AGENT_TRIALS, CONTROL_TRIALS, PreparedPython

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


def prepare_workers(config: pytest.Config) -> None:
    """On the process that starts xdist's workers, before it starts them: the plain `popen` workers become forks of
    a prepared Python, which ends with this process's config."""
    if (os.environ.get("PYTEST_XDIST_WORKER") or not sys.platform.startswith("linux")
            or not config.pluginmanager.hasplugin("xdist") or getattr(config.option, "dist", "no") == "no"):
        return
    specs = list(getattr(config.option, "tx", None) or ())
    if not specs or any(spec != "popen" for spec in specs):
        return
    if str(config.getini("mobium_prepared_workers")).strip().lower() in ("false", "0", "no", "off"):
        return
    drivers = str(getattr(config.option, "mobium_driver", AGENT)).split(",")
    # The folder a worker starts in is this process's: a checkout's own package is found there first by a worker
    # from nothing, and so by the imports made for it.
    prepared = PreparedPython(AGENT_TRIALS if includes_agent(drivers) else CONTROL_TRIALS, origin=os.getcwd())
    config.add_cleanup(prepared.close)
    spec = "popen//python=" + shlex.join(prepared.attach_command())
    config.option.tx = [spec] * len(specs)
