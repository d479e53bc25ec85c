"""AndroidWorld's pytest hooks: its JSON task files collected with Ghost Bench's machinery (`task_file_class`), one
test per task, marked `androidworld`, and its run summary (`androidworld.json`) written as Ghost Bench's is. The
harness's plugin registers this module; it hears the run through the hooks the harness declares."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ..ghost_bench.collection import Entry, is_task_file, object_name, task_file_class
from ..ghost_bench.summary import write_summary
from .adapter import SUITE, to_task
from .loading import AndroidWorldError, AWTask, load_objects
from .native import NativeUnavailable, native_class, native_twin
from .summary import SPEC


def entries(path: Path, config: Any = None) -> list[Entry]:
    """One Entry per object of the file; a malformed object (or one whose controls cannot be derived) is an
    Entry that fails alone with its one line, under its id (or its place in the file when it has none). With
    --androidworld-native, each task is followed by its twin graded by AndroidWorld's own class."""
    native = bool(config is not None and config.getoption("mobium_androidworld_native", False))
    loaded = load_objects(path)
    by_id = {item.id: item for item in loaded if isinstance(item, AWTask)}
    out = []
    for index, item in enumerate(loaded, start=1):
        if isinstance(item, AWTask):
            try:
                task = to_task(item, by_id)
            except AndroidWorldError as err:
                item = err
            else:
                out.append(Entry(task))
                if native:
                    out.append(_native_entry(item, task))
                continue
        out.append(Entry(None, error=str(item), name=object_name(item, index), suite=SUITE))
    return out


def _native_entry(aw: AWTask, task: Any) -> Entry:
    try:
        return Entry(native_twin(task, native_class(aw.cls)))
    except NativeUnavailable as err:
        return Entry(None, error=f"{aw.source}: --androidworld-native: {err}", name=f"{aw.id}.native",
                     suite=SUITE)


AndroidWorldFile = task_file_class("AndroidWorldFile", entries)


def pytest_mobium_trial_recorded(config: Any, run_dir: Path, result: Any) -> None:
    # Rewritten after every AndroidWorld trial, so a run that is killed still leaves a summary of what it finished.
    if isinstance(result, dict) and result.get("suite") == SUITE:
        write_summary(run_dir, status="running", spec=SPEC)


#: Where this session's AndroidWorld summary went, said in the terminal summary (as Ghost Bench's: the run finishes
#: while pytest's "[100%]" line is still open).
SUMMARY_WRITTEN = pytest.StashKey[Path]()


def pytest_mobium_run_finished(config: Any, run_dir: Path, status: str) -> None:
    path = write_summary(run_dir, status=status, spec=SPEC)
    if path is not None:
        config.stash[SUMMARY_WRITTEN] = path


def pytest_terminal_summary(terminalreporter: Any, config: Any) -> None:
    path = config.stash.get(SUMMARY_WRITTEN, None)
    if path is not None:
        terminalreporter.write_line(f"AndroidWorld summary: {path}")


def pytest_collect_file(file_path: Path, parent: Any) -> Any | None:
    if not is_task_file(Path(file_path), SUITE):
        return None
    return AndroidWorldFile.from_parent(parent, path=Path(file_path))
