"""A run folder's files carried from a worker on another host to the controller, with the reports xdist sends.

A worker xdist starts on another host (`--tx ssh=…`) writes the trials it runs under `--run-dir` on that host's
own disk. So that the run folder is whole where the controller writes record.json, with no folder the hosts must
share, such a worker sends with each trial's report the files of that trial's folder, and each file of `.session/`
(the collection, the device it leased) that is new or changed since its last report; the controller writes them
into its own run folder before it reads the report. A worker on the controller's own machine shares its folder and
sends nothing.

On the wire the files are `{path relative to the run folder: base64 of the bytes}`. The controller takes only
paths inside the run folder's `trials/<name>/` and `.session/` (anything else is refused in one line: the
worker's code is the same as the controller's, so that would be a bug, not data), and writes a trial's
verdict.json last, as the worker did: its presence still means the trial is whole."""

from __future__ import annotations

import base64
import os
from pathlib import Path, PurePosixPath
from typing import Optional

from pytest_mobium_evals.core.errors import RecordError

from .files import atomic_write_bytes
from .layout import SESSION, TRIALS, VERDICT, RunDir


def packed(run_dir: os.PathLike | str, trial: Optional[str], sent: dict[str, tuple[int, int]]) -> dict[str, str]:
    """The files to send with a report: every file of `trial`'s folder (none when `trial` is None), and each
    `.session/` file not in `sent` as it is now (size, mtime); `sent` is updated with what is packed."""
    run = RunDir(run_dir)
    files: dict[str, str] = {}
    folders = [run.session_dir] + ([run.trial_dir(trial)] if trial else [])
    for folder in folders:
        if not folder.is_dir():
            continue
        for path in sorted(folder.iterdir()):
            if not path.is_file() or path.name.startswith("."):  # a temp file of a write in progress
                continue
            relative = path.relative_to(run.path).as_posix()
            stat = path.stat()
            if folder == run.session_dir:
                if sent.get(relative) == (stat.st_size, stat.st_mtime_ns):
                    continue
                sent[relative] = (stat.st_size, stat.st_mtime_ns)
            files[relative] = base64.b64encode(path.read_bytes()).decode("ascii")
    return files


def unpack(run_dir: os.PathLike | str, files: dict[str, str]) -> None:
    """Writes the files a worker sent into this run folder, each trial's verdict.json after its other files. A path
    outside `trials/<name>/` and `.session/` is a `RecordError` naming it, and nothing is written."""
    root = Path(run_dir)
    checked = [(_checked(relative), data) for relative, data in files.items()]
    for relative, data in sorted(checked, key=lambda item: item[0].name == VERDICT):
        atomic_write_bytes(root.joinpath(*relative.parts), base64.b64decode(data))


def _checked(relative: str) -> PurePosixPath:
    path = PurePosixPath(relative)
    parts = path.parts
    inside = (len(parts) == 2 and parts[0] == SESSION) or (len(parts) == 3 and parts[0] == TRIALS)
    if path.is_absolute() or not inside or any(part in ("", ".", "..") for part in parts):
        raise RecordError(f"a worker sent {relative!r}, which is not a file of a trial's folder or of {SESSION}/")
    return path
