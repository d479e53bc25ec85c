"""What the documentation tests read: the README and the manual's pages, their marked code blocks, and the
reference generator in docs/gen/.

A code block is marked by an HTML comment on the line before its fence (invisible on GitHub and in the site):
`<!-- ci-step: WHAT -->` says the block's commands are steps .ci/run runs; `<!-- runs: PATH -->` says the block
is a file, at PATH in the repository, that a test runs."""

from __future__ import annotations

import importlib.util
import re
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
README = ROOT / "README.md"

MARK = re.compile(r"^<!-- (ci-step|runs): (.+?) -->\n```[^\n]*\n(.*?)^```", re.M | re.S)


@dataclass(frozen=True)
class Block:
    page: Path
    kind: str  # "ci-step" | "runs"
    what: str  # the marker's text: a step's name, or the file's path
    text: str

    def __str__(self) -> str:
        return f"{self.page.relative_to(ROOT)} ({self.kind}: {self.what})"


def pages() -> list[Path]:
    return [README, *sorted(DOCS.rglob("*.md"))]


def marked_blocks(kind: str) -> list[Block]:
    return [Block(page, found.group(1), found.group(2), found.group(3))
            for page in pages() for found in MARK.finditer(page.read_text(encoding="utf-8"))
            if found.group(1) == kind]


def references():
    """docs/gen/references.py as a module (it is a script beside the pages, not part of the package)."""
    spec = importlib.util.spec_from_file_location("docs_references", DOCS / "gen" / "references.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
