"""Fixtures for the after-run commands' tests: a run folder with given verdicts."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Optional

import pytest
from runbuilder import ANSWER_OF, verdict_json, write_run


@pytest.fixture
def make_run(tmp_path):
    """make_run(name, {task: [verdict per repeat]}, model=..., **record) -> the run folder."""

    def make(name: str, verdicts_by_task: dict[str, list[str]], *, model: str = "claude-haiku-5-5",
             effort: Optional[str] = "low", driver: str = "agent", seed: int = 7, extra: tuple = (),
             **record: Any) -> Path:
        verdicts = [verdict_json(task, v, driver=driver, model=model, effort=effort, repeat=i + 1, seed=seed,
                                 answer=ANSWER_OF.get(task))
                    for task, vs in verdicts_by_task.items() for i, v in enumerate(vs)]
        return write_run(tmp_path, name, verdicts + list(extra), **record)

    return make
