"""The Store protocol: the few operations every command needs, on any backend.

Two implementations: the embedded Oxigraph store on disk (default) and any SPARQL 1.1 server
(``remote``). Query results are pyoxigraph's own result objects on both, so serialising to the
W3C result formats is the same code everywhere.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Protocol

from pyoxigraph import (
    BlankNode,
    Literal,
    NamedNode,
    Quad,
    QueryBoolean,
    QuerySolutions,
    QueryTriples,
    RdfFormat,
    Triple,
    parse,
    serialize,
)

Term = NamedNode | BlankNode | Literal | Triple
QueryResult = QuerySolutions | QueryBoolean | QueryTriples


@dataclass(frozen=True)
class SerializedBatch:
    """Statements an import worker already serialised: N-Triples bytes per named graph (IRI text).

    Loading bytes keeps the per-statement work inside Oxigraph (Rust) instead of one Python object
    per quad in the importer's process, which is what lets a second worker speed an import up. Per
    graph, because that is how the stores take them: a SPARQL server receives each as a Graph Store
    Protocol POST, ``convert`` writes each with its graph and again in the default graph.

    ``graphs`` holds every statement (the default graph, the merge, needs them all). For the compact
    layout (``kb.store.layout``) the worker also sends, per graph, the N-Triples of its ``rdf:type``
    statements alone (``markers``: what a source's graphs keep about a subject only it asserts) and,
    per owner graph (``layout.owner_of``), the IRIs of the subjects the batch describes
    (``subjects``): with them the embedded store bulk-loads a batch of new subjects as bytes, markers
    into the graphs and everything into the default graph, without parsing it. ``None`` (a producer
    that did not compute them) makes the store parse ``graphs`` to find them.
    """

    graphs: Mapping[str, bytes]
    markers: Mapping[str, bytes] | None = None
    subjects: Mapping[str, frozenset[str]] | None = None

    @property
    def size(self) -> int:
        return sum(len(data) for data in self.graphs.values())


def rdf_bytes(statements: Iterable[Triple] | Iterable[Quad], rdf_format: RdfFormat) -> bytes:
    """``statements`` serialised in memory as ``rdf_format`` (N-Triples for triples, N-Quads for quads).

    pyoxigraph's ``serialize`` returns the bytes when it is given no output (and ``None`` when it wrote to one);
    its stub types both cases as ``bytes | None``, so this is where the in-memory case is said once.
    """
    data = serialize(statements, format=rdf_format)
    if data is None:  # not reached: without an output, serialize returns what it wrote
        raise TypeError("pyoxigraph.serialize gave no bytes without an output")
    return data


#: What ``Store.replace_graphs`` loads: single quads and serialised batches, in any mix.
Statement = Quad | SerializedBatch


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


class StoreBusy(StoreError):
    """Another writer holds the store; nothing was changed (the service answers 409)."""


class StoreDamaged(StoreError):
    """The store's files fail their check at open (a truncated or altered generation)."""


@dataclass(frozen=True)
class Replacement:
    """Graphs (and (subject, graph) statements) to drop and statements to add in place of them."""

    remove: Sequence[NamedNode] = ()
    quads: Sequence[Quad] = ()
    remove_subjects: Sequence[tuple[NamedNode, NamedNode]] = ()


#: Something computed from the knowledge base *as a write leaves it* (the links between players, the
#: class counts, a source's own counts): called inside ``replace_graphs`` with a read-only view of the
#: new state (a ``StoreView``), before it is published, so what it returns becomes visible in the same
#: atomic step as the data. ``None`` means nothing to change.
Derive = Callable[["StoreView"], Replacement | None]


class QueryTimedOut(StoreError):
    """The query did not finish within the ``timeout`` it was given (a remote store's HTTP timeout)."""


class QuerySyntaxError(StoreError):
    """The SPARQL text does not parse; the message is the parser's."""


class Queryable(Protocol):
    """What the named queries (``queries.executor``) need: SPARQL asked of a default graph. Every ``StoreView``
    is one; so is what ``convert`` gathers in memory to compute the links from (``kb.export.convert``)."""

    def query(
        self, sparql: str, *, bindings: Mapping[str, Term] | None = None, timeout: float | None = None
    ) -> QueryResult:
        """Run a SPARQL query over the default graph, the merge of all named graphs (``Store.query``)."""
        ...


class StoreView(Queryable, Protocol):
    """What reading the knowledge base needs: queries over the merge and the quads of named graphs.

    Every ``Store`` is one; so are the read-only views of a write in progress that ``derive`` steps are given
    (``Derive``), which can neither write nor pick another dataset. Code that only reads takes this type,
    so it runs on either.
    """

    location: str

    def quads(self, graphs: Iterable[NamedNode] | None = None) -> Iterator[Quad]:
        """Every quad of the named graphs (or of ``graphs``), as stored: in the compact layout
        (``kb.store.layout``) a source's graphs hold its markers and deltas, and ``layout.decode``
        with the default graph gives what it says."""
        ...

    def named_graphs(self) -> list[NamedNode]: ...


class Store(StoreView, Protocol):
    """What the importer, the queries, the exports and the web app need from a store: a ``StoreView`` whose
    queries may name their dataset, and which can be written."""

    def query(
        self,
        sparql: str,
        *,
        bindings: Mapping[str, Term] | None = None,
        timeout: float | None = None,
        default_graphs: list[str] | None = None,
        named_graphs: list[str] | None = None,
        base_iri: str | None = None,
    ) -> QueryResult:
        """Run a SPARQL query over the default graph, which holds the merge of all named graphs
        (a triple two sources assert is one triple; ``GRAPH ?g`` reaches what each source's graphs
        hold, in the embedded store its type statements and deltas: ``kb.store.layout``).

        ``default_graphs``/``named_graphs`` (the SPARQL Protocol's dataset) replace that dataset and
        the query's FROM / FROM NAMED when either is given; ``base_iri`` resolves relative IRIs.

        ``bindings`` maps variable names to typed terms, substituted before evaluation (SEP-0007,
        as Oxigraph implements it): a bound variable of a SELECT must appear in its projection.
        """
        ...

    def replace_graphs(
        self,
        remove: Iterable[NamedNode],
        quads: Iterable[Statement],
        *,
        remove_subjects: Iterable[tuple[NamedNode, NamedNode]] = (),
        derive: Sequence[Derive] = (),
    ) -> None:
        """Atomically drop the graphs ``remove`` and the (subject, graph) statements
        ``remove_subjects``, add ``quads``, then apply each ``derive`` in turn to the result (one
        import = one call = one switch: data, links and counts become visible together)."""
        ...

    def writing(self, wait: float = -1) -> AbstractContextManager[None]:
        """Hold the store's write lock across several steps (read, then write what was read);
        ``replace_graphs`` inside it does not wait for itself. Another thread of this process that
        holds it is waited for up to ``wait`` seconds (-1: as long as it takes); then, or when
        another process holds it, ``StoreBusy``."""
        ...

    def close(self) -> None: ...
