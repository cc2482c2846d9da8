"""A page's one RDF path (issue 37, item 3): one CONSTRUCT per page, read by pyoxigraph, and the formats
a page is offered in, against a store built by the real importer from ``data/``.

Expected graphs come from the store itself, asked here with a SELECT of our own (the resource's
statements and the labels of the IRIs it points to), never from the page code's queries.
"""

from __future__ import annotations

import json
from collections import Counter

import pytest
import rdflib
from rdflib.compare import isomorphic

from chesskb.kb.vocab import CP_IRI, PREFIXES

BROWSER = {"Accept": "text/html"}
#: The public names of a page's RDF formats (README, "/page?iri="): ?format= value -> media type, rdflib parser.
RDF_NAMES = {
    "ttl": ("text/turtle", "turtle"),
    "rdf": ("application/rdf+xml", "xml"),
    "jsonld": ("application/ld+json", "json-ld"),
    "nt": ("application/n-triples", "nt"),
}


@pytest.fixture(scope="module")
def store(data_store):
    from chesskb.kb.store import open_store

    return open_store(str(data_store))


@pytest.fixture(scope="module")
def app(data_store, store):
    from chesskb.service.app import create_app

    return create_app({"STORE": str(data_store), "QUERY_WORKERS": 0}, store=store)  # queries in this process


@pytest.fixture(scope="module")
def client(app):
    return app.test_client()


def first(store, sparql: str) -> str:
    rows = list(store.query(sparql))
    assert rows, sparql
    return rows[0][0].value


@pytest.fixture(scope="module")
def game_position(store) -> str:
    """A position taken from a game whose tags name both players and an event, with a source record."""
    return first(
        store,
        "SELECT ?p WHERE { ?p a cp:Position ; cp:hasMatch ?m ; cp:hasEvent ?e ; "
        "cp:hasPlayerWhite ?w ; cp:hasPlayerBlack ?b . ?m <http://purl.org/dc/terms/source> ?r } "
        "ORDER BY ?p LIMIT 1",
    )


def description(store, iri: str) -> rdflib.Graph:
    """The resource's statements and the labels of the IRIs it points to, read from the store."""
    graph = rdflib.Graph()
    for row in store.query(
        f"SELECT ?s ?p ?o WHERE {{ {{ <{iri}> ?p ?o BIND(<{iri}> AS ?s) }} UNION "
        f"{{ <{iri}> ?x ?s . ?s rdfs:label ?o FILTER(isIRI(?s)) BIND(rdfs:label AS ?p) }} }}"
    ):
        graph.add(tuple(_rdflib(row[name]) for name in ("s", "p", "o")))
    return graph


def _rdflib(term) -> rdflib.term.Node:
    if type(term).__name__ == "NamedNode":
        return rdflib.URIRef(term.value)
    if type(term).__name__ == "BlankNode":
        return rdflib.BNode(term.value)
    datatype = term.datatype.value
    plain = term.language or datatype == "http://www.w3.org/2001/XMLSchema#string"
    return rdflib.Literal(term.value, lang=term.language, datatype=None if plain else rdflib.URIRef(datatype))


@pytest.mark.parametrize("name", sorted(RDF_NAMES))
def test_rdf_answer_is_the_resource_description_only(client, store, game_position, name):
    """Every format holds exactly the resource's statements and its links' labels: not the game's, the
    event's or the players' own statements, which the page reads in the same query."""
    media, parser = RDF_NAMES[name]
    by_name = client.get("/page", query_string={"iri": game_position, "format": name})
    by_accept = client.get("/page", query_string={"iri": game_position}, headers={"Accept": media})
    expected = description(store, game_position)
    assert len(expected) > 20
    for response in (by_name, by_accept):
        assert response.status_code == 200 and response.mimetype == media
        got = rdflib.Graph().parse(data=response.get_data(as_text=True), format=parser)
        assert isomorphic(got, expected), name


def test_json_ld_is_compacted_with_the_project_prefixes(client, game_position, store):
    body = client.get("/page", query_string={"iri": game_position, "format": "jsonld"}).get_json()
    assert body["@context"] == dict(PREFIXES)
    subject = next(node for node in body["@graph"] if node["@id"] == game_position)
    fen = first(store, f"SELECT ?f WHERE {{ <{game_position}> cp:fen ?f }}")
    assert subject["cp:fen"] == fen and "cp:Position" in subject["@type"]
    page = client.get("/page", query_string={"iri": game_position}, headers=BROWSER).get_data(as_text=True)
    start = page.index('<script type="application/ld+json">') + len('<script type="application/ld+json">')
    embedded = json.loads(page[start : page.index("</script>", start)])
    assert embedded["@context"] == dict(PREFIXES)
    assert isomorphic(
        rdflib.Graph().parse(data=json.dumps(embedded), format="json-ld"), description(store, game_position)
    )


def test_html_page_lists_each_format_by_its_public_name(client, game_position):
    page = client.get("/page", query_string={"iri": game_position}, headers=BROWSER).get_data(as_text=True)
    for name, (media, _) in RDF_NAMES.items():
        assert f'type="{media}"' in page and f"format={name}" in page


class CountingReader:
    """The app's real reader, with each named query and raw query it runs counted (nothing replaced)."""

    def __init__(self, reader) -> None:
        self.reader = reader
        self.asked: Counter[str] = Counter()

    def named(self, name, params=None):
        self.asked[name] += 1
        return self.reader.named(name, params)

    def triples(self, name, params=None):
        self.asked[name] += 1
        return self.reader.triples(name, params)

    def query(self, sparql, **options):
        self.asked["(text)"] += 1
        return self.reader.query(sparql, **options)


@pytest.fixture()
def counted(app):
    real = app.extensions["chesskb.reader"]
    counting = app.extensions["chesskb.reader"] = CountingReader(real)
    yield counting
    app.extensions["chesskb.reader"] = real


def test_a_game_position_reads_its_game_event_players_and_source_in_one_query(client, store, game_position, counted):
    data = client.get("/page.json", query_string={"iri": game_position}).get_json()
    assert counted.asked["page-context"] == 1
    assert counted.asked["describe"] == 0 and counted.asked["describe-own"] == 0
    assert all(count == 1 for count in counted.asked.values()), counted.asked  # nothing asked twice
    # what the one query brought: the players' names and the event's, as the store holds them
    rows = {row["property"]: row for row in data["game"]}
    for prop in ("hasPlayerWhite", "hasPlayerBlack"):
        player = first(store, f"SELECT ?x WHERE {{ <{game_position}> cp:{prop} ?x }}")
        labels = [r[0].value for r in store.query(f"SELECT ?l WHERE {{ <{player}> rdfs:label ?l }}")]
        assert rows[CP_IRI + prop]["value"] == min(labels)
    match = first(store, f"SELECT ?m WHERE {{ <{game_position}> cp:hasMatch ?m }}")
    assert rows[CP_IRI + "hasMatch"]["url"].endswith(match)
    assert rows["http://purl.org/dc/terms/source"]["value"]


def test_a_resource_named_twice_in_one_language_shows_its_first_name(client, store):
    """A player two sources name differently ("Karpov, Anatoly", "Anatoly Karpov") is shown by the first
    name in code-point order, whatever order the store lists them in."""
    player = first(
        store,
        "SELECT ?p WHERE { ?p a cp:Player ; rdfs:label ?a , ?b "
        "FILTER(?a < ?b && LANG(?a) = '' && LANG(?b) = '') } ORDER BY ?p LIMIT 1",
    )
    labels = [r[0].value for r in store.query(f"SELECT ?l WHERE {{ <{player}> rdfs:label ?l FILTER(LANG(?l) = '') }}")]
    assert len(set(labels)) >= 2
    assert client.get("/page.json", query_string={"iri": player}).get_json()["label"] == min(labels)


def test_an_unknown_class_is_404_in_every_format(client):
    assert client.get("/class/NoSuchClass", headers=BROWSER).status_code == 404
    assert client.get("/class/NoSuchClass.json").status_code == 404
    page = client.get("/class/MateInOne", headers=BROWSER)
    assert page.status_code == 200 and page.mimetype == "text/html"


#: Twelve subjects, written as JSON-LD by a fresh interpreter (``service.resources.serialise``).
JSON_LD_OF_TWELVE = """
import sys
from pyoxigraph import Literal, NamedNode, Triple
from chesskb.kb.vocab import CP_IRI
from chesskb.service.resources import serialise
fen = NamedNode(CP_IRI + "fen")
triples = [Triple(NamedNode(f"http://example.org/position/{n}"), fen, Literal(f"fen {n}")) for n in range(12)]
sys.stdout.write(serialise(triples, "application/ld+json").decode("utf-8"))
"""


def test_json_ld_is_the_same_text_in_every_process():
    """A page's JSON-LD (and so a static site built twice from one store) is the same bytes in every
    process: rdflib lists the nodes in the order of a set of its subjects, which follows Python's string
    hash, salted anew in each process (``PYTHONHASHSEED``)."""
    import os
    import subprocess
    import sys

    texts = {
        subprocess.run(
            [sys.executable, "-c", JSON_LD_OF_TWELVE],
            env={**os.environ, "PYTHONHASHSEED": str(seed)},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in (1, 2, 3)
    }
    assert len(texts) == 1
    (text,) = texts
    ids = [node["@id"] for node in json.loads(text)["@graph"]]
    assert ids == sorted(ids) and len(ids) == 12
