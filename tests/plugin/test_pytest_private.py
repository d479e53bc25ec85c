"""pytest's private API is used in one module, plugin/pytest_private.py, which says why for each use; everywhere else
the plugin asks pytest through its public API."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest_mobium_evals
from pytest_mobium_evals.plugin.pytest_private import setup_for

PACKAGE = Path(pytest_mobium_evals.__file__).parent
WRAPPER = "plugin/pytest_private.py"
#: What pytest hands a plugin: a private attribute of one of these is pytest's internals (`item._request`).
PYTEST_OBJECTS = {"item", "pyfuncitem", "config", "early_config", "session", "request", "node", "report", "metafunc",
                  "parser", "call", "collector", "pluginmanager", "terminalreporter", "tr"}


def private_uses(source: str) -> list[str]:
    found = []
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and (node.module or "").split(".")[0] == "_pytest":
            found.append(f"{node.lineno}: from {node.module}")
        elif isinstance(node, ast.Import):
            found += [f"{node.lineno}: import {a.name}" for a in node.names if a.name.split(".")[0] == "_pytest"]
        elif (isinstance(node, ast.Attribute) and node.attr.startswith("_") and not node.attr.startswith("__")
              and isinstance(node.value, ast.Name) and node.value.id in PYTEST_OBJECTS):
            found.append(f"{node.lineno}: {node.value.id}.{node.attr}")
    return found


def test_only_the_wrapper_uses_pytests_private_api():
    found = [f"{path.relative_to(PACKAGE).as_posix()}:{use}" for path in sorted(PACKAGE.rglob("*.py"))
             if path.relative_to(PACKAGE).as_posix() != WRAPPER
             for use in private_uses(path.read_text(encoding="utf-8"))]
    assert found == []


def test_the_check_sees_private_imports_and_attributes():
    source = '''
from _pytest.config.findpaths import determine_setup
import _pytest.python
names = pyfuncitem._fixtureinfo.argnames
value = item._request.getfixturevalue("x")
fine = item.funcargs, self._lease, config.__class__
'''
    assert [use.split(": ")[1] for use in private_uses(source)] == [
        "from _pytest.config.findpaths", "import _pytest.python", "pyfuncitem._fixtureinfo", "item._request"]


def test_the_wrapper_answers_on_this_pytest(pytestconfig):
    # what the rootdir check compares: this run's own setup, found again from its own free arguments
    found = setup_for(pytestconfig, list(pytestconfig.known_args_namespace.file_or_dir))
    assert found is not None
    assert found == (pytestconfig.rootpath, pytestconfig.inipath)
