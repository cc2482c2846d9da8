"""How the pages read the store: rows of a SELECT as plain Python values, through the executor's
pages lane (time limit, size bound, fairness), never the raw store."""

from __future__ import annotations

from typing import Any

from flask import current_app


def reader():
    """What pages read through: the executor's pages lane (time limit, size bound, fairness)."""
    return current_app.extensions["chesskb.reader"]


def select(sparql: str, **bindings: Any) -> list[dict[str, Any]]:
    """Rows of a SELECT as dicts of plain Python values (IRIs and literals as strings)."""
    result = reader().query(sparql, bindings={k: v for k, v in bindings.items()} or None)
    names = [v.value for v in result.variables]
    out = []
    for solution in result:
        row = {}
        for name in names:
            term = solution[name]
            row[name] = None if term is None else term.value
        out.append(row)
    return out
