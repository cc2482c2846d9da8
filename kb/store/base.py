"""The Store protocol: the few operations every command needs, on any backend.

Two implementations: the embedded Oxigraph store on disk (default) and any SPARQL 1.1 server
(``remote``). Query results are pyoxigraph's own result objects on both, so serialising to the
W3C result formats is the same code everywhere.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Protocol, Union

from pyoxigraph import (BlankNode, Literal, NamedNode, Quad, QueryBoolean, QuerySolutions, QueryTriples, RdfFormat,
                        Triple, parse)

Term = Union[NamedNode, BlankNode, Literal, Triple]
QueryResult = Union[QuerySolutions, QueryBoolean, QueryTriples]


@dataclass(frozen=True)
class SerializedBatch:
    """Statements an import worker already serialised: N-Triples bytes per named graph (IRI text).

    Loading bytes keeps the per-statement work inside Oxigraph (Rust) instead of one Python object
    per quad in the importer's process, which is what lets a second worker speed an import up. Per
    graph, because that is how both stores take them: the embedded store bulk-loads each into its
    graph and all of them into the default graph (the merge); a SPARQL server receives each as a
    Graph Store Protocol POST.
    """

    graphs: Mapping[str, bytes]

    @property
    def size(self) -> int:
        return sum(len(data) for data in self.graphs.values())


#: What ``Store.replace_graphs`` loads: single quads and serialised batches, in any mix.
Statement = Union[Quad, SerializedBatch]


def iter_quads(statements: Iterable[Statement]) -> Iterator[Quad]:
    """The statements as quads (for a backend that has no faster path for batches)."""
    for item in statements:
        if isinstance(item, SerializedBatch):
            for graph, data in item.graphs.items():
                name = NamedNode(graph)
                for triple in parse(data, format=RdfFormat.N_TRIPLES):
                    yield Quad(triple.subject, triple.predicate, triple.object, name)
        else:
            yield item


class StoreError(Exception):
    """A store could not do what was asked (the message says why, for the user)."""


class QuerySyntaxError(StoreError):
    """The SPARQL text does not parse; the message is the parser's."""


class Store(Protocol):
    """What the importer, the queries, the exports and the web app need from a store."""

    location: str

    def query(self, sparql: str, *, bindings: Mapping[str, Term] | None = None,
              timeout: float | None = None, default_graphs: list[str] | None = None,
              named_graphs: list[str] | None = None, base_iri: str | None = None) -> QueryResult:
        """Run a SPARQL query over the default graph, which holds the merge of all named graphs
        (a triple two sources assert is one triple; ``GRAPH ?g`` reaches each source's copy).

        ``default_graphs``/``named_graphs`` (the SPARQL Protocol's dataset) replace that dataset and
        the query's FROM / FROM NAMED when either is given; ``base_iri`` resolves relative IRIs.

        ``bindings`` maps variable names to typed terms, substituted before evaluation (SEP-0007,
        as Oxigraph implements it): a bound variable of a SELECT must appear in its projection.
        """
        ...

    def replace_graphs(self, remove: Iterable[NamedNode], quads: Iterable[Statement],
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
