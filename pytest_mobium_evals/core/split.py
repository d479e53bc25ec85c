"""The declared held-out split: every task is `dev` (where a surface variant is tuned) or `held_out` (where it is
judged). By default a stable hash of the task's id puts about a third in held out, so the split never moves when
tasks are added, reordered or renamed around it; a task may override it with a reason (`split=("dev", "why")`).
A variant is called better only on held-out tasks; reports show both and never merge them."""

from __future__ import annotations

import hashlib
from typing import Optional

SPLITS = ("dev", "held_out")


def hashed_split(task_id: str) -> str:
    digest = hashlib.sha256(f"mobium-evals split:{task_id}".encode("utf-8")).digest()
    return "held_out" if int.from_bytes(digest[:8], "big") % 3 == 0 else "dev"


def split_of(task_id: str, override: Optional[tuple[str, str]] = None) -> str:
    return override[0] if override else hashed_split(task_id)


def split_problem(override) -> list[str]:
    if (not isinstance(override, tuple) or len(override) != 2 or override[0] not in SPLITS
            or not isinstance(override[1], str) or not override[1].strip()):
        return [f"split {override!r} is not (\"dev\" or \"held_out\", a reason)"]
    return []
