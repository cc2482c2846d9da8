"""The three kinds of answer a query gives, each with its own type: rows (SELECT), a boolean (ASK), triples
(CONSTRUCT, DESCRIBE).

``Store.query`` returns any of them (``QueryResult``), since the text decides. A caller that knows what it
asked says so with :func:`solutions`, :func:`boolean` or :func:`triples`: the type checker then knows what it
holds, and a query of the wrong kind fails here with a message naming both instead of later as an
``AttributeError`` far from the query.

>>> from pyoxigraph import Store as Oxigraph
>>> boolean(Oxigraph().query("ASK { }"))
True
>>> solutions(Oxigraph().query("ASK { }"))
Traceback (most recent call last):
  ...
TypeError: expected the rows of a SELECT query, got the boolean of an ASK query
"""

from __future__ import annotations

from pyoxigraph import QueryBoolean, QuerySolutions, QueryTriples

from chesskb.kb.store.base import QueryResult

_KINDS: dict[type, str] = {
    QuerySolutions: "the rows of a SELECT query",
    QueryBoolean: "the boolean of an ASK query",
    QueryTriples: "the triples of a CONSTRUCT or DESCRIBE query",
}


def _wrong(expected: type, result: object) -> TypeError:
    got = next((text for kind, text in _KINDS.items() if isinstance(result, kind)), type(result).__name__)
    return TypeError(f"expected {_KINDS[expected]}, got {got}")


def solutions(result: QueryResult) -> QuerySolutions:
    """``result`` as the rows of a SELECT query."""
    if not isinstance(result, QuerySolutions):
        raise _wrong(QuerySolutions, result)
    return result


def boolean(result: QueryResult) -> bool:
    """``result`` as the answer of an ASK query."""
    if not isinstance(result, QueryBoolean):
        raise _wrong(QueryBoolean, result)
    return bool(result)


def triples(result: QueryResult) -> QueryTriples:
    """``result`` as the triples of a CONSTRUCT or DESCRIBE query."""
    if not isinstance(result, QueryTriples):
        raise _wrong(QueryTriples, result)
    return result
