"""What sweeping the graders found: per kind of defect (tasks.GRADER_DEFECTS), the tasks whose grader was fixed,
and the controls each task runs (declared, derived from its reference, and its near misses). Prints two tables; it
reads the task declarations and runs nothing.

    python probes/grader_findings.py
"""

from __future__ import annotations

import argparse
from collections import Counter
from pathlib import Path

from pytest_mobium_evals.core.tasks import GRADER_DEFECTS
from pytest_mobium_evals.suites.catalog import load_task_definitions

ROOT = Path(__file__).resolve().parents[1]


def all_tasks() -> list:
    tasks = list(load_task_definitions([ROOT / "tasks"]).values())  # every suite's, JSON ones included
    return sorted(tasks, key=lambda t: (t.suite, t.id))


def main() -> int:
    argparse.ArgumentParser(description=__doc__.split("\n\n")[0]).parse_args()
    tasks = all_tasks()
    by_kind: dict[int, list[str]] = {k: [] for k in GRADER_DEFECTS}
    for task in tasks:
        for kind, _ in task.grader_history:
            if task.id not in by_kind[kind]:
                by_kind[kind].append(task.id)
    fixed = {t.id for t in tasks if t.grader_history}
    print("| kind | defect | tasks fixed | which |\n| --- | --- | --- | --- |")
    for kind, what in GRADER_DEFECTS.items():
        print(f"| {kind} | {what} | {len(by_kind[kind])} | {', '.join(by_kind[kind]) or '–'} |")
    print(f"\n{len(fixed)} of {len(tasks)} tasks had a grader defect fixed; "
          f"{sum(len(t.grader_history) for t in tasks)} fixes in all.")
    controls = Counter()
    for task in tasks:
        for driver, _ in task.control_drivers():
            controls[driver] += 2 if task.injection is not None else 1  # an injection task's clean twin too
    hard = [t for t in tasks if t.tier == "hard"]
    print(f"near misses declared: {controls['near-miss']} on "
          f"{sum(1 for t in tasks if t.near_misses)} tasks ({sum(1 for t in hard if t.near_misses)} of "
          f"{len(hard)} hard tasks)")
    print(f"control trials a `--driver=controls` run schedules: {sum(controls.values())} "
          f"({', '.join(f'{d} {n}' for d, n in controls.items())})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
