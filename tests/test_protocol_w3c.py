"""The W3C SPARQL 1.1 Protocol tests (w3c/rdf-tests, ``sparql/sparql11/protocol/manifest.ttl``), run as
real HTTP requests against a live ``chesskb serve``.

Each test below is one entry of that manifest, with its name, request and expected response written
out here; only the data is adapted: the suite's three graphs ``data1.rdf``..``data3.rdf`` (each holding
``<dataN.rdf> a foaf:Document``) become our three sources' graphs, each holding ``<source/NAME> a
cp:Source`` (the source IRIs follow from the fixture file names and the base IRI, not from the store).
The endpoint path is ours (``/sparql``). The update tests must be refused with a 4xx and change nothing:
this store is written by ``chesskb import`` only.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from urllib.parse import quote, urlencode

import pytest
import rdflib

from chesskb.kb.mapping.iris import default_base_iri
from chesskb.kb.store import open_store
from tests.live_server import http, live_server

BASE = default_base_iri()
#: data1.rdf, data2.rdf, data3.rdf of the suite -> (graph, subject) of our sources competency, puzzles,
#: competency-traps (tests/competency.py imports these three files under their stems).
DATA = {
    n: (f"{BASE}graph/{name}", f"{BASE}source/{name}")
    for n, name in ((1, "competency"), (2, "puzzles"), (3, "competency-traps"))
}
DATA0 = "http://kasei.us/2009/09/sparql/data/data0.rdf"  # a graph no store has (the suite's too)
SELECT_TYPES = {
    "application/sparql-results+json",
    "application/sparql-results+xml",
    "text/csv",
    "text/tab-separated-values",
}
RDF_TYPES = {
    "text/turtle": "turtle",
    "application/rdf+xml": "xml",
    "application/n-triples": "nt",
    "application/ld+json": "json-ld",
}


def g(n: int) -> str:
    return DATA[n][0]


def s(n: int) -> str:
    return DATA[n][1]


@dataclass
class Case:
    name: str
    method: str
    params: list[tuple[str, str]] = field(default_factory=list)
    content_type: str | None = None
    body: bytes | None = None
    expect: str = "boolean"  # boolean (true), tabular, RDF, 4xx
    update: bool = False


FORM = "application/x-www-form-urlencoded"
DIRECT = "application/sparql-query"
UPDATE = "application/sparql-update"
TWO_DEFAULTS = f"ASK {{ <{s(1)}> a ?type . <{s(2)}> a ?type . }}"
TWO_NAMED = f"ASK {{ GRAPH ?g1 {{ <{s(1)}> a ?type }} GRAPH ?g2 {{ <{s(2)}> a ?type }} }}"
FULL = f"ASK {{\n  <{s(3)}> a ?type\n  GRAPH ?g1 {{ <{s(1)}> a ?type }}\n  GRAPH ?g2 {{ <{s(2)}> a ?type }}\n}}"
INSERT_DOCS = (
    "PREFIX dc: <http://purl.org/dc/terms/>\nPREFIX foaf: <http://xmlns.com/foaf/0.1/>\n"
    f"DROP ALL ;\nINSERT DATA {{ GRAPH <{g(1)}> {{ <{s(1)}> a foaf:Document }} }} ;\n"
    "INSERT { GRAPH <http://example.org/protocol-update-dataset-test/> { ?s a dc:BibliographicResource } }\n"
    "WHERE { ?s a foaf:Document }"
)

CASES = [
    Case("query_post_form", "POST", [("default-graph-uri", DATA0)], FORM, b"query=ASK%20%7B%7D"),
    Case(
        "query_dataset_default_graphs_get",
        "GET",
        [("query", TWO_DEFAULTS), ("default-graph-uri", g(1)), ("default-graph-uri", g(2))],
    ),
    Case(
        "query_dataset_default_graphs_post",
        "POST",
        [("default-graph-uri", g(1)), ("default-graph-uri", g(2))],
        DIRECT,
        TWO_DEFAULTS.encode(),
    ),
    Case(
        "query_dataset_named_graphs_post",
        "POST",
        [("named-graph-uri", g(1)), ("named-graph-uri", g(2))],
        DIRECT,
        TWO_NAMED.encode(),
    ),
    Case(
        "query_dataset_named_graphs_get",
        "GET",
        [("query", TWO_NAMED), ("named-graph-uri", g(1)), ("named-graph-uri", g(2))],
    ),
    Case(
        "query_dataset_full",
        "POST",
        [("default-graph-uri", g(3)), ("named-graph-uri", g(1)), ("named-graph-uri", g(2))],
        DIRECT,
        FULL.encode(),
    ),
    Case(
        "query_multiple_dataset",
        "POST",
        [("named-graph-uri", g(1)), ("named-graph-uri", g(2))],
        DIRECT,
        f"ASK FROM <{g(3)}> {{ GRAPH ?g1 {{ <{s(1)}> a ?type }} GRAPH ?g2 {{ <{s(2)}> a ?type }} }}".encode(),
    ),
    Case("query_get", "GET", [("query", "ASK {}"), ("default-graph-uri", DATA0)]),
    Case(
        "query_content_type_select",
        "POST",
        [("default-graph-uri", DATA0)],
        DIRECT,
        b"SELECT (1 AS ?value) {}",
        expect="tabular",
    ),
    Case("query_content_type_ask", "POST", [("default-graph-uri", DATA0)], DIRECT, b"ASK {}"),
    Case(
        "query_content_type_describe",
        "POST",
        [("default-graph-uri", DATA0)],
        DIRECT,
        b"DESCRIBE <http://example.org/>",
        expect="RDF",
    ),
    Case(
        "query_content_type_construct",
        "POST",
        [("default-graph-uri", DATA0)],
        DIRECT,
        b"CONSTRUCT { <s> <p> 1 } WHERE {}",
        expect="RDF",
    ),
    Case(
        "update_dataset_default_graph",
        "POST",
        [("using-graph-uri", g(1))],
        UPDATE,
        INSERT_DOCS.replace("DROP ALL", "CLEAR ALL").encode(),
        expect="4xx",
        update=True,
    ),
    Case(
        "update_dataset_default_graphs",
        "POST",
        [("using-graph-uri", g(1)), ("using-graph-uri", g(2))],
        UPDATE,
        INSERT_DOCS.encode(),
        expect="4xx",
        update=True,
    ),
    Case(
        "update_dataset_named_graphs",
        "POST",
        [("using-named-graph-uri", g(1)), ("using-named-graph-uri", g(2))],
        UPDATE,
        INSERT_DOCS.encode(),
        expect="4xx",
        update=True,
    ),
    Case(
        "update_dataset_full",
        "POST",
        [("using-graph-uri", g(1)), ("using-named-graph-uri", g(2))],
        UPDATE,
        INSERT_DOCS.encode(),
        expect="4xx",
        update=True,
    ),
    Case("update_post_form", "POST", [], FORM, b"update=CLEAR+ALL", expect="4xx", update=True),
    Case("update_post_direct", "POST", [], UPDATE, b"CLEAR ALL", expect="4xx", update=True),
    Case(
        "update_base_uri",
        "POST",
        [],
        UPDATE,
        b"CLEAR SILENT GRAPH <http://example.org/protocol-base-test/> ;\n"
        b"INSERT DATA { GRAPH <http://example.org/protocol-base-test/> { <http://example.org/s> "
        b"<http://example.org/p> <test> } }",
        expect="4xx",
        update=True,
    ),
    Case("query_post_direct", "POST", [], DIRECT, b"ASK {}"),
    Case("bad_query_method", "PUT", [("query", "ASK {}"), ("default-graph-uri", DATA0)], FORM, expect="4xx"),
    Case("bad_multiple_queries", "GET", [("query", "ASK {}"), ("query", "SELECT * {}")], expect="4xx"),
    Case("bad_query_wrong_media_type", "POST", [], "text/plain", b"ASK {}", expect="4xx"),
    Case("bad_query_missing_form_type", "POST", [], None, b"query=ASK%20%7B%7D", expect="4xx"),
    Case("bad_query_missing_direct_type", "POST", [], None, b"ASK {}", expect="4xx"),
    Case("bad_query_non_utf8", "POST", [], DIRECT + "; charset=UTF-16", "ASK {}".encode("utf-16"), expect="4xx"),
    Case("bad_query_syntax", "GET", [("query", "ASK {")], expect="4xx"),
    Case("bad_update_get", "GET", [("update", "CLEAR ALL")], expect="4xx", update=True),
    Case(
        "bad_multiple_updates",
        "POST",
        [],
        FORM,
        b"update=CLEAR%20NAMED&update=CLEAR%20DEFAULT",
        expect="4xx",
        update=True,
    ),
    Case("bad_update_wrong_media_type", "POST", [], "text/plain", b"CLEAR NAMED", expect="4xx", update=True),
    Case("bad_update_missing_form_type", "POST", [], None, b"update=CLEAR%20NAMED", expect="4xx", update=True),
    Case(
        "bad_update_non_utf8",
        "POST",
        [],
        UPDATE + "; charset=UTF-16",
        "CLEAR NAMED".encode("utf-16"),
        expect="4xx",
        update=True,
    ),
    Case("bad_update_syntax", "POST", [], FORM, b"update=CLEAR%20XYZ", expect="4xx", update=True),
    Case(
        "bad_update_dataset_conflict",
        "POST",
        [("using-named-graph-uri", "http://example/people")],
        UPDATE,
        b"PREFIX foaf:  <http://xmlns.com/foaf/0.1/>\nWITH <http://example/addresses>\n"
        b"DELETE { ?person foaf:givenName 'Bill' }\nINSERT { ?person foaf:givenName 'William' }\n"
        b"WHERE {\n    ?person foaf:givenName 'Bill'\n}",
        expect="4xx",
        update=True,
    ),
]


@pytest.fixture(scope="module")
def store(competency_store):
    return competency_store


@pytest.fixture(scope="module")
def server(store):
    with live_server(store) as base:
        yield base


def _state(store) -> tuple:
    opened = open_store(str(store))
    count = next(iter(opened.query("SELECT (COUNT(*) AS ?n) WHERE { GRAPH ?g { ?s ?p ?o } }")))["n"].value
    return opened.generation(), count


def send(server: str, case: Case) -> tuple[int, dict[str, str], bytes]:
    url = server + "/sparql" + ("?" + urlencode(case.params, quote_via=quote) if case.params else "")
    headers = {"Content-Type": case.content_type} if case.content_type else {}
    return http(case.method, url, body=case.body, headers=headers)


def test_the_manifest_is_complete():
    assert len(CASES) == 34 and len({case.name for case in CASES}) == 34


@pytest.mark.parametrize("case", CASES, ids=[case.name for case in CASES])
def test_w3c_protocol(server, store, case):
    before = _state(store) if case.update else None
    status, headers, body = send(server, case)
    media = headers.get("content-type", "").split(";")[0].strip()
    if case.expect == "4xx":
        assert 400 <= status < 500, (status, body[:300])
        if case.update:
            assert _state(store) == before  # refused and nothing changed
        return
    assert 200 <= status < 400, (status, body[:300])
    if case.expect == "boolean":
        assert media == "application/sparql-results+json"
        assert json.loads(body)["boolean"] is True
    elif case.expect == "tabular":
        assert media in SELECT_TYPES
        rows = json.loads(body)["results"]["bindings"]
        assert rows == [
            {"value": {"type": "literal", "value": "1", "datatype": "http://www.w3.org/2001/XMLSchema#integer"}}
        ]
    else:
        assert media in RDF_TYPES
        graph = rdflib.Graph().parse(data=body, format=RDF_TYPES[media])
        if b"CONSTRUCT" in case.body:  # relative IRIs resolve against the endpoint's URL
            assert set(graph) == {(rdflib.URIRef(server + "/s"), rdflib.URIRef(server + "/p"), rdflib.Literal(1))}


# --- beyond the suite: the dataset really is the one asked for ----------------------------------


def _ask(server: str, query: str, params: list[tuple[str, str]]) -> bool:
    status, _, body = http("GET", server + "/sparql?" + urlencode([("query", query), *params], quote_via=quote))
    assert status == 200, body
    return json.loads(body)["boolean"]


def test_dataset_parameters_restrict_what_the_query_sees(server):
    assert _ask(server, f"ASK {{ <{s(2)}> a ?t }}", [])  # default: the merge of every graph
    assert not _ask(server, f"ASK {{ <{s(2)}> a ?t }}", [("default-graph-uri", g(1))])
    assert _ask(server, f"ASK {{ <{s(1)}> a ?t }}", [("default-graph-uri", g(1))])
    assert not _ask(server, "ASK { ?s ?p ?o }", [("named-graph-uri", g(1))])  # empty default graph
    assert not _ask(server, f"ASK {{ GRAPH ?g {{ <{s(2)}> a ?t }} }}", [("named-graph-uri", g(1))])
    assert _ask(server, f"ASK FROM <{g(2)}> {{ <{s(2)}> a ?t }}", [])
    assert not _ask(server, f"ASK FROM <{g(1)}> {{ <{s(2)}> a ?t }}", [])
    # the protocol's dataset replaces the query's FROM
    assert not _ask(server, f"ASK FROM <{g(2)}> {{ <{s(2)}> a ?t }}", [("default-graph-uri", g(1))])


def test_head_duplicate_charset_and_406(server):
    status, headers, body = http("HEAD", server + "/sparql?query=ASK%7B%7D")
    assert status == 200 and body == b"" and headers["content-type"].startswith("application/sparql-results+json")
    latin1 = "SELECT ?x WHERE { BIND('Peñarol' AS ?x) }".encode("latin-1")
    status, _, body = http(
        "POST",
        server + "/sparql",
        body=latin1,
        headers={"Content-Type": "application/sparql-query; charset=ISO-8859-1"},
    )
    assert status == 415 and b"UTF-8" in body
    status, _, body = http("POST", server + "/sparql", body=latin1, headers={"Content-Type": DIRECT})
    assert status == 400 and b"UTF-8" in body
    status, _, _ = http(
        "POST", server + "/sparql", body=b"query=ASK%7B%7D&update=CLEAR%20ALL", headers={"Content-Type": FORM}
    )
    assert status == 400
    status, _, _ = http("POST", server + "/sparql?query=ASK%7B%7D", body=b"ASK {}", headers={"Content-Type": DIRECT})
    assert status == 400
    status, _, body = http("GET", server + "/sparql?query=ASK%7B%7D", headers={"Accept": "image/png"})
    assert status == 406
    status, _, _ = http("GET", server + f"/page?iri={quote(s(1))}", headers={"Accept": "image/png"})
    assert status == 406
    status, headers, _ = http("GET", server + "/sparql?query=ASK%7B%7D", headers={"Accept": "*/*"})
    assert status == 200 and headers["content-type"].startswith("application/sparql-results+json")


def test_service_description_lists_the_named_graphs(server):
    status, _, body = http("GET", server + "/sparql", headers={"Accept": "text/turtle"})
    assert status == 200
    graph = rdflib.Graph().parse(data=body, format="turtle")
    sd = rdflib.Namespace("http://www.w3.org/ns/sparql-service-description#")
    named = {str(graph.value(node, sd.name)) for node in graph.subjects(rdflib.RDF.type, sd.NamedGraph)}
    assert {g(1), g(2), g(3)} <= named
