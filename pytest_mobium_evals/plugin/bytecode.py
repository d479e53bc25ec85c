"""Where a run's Python processes keep their compiled bytecode when the environment sets PYTHONDONTWRITEBYTECODE.

A run starts many Python processes over the same sources: the xdist workers (each importing the plugin, the tasks
with pytest's assertion rewriting, the virtual device), a prepared tool server per worker, t25's test runs, the
plugin's own tests' subprocess runs. With PYTHONDONTWRITEBYTECODE set (some images set it, so that nothing lands in
a checkout) each of them compiled every module afresh: about 13 CPU seconds of the main job (issue 45). What that
setting asks is that no `__pycache__` be written beside the sources, and that is kept: the bytecode goes to a folder
of this user's own outside every checkout (PYTHONPYCACHEPREFIX, which pytest's assertion rewriting honours too),
set in this process before it starts any other, so every process below inherits it. A PYTHONPYCACHEPREFIX the user
set is where it goes instead. A folder that is not this user's alone is not used: a process would load bytecode
someone else could have written, so the run compiles as before.

Only the environment of this process and its children changes; nothing else of the user's is touched. With the
prefix, Python reads bytecode only under it, so the first run on a machine compiles the standard library and the
installed packages into it once (about as much CPU as the compiling it saves in one run)."""

from __future__ import annotations

import os
import stat
import sys
import tempfile
from typing import MutableMapping, Optional

DONT_WRITE, PREFIX = "PYTHONDONTWRITEBYTECODE", "PYTHONPYCACHEPREFIX"


def default_prefix() -> str:
    """This user's bytecode folder in the temporary directory (the plugin's own tests share it)."""
    return os.path.join(tempfile.gettempdir(), f"pytest-mobium-evals-pycache-{os.getuid()}")


def keep_bytecode_outside_sources(environ: MutableMapping[str, str] = os.environ) -> Optional[str]:
    """Where PYTHONDONTWRITEBYTECODE is set, this process and the ones it starts keep their bytecode under a prefix
    folder instead (the user's PYTHONPYCACHEPREFIX, else `default_prefix()`). Returns the folder, or None when
    nothing changed (the variable is not set, or the folder is not this user's alone)."""
    if not environ.get(DONT_WRITE):
        return None
    folder = environ.get(PREFIX) or default_prefix()
    if not _private_folder(folder):
        return None
    del environ[DONT_WRITE]
    environ[PREFIX] = folder
    if environ is os.environ:
        sys.pycache_prefix = folder
        sys.dont_write_bytecode = False
    return folder


def _private_folder(folder: str) -> bool:
    """The folder exists (made now, mode 0700) and is this user's, with no one else allowed to write in it."""
    try:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        info = os.stat(folder)
    except OSError:
        return False
    return (stat.S_ISDIR(info.st_mode) and info.st_uid == os.getuid()
            and not info.st_mode & (stat.S_IWGRP | stat.S_IWOTH))
