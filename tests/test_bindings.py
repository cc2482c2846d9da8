"""Parameters bound as a VALUES block at the start of the WHERE group (kb/store/bindings.py)."""

from __future__ import annotations

import pytest
from pyoxigraph import Literal, NamedNode, Store

from chesskb.kb.store.bindings import with_values

WHITE = Literal("white")


@pytest.mark.parametrize(
    ("query", "expected_start"),
    [
        ("SELECT ?side WHERE { ?s ?p ?side }", "SELECT ?side WHERE {"),
        ("# a comment { with braces }\nSELECT ?side { ?s ?p ?side }", "# a comment { with braces }\nSELECT ?side {"),
        (
            'SELECT ?side (EXISTS { ?x ?y "}" } AS ?e) WHERE { ?s ?p ?side }',
            'SELECT ?side (EXISTS { ?x ?y "}" } AS ?e) WHERE {',
        ),
        ("CONSTRUCT { ?s ?p ?side } WHERE { ?s ?p ?side }", "CONSTRUCT { ?s ?p ?side } WHERE {"),
        ("PREFIX x: <http://x/{}> ASK { ?s ?p ?side }", "PREFIX x: <http://x/{}> ASK {"),
    ],
)
def test_values_block_goes_into_the_where_group(query: str, expected_start: str) -> None:
    bound = with_values(query, {"side": WHITE})
    assert bound.startswith(expected_start + ' VALUES (?side) { ("white") } ')


def test_bound_query_gives_the_same_answers_as_oxigraph_substitution() -> None:
    store = Store()
    store.update(
        'INSERT DATA { <http://a> <http://p> "white" . <http://b> <http://p> "black" . '
        "<http://c> <http://q> <http://a> }"
    )
    query = "SELECT ?s ?side WHERE { ?s <http://p> ?side OPTIONAL { ?t <http://q> ?s } }"
    ours = {(row["s"].value, row["side"].value) for row in store.query(with_values(query, {"side": WHITE}))}
    assert ours == {("http://a", "white")}
    iri = with_values("SELECT ?t WHERE { ?t <http://q> ?s }", {"s": NamedNode("http://a")})
    assert [row["t"].value for row in store.query(iri)] == ["http://c"]


def test_bad_variable_names_are_refused() -> None:
    with pytest.raises(ValueError):
        with_values("SELECT * { ?s ?p ?o }", {"o} . DROP ALL #": WHITE})


def test_parameters_reach_subqueries_and_union_branches_as_substitution_would() -> None:
    store = Store()
    store.update(
        "INSERT DATA { <http://a> <http://n> 5 . <http://b> <http://n> 50 . <http://c> <http://t> <http://K> }"
    )
    moves = Literal("10", datatype=NamedNode("http://www.w3.org/2001/XMLSchema#integer"))
    union = "SELECT ?s ?moves WHERE { { ?s <http://n> ?n FILTER(?n > ?moves) } UNION { ?s <http://m> ?n } }"
    assert [row["s"].value for row in store.query(with_values(union, {"moves": moves}))] == ["http://b"]
    sub = "SELECT ?class ?s WHERE { { SELECT ?class ?s WHERE { ?s <http://t> ?class } LIMIT 5 } }"
    rows = list(store.query(with_values(sub, {"class": NamedNode("http://K")})))
    assert [row["s"].value for row in rows] == ["http://c"]
    data = 'SELECT ?x ?side WHERE { VALUES ?x { "{not a group}" } }'
    assert with_values(data, {"side": WHITE}).count("VALUES (?side)") == 1
