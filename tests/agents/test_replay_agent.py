"""The hillclimb's recall probe plays its agent through the real Claude CLI (replay_agent.py, `-p replay_agent`):
with no misses and no slips, its own control, every trial it plays passes. This is what breaks when the probe's
agent cannot read an answer the CLI hands it (a tool answer's map, rendered as the surface's element lines)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_the_replay_agent_without_misses_or_slips_passes_what_it_plays(tmp_path):
    env = {**os.environ, "MOBIUM_REPLAY_MISS": "0", "MOBIUM_REPLAY_SLIP": "0",
           "PYTHONPATH": os.pathsep.join([str(ROOT / "tests" / "agents"), str(ROOT / "tests")])}
    done = subprocess.run([sys.executable, "-m", "pytest", "--model=haiku:low", "-k", "t05 or t13",
                           "-p", "replay_agent", "--device-pace=fast", "-p", "no:cacheprovider", "-q",
                           f"--run-dir={tmp_path / 'run'}"],
                          cwd=ROOT, env=env, capture_output=True, text=True, timeout=600)
    verdicts = {json.loads(p.read_text())["task"]: json.loads(p.read_text())["verdict"]
                for p in (tmp_path / "run").glob("trials/*/verdict.json")}
    assert verdicts == {"t05": "pass", "t13": "pass"}, done.stdout[-2000:] + done.stderr[-2000:]
