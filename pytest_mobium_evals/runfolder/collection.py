"""`.session/collection.json`: what a session scheduled (its name and place are layout.py's).

Made by every process that collects, which keeps the object (`plugin.run_books.RunBooks.collection()`) and writes the
file (under xdist every worker collects the same items, so they all write the same file). The file is read where the
object is not at hand: by xdist's controller (its checks once the workers have collected, the record, the terminal
summary and the HTML report), which collects nothing itself."""

from __future__ import annotations

import os
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Optional

from pytest_mobium_evals.core.setting import Setting
from pytest_mobium_evals.runfolder.files import atomic_write_json, read_json
from pytest_mobium_evals.runfolder.layout import RunDir


@dataclass(frozen=True)
class Collection:
    """What a session scheduled: its tasks (in collection order), trial names, trials per setting, suites, and the
    longest prompt an agent trial is given (None: no agent trial)."""

    tasks: list[str] = field(default_factory=list)
    scheduled: list[str] = field(default_factory=list)
    settings: dict[Setting, int] = field(default_factory=dict)
    suites: list[str] = field(default_factory=list)
    longest_agent_prompt: Optional[str] = None

    @staticmethod
    def path(run_dir: os.PathLike | str) -> Path:
        return RunDir(run_dir).collection_path

    @classmethod
    def exists(cls, run_dir: os.PathLike | str) -> bool:
        """Whether a process of this run has collected (under xdist: the workers scheduled trials)."""
        return cls.path(run_dir).exists()

    @classmethod
    def read(cls, run_dir: os.PathLike | str) -> Collection:
        """The run's collection; an empty one when none was written (or it cannot be read)."""
        data = read_json(cls.path(run_dir), "the session's collection", default=None)
        if not isinstance(data, dict):
            return cls()
        settings = {}
        for entry in data.get("settings") or []:
            try:
                settings[Setting(**entry["setting"])] = int(entry["scheduled"])
            except (KeyError, TypeError, ValueError):
                continue  # a collection another version wrote: its settings are counted again by the trials
        return cls(tasks=list(data.get("tasks") or []), scheduled=list(data.get("scheduled") or []),
                   settings=settings, suites=list(data.get("suites") or []),
                   longest_agent_prompt=data.get("longest_agent_prompt"))

    def write(self, run_dir: os.PathLike | str) -> None:
        data = {"tasks": self.tasks, "scheduled": self.scheduled, "suites": self.suites,
                "longest_agent_prompt": self.longest_agent_prompt,
                "settings": [{"setting": asdict(setting), "scheduled": count}
                             for setting, count in self.settings.items()]}
        atomic_write_json(self.path(run_dir), data)
