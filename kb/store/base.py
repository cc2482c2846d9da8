"""The Store protocol: the few operations every command needs, on any backend.

Two implementations: the embedded Oxigraph store on disk (default) and any SPARQL 1.1 server
(``remote``). Query results are pyoxigraph's own result objects on both, so serialising to the
W3C result formats is the same code everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from typing import Protocol, Union

from pyoxigraph import BlankNode, Literal, NamedNode, Quad, QueryBoolean, QuerySolutions, QueryTriples, Triple

Term = Union[NamedNode, BlankNode, Literal, Triple]
QueryResult = Union[QuerySolutions, QueryBoolean, QueryTriples]


class StoreError(Exception):
    """A store could not do what was asked (the message says why, for the user)."""


class QuerySyntaxError(StoreError):
    """The SPARQL text does not parse; the message is the parser's."""


class Store(Protocol):
    """What the importer, the queries, the exports and the web app need from a store."""

    location: str

    def query(self, sparql: str, *, bindings: Mapping[str, Term] | None = None,
              timeout: float | None = None) -> QueryResult:
        """Run a SPARQL query over the default graph, which holds the merge of all named graphs
        (a triple two sources assert is one triple; ``GRAPH ?g`` reaches each source's copy).

        ``bindings`` maps variable names to typed terms, substituted before evaluation (SEP-0007,
        as Oxigraph implements it): a bound variable of a SELECT must appear in its projection.
        """
        ...

    def replace_graphs(self, remove: Iterable[NamedNode], quads: Iterable[Quad],
                       *, remove_subjects: Iterable[tuple[NamedNode, NamedNode]] = ()) -> None:
        """Atomically drop the graphs ``remove`` and the (subject, graph) statements
        ``remove_subjects``, then add ``quads`` (one import = one call)."""
        ...

    def quads(self, graphs: Iterable[NamedNode] | None = None) -> Iterator[Quad]:
        """Every quad of the named graphs (or of ``graphs``); the default graph only repeats them."""
        ...

    def named_graphs(self) -> list[NamedNode]:
        ...

    def close(self) -> None:
        ...
