"""The architecture page (docs/explanation/architecture.md) against the tree it describes: the layers it names are
the import-linter contract's, in its order; its Layout lists every folder of the package and no other; every module
path it names exists; every folder says its rule in its `__init__` docstring; and the count of error classes it gives
is the code's. A folder added, a module moved or a layer reordered without the page fails here, with what to change."""

from __future__ import annotations

import ast
import re
import tomllib

from docs_pages import DOCS, ROOT

PAGE = DOCS / "explanation" / "architecture.md"
PACKAGE = ROOT / "pytest_mobium_evals"
STANDING_APART = ("sim", "mobium_server")  # outside the layers: the virtual device and the MCP server


def page_text() -> str:
    return PAGE.read_text(encoding="utf-8")


def layers_contract() -> list[str]:
    contracts = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["importlinter"]["contracts"]
    return next(c for c in contracts if c["type"] == "layers")["layers"]


def layout_block() -> str:
    found = re.search(r"^## Layout\n.*?^```\n(.*?)^```", page_text(), re.M | re.S)
    assert found, f"{PAGE.relative_to(ROOT)}: no ```-fenced tree under '## Layout'"
    return found.group(1)


def package_folders() -> set[str]:
    return {p.name for p in PACKAGE.iterdir() if (p / "__init__.py").is_file()}


def test_the_layers_named_are_the_contracts_in_its_order():
    # The page writes the order as `a` › `b` | `c` › ...: one layer a step, siblings joined by |.
    line = re.search(r"(`\w+`(?:\s*(?:›|\|)\s*`\w+`)+)", page_text().replace("\n", " "))
    assert line, "the page names no layer order (`commands` › `plugin` › ...)"
    named = [" | ".join(re.findall(r"`(\w+)`", step)) for step in line.group(1).split("›")]
    assert named == layers_contract(), (
        f"{PAGE.relative_to(ROOT)} says {' › '.join(named)}; pyproject.toml's layers contract says "
        f"{' › '.join(layers_contract())}")


def test_the_layout_lists_every_folder_of_the_package_and_no_other():
    listed = set(re.findall(r"^  (\w+)/", layout_block(), re.M))
    folders = package_folders()
    assert listed == folders, (f"Layout in {PAGE.relative_to(ROOT)}: add {sorted(folders - listed)}, "
                               f"remove {sorted(listed - folders)}")


def test_every_layered_folder_is_in_the_contract():
    layered = {name for step in layers_contract() for name in step.split(" | ")}
    assert package_folders() - set(STANDING_APART) == layered


def test_every_module_the_page_names_exists():
    # `folder/module.py` or `folder/sub/` as the page writes them, relative to the package.
    named = set(re.findall(r"`((?:\w+/)+\w+\.py|(?:\w+/)+)`", page_text()))
    missing = sorted(path for path in named
                     if (path.split("/")[0] in package_folders() and not (PACKAGE / path).exists()))
    assert not missing, f"{PAGE.relative_to(ROOT)} names modules that are not there: {', '.join(missing)}"


def test_every_folder_says_its_rule_in_its_init_docstring():
    bare = [name for name in sorted(package_folders())
            if not ast.get_docstring(ast.parse((PACKAGE / name / "__init__.py").read_text()))]
    assert not bare, f"give these folders' __init__.py a docstring saying what belongs there: {', '.join(bare)}"


def test_the_count_of_error_classes_is_the_codes():
    stated = re.search(r"today (\d+) of the (\d+) classes rooted at `MobiumEvalsError` \(itself\s+included\) "
                       r"are in `core/errors.py`, (\d+) in (\d+) other modules", page_text().replace("\n  ", " "))
    assert stated, "the page no longer says how the error classes are spread; update this test with it"
    in_errors, total, elsewhere, modules = map(int, stated.groups())
    where = error_classes()
    assert (in_errors, total, elsewhere, modules) == (
        len(where.get("core/errors.py", [])), sum(map(len, where.values())),
        sum(len(v) for k, v in where.items() if k != "core/errors.py"), len(where) - ("core/errors.py" in where)), (
        f"classes rooted at MobiumEvalsError, by module: { {k: sorted(v) for k, v in sorted(where.items())} }")


def error_classes() -> dict[str, list[str]]:
    """Every class of the package whose bases lead to MobiumEvalsError, by module (read from the source, by name)."""
    bases: dict[str, tuple[str, list[str]]] = {}
    for path in PACKAGE.rglob("*.py"):
        module = str(path.relative_to(PACKAGE))
        if module.split("/")[0] in STANDING_APART:
            continue
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ClassDef):
                names = [b.attr if isinstance(b, ast.Attribute) else getattr(b, "id", "") for b in node.bases]
                bases[node.name] = (module, names)

    def rooted(name: str, seen: frozenset = frozenset()) -> bool:
        if name == "MobiumEvalsError":
            return True
        if name not in bases or name in seen:
            return False
        return any(rooted(base, seen | {name}) for base in bases[name][1])

    where: dict[str, list[str]] = {}
    for name, (module, _) in bases.items():
        if rooted(name):
            where.setdefault(module, []).append(name)
    return where
