"""The hillclimb with the real Claude CLI in the loop, offline: the CLI bundled with claude-agent-sdk talks to a
scripted Messages API endpoint (tests/agents/cli_agent.py) that decides only from what the CLI sends it, and gives
up at random a fifth of the trials it could win. The tasks are eight sign-ins (tests/surfaces/cli_suite: two dev,
six held out); the agent needs an error's remedy in its text to recover from its first miss, which baseline never
shows a Claude model. The scripted reflection model (tests/agents/reflect_standin.py) proposes that remedy.

    python probes/cli_hillclimb.py [--seed N] [--repeats 2] [--out DIR]

It prints the decision, the held-out call and the trials and seconds it took."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--out", default=None)
    parser.add_argument("--surface", default="baseline")
    args = parser.parse_args()
    out = Path(args.out or f"/tmp/cli-hillclimb-{args.seed}")
    env = {**os.environ, "PYTHONPATH": str(ROOT / "tests" / "agents"), "MOBIUM_CLI_SUITE": "1",
           "ANTHROPIC_API_KEY": os.environ.get("ANTHROPIC_API_KEY", "sk-ant-standin")}
    command = [sys.executable, "-m", "pytest_mobium_evals.commands.cli", "hillclimb", "--model=haiku:low",
               "--reflect=python:reflect_standin", f"--surface={args.surface}",
               "--suite=tests/surfaces/cli_suite", f"--repeats={args.repeats}", "--search-repeats=1", "--keep=1",
               "--rounds=1", "--budget=80", f"--seed={args.seed}", f"--run-dir={out}", "--",
               "-p", "cli_agent", "--device-pace=fast"]
    started = time.monotonic()
    code = subprocess.call(command, cwd=ROOT, env=env)
    seconds = time.monotonic() - started
    if code != 0 or not (out / "result.json").is_file():
        print(f"hillclimb exited {code}; see {out}")
        return 1
    result = json.loads((out / "result.json").read_text())
    held = result.get("held_out") or {}
    print(f"seed {args.seed}: {'ACCEPTED' if result['accepted'] else 'not accepted'}: {result['why']}")
    print(f"held out: {held.get('call')} (delta {held.get('delta')}, exact two-sided p {held.get('p')}); "
          f"{result['trials_recorded']} trials recorded in {seconds:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
