"""pytest-mobium-evals: does an agent driving a phone app through Mobium's MCP tools get the job done,
and does it tell the truth about it?"""

from __future__ import annotations

import functools
import importlib
import subprocess
from pathlib import Path
from typing import TYPE_CHECKING, Any, Optional

__version__ = "0.1.0"

# The task-author API, importable from here (`from pytest_mobium_evals import task, Claim, Outcome, Tools, answers`),
# whichever folder holds it. Loaded on first use: the virtual device, the tool server and the plugin's entry point
# import this package too, and must not pay for the task core, the MCP client or pydantic.
TASK_API: dict[str, tuple[str, Optional[str]]] = {
    "task": ("pytest_mobium_evals.core.tasks", "task"),
    "Task": ("pytest_mobium_evals.core.tasks", "Task"),
    "Outcome": ("pytest_mobium_evals.core.tasks", "Outcome"),
    "Claim": ("pytest_mobium_evals.core.tasks", "Claim"),
    "Controls": ("pytest_mobium_evals.core.tasks", "Controls"),
    "NearMiss": ("pytest_mobium_evals.core.tasks", "NearMiss"),
    "JudgeSpec": ("pytest_mobium_evals.core.tasks", "JudgeSpec"),
    "LabelledAnswer": ("pytest_mobium_evals.core.tasks", "LabelledAnswer"),
    "answers": ("pytest_mobium_evals.core.answers", None),
    "Tools": ("pytest_mobium_evals.reach.toolserver", "Tools"),
    "scripting": ("pytest_mobium_evals.drivers.scripting", None),
}
__all__ = ["Claim", "Controls", "JudgeSpec", "LabelledAnswer", "NearMiss", "Outcome", "Task", "Tools", "__version__",
           "answers", "scripting", "task"]

if TYPE_CHECKING:
    from pytest_mobium_evals.core import answers
    from pytest_mobium_evals.core.tasks import Claim, Controls, JudgeSpec, LabelledAnswer, NearMiss, Outcome, Task, task
    from pytest_mobium_evals.drivers import scripting
    from pytest_mobium_evals.reach.toolserver import Tools


def __getattr__(name: str) -> Any:
    if name not in TASK_API:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    module_name, attribute = TASK_API[name]
    module = importlib.import_module(module_name)
    value = module if attribute is None else getattr(module, attribute)
    globals()[name] = value
    return value


@functools.lru_cache(maxsize=1)
def source_commit() -> tuple[Optional[str], Optional[bool]]:
    """(commit, dirty) of the pytest-mobium-evals checkout this code runs from, so a record says which harness
    graded it; (None, None) when it is not a git checkout of its own (an installed wheel, or a package that sits
    inside someone else's repository): "unknown", never a guess. Read once per process."""
    return checkout_commit(Path(__file__).resolve().parent)


def checkout_commit(package: Path) -> tuple[Optional[str], Optional[bool]]:
    """(commit, dirty) of the git checkout whose top folder holds `package`, or (None, None)."""

    def git(*args: str) -> Optional[str]:
        try:
            done = subprocess.run(["git", "-C", str(package), *args], capture_output=True, text=True, timeout=10)
        except (OSError, subprocess.SubprocessError):
            return None
        return done.stdout.strip() if done.returncode == 0 else None

    top = git("rev-parse", "--show-toplevel")
    if not top or Path(top).resolve() / package.name != package:
        return None, None
    commit = git("rev-parse", "HEAD")
    if not commit:
        return None, None
    status = git("status", "--porcelain", "--untracked-files=no")
    return commit, None if status is None else bool(status)
