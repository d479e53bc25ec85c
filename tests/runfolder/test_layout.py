"""A run folder's file names are spelt once, in runfolder/layout.py: no other module of the package spells one in
its code (a docstring or a comment may name a file; a path, a glob, a message or a help text takes the name from
layout)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest_mobium_evals
from pytest_mobium_evals.runfolder import layout

PACKAGE = Path(pytest_mobium_evals.__file__).parent
#: Where a run folder's names may be spelt: runfolder/ itself; and the virtual device and the Mobium-compatible
#: server, which write no run folder and may import nothing of the harness (their own contracts).
EXEMPT = ("runfolder", "sim", "mobium_server")


def name_pattern(name: str) -> re.Pattern:
    """A name as code may spell it: whole (not inside a longer word), its placeholder or glob as any of them, or as
    an f-string's expression; `trials` as a path's part (`trials/…`, `…/trials`), not the word."""
    if name == layout.TRIALS:
        return re.compile(r"(?<![\w.-])trials/|/trials(?![\w-])")
    any_part = r"(?:\{\}|\*|<\w+>|[\w-]+)"
    text = re.sub(r"\\\{\w+\\\}|\\\*", lambda _: any_part, re.escape(name))
    return re.compile(rf"(?<![\w.-]){text}(?!\w|[.-]\w)")


def code_strings(tree: ast.AST) -> list[tuple[int, str]]:
    """Each string of the code with its line: an f-string read with `{}` for each expression; a string standing as a
    statement (a docstring) left out; a bare folder's name joined to a path or compared (`run / "trials"`,
    `name == "trials"`) read as `/trials/`."""
    # a string standing as a statement is documentation: a docstring, or a field's (as core/trial_record.py's)
    docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)
                  and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str)}
    inside_fstrings = {id(part) for node in ast.walk(tree) if isinstance(node, ast.JoinedStr) for part in node.values}
    path_parts = {id(operand) for node in ast.walk(tree) for operand in
                  ((node.left, node.right) if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div)
                   else (node.left, *node.comparators) if isinstance(node, ast.Compare) else ())}
    out = []
    for node in ast.walk(tree):
        if isinstance(node, ast.JoinedStr):
            out.append((node.lineno, "".join(p.value if isinstance(p, ast.Constant) else "{}" for p in node.values)))
        elif (isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
              and id(node) not in inside_fstrings):
            out.append((node.lineno, f"/{node.value}/" if id(node) in path_parts else node.value))
    return out


def spelt_outside_runfolder() -> list[str]:
    patterns = {name: name_pattern(name) for name in layout.NAMES}
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        relative = path.relative_to(PACKAGE)
        if relative.parts[0] in EXEMPT:
            continue
        for line, text in code_strings(ast.parse(path.read_text(encoding="utf-8"))):
            found += [f"{relative}:{line}: {name} in {text!r}" for name, pattern in patterns.items()
                      if pattern.search(text)]
    return found


def test_no_module_outside_runfolder_spells_a_run_folders_file_name():
    assert spelt_outside_runfolder() == []


def test_the_check_finds_a_name_however_code_spells_it():
    source = '''
"""judge.md, in a docstring, is prose."""
RECORD = "record.json"
class Record:
    ended: str = ""
    """Written once judge.md is."""
def f(run, name, worker):
    """A docstring naming compare.md."""
    glob = run.glob("trials/*/verdict.json")
    path = f"trials/{name}/screen.png"
    device = f"device-{worker}.json"
    old = run / ".session" / "collection.json"
    help = "where report.md and pass-rate.png go (see regrade.md)"
    done = name == "trials" or run / "trials"
    words = {"trials": 3, "recorded": "record", "the .eval format": "(.eval)", "x.json": "transcript.jsonl.gz"}
'''
    strings = [text for _, text in code_strings(ast.parse(source))]
    hits = {name for name in layout.NAMES for text in strings if name_pattern(name).search(text)}
    assert hits == {layout.RECORD, layout.TRIALS, layout.VERDICT, layout.SCREEN, layout.SESSION_DEVICE,
                    layout.SESSION_DEVICES, layout.SESSION, layout.COLLECTION, layout.REPORT, layout.CHART,
                    layout.REGRADE}
