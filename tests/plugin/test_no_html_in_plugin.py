"""plugin/ holds pytest's side only: no module there renders HTML (the report's HTML is report/html_report.py's;
pytest-html's hooks in plugin/html_hooks.py place what it returns)."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest_mobium_evals.plugin

PLUGIN = Path(pytest_mobium_evals.plugin.__file__).parent
#: An element's tag as markup writes it: `<td class=…>`, `<p>`, `</table>`, `<style>`; not `runs/<UTC time>`.
TAG = re.compile(r"</?(?:html|head|body|div|span|p|a|b|i|br|hr|table|tr|td|th|ul|ol|li|pre|code|details|summary|"
                 r"style|script|img|label|input|small|h[1-6])(?=[\s>/])", re.IGNORECASE)


def markup_in(source: str) -> list[tuple[int, str]]:
    """The strings of the code (docstrings left out) that hold an HTML element, with their lines."""
    tree = ast.parse(source)
    docstrings = {id(node.value) for node in ast.walk(tree) if isinstance(node, ast.Expr)}
    return [(node.lineno, node.value) for node in ast.walk(tree)
            if isinstance(node, ast.Constant) and isinstance(node.value, str) and id(node) not in docstrings
            and TAG.search(node.value)]


def test_no_module_under_plugin_renders_html():
    found = [f"{path.name}:{line}: {text[:60]!r}" for path in sorted(PLUGIN.rglob("*.py"))
             for line, text in markup_in(path.read_text(encoding="utf-8"))]
    assert found == []


def test_the_check_sees_markup_not_placeholders():
    source = '''
"""A docstring may say <p> and <table>."""
cells = f'<td class="col-{key}">{value}</td>'
story = "<h3>The run</h3>" + "<details><summary>more</summary>"
help = "where the trials go. Default: runs/<UTC time>-<driver>; model claude-<name>-5-5"
'''
    assert sorted({line for line, _ in markup_in(source)}) == [3, 4]
