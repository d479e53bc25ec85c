"""pytest-mobium-evals: does an agent driving a phone app through Mobium's MCP tools get the job done,
and does it tell the truth about it?"""

from __future__ import annotations

import functools
import subprocess
from pathlib import Path
from typing import Optional

__version__ = "0.1.0"


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
