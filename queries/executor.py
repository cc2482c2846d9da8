r"""Running named queries: the one path by which ``kb/`` and the CLI read the knowledge base.

Every question the code asks is a file in ``queries/`` (a canned query) or ``queries/internal/``
(one the pages, commands and ``kb/`` modules ask), with typed parameters. :func:`prepare` binds the
parameters as RDF terms written into a ``VALUES`` block (``kb.store.bindings``), never pasted into
the text, so the same query text serves every value and a hostile value stays a literal.
:func:`run` hands the bound text to the store with the time limit: on a remote store that is the
HTTP timeout of the request. The web service wraps this path (``service.executor``) to add its
worker processes, size bounds and cache; it prepares the same text with :func:`prepare`.

>>> text = prepare("search-events", {"q": 'chess") } DROP ALL #'})
>>> 'VALUES (?q) { ("chess\\") } DROP ALL #") }' in text
True
"""

from __future__ import annotations

from collections.abc import Collection, Mapping
from typing import Any

from pyoxigraph import QuerySolutions, QueryTriples

from chesskb.kb.store.base import Queryable, QueryResult
from chesskb.kb.store.bindings import with_values
from chesskb.kb.store.results import boolean, solutions, triples
from chesskb.queries import Scan, load_internal, load_query


def prepare(
    name: str,
    params: Mapping[str, Any] | None = None,
    *,
    public: bool = False,
    indexes: Collection[str] = (),
    scan: Scan | None = None,
) -> str:
    """The text of the named query with its parameters bound (internal queries: every row
    unless ``limit``/``offset`` are given; ``public=True``: a canned query, paged by its ``limit``/
    ``offset`` as ``chesskb query`` does; ``indexes``: the pattern indexes the store has, for a query
    with a ``pattern`` parameter: ``queries.find.has_piece_index``; ``scan``: the store's board index
    search, ``queries.find.pattern_scan``)."""
    query = load_query(name) if public else load_internal(name)
    given = dict(params or {})
    bound = query.bind(given)
    paged = public or "limit" in given or "offset" in given  # an internal query answers every row unless asked
    text = query.paged_text(given, indexes, scan) if paged else query.unpaged_text(given, indexes, scan)
    return with_values(text, bound)


def run(
    store: Queryable,
    name: str,
    params: Mapping[str, Any] | None = None,
    *,
    timeout: float | None = None,
    public: bool = False,
    indexes: Collection[str] = (),
) -> QueryResult:
    """Answer the named query on ``store`` within ``timeout`` seconds (None: no limit)."""
    return store.query(prepare(name, params, public=public, indexes=indexes), timeout=timeout)


def select(
    store: Queryable,
    name: str,
    params: Mapping[str, Any] | None = None,
    *,
    timeout: float | None = None,
    public: bool = False,
    indexes: Collection[str] = (),
) -> QuerySolutions:
    """The rows of a SELECT named query (``run``, typed: a query of another form raises ``TypeError``)."""
    return solutions(run(store, name, params, timeout=timeout, public=public, indexes=indexes))


def construct(
    store: Queryable, name: str, params: Mapping[str, Any] | None = None, *, timeout: float | None = None
) -> QueryTriples:
    """The triples of a CONSTRUCT or DESCRIBE named query (``run``, typed)."""
    return triples(run(store, name, params, timeout=timeout))


def rows(
    store: Queryable, name: str, params: Mapping[str, Any] | None = None, *, timeout: float | None = None
) -> list[Any]:
    """The solutions of a SELECT named query as a list (for callers that read them twice)."""
    return list(select(store, name, params, timeout=timeout))


def ask(store: Queryable, name: str, params: Mapping[str, Any] | None = None, *, timeout: float | None = None) -> bool:
    """The answer of an ASK named query."""
    return boolean(run(store, name, params, timeout=timeout))
