"""The shape of each task's reference: how many tool calls it makes and how many screens it visits, with the
medians per tier. Prints a table.

How it measures. Every task runs once under `--driver=reference` on the virtual device, serially, in this process
(`pytest tasks --driver=reference -n 0`). Tool calls are the reference's own, counted from its verdict.json. A screen
is a distinct (app, screen) the device showed while the driver ran (its transcript's first call to its last event):
the foreground package, and for MobiumApp the demo on screen, sampled from the virtual device every 10 ms (a screen
is up for at least one tool call, tens of ms), the one it starts on included.

    python probes/task_shape.py [-k EXPR]
"""

from __future__ import annotations

import argparse
import glob
import json
import os
import statistics
import sys
import tempfile
import threading
import time

import pytest


class ScreenSampler:
    """A pytest plugin: once the run's virtual device is up, samples what it shows until the run ends."""

    def __init__(self):
        self.samples: list[tuple[float, str]] = []
        self.stop = threading.Event()

    @pytest.hookimpl(trylast=True)
    def pytest_sessionstart(self, session):
        threading.Thread(target=self._run, args=(session.config,), daemon=True).start()

    def pytest_sessionfinish(self):
        self.stop.set()

    def _run(self, config) -> None:
        plugin = config.pluginmanager.get_plugin("mobium-evals-session")
        while not self.stop.is_set():
            sim = getattr(getattr(plugin, "_lease", None), "sim", None)  # the EvalSession's DeviceLease
            if sim is not None:
                for serial in sim.serials:
                    self.samples.append((time.time(), _showing(sim.device(serial))))
            self.stop.wait(0.01)

    def screens(self, start: float, end: float) -> list[str]:
        seen: list[str] = []
        for t, what in self.samples:
            if start <= t <= end and what and (not seen or seen[-1] != what):
                seen.append(what)
        return seen


def _showing(device) -> str:
    try:
        rec = device.current_activity()
        if rec is None or rec.app is None:
            return ""
        key = getattr(rec.app, "screen_key", None)
        return f"{rec.package.name}:{key}" if key else rec.package.name
    except Exception:  # the device is being reset: skip the sample
        return ""


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("-k", default="not ghost_bench", help="pytest -k expression (default: MobiumApp and t25 tasks)")
    args = ap.parse_args()
    run_dir = tempfile.mkdtemp(prefix="shape")
    sampler = ScreenSampler()
    code = pytest.main(["tasks", "--driver=reference", "-n", "0", "-q", "-p", "no:cacheprovider", "-k", args.k,
                        f"--run-dir={run_dir}"], plugins=[sampler])
    rows = []
    for path in sorted(glob.glob(os.path.join(run_dir, "trials", "*", "verdict.json"))):
        v = json.load(open(path))
        with open(os.path.join(os.path.dirname(path), "transcript.jsonl")) as f:
            times = [e["t"] for e in map(json.loads, f) if isinstance(e.get("t"), (int, float))]
        # the driver's span: its first call to its last event, and what the last call brought up
        screens = sampler.screens(min(times) - 0.05, max(times) + 0.5) if times else []
        distinct = len(set(screens))
        rows.append((v["task"], v.get("tier") or "core", v["tool_calls"], distinct, v["verdict"]))
    print(f"{'task':<6} {'tier':<5} {'tool calls':>10} {'screens':>8}  verdict")
    for r in rows:
        print(f"{r[0]:<6} {r[1]:<5} {r[2]:>10} {r[3]:>8}  {r[4]}")
    for tier in ("core", "hard"):
        calls = [r[2] for r in rows if r[1] == tier]
        screens = [r[3] for r in rows if r[1] == tier]
        if calls:
            print(f"{tier}: {len(calls)} tasks, median tool calls {statistics.median(calls):g}, "
                  f"median screens {statistics.median(screens):g}")
    core = [r[2] for r in rows if r[1] == "core" and r[0] <= "t23"]
    hard = [r[2] for r in rows if r[1] == "hard"]
    if core and hard:
        print(f"hard median / t01–t23 median: {statistics.median(hard) / statistics.median(core):.2f}×")
    return code


if __name__ == "__main__":
    sys.exit(main())
