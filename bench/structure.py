"""Structure figures for issue 20: SPARQL text outside ``queries/`` and import cycles.

    python bench/structure.py [--list]

* **SPARQL strings**: string constants in ``kb/`` and ``service/`` that read as a SPARQL query or
  update (a query form keyword followed by a ``{`` group, or a ``PREFIX`` line). Those built by
  interpolation (an f-string with a value, ``%`` or ``.format`` on the text, ``+`` with a
  non-constant) are counted apart: they are the ones that can go wrong with a hostile value.
  Keywords are matched in capitals, as the project writes SPARQL: a message saying "select" is no query.
* **Import cycles**: strongly connected components of the graph of ``chesskb.*`` modules, from
  every ``import`` statement (top-level and inside functions: a lazy import hides a cycle but does
  not remove it).

Both are read with ``ast`` from the files as they are; nothing is imported or run.
"""

from __future__ import annotations

import argparse
import ast
import re
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
PACKAGES = {"kb": "chesskb.kb", "service": "chesskb.service", "queries": "chesskb.queries"}
SPARQL = re.compile(r"\b(SELECT|ASK|CONSTRUCT|DESCRIBE|INSERT|DELETE|WHERE)\b[^{}]*\{|^\s*PREFIX\s+\w*:", re.M)


def module_name(path: Path) -> str:
    rel = path.relative_to(ROOT)
    parts = [PACKAGES[rel.parts[0]], *rel.with_suffix("").parts[1:]]
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


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
    docstrings = {id(n.body[0].value) for n in ast.walk(tree)
                  if isinstance(n, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
                  and n.body and isinstance(n.body[0], ast.Expr)}
    found = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.Constant, ast.JoinedStr)) or id(node) in docstrings:
            continue
        if isinstance(parents.get(node), ast.JoinedStr):
            continue  # a piece of an f-string: the f-string itself is counted
        if not SPARQL.search(_text(node)):
            continue
        interpolated = isinstance(node, ast.JoinedStr) and any(
            isinstance(v, ast.FormattedValue) for v in node.values)
        parent = parents.get(node)
        if isinstance(parent, ast.BinOp) and isinstance(parent.op, (ast.Mod, ast.Add)):
            interpolated = True
        if (isinstance(parent, ast.Attribute) and parent.attr == "format"
                and isinstance(parents.get(parent), ast.Call)):
            interpolated = True
        found.append((node.lineno, interpolated))
    return found


def import_graph() -> dict[str, set[str]]:
    graph: dict[str, set[str]] = {}
    for path in source_files() + sorted((ROOT / "queries").rglob("*.py")):
        name = module_name(path)
        is_package = path.name == "__init__.py"
        edges = graph.setdefault(name, set())
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = name.split(".") if is_package else name.split(".")[:-1]
                    anchor = anchor[: len(anchor) - (node.level - 1)]
                    base = ".".join(anchor + ([base] if base else []))
                targets = [base] + [f"{base}.{a.name}" for a in node.names]
            else:
                continue
            edges.update(t for t in targets if t.startswith("chesskb."))
    known = set(graph)
    # importing a.b.c runs a/__init__ and a/b/__init__ first: each import reaches the packages above it
    for edges in graph.values():
        edges.update({".".join(t.split(".")[:k]) for t in list(edges) for k in range(3, t.count(".") + 1)})
    return {m: {t for t in ts if t in known and t != m and not m.startswith(t + ".")} for m, ts in graph.items()}


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []
    sys.setrecursionlimit(10_000)

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


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
    found_cycles = cycles(import_graph())
    print(f"SPARQL strings outside queries/: {total} in {files} modules, {interpolated} built by interpolation")
    print(f"import cycles: {len(found_cycles)}")
    for component in found_cycles:
        print("  " + " <-> ".join(component))


if __name__ == "__main__":
    main()
