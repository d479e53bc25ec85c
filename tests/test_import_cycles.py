"""No import cycle in the package, counting every import a module makes when it runs (one inside a function too; not
one under TYPE_CHECKING, which never runs). A function-level import can hide a cycle that import-linter's layers do
not see (two modules of one folder importing each other, one of them late): drivers/agents/__init__ and the providers
did, until endpoints.py held what both needed."""

from __future__ import annotations

import grimp

PACKAGE = "pytest_mobium_evals"


def cycles(graph) -> list[list[str]]:
    """The strongly connected groups of more than one module (Tarjan's algorithm, without recursion)."""
    modules = sorted(graph.modules)
    edges = {m: sorted(n for n in graph.find_modules_directly_imported_by(m) if n != m) for m in modules}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    for root in modules:
        if root in index:
            continue
        work = [(root, 0)]
        while work:
            node, i = work.pop()
            if i == 0:
                index[node] = low[node] = len(index)
                stack.append(node)
                on_stack.add(node)
            for j in range(i, len(edges[node])):
                nxt = edges[node][j]
                if nxt not in index:
                    work += [(node, j + 1), (nxt, 0)]
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            else:
                if low[node] == index[node]:
                    group = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        group.append(member)
                        if member == node:
                            break
                    if len(group) > 1:
                        found.append(sorted(group))
                if work:
                    parent = work[-1][0]
                    low[parent] = min(low[parent], low[node])
    return found


def test_no_module_of_the_package_imports_itself_back():
    graph = grimp.build_graph(PACKAGE, exclude_type_checking_imports=True)
    assert cycles(graph) == []


def test_the_check_finds_a_cycle_made_of_late_imports():
    graph = grimp.ImportGraph()
    for name in ("p", "p.a", "p.b", "p.c"):
        graph.add_module(name)
    graph.add_import(importer="p.a", imported="p.b")
    graph.add_import(importer="p.b", imported="p.c")
    graph.add_import(importer="p.c", imported="p.a")  # as a function-level import would make it
    assert cycles(graph) == [["p.a", "p.b", "p.c"]]
