"""The hillclimb with the real Claude CLI in the loop, offline: the CLI bundled with claude-agent-sdk talks to a
scripted Messages API endpoint (tests/agents/cli_agent.py) that decides only from what the CLI sends it, and gives
up at random a fifth of the trials it could win (fresh entropy in each pytest process: the seed fixes the
hillclimb's own choices, not the agent's give-ups). The tasks are eight sign-ins (tests/surfaces/cli_suite: two
dev, six held out). Three arms:

- `fix` (from `baseline`): the agent needs an error's remedy in its text to recover from its first miss, which
  baseline never shows a Claude model; the scripted reflection model (tests/agents/reflect_standin.py) proposes it.
  The hillclimb should accept it.
- `null` (from tests/surfaces/cli_suite/remedy-shown.toml, the fix already in): the reflection model
  (tests/agents/reflect_null.py) proposes neutral edits the agent reads and never acts on. The hillclimb should
  reject them: any acceptance is noise taken for a gain.
- `dev-only` (from `baseline`, MOBIUM_CLI_SUITE=dev-only): the held-out tasks are another kind that needs a fact in
  app_map's description, so the remedy tuned on the dev tasks' errors helps dev only. The hillclimb should reject it.

and the acceptance stage alone, for the null arm:

- `null-held-out`: tests/surfaces/cli_suite/remedy-shown-null.toml (the null arm's start with the sentence
  reflect_null.py adds to app_map's description) against remedy-shown on the six held-out tasks, paired, one pytest
  run a seed through the hillclimb's own trials.ensure, called by the same exact test as the hillclimb's
  acceptance. Most null hillclimbs end before their held-out test (gepa's minibatch rule or the dev check stop
  them), so this is the held-out test's own false-acceptance rate with the real CLI in the loop.

    python probes/cli_hillclimb.py [--scenario fix|null|dev-only|null-held-out] [--seeds 1-20] [--repeats 2]
        [--out DIR]

Each seed is one whole hillclimb (search, dev check, held-out test, cost check, persuasion control), or for
null-held-out one held-out comparison, one after another. It prints, per seed, the decision and how far the final
candidate got, then the counts and wall time."""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SCENARIOS = {  # arm: (start, reflection module, rounds, MOBIUM_CLI_SUITE)
    "fix": ("baseline", "reflect_standin", 1, "1"),
    "null": ("tests/surfaces/cli_suite/remedy-shown.toml", "reflect_null", 3, "1"),
    "dev-only": ("baseline", "reflect_standin", 1, "dev-only"),
}


def seeds_of(text: str) -> list[int]:
    out: list[int] = []
    for part in text.split(","):
        low, _, high = part.partition("-")
        out += list(range(int(low), int(high or low) + 1))
    return out


def stage(result: dict) -> str:
    """How far the final candidate got: the step that decided."""
    why = result.get("why") or ""
    if result.get("accepted"):
        return "accepted"
    if why.startswith("gepa kept no candidate"):
        return "search kept nothing"
    if result.get("held_out") is None:
        return "dev check"
    if result["held_out"].get("call") == "clearly better":
        return "cost check"
    return "held-out test" if "on held out" in why or why.startswith("held out:") else "other"


HELD_OUT = [f"c{n:02d}" for n in range(3, 9)]
NULL_START = "tests/surfaces/cli_suite/remedy-shown.toml"
NULL_VARIANT = "tests/surfaces/cli_suite/remedy-shown-null.toml"


def held_out_only(seed: int, repeats: int, out: Path) -> tuple[dict, float]:
    """The null variant against its start on the held-out tasks, as the hillclimb's acceptance runs and calls it."""
    from pytest_mobium_evals.analysis.paired import compare_trials
    from pytest_mobium_evals.commands.hillclimb.search import _by_label
    from pytest_mobium_evals.commands.hillclimb.trials import TrialSetup, ensure

    os.environ.update({"PYTHONPATH": str(ROOT / "tests" / "agents"), "MOBIUM_CLI_SUITE": "1",
                       "ANTHROPIC_API_KEY": os.environ.get("ANTHROPIC_API_KEY", "sk-ant-standin")})
    setup = TrialSetup(root=ROOT, task_paths=("tests/surfaces/cli_suite",), model="haiku:low", seed=seed,
                       pytest_args=("-p", "cli_agent", "--device-pace=fast"))
    started = time.monotonic()
    trials = ensure(setup, out, [NULL_START, NULL_VARIANT], HELD_OUT, repeats)
    c = compare_trials("haiku:low", "remedy-shown-null", "held_out", _by_label(trials, "remedy-shown"),
                       _by_label(trials, "remedy-shown-null"))
    accepted = c.call == "clearly better"
    result = {"accepted": accepted, "why": f"held out: {c.call}", "final": "remedy-shown-null",
              "held_out": {"call": c.call, "delta": c.delta, "p": c.p}, "trials_recorded": len(trials.by_key)}
    return result, time.monotonic() - started


def one(scenario: str, seed: int, repeats: int, out: Path) -> tuple[dict, float]:
    start, reflect, rounds, suite = SCENARIOS[scenario]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "tests" / "agents"), "MOBIUM_CLI_SUITE": suite,
           "ANTHROPIC_API_KEY": os.environ.get("ANTHROPIC_API_KEY", "sk-ant-standin")}
    command = [sys.executable, "-m", "pytest_mobium_evals.commands.cli", "hillclimb", "--model=haiku:low",
               f"--reflect=python:{reflect}", f"--surface={start}",
               "--suite=tests/surfaces/cli_suite", f"--repeats={repeats}", "--search-repeats=1", "--keep=1",
               f"--rounds={rounds}", "--budget=80", "--looks=1", f"--seed={seed}", f"--run-dir={out}", "--",
               "-p", "cli_agent", "--device-pace=fast"]
    started = time.monotonic()
    with open(out.parent / f"{out.name}.log", "wb") as log:
        code = subprocess.call(command, cwd=ROOT, env=env, stdout=log, stderr=subprocess.STDOUT)
    seconds = time.monotonic() - started
    if code != 0 or not (out / "result.json").is_file():
        raise SystemExit(f"seed {seed}: hillclimb exited {code}; see {out.parent / f'{out.name}.log'}")
    return json.loads((out / "result.json").read_text()), seconds


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--scenario", choices=sorted(SCENARIOS) + ["null-held-out"], default="fix")
    parser.add_argument("--seeds", default="1", help="seeds to run, one hillclimb each: 1-20, or 1,3,5")
    parser.add_argument("--repeats", type=int, default=2)
    parser.add_argument("--out", default=None, help="a folder for the hillclimbs (default /tmp/cli-hillclimb-ARM)")
    args = parser.parse_args()
    root = Path(args.out or f"/tmp/cli-hillclimb-{args.scenario}")
    root.mkdir(parents=True, exist_ok=True)
    seeds = seeds_of(args.seeds)
    began = time.monotonic()
    stages: dict[str, int] = {}
    trials = 0
    for seed in seeds:
        if args.scenario == "null-held-out":
            result, seconds = held_out_only(seed, args.repeats, root / f"seed-{seed}")
        else:
            result, seconds = one(args.scenario, seed, args.repeats, root / f"seed-{seed}")
        reached = stage(result)
        stages[reached] = stages.get(reached, 0) + 1
        trials += result["trials_recorded"]
        held = result.get("held_out") or {}
        print(f"seed {seed}: {'ACCEPTED' if result['accepted'] else 'rejected'} at {reached}: {result['why']}")
        if held:
            delta = "–" if held.get("delta") is None else f"{100 * held['delta']:+.0f}"
            print(f"  held out: {held.get('call')} ({delta} points, exact two-sided p {held.get('p')})")
        print(f"  {result['trials_recorded']} trials in {seconds:.0f} s", flush=True)
    accepted = stages.get("accepted", 0)
    what = "held-out comparisons" if args.scenario == "null-held-out" else "hillclimbs"
    print(f"{args.scenario}: {len(seeds)} {what} (seeds {args.seeds}, {args.repeats} repeats): accepted "
          f"{accepted}, rejected {len(seeds) - accepted} (decided at: "
          + ", ".join(f"{k} {v}" for k, v in sorted(stages.items())) + f"); {trials} trials, "
          f"{time.monotonic() - began:.0f} s wall")
    return 0


if __name__ == "__main__":
    sys.exit(main())
