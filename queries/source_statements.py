"""What one source says, read the same way whatever the store's layout (``kb/store/layout.py``).

In the compact layout a source's graphs keep its type statements (markers) and its deltas; the
statements every source asserting a subject makes are in the default graph only. Reading a
source's graph with ``store.quads([graph])`` then gives its markers and deltas, not what it says:
exports and checks of one source read through :func:`source_statements` instead, which adds the
common statements of the subjects the source marks (the layout's ``decode``, done by the store's
query engine so a large source is streamed, never held whole). On a store in the earlier layout
(every statement in its source's graph too) there are no common statements: the same quads come
back as ``store.quads`` gave them.

The merge does not say whether a common statement was asserted or inferred; the mapping states the
inverse links (:data:`~kb.vocab.INVERSE_PROPERTIES`) in the inferred graph only and nothing else there but
types, which are never common, so a common inverse link goes back to the inferred graph and every
other common statement to the source's graph, where the source's import wrote it.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from pyoxigraph import NamedNode, Quad

from chesskb.kb.store import layout
from chesskb.kb.store.base import Store
from chesskb.kb.vocab import CP, INVERSE_PROPERTIES
from chesskb.queries.executor import select

_INFERRED_ONLY = frozenset(CP.term(name) for name in INVERSE_PROPERTIES.values())


def graphs_of(graph: NamedNode) -> list[NamedNode]:
    """A source's graph and its inferred graph (``IriMinter.inferred_graph``: the graph and the
    layout's inferred suffix)."""
    return [graph, NamedNode(graph.value + layout.INFERRED_SUFFIX)]


def source_statements(store: Store, graph: NamedNode, *, inferred: bool = True) -> Iterator[Quad]:
    """Every statement the source of ``graph`` (a source's or a course's graph) makes, as quads in
    its graph and, with ``inferred``, its inferred graph: the same quads in either layout."""
    inferred_graph = graphs_of(graph)[1]
    for row in select(store, "source-statements", {"graph": graph, "inferred": inferred_graph}):
        where = row["g"]
        if where is None:  # a common statement: the source's, in the graph its import wrote it to
            where = inferred_graph if row["p"] in _INFERRED_ONLY else graph
        if inferred or where != inferred_graph:
            yield Quad(row["s"], row["p"], row["o"], where)


def graph_statements(store: Store, graphs: Iterable[NamedNode]) -> Iterator[Quad]:
    """What each of ``graphs`` says: a source's graph (and its inferred graph, when listed) through
    :func:`source_statements`, any other graph (links, counts, descriptions: stored in full) as stored."""
    graphs = list(graphs)
    listed = set(graphs)
    for graph in graphs:
        owner = layout.owner_of(graph)
        if not layout.is_source(owner):
            yield from store.quads([graph])
        elif graph == owner:
            yield from source_statements(store, owner, inferred=graphs_of(owner)[1] in listed)
        elif owner not in listed:  # an inferred graph listed without its source's graph
            yield from (quad for quad in source_statements(store, owner) if quad.graph_name == graph)
