"""No verdict depends on the host's load (issue 41): the trials whose verdict a slow host could change run at the
emulator's pace twice, on the machine as it is and beside CPU burners (two a core), and every trial must get the
same verdict both times, the controls their declared one.

The trials are the ones that race the app's own time: a tap's wait for a toast to go and a cover to stay, a settle
on a sliding target, an alert that comes late, rows refreshed after a random delay (once and twice), a feed's pages
loading as it scrolls, each under its reference, its wrong script (the tap that beats the timer) and its near miss;
and scripted agent trials (the surface stand-in doing the reference) that meet the device as a model's trial does,
in real time, with the tool server's waits and settles on the host's clock. The controls hold the device's clock
(`Device.hold_clock`); the agents do not, so the settle and the waits are tried on a slow host as an agent meets it.

It needs the machine to itself: beside other tests the first run would not be a quiet one and the burners would
slow them too. Under xdist it skips, saying so; `.ci/run` runs it alone (`pytest tests/load`).

It is the end-to-end guard, not the test of either fix: spinning burners take the trials' CPU but hardly delay a
woken process, so with the held clock or the settle by reads' order undone it still passed (every verdict the same,
at load 18-33 on 2 cores). The tests that fail without them play the slow host on the device's clock:
tests/plugin/test_trial_clock.py and tests/mobium/test_settle.py."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
TASKS = ROOT / "tasks" / "mobiumapp_tasks"
# (file, trial id) for each trial, and what a slow host could change in it.
TRIALS = (
    ("test_t09_busy.py", "reference-r0"),               # waits for the quiet refresh (0.4-1.6 s) to land
    ("test_t09_busy.py", "wrong-r0"),                   # one `input tap` right after it: beats the shortest refresh
    ("test_t09_busy.py", "near-miss-row-a-r0"),
    ("test_t11_late_alert.py", "reference-r0"),         # an alert 2 s after the button
    ("test_t11_late_alert.py", "wrong-r0"),             # looks at once and finds none
    ("test_t15_toast.py", "reference-r0"),              # the tap's implicit wait outlasts the toast
    ("test_t15_toast.py", "wrong-r0"),                  # a tap by coordinates while the toast still covers
    ("test_t30_motion_settle.py", "reference-r0"),      # reads a 2 s slide until it rests
    ("test_t30_motion_settle.py", "wrong-r0"),          # taps while it slides
    ("test_t30_motion_settle.py", "near-miss-honoring-target-r0"),  # the settle waits out the other target
    ("test_t31_busy_twice.py", "reference-r0"),         # two refreshes, the later generation
    ("test_t31_busy_twice.py", "wrong-r0"),
    ("test_t08_feed.py", "near-miss-two-pages-r0"),     # a page loads 2.5 s after the end is reached
    ("test_t13_covered.py", "agent-haiku-low-r0"),      # refused after 2 s of a cover that stays
    ("test_t15_toast.py", "agent-haiku-low-r0"),
    ("test_t30_motion_settle.py", "agent-haiku-low-r0"),
    ("test_t31_busy_twice.py", "agent-haiku-low-r0"),
)
BURNERS_PER_CORE = 2
# A burner spins until told to stop, then says how much CPU it got.
BURN = ("import signal, sys, time\n"
        "signal.signal(signal.SIGTERM, lambda *_: (print(time.process_time(), flush=True), sys.exit(0)))\n"
        "while True:\n    pass\n")


def cores() -> int:
    return len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 1)


def node_ids() -> list[str]:
    return [f"{TASKS.relative_to(ROOT) / name}::{name[:-3]}[{trial}]" for name, trial in TRIALS]


def run_trials(run_dir: Path) -> dict[str, dict]:
    """The trials in one pytest run at the emulator's pace; each trial's verdict.json by its folder's name."""
    env = {**os.environ, "ANTHROPIC_API_KEY": "sk-ant-standin",  # the run's readiness check; no API is called
           "PYTHONPATH": os.pathsep.join([str(ROOT / "tests" / "load"), str(ROOT / "tests" / "agents"),
                                         os.environ.get("PYTHONPATH", "")])}
    env.pop("ANTHROPIC_BASE_URL", None)
    command = [sys.executable, "-m", "pytest", *node_ids(), "-p", "realtime_standin_plugin",
               "--driver=reference,wrong,near-miss,agent", "--model=haiku:low", "--device-pace=emulator",
               "--seed=41", f"-n={min(len(TRIALS), 3 * cores())}", f"--run-dir={run_dir}", "-p", "no:cacheprovider",
               "-q"]
    ran = subprocess.run(command, cwd=ROOT, env=env, capture_output=True, text=True, timeout=900)
    verdicts = {p.parent.name: json.loads(p.read_text()) for p in run_dir.glob("trials/*/verdict.json")}
    said = f"(exit {ran.returncode}):\n{ran.stdout[-3000:]}{ran.stderr[-2000:]}"
    assert len(verdicts) == len(TRIALS), f"{len(verdicts)} of {len(TRIALS)} trials recorded {said}"
    return verdicts


class Burners:
    """Two CPU burners a core for the length of the `with`; `.cpu_s`, what they got, once it ends."""

    def __enter__(self) -> "Burners":
        self.procs = [subprocess.Popen([sys.executable, "-c", BURN], stdout=subprocess.PIPE, text=True)
                      for _ in range(BURNERS_PER_CORE * cores())]
        self.started = time.monotonic()
        return self

    def __exit__(self, *exc) -> None:
        self.wall_s = time.monotonic() - self.started
        self.burnt_through = all(proc.poll() is None for proc in self.procs)  # none died on the way
        for proc in self.procs:
            proc.send_signal(signal.SIGTERM)
        self.cpu_s = [float(proc.communicate(timeout=30)[0].strip() or 0) for proc in self.procs]


def test_every_verdict_beside_cpu_burners_is_the_one_without_them(request, tmp_path):
    if hasattr(request.config, "workerinput"):
        pytest.skip("the load test needs the machine to itself: run it alone, `pytest tests/load` (.ci/run does)")
    quiet = run_trials(tmp_path / "quiet")
    with Burners() as burners:
        loaded = run_trials(tmp_path / "loaded")
    load = (f"{len(burners.cpu_s)} burners got {sum(burners.cpu_s):.0f} CPU s in the loaded run's "
            f"{burners.wall_s:.0f} s on {cores()} cores")
    assert burners.burnt_through and min(burners.cpu_s) > 0, f"a burner stopped early: {load}"
    for name, record in quiet.items():
        assert record["verdict"] != "infra_error", f"{name}: {record.get('infra_error')}"
        if record["driver"] != "agent":
            assert record["ok"], f"{name}: {record['verdict']}, declared {record['expected']}"
    changed = {name: (quiet[name]["verdict"], loaded[name]["verdict"]) for name in quiet
               if loaded[name]["verdict"] != quiet[name]["verdict"]}
    assert not changed, f"verdicts that changed beside the burners (quiet, loaded): {changed}; {load}"
