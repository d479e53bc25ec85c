"""The trials' verdicts in pytest-html's results table (registered only when pytest-html is loaded)."""

from __future__ import annotations

import pytest

_HTML_COLUMNS = (("verdict", "Verdict"), ("severity", "Severity"), ("claim", "Claim"), ("answer", "Answer"),
                 ("tool_calls", "Tool calls"), ("seconds", "Seconds"))


def _html_header(cells) -> None:
    for i, (key, title) in enumerate(_HTML_COLUMNS):
        cells.insert(2 + i, f'<th class="sortable" data-column-type="{key}">{title}</th>')


def _html_row(report, cells) -> None:
    import html

    data = getattr(report, "mobium", None) or {}
    for i, (key, _) in enumerate(_HTML_COLUMNS):
        value = data.get(key)
        if key == "seconds" and isinstance(value, (int, float)):
            value = f"{value:.1f}"
        cells.insert(2 + i, f'<td class="col-{key}">{html.escape("" if value is None else str(value))}</td>')


class HtmlHooks:
    @pytest.hookimpl(optionalhook=True)
    def pytest_html_results_table_header(self, cells):
        _html_header(cells)

    @pytest.hookimpl(optionalhook=True)
    def pytest_html_results_table_row(self, report, cells):
        _html_row(report, cells)
