"""The packages import downwards only: no module of ``chesskb.service``, ``chesskb.queries`` or ``chesskb.kb`` imports,
directly or through others, a module that imports it back.

A cycle hides which module owns a rule (issue 20: ``service/browse.py`` and ``service/pages.py``
imported each other) and works only while the imports stay inside functions. The graph is read from
the source with ``ast`` — every ``import`` counts, at the top of a module or inside a function — so
the test sees the cycles that a lazy import hides from Python.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"chesskb.kb": ROOT / "kb", "chesskb.queries": ROOT / "queries", "chesskb.service": ROOT / "service"}


def _module_name(package: str, folder: Path, path: Path) -> str:
    parts = list(path.relative_to(folder).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join([package, *parts])


def modules() -> dict[str, Path]:
    """Every module of the packages under test, by dotted name."""
    found = {}
    for package, folder in PACKAGES.items():
        for path in sorted(folder.rglob("*.py")):
            found[_module_name(package, folder, path)] = path
    return found


def _resolve(current: str, is_package: bool, node: ast.ImportFrom) -> str:
    if not node.level:
        return node.module or ""
    base = current.split(".") if is_package else current.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def import_graph() -> dict[str, set[str]]:
    """module -> the modules of the same packages it imports (``from x import name`` counts as an
    import of ``x.name`` when that is a module, else of ``x``). Importing ``a.b.c`` runs the
    ``__init__`` of ``a.b`` first, so it counts as an import of that package too, unless the
    importer lives inside it (a package's own modules find it already loading)."""
    known = modules()
    graph: dict[str, set[str]] = {name: set() for name in known}
    for name, path in known.items():
        tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
        for node in ast.walk(tree):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                source = _resolve(name, path.name == "__init__.py", node)
                targets = [
                    f"{source}.{alias.name}" if f"{source}.{alias.name}" in known else source for alias in node.names
                ]
            for target in targets:
                while target and target not in known:  # ``import a.b.c`` of a non-module: its package
                    target = target.rpartition(".")[0]
                while target and target != name and not name.startswith(target + "."):
                    graph[name].add(target)
                    target = target.rpartition(".")[0]
                    if target not in known:
                        break
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components with more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    counter = [0]

    def visit(node: str) -> None:
        index[node] = low[node] = counter[0]
        counter[0] += 1
        stack.append(node)
        on_stack.add(node)
        for nxt in sorted(graph[node]):
            if nxt not in index:
                visit(nxt)
                low[node] = min(low[node], low[nxt])
            elif nxt in on_stack:
                low[node] = min(low[node], index[nxt])
        if low[node] == index[node]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == node:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for node in sorted(graph):
        if node not in index:
            visit(node)
    return found


def test_the_graph_sees_the_service_modules_and_their_imports() -> None:
    """The walker finds what it must (else 'no cycle' would prove nothing): relative, absolute and
    in-function imports."""
    graph = import_graph()
    assert "chesskb.service.app" in graph and "chesskb.kb.importer" in graph
    assert "chesskb.service.errors" in graph["chesskb.service.app"]  # from .errors import …
    assert "chesskb.service.commands.site" in graph["chesskb.service.commands.html"]  # absolute
    assert "chesskb.kb.export.owlxml" in graph["chesskb.service.commands.export"]  # inside a function
    assert "chesskb.queries.executor" in graph["chesskb.kb.merge.linking"]  # queries/ is walked too


def test_an_import_runs_the_packages_above_the_module() -> None:
    """``from chesskb.kb.mapping.iris import digest`` runs ``kb/mapping/__init__``: the cycle
    merge.identity -> mapping -> mapping.game -> merge.identity was one (before the identity rule moved
    into mapping/), though no line imported ``chesskb.kb.mapping`` itself."""
    graph = import_graph()
    assert "chesskb.kb.mapping" in graph["chesskb.kb.merge.linking"]  # from chesskb.kb.mapping.iris import …
    assert "chesskb.kb.reading" not in graph["chesskb.kb.reading.pgn"]  # its own package: already loading


def test_cycle_finder_finds_a_cycle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_in_service_or_kb() -> None:
    found = cycles(import_graph())
    assert not found, "import cycles (each line a set of modules that import each other):\n" + "\n".join(
        " <-> ".join(c) for c in found
    )


def test_kb_never_imports_service() -> None:
    graph = import_graph()
    upward = sorted(
        f"{m} -> {t}"
        for m, targets in graph.items()
        if m.startswith("chesskb.kb")
        for t in targets
        if t.startswith("chesskb.service")
    )
    assert not upward, upward
