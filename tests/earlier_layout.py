"""The store writer as it was before the compact layout (every statement in its source's graph and
again in the default graph), for tests that need a store written by it: stores written then are
still read and written by today's code (``kb/store/layout.py``: both layouts decode the same)."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import pytest
from pyoxigraph import DefaultGraph, NamedNode, Quad, RdfFormat, parse

from chesskb.kb.store import embedded
from chesskb.kb.store.base import SerializedBatch


def old_load(target, statements, *, fast: bool = True, report=None) -> None:
    """The writer before the compact layout: every statement in its graph and in the default graph."""
    quads = []
    for item in statements:
        if isinstance(item, SerializedBatch):
            for graph, data in item.graphs.items():
                quads += [
                    Quad(t.subject, t.predicate, t.object, NamedNode(graph))
                    for t in parse(data, format=RdfFormat.N_TRIPLES)
                ]
        else:
            quads.append(item)
    target.extend(
        [q for quad in quads for q in (quad, Quad(quad.subject, quad.predicate, quad.object, DefaultGraph()))]
    )


def old_remove(target, graphs, subjects, *, fast: bool = True) -> None:
    """The earlier removal: the graphs and the (subject, graph) statements, then every default-graph
    triple no named graph asserts any more."""
    touched = set()
    for subject, graph in subjects:
        for quad in list(target.quads_for_pattern(subject, None, None, graph)):
            target.remove(quad)
            touched.add(quad.triple)
    for graph in graphs:
        touched |= {q.triple for q in target.quads_for_pattern(None, None, None, graph)}
        target.remove_graph(graph)
    for triple in touched:
        if not any(
            not isinstance(q.graph_name, DefaultGraph)
            for q in target.quads_for_pattern(triple.subject, triple.predicate, triple.object, None)
        ):
            target.remove(Quad(triple.subject, triple.predicate, triple.object, DefaultGraph()))


@contextmanager
def earlier_layout() -> Iterator[None]:
    """Within the block, the embedded store writes the earlier layout."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(embedded, "_load", old_load)
        patch.setattr(embedded, "_remove_from_merge", old_remove)
        yield
