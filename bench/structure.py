"""Structure figures (issues 20 and 37): SPARQL text outside ``queries/``, import and package cycles.

    python bench/structure.py [--list]

* **SPARQL strings**: string constants in ``kb/`` and ``service/`` that read as a SPARQL query or
  update (a query form keyword followed by a ``{`` group, or a ``PREFIX`` line). Those built by
  interpolation (an f-string with a value, ``%`` or ``.format`` on the text, ``+`` with a
  non-constant) are counted apart: they are the ones that can go wrong with a hostile value.
  Keywords are matched in capitals, as the project writes SPARQL: a message saying "select" is no query.
* **Import cycles**: strongly connected components of the graph of ``chesskb.kb``, ``chesskb.queries``
  and ``chesskb.service`` modules, read the way ``tests/test_import_graph.py`` reads it (the same
  functions: every ``import``, top-level or inside a function, and the packages an import runs).
* **Package cycles**: the same graph with every module counted as its package (``kb/``'s sub-packages
  and top-level modules, ``queries``, ``service``): the packages that import each other in one cycle,
  which the stage order (``.importlinter``) forbids even when no two modules do.

Both are read with ``ast`` from the files as they are; nothing is imported or run.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
from tests.test_import_graph import cycles, import_graph  # noqa: E402  (the test's reading of the imports)

SPARQL = re.compile(r"\b(SELECT|ASK|CONSTRUCT|DESCRIBE|INSERT|DELETE|WHERE)\b[^{}]*\{|^\s*PREFIX\s+\w*:", re.M)


def source_files() -> list[Path]:
    return sorted(p for folder in ("kb", "service") for p in (ROOT / folder).rglob("*.py"))


def _text(node: ast.AST) -> str:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        return node.value
    if isinstance(node, ast.JoinedStr):
        return "".join(_text(v) if isinstance(v, ast.Constant) else "{}" for v in node.values)
    return ""


def sparql_strings(path: Path) -> list[tuple[int, bool]]:
    """(line, interpolated) for each SPARQL-looking string in ``path``."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    parents: dict[ast.AST, ast.AST] = {}
    for node in ast.walk(tree):
        for child in ast.iter_child_nodes(node):
            parents[child] = node
    docstrings = {
        id(n.body[0].value)
        for n in ast.walk(tree)
        if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        and n.body
        and isinstance(n.body[0], ast.Expr)
    }
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Constant, ast.JoinedStr)) or id(node) in docstrings:
            continue
        if isinstance(parents.get(node), ast.JoinedStr):
            continue  # a piece of an f-string: the f-string itself is counted
        if not SPARQL.search(_text(node)):
            continue
        interpolated = isinstance(node, ast.JoinedStr) and any(isinstance(v, ast.FormattedValue) for v in node.values)
        parent = parents.get(node)
        if isinstance(parent, ast.BinOp) and isinstance(parent.op, (ast.Mod, ast.Add)):
            interpolated = True
        if isinstance(parent, ast.Attribute) and parent.attr == "format" and isinstance(parents.get(parent), ast.Call):
            interpolated = True
        found.append((node.lineno, interpolated))
    return found


def package_of(module: str) -> str:
    """The stage a module belongs to: ``chesskb.kb.X`` (a sub-package or top-level module of ``kb/``),
    else its top package (``chesskb.queries``, ``chesskb.service``)."""
    parts = module.split(".")
    return ".".join(parts[:3] if parts[1] == "kb" and len(parts) > 2 else parts[:2])


def package_graph(graph: dict[str, set[str]]) -> dict[str, set[str]]:
    """``graph`` with every module replaced by its package (imports inside one package dropped)."""
    packages: dict[str, set[str]] = {}
    for module, targets in graph.items():
        source = package_of(module)
        packages.setdefault(source, set()).update(package_of(t) for t in targets if package_of(t) != source)
    for targets in list(packages.values()):
        for target in targets:
            packages.setdefault(target, set())
    return packages


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="list every string and cycle")
    args = parser.parse_args()
    total = interpolated = 0
    files = 0
    for path in source_files():
        found = sparql_strings(path)
        if found:
            files += 1
        total += len(found)
        interpolated += sum(1 for _, i in found if i)
        if args.list:
            for line, inter in found:
                print(f"  {path.relative_to(ROOT)}:{line}{'  (interpolated)' if inter else ''}")
    graph = import_graph()
    found_cycles = cycles(graph)
    packages = package_graph(graph)
    package_cycles = cycles(packages)
    print(f"SPARQL strings outside queries/: {total} in {files} modules, {interpolated} built by interpolation")
    print(f"import cycles: {len(found_cycles)}")
    for component in found_cycles:
        print("  " + " <-> ".join(component))
    in_cycles = sum(map(len, package_cycles))
    print(f"package cycles: {len(package_cycles)} ({in_cycles} of {len(packages)} packages in a cycle)")
    for component in package_cycles:
        print("  " + " <-> ".join(component))


if __name__ == "__main__":
    main()
