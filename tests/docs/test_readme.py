"""The README is the front door: at most 250 lines, its verdict table the generated reference's, its links to the
manual's pages real (mkdocs checks the site's links; the README is not a page of the site)."""

from __future__ import annotations

import re

from docs_pages import README, ROOT, references


def table_rows(text: str, header: str) -> list[list[str]]:
    """The rows of the Markdown table whose header line starts with `header`, as lists of cells."""
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    rows = []
    for line in lines[start + 2:]:
        if not line.startswith("|"):
            break
        rows.append([cell.strip() for cell in line.strip("|").split(" | ")])
    return rows


def test_the_readme_is_at_most_250_lines():
    assert len(README.read_text(encoding="utf-8").splitlines()) <= 250


def test_the_readmes_verdict_table_is_the_generated_one():
    generated = [[verdict, *rest] for verdict, _letter, *rest in
                 table_rows(references().verdicts_page(), "| Verdict | Letter |")]
    assert table_rows(README.read_text(encoding="utf-8"), "| Verdict | Device |") == generated


def test_the_readmes_links_into_the_repository_lead_somewhere():
    links = re.findall(r"\]\(((?!https?://)[^)#]+)(?:#[^)]*)?\)", README.read_text(encoding="utf-8"))
    assert links
    assert [link for link in links if not (ROOT / link).exists()] == []
