"""Check that a README's content is in the manual: every heading, code block, table row and sentence of the README
given (the one before the manual existed: `git show 7dcdc2d:README.md > /tmp/old-readme.md`) is found in docs/ or in
today's README, after the same normalisation of both sides (links reduced to their text, emphasis and list markers
dropped, whitespace collapsed). A heading counts as found in any page's text, nav title included. Options-table rows
count as found when every option they name is on the generated options page.

    python docs/gen/readme_moved.py /tmp/old-readme.md    # prints what it did not find, and the counts"""

from __future__ import annotations

import re
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parents[1]
REPO = DOCS.parent


def normal(text: str) -> str:
    text = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", text)  # [text](url) -> text
    text = re.sub(r"\*\*|__", "", text)
    text = re.sub(r"^\s*(?:[-*]|\d+\.)\s+", "", text, flags=re.M)
    return " ".join(text.split()).lower()


def pieces(readme: str) -> list[tuple[str, str]]:
    """(kind, text) for each heading, code block, table row and sentence of prose."""
    out, prose = [], []
    lines = iter(readme.splitlines())

    def flush():
        text = " ".join(prose)
        prose.clear()
        # sentences: a full stop, colon or semicolon followed by a space and a capital or a backtick
        for sentence in re.split(r"(?<=[.:;])\s+(?=[A-Z`(])", text):
            if len(sentence.strip()) > 3:
                out.append(("sentence", sentence))

    for line in lines:
        if line.startswith("```"):
            flush()
            block = []
            for inner in lines:
                if inner.startswith("```"):
                    break
                block.append(inner)
            out.append(("code", "\n".join(block)))
        elif line.startswith("#"):
            flush()
            out.append(("heading", line.lstrip("#").strip()))
        elif line.lstrip().startswith("|"):
            flush()
            if not re.fullmatch(r"\s*\|[\s|:-]+\|\s*", line):
                out.append(("row", line.strip()))
        elif not line.strip():
            flush()
        elif re.match(r"\s*(?:[-*]|\d+\.)\s", line):
            flush()
            prose.append(line)
        else:
            prose.append(line)
    flush()
    return out


def main(argv: list[str]) -> int:
    old = Path(argv[0]).read_text(encoding="utf-8")
    texts = [p.read_text(encoding="utf-8") for p in sorted(DOCS.rglob("*.md"))]
    texts.append((REPO / "README.md").read_text(encoding="utf-8"))
    texts.append((REPO / "mkdocs.yml").read_text(encoding="utf-8"))
    haystack = normal("\n".join(texts))
    options = (DOCS / "reference" / "options.md").read_text(encoding="utf-8")
    missing, counts = [], {}
    for kind, text in pieces(old):
        counts[kind] = counts.get(kind, 0) + 1
        if kind == "row" and text.startswith("| `--"):
            named = re.findall(r"`(--[a-z-]+)", text.split("|")[1])
            if named and all(f"`{name}`" in options for name in named):
                continue
        if normal(text) not in haystack:
            missing.append((kind, text))
    for kind, text in missing:
        print(f"NOT FOUND ({kind}): {text[:300]}")
    print(", ".join(f"{n} {kind}s" for kind, n in counts.items()) + f"; {len(missing)} not found")
    return 1 if missing else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
