"""The three controls of a surface comparison, printed: the offline surface-sensitive stand-in agent
(tests/agents/surface_standin.py) runs MobiumApp tasks on the virtual device through the surface proxy under
baseline, a copy of baseline, units-in-map and no-remedies, and each comparison is set against what it must show.

    python probes/surface_controls.py [--repeats 1]
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests" / "agents"))  # the surface-sensitive stand-in agent

from surface_standin import CONTROL_TASKS, CONTROL_VARIANTS, comparison_controls, run_variants  # noqa: E402

from pytest_mobium_evals import sim  # noqa: E402
from pytest_mobium_evals.reach.device import Device  # noqa: E402
from pytest_mobium_evals.suites.catalog import load_task_definitions  # noqa: E402


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--repeats", type=int, default=1)
    args = ap.parse_args()
    defined = load_task_definitions([ROOT / "tasks" / "mobiumapp_tasks"])
    tasks = {t: defined[t] for t in CONTROL_TASKS}
    started = time.monotonic()
    with sim.start(devices=1, clock_speed=4.0) as server:
        device = Device.connect(server.serials[0], port=server.port)
        outcomes = run_variants(list(tasks.values()), list(CONTROL_VARIANTS), args.repeats, device, server.port, ROOT)
    print(f"{len(CONTROL_TASKS)} tasks x {len(CONTROL_VARIANTS)} variants x {args.repeats} repeats in "
          f"{time.monotonic() - started:.0f} s")
    for name, values in outcomes.items():
        print(f"  {name:<14} " + " ".join(f"{t}:{sum(v)}/{len(v)}" for t, v in values.items()))
    wrong = 0
    for name, (declared, c) in comparison_controls(outcomes, tasks).items():
        ok = c.call == declared
        wrong += not ok
        print(f"{name}: Δ {100 * c.delta:+.0f} points [{100 * c.low:+.0f}, {100 * c.high:+.0f}] over {c.tasks} tasks, "
              f"better on {', '.join(c.better) or 'none'}, worse on {', '.join(c.worse) or 'none'}, sign p "
              f"{'–' if c.sign_p is None else f'{c.sign_p:.3g}'}: {c.call} (declared: {declared}) "
              f"{'ok' if ok else 'WRONG'}")
    return 1 if wrong else 0


if __name__ == "__main__":
    raise SystemExit(main())
