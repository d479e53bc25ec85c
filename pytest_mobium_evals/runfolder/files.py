"""One atomic writer and one JSON reader for every file the harness writes whole or reads back.

A file is written to a temp file in its own folder, then `os.replace`d over the name, mode 0644 (readable by CI
artifact uploads): an interrupted write leaves the old file or none, never half of one. JSON is written with the
run folder's format (indent 2, keys sorted, `default=str`) unless a caller's file is another format's."""

from __future__ import annotations

import json
import os
import tempfile
from pathlib import Path
from typing import Any, Iterable

from pytest_mobium_evals.core.errors import UsageError

FILE_MODE = 0o644

NO_DEFAULT = object()  # a reader's `default` when none is given: a file that will not read is an error


def atomic_write_bytes(path: Path, data: bytes) -> None:
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as fh:
            # mkstemp makes a private 0600 file; a run folder is an artifact others read (CI uploads, a reviewer's
            # account), so it gets the mode a file written by open() has under the usual umask
            os.fchmod(fh.fileno(), FILE_MODE)
            fh.write(data)
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except BaseException:
        try:
            os.unlink(tmp)
        except OSError:
            pass
        raise


def atomic_write_text(path: Path, text: str) -> None:
    atomic_write_bytes(path, text.encode("utf-8"))


def atomic_write_json(path: Path, data: Any, *, indent: int | None = 2, sort_keys: bool = True,
                      ensure_ascii: bool = True) -> None:
    atomic_write_text(path, json.dumps(data, indent=indent, sort_keys=sort_keys, default=str,
                                       ensure_ascii=ensure_ascii) + "\n")


def atomic_write_jsonl(path: Path, events: Iterable[dict]) -> None:
    atomic_write_text(path, "".join(json.dumps(e, sort_keys=True, default=str, ensure_ascii=False) + "\n"
                                    for e in events))


def read_json(path: Path, what: str = "JSON", default: Any = NO_DEFAULT) -> Any:
    """The JSON value in `path`. A missing, unreadable or malformed file is `default` when one is given, else a
    one-line `UsageError` naming the file and `what` it should hold."""
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except FileNotFoundError:
        if default is not NO_DEFAULT:
            return default
        raise UsageError(f"{path}: no {what}") from None
    except (OSError, UnicodeDecodeError) as exc:
        if default is not NO_DEFAULT:
            return default
        raise UsageError(f"{path}: cannot read {what}: {getattr(exc, 'strerror', None) or exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        if default is not NO_DEFAULT:
            return default
        raise UsageError(f"{path}: {what} is not valid JSON (line {exc.lineno}, column {exc.colno}: {exc.msg})") \
            from None
