"""The SPARQL 1.1 Protocol endpoint and the canned-query pages, through the Flask test client.

Every result format is parsed back with a real parser (pyoxigraph, rdflib, csv); the error paths
(400 malformed, 403 update and SERVICE, 503 runaway query) are exercised against a real store
whose queries run in the killable worker processes. The live-server tests with SPARQLWrapper are
in ``test_sparql_live.py``.
"""

from __future__ import annotations

import csv
import html
import io
import json
import re
import time
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest
import rdflib
import rdflib.compare
from pyoxigraph import QueryResultsFormat, parse_query_results

from chesskb.queries import list_queries
from chesskb.service.executor import close_pools
from tests.boards import mates_in_one

CP = "http://www.semanticweb.org/ontologies/2011/3/ChessPosition.owl#"
TRAPS = f"SELECT ?position WHERE {{ ?position a <{CP}Trap> }}"
RUNAWAY = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"
SELECT_TYPES = {
    "application/sparql-results+json": QueryResultsFormat.JSON,
    "application/sparql-results+xml": QueryResultsFormat.XML,
    "text/csv": QueryResultsFormat.CSV,
    "text/tab-separated-values": QueryResultsFormat.TSV,
}
GRAPH_TYPES = {
    "text/turtle": "turtle",
    "application/rdf+xml": "xml",
    "application/n-triples": "nt",
    "application/ld+json": "json-ld",
}


@pytest.fixture(scope="module")
def store_path(competency_store) -> Path:
    return competency_store


def _app(store_path: Path, **config):
    from chesskb.service.app import create_app

    return create_app({"STORE": str(store_path), "QUERY_TIMEOUT": 4.0, **config})


@pytest.fixture(scope="module")
def app(store_path):
    app = _app(store_path)
    yield app
    close_pools(app)


@pytest.fixture()
def client(app):
    return app.test_client()


@pytest.fixture(scope="module")
def trap_iri(store_path) -> str:
    from chesskb.kb.store import open_store

    return next(iter(open_store(str(store_path)).query(TRAPS)))["position"].value


def _solutions(response) -> list[dict[str, str]]:
    if response.mimetype == "text/csv":  # lossy by design (W3C): read as plain CSV
        return [
            {k: v for k, v in row.items() if v} for row in csv.DictReader(io.StringIO(response.get_data(as_text=True)))
        ]
    fmt = SELECT_TYPES[response.mimetype]
    parsed = parse_query_results(response.data, format=fmt)
    names = [v.value for v in parsed.variables]
    return [{n: row[n].value for n in names if row[n] is not None} for row in parsed]


# --- the three request forms and negotiation ---------------------------------------------------


def test_get_query_defaults_to_json(client, trap_iri):
    response = client.get("/sparql", query_string={"query": TRAPS})
    assert response.status_code == 200
    assert response.mimetype == "application/sparql-results+json"
    assert json.loads(response.data)["results"]["bindings"] == [{"position": {"type": "uri", "value": trap_iri}}]


def test_post_form_and_direct_body(client, trap_iri):
    form = client.post("/sparql", data={"query": TRAPS}, headers={"Accept": "text/csv"})
    assert form.status_code == 200 and form.mimetype == "text/csv"
    assert list(csv.DictReader(io.StringIO(form.get_data(as_text=True)))) == [{"position": trap_iri}]
    direct = client.post("/sparql", data=TRAPS, content_type="application/sparql-query")
    assert direct.status_code == 200 and _solutions(direct) == [{"position": trap_iri}]


@pytest.mark.parametrize("media", list(SELECT_TYPES))
def test_every_select_format_parses_back(client, trap_iri, media):
    response = client.get("/sparql", query_string={"query": TRAPS}, headers={"Accept": media})
    assert response.mimetype == media
    assert _solutions(response) == [{"position": trap_iri}]
    if media.endswith("xml"):  # a second, independent parser
        result = rdflib.query.Result.parse(io.BytesIO(response.data), format="xml")
        assert [str(row[0]) for row in result] == [trap_iri]


def test_q_values_are_honoured(client):
    accept = "application/sparql-results+json;q=0.2, text/tab-separated-values;q=0.9, text/csv;q=0.5"
    response = client.get("/sparql", query_string={"query": TRAPS}, headers={"Accept": accept})
    assert response.mimetype == "text/tab-separated-values"


@pytest.mark.parametrize(
    "param, value, media",
    [
        ("format", "json", "application/sparql-results+json"),
        ("output", "xml", "application/sparql-results+xml"),
        ("results", "csv", "text/csv"),
        ("format", "application/sparql-results+xml", "application/sparql-results+xml"),
    ],
)
def test_sparqlwrapper_style_parameters(client, param, value, media):
    response = client.get(
        "/sparql",
        query_string={"query": TRAPS, param: value},
        headers={"Accept": "application/sparql-results+json,*/*;q=0.1"},
    )
    assert response.status_code == 200 and response.mimetype == media


def test_ask(client):
    for media, fmt in (
        ("application/sparql-results+json", QueryResultsFormat.JSON),
        ("application/sparql-results+xml", QueryResultsFormat.XML),
    ):
        response = client.get(
            "/sparql", query_string={"query": f"ASK {{ ?p a <{CP}Trap> }}"}, headers={"Accept": media}
        )
        assert response.status_code == 200
        assert bool(parse_query_results(response.data, format=fmt)) is True
    no = client.get("/sparql", query_string={"query": f"ASK {{ ?p a <{CP}Lock> }}"})
    assert json.loads(no.data)["boolean"] is False


@pytest.mark.parametrize("media", list(GRAPH_TYPES))
def test_construct_and_describe_in_every_rdf_format(client, trap_iri, media):
    construct = f"CONSTRUCT {{ ?p <{CP}fen> ?f }} WHERE {{ ?p a <{CP}MateInOne> ; <{CP}fen> ?f }}"
    response = client.get("/sparql", query_string={"query": construct}, headers={"Accept": media})
    assert response.status_code == 200 and response.mimetype == media
    graph = rdflib.Graph().parse(data=response.data, format=GRAPH_TYPES[media])
    reference = rdflib.Graph().parse(
        data=client.get("/sparql", query_string={"query": construct, "format": "nt"}).data, format="nt"
    )
    assert len(graph) == len(reference) > 5
    assert rdflib.compare.isomorphic(graph, reference)
    describe = client.get("/sparql", query_string={"query": f"DESCRIBE <{trap_iri}>"}, headers={"Accept": media})
    described = rdflib.Graph().parse(data=describe.data, format=GRAPH_TYPES[media])
    assert (rdflib.URIRef(trap_iri), rdflib.RDF.type, rdflib.URIRef(CP + "Trap")) in described


def test_construct_default_is_turtle_even_for_result_types(client):
    response = client.get(
        "/sparql",
        query_string={"query": f"CONSTRUCT WHERE {{ ?p a <{CP}Trap> }}"},
        headers={"Accept": "application/sparql-results+json"},
    )
    assert response.mimetype == "text/turtle"


# --- service description and editor ----------------------------------------------------------


def test_service_description(client):
    response = client.get("/sparql", headers={"Accept": "text/turtle"})
    assert response.status_code == 200 and response.mimetype == "text/turtle"
    graph = rdflib.Graph().parse(data=response.data, format="turtle")
    sd = rdflib.Namespace("http://www.w3.org/ns/sparql-service-description#")
    service = graph.value(predicate=rdflib.RDF.type, object=sd.Service)
    assert service is not None
    assert str(graph.value(service, sd.endpoint)).endswith("/sparql")
    assert (service, sd.supportedLanguage, sd.SPARQL11Query) in graph
    formats = {str(o) for o in graph.objects(service, sd.resultFormat)}
    assert "http://www.w3.org/ns/formats/SPARQL_Results_JSON" in formats and len(formats) == 8
    assert graph.value(service, sd.defaultDataset) is not None
    assert (service, sd.feature, sd.BasicFederatedQuery) not in graph
    xml = client.get("/sparql", headers={"Accept": "application/rdf+xml"})
    assert len(rdflib.Graph().parse(data=xml.data, format="xml")) == len(graph)


def test_editor_page_for_browsers_is_served_from_the_package(client):
    page = client.get("/sparql", headers={"Accept": "text/html,application/xhtml+xml,*/*;q=0.8"})
    assert page.status_code == 200 and page.mimetype == "text/html"
    text = page.get_data(as_text=True)
    assert "yasgui/yasgui.min.js" in text and "https://" not in text.split("<body>")[0]
    script = client.get("/static/yasgui/yasgui.min.js")
    assert script.status_code == 200 and len(script.data) > 500_000


# --- errors ----------------------------------------------------------------------------------


def test_malformed_query_is_400_with_the_parser_message(client):
    response = client.get("/sparql", query_string={"query": "SELECT ?x WHERE { ?x ?y }"})
    assert response.status_code == 400
    body = json.loads(response.data)
    assert body["ok"] is False and body["status"] == 400
    assert "syntax error" in body["error"].lower() and "1:" in body["error"]  # the parser's position


def test_updates_are_refused_without_a_token(client):
    for response in (
        client.post("/sparql", data={"update": "DROP ALL"}),
        client.post("/sparql", data="DROP ALL", content_type="application/sparql-update"),
    ):
        assert response.status_code == 403
        assert "update" in json.loads(response.data)["error"].lower()
    assert client.get("/sparql", query_string={"update": "DROP ALL"}).status_code == 400
    as_query = client.get("/sparql", query_string={"query": "DROP ALL"})
    assert as_query.status_code == 400  # an update is not a query
    assert client.get("/sparql", query_string={"query": TRAPS}).status_code == 200


def test_update_token(store_path):
    app = _app(store_path, UPDATE_TOKEN="s3cret")
    client = app.test_client()
    wrong = client.post("/sparql", data={"update": "DROP ALL"}, headers={"Authorization": "Bearer nope"})
    assert wrong.status_code == 403
    right = client.post("/sparql", data={"update": "DROP ALL"}, headers={"Authorization": "Bearer s3cret"})
    assert right.status_code == 501


def test_service_is_refused_by_default(client):
    federated = "SELECT * WHERE { SERVICE <http://example.org/sparql> { ?s ?p ?o } }"
    response = client.get("/sparql", query_string={"query": federated})
    assert response.status_code == 403 and "SERVICE" in json.loads(response.data)["error"]
    lowercase = client.get("/sparql", query_string={"query": federated.replace("SERVICE", "service")})
    assert lowercase.status_code == 403
    harmless = 'SELECT ?x WHERE { BIND("SERVICE <http://x>" AS ?x) } # SERVICE'
    assert client.get("/sparql", query_string={"query": harmless}).status_code == 200


def test_row_cap_fails_loudly_instead_of_cutting(store_path):
    """With the optional row cap on, a larger SELECT is an error naming the setting, never a cut 200."""
    app = _app(store_path, ROW_LIMIT=5)
    client = app.test_client()
    try:
        query = f"SELECT ?p WHERE {{ ?p a <{CP}Position> }}"
        for media in SELECT_TYPES:
            response = client.get("/sparql", query_string={"query": query}, headers={"Accept": media})
            assert response.status_code == 507
            assert "ROW_LIMIT" in json.loads(response.data)["error"]
            assert "X-Result-Truncated" not in response.headers
        small = client.get("/sparql", query_string={"query": TRAPS})
        assert small.status_code == 200 and len(_solutions(small)) == 1
    finally:
        close_pools(app)


def test_no_row_cap_by_default(client, store_path):
    from chesskb.kb.store import open_store

    query = "SELECT ?s ?p ?o WHERE { ?s ?p ?o }"
    expected = len(list(open_store(str(store_path)).query(query)))
    assert expected > 10000  # more than the old silent cap
    response = client.get("/sparql", query_string={"query": query})
    assert response.status_code == 200
    assert len(json.loads(response.data)["results"]["bindings"]) == expected


def test_page_queries_have_the_time_limit_too(store_path):
    """Pages read through the same executor: a runaway page query is stopped, not left running."""
    from chesskb.service.errors import ServiceError

    app = _app(store_path, QUERY_TIMEOUT=2.0, QUERY_BACKOFF=0)  # the same client asks again at once
    try:
        with app.test_request_context("/"):
            started = time.monotonic()
            with pytest.raises(ServiceError) as info:
                list(app.extensions["chesskb.reader"].query(RUNAWAY))
            assert info.value.status == 503 and "QUERY_TIMEOUT" in info.value.message
            assert time.monotonic() - started < 10
            assert bool(app.extensions["chesskb.reader"].query(TRAPS.replace("SELECT ?position", "ASK")))
    finally:
        close_pools(app)


def test_byte_cap_fails_loudly(store_path):
    app = _app(store_path, MAX_RESULT_BYTES=10000)
    client = app.test_client()
    try:
        response = client.get("/sparql", query_string={"query": "SELECT * WHERE { ?s ?p ?o }"})
        assert response.status_code == 507
        assert "MAX_RESULT_BYTES" in json.loads(response.data)["error"]
    finally:
        close_pools(app)


def test_runaway_query_is_stopped_with_503_and_the_endpoint_recovers(store_path):
    app = _app(store_path, QUERY_TIMEOUT=2.0, QUERY_BACKOFF=0)  # the same client asks again at once
    client = app.test_client()
    try:
        started = time.monotonic()
        response = client.get("/sparql", query_string={"query": RUNAWAY})
        elapsed = time.monotonic() - started
        assert response.status_code == 503
        assert "2 s" in json.loads(response.data)["error"]
        assert elapsed < 10
        assert client.get("/sparql", query_string={"query": TRAPS}).status_code == 200
    finally:
        close_pools(app)


# --- canned queries on the web ---------------------------------------------------------------


def test_queries_list(client):
    listed = json.loads(client.get("/queries.json").data)
    assert len(listed) == len(list_queries())
    entry = next(q for q in listed if q["name"] == "mate-in-n-by-player")
    assert entry["url"] == "/queries/mate-in-n-by-player"
    assert [p["name"] for p in entry["params"]] == ["n", "player"]
    page = client.get("/queries").get_data(as_text=True)
    assert page.count('href="/queries/') == len(list_queries())


def test_canned_query_page_json_and_csv(client, trap_iri):
    page = client.get("/queries/opening-traps")
    assert page.status_code == 200
    hrefs = re.findall(r'href="(/page\?[^"]*)"', page.get_data(as_text=True))
    assert trap_iri in [parse_qs(urlsplit(html.unescape(h)).query)["iri"][0] for h in hrefs]
    data = json.loads(client.get("/queries/opening-traps.json").data)
    assert [row["position"]["value"] for row in data["rows"]] == [trap_iri]
    rows = list(csv.DictReader(io.StringIO(client.get("/queries/opening-traps.csv").get_data(as_text=True))))
    assert [row["position"] for row in rows] == [trap_iri]


def test_canned_query_parameters_on_the_web(client):
    polgar = json.loads(
        client.get("/queries/positions-of-player-as-black.json", query_string={"player": "JUDIT polgár"}).data
    )
    assert polgar["values"] == {"player": "JUDIT polgár"}
    assert len(polgar["rows"]) == 1 and polgar["rows"][0]["who"]["value"].split("/")[-1].startswith("judit-polgar")
    assert client.get("/queries/positions-in-year.json", query_string={"year": "19x7"}).status_code == 400
    assert client.get("/queries/no-such-query").status_code == 404
    # Every canned query has defaults now (issue 17): the page runs it with them and shows the answer.
    page = client.get("/queries/same-position-elsewhere")
    assert page.status_code == 200 and 'class="results"' in page.get_data(as_text=True)


def test_hostile_parameters_on_the_web_stay_literals_and_are_escaped(client):
    hostile = '"><script>alert(1)</script>} DROP ALL #'
    page = client.get("/queries/positions-of-event", query_string={"event": hostile})
    text = page.get_data(as_text=True)
    assert page.status_code == 200 and "<script>alert(1)" not in text
    data = json.loads(client.get("/queries/positions-of-event.json", query_string={"event": hostile}).data)
    assert data["rows"] == []
    assert len(json.loads(client.get("/queries/positions-of-event.json").data)["rows"]) == 1


def test_every_canned_query_gives_the_same_answer_on_the_web_and_the_cli(client, store_path):
    from chesskb.kb.store import open_store
    from tests.conftest import run_cli

    store = open_store(str(store_path))
    position = _first(store, 'SELECT ?p WHERE { ?p cp:hasMatch/cp:hasPlayerWhite/cp:nameKey "alejandro sahuquillo" }')
    held = _parameters_this_store_holds()
    for query in list_queries():
        params = {"position": position} if query.name == "same-position-elsewhere" else held.get(query.name, {})
        expected = len(list(store.query(query.paged_text(params), bindings=query.bind(params))))
        assert expected > 0, query.name
        web = json.loads(client.get(f"/queries/{query.name}.json", query_string=params).data)
        assert len(web["rows"]) == expected, query.name
        args = [arg for k, v in params.items() for arg in ("--param", f"{k}={v}")]
        cli = run_cli("query", "--name", query.name, *args, "--format", "json", store=store_path)
        assert cli.exit_code == 0, cli.output
        assert len(json.loads(cli.output)["results"]["bindings"]) == expected, query.name


def test_canned_queries_come_in_pages_that_add_up_to_every_row(client, store_path):
    """limit (default 100, 0 = all) and offset: the pages of a query are its rows, none twice."""
    from tests.conftest import run_cli

    every = json.loads(client.get("/queries/no-castling-either-side.json?limit=0").data)["rows"]
    assert len(every) > 200
    first = json.loads(client.get("/queries/no-castling-either-side.json").data)["rows"]
    assert len(first) == 100
    pages = [
        json.loads(client.get(f"/queries/no-castling-either-side.json?limit=100&offset={o}").data)["rows"]
        for o in range(0, len(every), 100)
    ]
    key = [json.dumps(r, sort_keys=True) for page in pages for r in page]
    assert len(key) == len(set(key)) == len(every)
    assert set(key) == {json.dumps(r, sort_keys=True) for r in every}
    cli = run_cli(
        "query", "--name", "no-castling-either-side", "--param", "limit=0", "--format", "json", store=store_path
    )
    assert len(json.loads(cli.output)["results"]["bindings"]) == len(every)
    assert client.get("/queries/no-castling-either-side.json?limit=-1").status_code == 400


def _parameters_this_store_holds() -> dict[str, dict[str, str]]:
    """Parameters for the canned queries whose defaults name the demo data (issue 34), read with
    python-chess from the files this module's store is built from: a header as written, and for
    mate-in-n-by-player a player of a game whose set-up position python-chess mates in one."""
    import chess.pgn

    from tests.competency import COMPETENCY, TRAPS

    first: dict[str, str] = {}
    mated_by: str | None = None
    for path in (COMPETENCY, TRAPS):
        with open(path, encoding="utf-8") as handle:
            while (game := chess.pgn.read_game(handle)) is not None:
                for tag in ("Annotator", "NIC", "SubVariation", "Variation", "EventSponsor"):
                    if game.headers.get(tag) and tag not in first:
                        first[tag] = game.headers[tag]
                board = game.board()
                if mated_by is None and game.headers.get("Termination") == "mate in 1" and mates_in_one(board):
                    mated_by = game.headers["White" if board.turn else "Black"].split(",")[0]
    assert mated_by is not None and len(first) == 5, first
    return {
        "annotated-by": {"annotator": first["Annotator"]},
        "positions-by-nic": {"nic": first["NIC"]},
        "positions-by-subvariation": {"subvariation": first["SubVariation"]},
        "positions-by-variation": {"variation": first["Variation"]},
        "sponsored-by": {"sponsor": first["EventSponsor"]},
        "mate-in-n-by-player": {"n": "1", "player": mated_by},
    }


def _first(store, sparql: str) -> str:
    return next(iter(store.query(sparql)))["p"].value


def test_cors_for_browser_clients_on_other_origins(client):
    preflight = client.options(
        "/sparql", headers={"Origin": "https://yasgui.example", "Access-Control-Request-Method": "POST"}
    )
    assert preflight.status_code == 200
    assert preflight.headers["Access-Control-Allow-Origin"] == "*"
    assert "POST" in preflight.headers["Access-Control-Allow-Methods"]
    response = client.get("/sparql", query_string={"query": TRAPS}, headers={"Origin": "https://yasgui.example"})
    assert response.headers["Access-Control-Allow-Origin"] == "*"


def test_combined_accept_header_is_chosen_by_query_form(client):
    """One Accept listing both a result type and an RDF type (zazuko/vscode-sparql-notebook#56)."""
    accept = "application/sparql-results+json,text/turtle"
    select = client.get("/sparql", query_string={"query": TRAPS}, headers={"Accept": accept})
    assert select.mimetype == "application/sparql-results+json"
    construct = client.get(
        "/sparql", query_string={"query": f"CONSTRUCT WHERE {{ ?p a <{CP}Trap> }}"}, headers={"Accept": accept}
    )
    assert construct.mimetype == "text/turtle"
    assert len(rdflib.Graph().parse(data=construct.data, format="turtle")) == 1
