"""A transcript event's kind is spelt once (core/transcript.py's EventKind): the writers name it, only that module
reads it, and every kind it reads is one a writer produces."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest_mobium_evals
from pytest_mobium_evals.core.transcript import CALL_KINDS, RESPONSE_KINDS, EventKind

PACKAGE = Path(pytest_mobium_evals.__file__).parent
HOME = "core/transcript.py"
KINDS = {k.value for k in EventKind}


def _is_recorder(call: ast.Call) -> bool:
    name = call.func.id if isinstance(call.func, ast.Name) else call.func.attr if isinstance(call.func, ast.Attribute) \
        else ""
    return "record" in name


def bare_kinds(source: str) -> list[str]:
    """Where an event's kind is written as a bare string: `{"kind": "call", …}`, `record("prompt", …)`."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Dict):
            found += [f"{node.lineno}: {v.value!r}" for k, v in zip(node.keys, node.values)
                      if isinstance(k, ast.Constant) and k.value == "kind" and isinstance(v, ast.Constant)
                      and v.value in KINDS]
        elif isinstance(node, ast.Call) and _is_recorder(node) and node.args:
            first = node.args[0]
            if isinstance(first, ast.Constant) and first.value in KINDS:
                found.append(f"{node.lineno}: {first.value!r}")
    return found


def written_kinds() -> set[str]:
    """The kinds the package's writers name (`EventKind.X` outside core/transcript.py)."""
    return {EventKind[node.attr].value for path in PACKAGE.rglob("*.py")
            if path.relative_to(PACKAGE).as_posix() != HOME
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
            if isinstance(node, ast.Attribute) and isinstance(node.value, ast.Name) and node.value.id == "EventKind"}


def test_every_writer_names_its_kind():
    found = [f"{path.relative_to(PACKAGE).as_posix()}:{where}" for path in sorted(PACKAGE.rglob("*.py"))
             for where in bare_kinds(path.read_text(encoding="utf-8"))]
    assert found == []


def test_every_kind_is_written_and_the_reader_waits_for_none_that_is_not():
    assert written_kinds() == KINDS
    assert set(CALL_KINDS) <= KINDS and set(RESPONSE_KINDS) <= KINDS


def test_the_check_sees_a_bare_kind():
    source = '''
record("prompt", text="x")
self._record({"t": 1, "kind": "call", "name": "app_map"})
on_event({"kind": EventKind.FINAL})
grade(kind="refusal")
device = {"kind": "virtual"}
'''
    assert [f.split(": ")[1] for f in bare_kinds(source)] == ["'prompt'", "'call'"]
