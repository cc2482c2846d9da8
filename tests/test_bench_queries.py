"""``chesskb bench-queries`` counts what it read: rows of a SELECT, triples of a CONSTRUCT, one for an ASK."""

from __future__ import annotations

from pyoxigraph import Literal, NamedNode, Quad, Store

from chesskb.service.commands.bench_queries import count_rows


def _store_with(statements: int) -> Store:
    store = Store()
    for i in range(statements):
        store.add(Quad(NamedNode(f"http://example.org/s{i}"), NamedNode("http://example.org/p"), Literal(str(i))))
    return store


def test_count_rows_counts_solutions_triples_and_one_boolean() -> None:
    store = _store_with(3)
    assert count_rows(store.query("SELECT ?s WHERE { ?s ?p ?o }")) == 3
    assert count_rows(store.query("CONSTRUCT WHERE { ?s ?p ?o }")) == 3
    # an ASK answers one boolean whether true or false (it used to be read as if it were rows: a TypeError)
    assert count_rows(store.query("ASK { ?s ?p ?o }")) == 1
    assert count_rows(_store_with(0).query("ASK { ?s ?p ?o }")) == 1
