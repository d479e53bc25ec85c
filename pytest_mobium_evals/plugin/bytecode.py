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
prefix, Python reads bytecode only under it, so the first run of a checkout with a new environment found it empty:
every xdist worker compiled the standard library, the installed packages and the package at the same moment, four
times the same work on two cores, and the fresh clone's main job took 10 s longer than the next run. So before any
worker starts, the process that starts them fills the folder once (`seed_prefix`): the bytecode that pip and
Python's installer already wrote beside the standard library's and the installed packages' sources is copied in
(checked against its source first: a stale file is left for Python to compile), and the checkout's own package and
tasks, which have none beside them, are compiled. A stamp in the folder says it was done for this environment and
checkout, so later runs skip it; a source edited since is compiled by the first process that imports it, as
always."""

from __future__ import annotations

import hashlib
import importlib.metadata
import os
import py_compile
import re
import stat
import sys
import sysconfig
import tempfile
from pathlib import Path
from typing import Iterable, Iterator, MutableMapping, Optional

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


# The parts of the standard library no run imports: its own tests and the GUI and its demos.
_STDLIB_SKIPPED = {"test", "tests", "idlelib", "tkinter", "turtledemo", "lib2to3", "ensurepip", "site-packages",
                   "dist-packages", "__pycache__"}
STAMP = "seeded-{}"
#: A pyc file's header (PEP 552): the magic number, the flags (0: checked by the source's mtime and size), the
#: source's mtime and its size, each four bytes.
HEADER = 16


def seed_prefix(folder: str, checkout: Iterable[Path], distribution: str = "pytest-mobium-evals") -> int:
    """Fills the bytecode folder before the processes that read it start. Once for this environment: the bytecode
    beside the standard library's and the installed distributions' sources (`distribution` and what it requires,
    extras aside, and every module this process has imported), linked in where it still matches its source. Once
    for these checkout folders: their sources compiled. Each part leaves a stamp, so a later run with the same
    environment or folders skips it. Returns how many files were written."""
    written = 0
    environment = [sys.executable, sys.prefix, sys.implementation.cache_tag or "", distribution]
    if _first_time(folder, "environment", environment):
        written += sum(_copy_beside(folder, source) for source in _installed_sources(distribution))
        _stamp(folder, "environment", environment)
    roots = [*environment, *sorted(str(Path(root).resolve()) for root in checkout)]
    if _first_time(folder, "checkout", roots):
        for root in roots[len(environment):]:
            written += sum(_compile_into(folder, str(source)) for source in sorted(Path(root).rglob("*.py")))
        _stamp(folder, "checkout", roots)
    return written


def _stamp_path(folder: str, part: str, key: list[str]) -> Path:
    return Path(folder) / STAMP.format(f"{part}-{hashlib.sha256(chr(0).join(key).encode()).hexdigest()[:16]}")


def _first_time(folder: str, part: str, key: list[str]) -> bool:
    return not _stamp_path(folder, part, key).exists()


def _stamp(folder: str, part: str, key: list[str]) -> None:
    _write(str(_stamp_path(folder, part, key)), ("\n".join(key) + "\n").encode())


def cached_path(folder: str, source: str) -> str:
    """Where Python looks for a source's bytecode under the prefix folder (importlib's cache_from_source, which
    reads sys.pycache_prefix; spelt out so that the caller's folder is the one used)."""
    head, name = os.path.split(os.path.abspath(source))
    return os.path.join(folder, head.lstrip(os.sep), f"{name[:-3]}.{sys.implementation.cache_tag}.pyc")


def _installed_sources(distribution: str) -> Iterator[str]:
    stdlib = sysconfig.get_paths()["stdlib"]
    for head, folders, files in os.walk(stdlib):
        folders[:] = [name for name in folders if name not in _STDLIB_SKIPPED]
        yield from (os.path.join(head, name) for name in files if name.endswith(".py"))
    for dist in _requirement_closure(distribution):
        for file in dist.files or ():
            if file.suffix == ".py":
                yield str(dist.locate_file(file))
    # and whatever this process has imported besides (the interpreter's start-up hooks, other pytest plugins)
    for module in list(sys.modules.values()):
        path = getattr(module, "__file__", None)
        if isinstance(path, str) and path.endswith(".py"):
            yield path


def _requirement_closure(name: str) -> list[importlib.metadata.Distribution]:
    found: dict[str, importlib.metadata.Distribution] = {}
    todo = [name]
    while todo:
        wanted = re.sub(r"[-_.]+", "-", todo.pop()).lower()
        if wanted in found:
            continue
        try:
            dist = importlib.metadata.distribution(wanted)
        except importlib.metadata.PackageNotFoundError:
            continue
        found[wanted] = dist
        for requirement in dist.requires or ():
            spec, _, marker = requirement.partition(";")
            if "extra" in marker:
                continue
            todo.append(re.split(r"[\s\[(<>=!~]", spec.strip(), maxsplit=1)[0])
    return list(found.values())


def _copy_beside(folder: str, source: str) -> int:
    target = cached_path(folder, source)
    head, name = os.path.split(source)
    beside = os.path.join(head, "__pycache__", f"{name[:-3]}.{sys.implementation.cache_tag}.pyc")
    try:
        if os.path.exists(target):
            return 0
        with open(beside, "rb") as pyc:
            header = pyc.read(HEADER)
        info = os.stat(source)
    except OSError:
        return 0
    if not _matches(header, info):
        return 0  # stale, or checked by hash: Python compiles it when it is imported
    _made(os.path.dirname(target))
    try:
        os.link(beside, target)  # the same bytes, and no copy of them: Python replaces a file here, never edits it
    except FileExistsError:
        return 0
    except OSError:
        with open(beside, "rb") as pyc:
            _write(target, pyc.read())
    return 1


def _matches(header: bytes, info: os.stat_result) -> bool:
    from importlib.util import MAGIC_NUMBER  # noqa: PLC0415  importlib.util is loaded by any run already

    return (len(header) == HEADER and header[:4] == MAGIC_NUMBER and int.from_bytes(header[4:8], "little") == 0
            and int.from_bytes(header[8:12], "little") == int(info.st_mtime) & 0xFFFFFFFF
            and int.from_bytes(header[12:16], "little") == info.st_size & 0xFFFFFFFF)


_made_folders: set[str] = set()


def _made(folder: str) -> None:
    if folder not in _made_folders:
        os.makedirs(folder, mode=0o700, exist_ok=True)
        _made_folders.add(folder)


def _compile_into(folder: str, source: str) -> int:
    target = cached_path(folder, source)
    try:
        if os.path.exists(target):
            return 0
        py_compile.compile(source, cfile=target, doraise=True,
                           invalidation_mode=py_compile.PycInvalidationMode.TIMESTAMP)
    except (OSError, py_compile.PyCompileError):
        return 0  # a file that does not compile fails where it is imported, with Python's own message
    return 1


def _write(target: str, data: bytes) -> None:
    """Written whole under a temporary name and renamed, as importlib writes bytecode, so a process reading the
    folder meanwhile finds the old file or the new one."""
    _made(os.path.dirname(target))
    temp = f"{target}.{os.getpid()}.tmp"
    try:
        with open(temp, "wb") as out:
            out.write(data)
        os.replace(temp, target)
    except OSError:
        try:
            os.unlink(temp)
        except OSError:
            pass
