"""How the pages read the store: rows of a named query (``queries/internal/``) as plain Python
values, through the executor's pages lane (time limit, size bound, fairness, cache), never the raw
store. A ``kb/`` helper that takes a store is given ``reader()``, so it runs there too."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from flask import current_app

if TYPE_CHECKING:
    from .executor import PooledReader


def reader() -> PooledReader:
    """What pages read through: the executor's pages lane (time limit, size bound, fairness), as the app
    holds it (``service.app.create_app``; a test may wrap it)."""
    found: PooledReader = current_app.extensions["chesskb.reader"]  # Flask's extensions are untyped
    return found


def named(name: str, **params: Any) -> list[dict[str, Any]]:
    """Rows of the named SELECT query as dicts of plain Python values (IRIs and literals as
    strings); ``params`` are its typed parameters (text, RDF terms, lists for ``TYPE*``)."""
    return plain(reader().named(name, params))


def plain(result: Any) -> list[dict[str, Any]]:
    """Solutions as dicts of plain Python values (unbound: None)."""
    names = [v.value for v in result.variables]
    out = []
    for solution in result:
        row = {}
        for name in names:
            term = solution[name]
            row[name] = None if term is None else term.value
        out.append(row)
    return out
