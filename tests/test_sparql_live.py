"""A real client against the real server: SPARQLWrapper talking to ``chesskb serve`` on loopback.

The server runs in a subprocess (waitress, worker processes), exactly as users start it. A runaway
query (a cross product of four triple patterns) must be stopped with 503 while a second client
keeps getting answers.
"""

from __future__ import annotations

import functools
import http.server
import json
import subprocess
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path
from typing import ClassVar

import pytest
import rdflib
from SPARQLWrapper import CSV, JSON, N3, POST, RDFXML, TSV, XML, SPARQLWrapper
from SPARQLWrapper.SPARQLExceptions import EndPointInternalError, QueryBadFormed

from tests.conftest import ROOT
from tests.live_server import live_server

CP = "http://www.semanticweb.org/ontologies/2011/3/ChessPosition.owl#"
PREFIX = f"PREFIX cp: <{CP}>\n"
RUNAWAY = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"
TIMEOUT = 3.0


@pytest.fixture(scope="module")
def endpoint(competency_store):
    store = competency_store
    # no backoff: the tests of this module share one client address, and one of them runs a runaway
    with live_server(store, "--query-timeout", str(TIMEOUT), "--query-backoff", "0") as base:
        yield base + "/sparql"


def _client(url: str, query: str, fmt: str) -> SPARQLWrapper:
    client = SPARQLWrapper(url)
    client.setQuery(PREFIX + query)
    client.setReturnFormat(fmt)
    return client


def test_sparqlwrapper_select_in_every_format(endpoint):
    query = "SELECT ?position WHERE { ?position a cp:Trap }"
    rows = _client(endpoint, query, JSON).queryAndConvert()["results"]["bindings"]
    assert len(rows) == 1
    trap = rows[0]["position"]["value"]
    xml = _client(endpoint, query, XML).queryAndConvert()
    assert [b.firstChild.data for b in xml.getElementsByTagName("uri")] == [trap]
    csv_text = _client(endpoint, query, CSV).queryAndConvert().decode()
    assert csv_text.split() == ["position", trap]
    tsv_text = _client(endpoint, query, TSV).queryAndConvert().decode()
    assert tsv_text.split() == ["?position", f"<{trap}>"]
    post = _client(endpoint, query, JSON)
    post.setMethod(POST)
    assert post.queryAndConvert()["results"]["bindings"] == rows


def test_sparqlwrapper_ask_construct_describe(endpoint):
    assert _client(endpoint, "ASK { ?p a cp:MateInOne }", JSON).queryAndConvert()["boolean"] is True
    construct = "CONSTRUCT { ?p cp:fen ?f } WHERE { ?p a cp:MateInOne ; cp:fen ?f }"
    turtle = _client(endpoint, construct, N3).queryAndConvert()
    graph = turtle if isinstance(turtle, rdflib.Graph) else rdflib.Graph().parse(data=turtle, format="turtle")
    rdfxml = _client(endpoint, construct, RDFXML).queryAndConvert()
    assert isinstance(rdfxml, rdflib.Graph) and len(rdfxml) == len(graph) > 5
    count = _client(
        endpoint, "SELECT (COUNT(*) AS ?n) WHERE { ?p a cp:MateInOne ; cp:fen ?f }", JSON
    ).queryAndConvert()["results"]["bindings"][0]["n"]["value"]
    assert len(graph) == int(count)


def test_sparqlwrapper_sees_a_bad_query(endpoint):
    with pytest.raises(QueryBadFormed):
        _client(endpoint, "SELECT ?x WHERE { ?x }", JSON).queryAndConvert()


def test_runaway_query_is_stopped_while_another_client_is_answered(endpoint):
    outcome: dict[str, object] = {}

    def runaway() -> None:
        started = time.monotonic()
        try:
            _client(endpoint, RUNAWAY, JSON).queryAndConvert()
            outcome["runaway"] = "answered"
        except EndPointInternalError as exc:  # SPARQLWrapper's name for 5xx
            outcome["runaway"] = str(exc)
        except urllib.error.HTTPError as exc:
            outcome["runaway"] = exc.code
        outcome["runaway_seconds"] = time.monotonic() - started

    thread = threading.Thread(target=runaway)
    thread.start()
    time.sleep(0.5)  # the runaway query now holds one worker
    answered = []
    while thread.is_alive() and len(answered) < 5:
        started = time.monotonic()
        rows = _client(endpoint, "SELECT ?p WHERE { ?p a cp:Trap }", JSON).queryAndConvert()
        answered.append((time.monotonic() - started, len(rows["results"]["bindings"])))
    thread.join(30)
    assert answered and all(n == 1 for _, n in answered)
    assert all(seconds < TIMEOUT for seconds, _ in answered)
    assert outcome["runaway"] != "answered"
    assert TIMEOUT - 0.5 <= outcome["runaway_seconds"] < TIMEOUT + 10
    # the raw status and message, without SPARQLWrapper in the way
    request = urllib.request.Request(
        endpoint + "?query=" + urllib.request.quote(RUNAWAY), headers={"Accept": "application/sparql-results+json"}
    )
    with pytest.raises(urllib.error.HTTPError) as info:
        urllib.request.urlopen(request, timeout=30)
    assert info.value.code == 503
    assert "limit" in json.loads(info.value.read())["error"]
    assert _client(endpoint, "ASK { ?p a cp:Trap }", JSON).queryAndConvert()["boolean"] is True


def test_canned_query_over_http(endpoint):
    base = endpoint.rsplit("/", 1)[0]
    with urllib.request.urlopen(base + "/queries/positions-of-player.json?player=polgar", timeout=10) as r:
        data = json.loads(r.read())
    assert len(data["rows"]) == 2


def test_server_is_waitress(endpoint):
    with urllib.request.urlopen(endpoint + "?query=ASK%7B%7D", timeout=10) as response:
        assert response.headers["Server"] == "chesskb"  # waitress's ident, not werkzeug's dev server


CHROMIUM = "/usr/bin/chromium"


@pytest.mark.skipif(not Path(CHROMIUM).exists(), reason="needs Debian chromium")
def test_query_editor_runs_in_a_real_browser(endpoint):
    """The vendored YASGUI loads and builds its editor and result panes (no CDN on these machines)."""
    dom = subprocess.run(
        [CHROMIUM, "--headless", "--disable-gpu", "--no-sandbox", "--virtual-time-budget=5000", "--dump-dom", endpoint],
        capture_output=True,
        text=True,
        timeout=90,
        check=True,
    ).stdout
    assert 'class="yasqe"' in dom and 'class="yasr"' in dom and "CodeMirror" in dom


def test_rdflib_service_clause_federates_into_the_endpoint(endpoint):
    """rdflib's own SERVICE implementation (another real client) sends its sub-query here."""
    local = rdflib.Graph()
    local.add((rdflib.URIRef("urn:x:lesson"), rdflib.URIRef("urn:x:theme"), rdflib.URIRef(CP + "Trap")))
    rows = list(
        local.query(f"""SELECT ?lesson ?position WHERE {{
        ?lesson <urn:x:theme> ?theme .
        SERVICE <{endpoint}> {{ ?position a ?theme }} }}""")
    )
    assert len(rows) == 1 and str(rows[0][0]) == "urn:x:lesson"
    assert "/position/" in str(rows[0][1])


# --- clients that name a dataset, and results larger than any old cap ------------------------------


def _source_graph(name: str) -> str:
    from chesskb.kb.mapping.iris import default_base_iri

    return f"{default_base_iri()}graph/{name}"


def test_rdflib_sparqlstore_on_a_named_graph(endpoint):
    """rdflib's SPARQLStore reads one source's graph through named-graph-uri / GRAPH."""
    from rdflib.plugins.stores.sparqlstore import SPARQLStore

    from tests.competency import TRAPS

    store = SPARQLStore(endpoint, returnFormat="json")
    graph = rdflib.Graph(store=store, identifier=rdflib.URIRef(_source_graph("competency-traps")))
    games = {str(s) for s in graph.subjects(rdflib.RDF.type, rdflib.URIRef(CP + "Match"))}
    import chess.pgn

    with open(TRAPS, encoding="utf-8") as handle:
        expected = 0
        while chess.pgn.read_headers(handle) is not None:
            expected += 1
    assert len(games) == expected >= 1
    assert len(graph) > 10


def test_rdflib_sparqlstore_sees_every_triple(endpoint, tmp_path):
    """The old row cap cut rdflib's triples() at 10,000; now it sees every triple of the merge."""
    from rdflib.plugins.stores.sparqlstore import SPARQLStore

    store = SPARQLStore(endpoint, returnFormat="json")
    seen = sum(1 for _ in rdflib.Graph(store=store).triples((None, None, None)))
    count = _client(endpoint, "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }", JSON).queryAndConvert()
    assert seen == int(count["results"]["bindings"][0]["n"]["value"]) > 10000


def test_sparqlwrapper_add_default_graph(endpoint):
    client = _client(endpoint, "SELECT (COUNT(DISTINCT ?s) AS ?n) WHERE { ?s a cp:Source }", JSON)
    client.addDefaultGraph(_source_graph("competency-traps"))
    rows = client.queryAndConvert()["results"]["bindings"]
    assert rows[0]["n"]["value"] == "1"  # only that source's graph is the default graph


def test_oxigraph_service_federation_counts_everything(endpoint):
    """Oxigraph federating into us sees the whole result (the old cap made COUNT(*) say 10000)."""
    from pyoxigraph import Store

    local = Store()
    federated = next(iter(local.query(f"SELECT (COUNT(*) AS ?n) WHERE {{ SERVICE <{endpoint}> {{ ?s ?p ?o }} }}")))
    direct = _client(endpoint, "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }", JSON).queryAndConvert()
    assert int(federated["n"].value) == int(direct["results"]["bindings"][0]["n"]["value"]) > 10000


COMUNICA = ROOT / ".venv" / "comunica" / "node_modules" / ".bin" / "comunica-sparql"


def _comunica(sources: list[str], query: str) -> list[dict]:
    if not COMUNICA.exists():
        pytest.skip("Comunica is installed by scripts/setup.sh (npm)")
    done = subprocess.run(
        [str(COMUNICA), *sources, PREFIX + query, "-t", "application/sparql-results+json"],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr[-2000:]
    return json.loads(done.stdout)["results"]["bindings"]


def _direct_count(url: str, query: str) -> int:
    data = urllib.parse.urlencode({"query": PREFIX + query}).encode()
    request = urllib.request.Request(url, data=data, headers={"Accept": "application/sparql-results+json"})
    rows = json.loads(urllib.request.urlopen(request, timeout=60).read())["results"]["bindings"]
    return int(rows[0]["n"]["value"])


def test_comunica_reads_every_row_of_a_large_result(endpoint):
    """A client that pages nothing gets every statement: more rows than the old 10,000-row cap."""
    total = _direct_count(endpoint, "SELECT (COUNT(*) AS ?n) WHERE { ?s ?p ?o }")
    assert total > 10_000
    rows = _comunica([f"sparql@{endpoint}"], "SELECT ?s ?p ?o WHERE { ?s ?p ?o }")
    assert len(rows) == total


def test_comunica_federates_our_endpoint_with_another_source(endpoint, tmp_path):
    """Comunica joins our endpoint with a second source: FENs from us for positions listed elsewhere."""
    data = urllib.parse.urlencode({"query": PREFIX + "SELECT ?p WHERE { ?p a cp:MateInTwo } LIMIT 5"}).encode()
    request = urllib.request.Request(endpoint, data=data, headers={"Accept": "application/sparql-results+json"})
    wanted = [
        row["p"]["value"]
        for row in json.loads(urllib.request.urlopen(request, timeout=60).read())["results"]["bindings"]
    ]
    assert wanted
    listed = tmp_path / "lesson.ttl"
    listed.write_text(
        "".join(f"<{iri}> <http://example.org/inLesson> <http://example.org/lesson1> .\n" for iri in wanted),
        encoding="utf-8",
    )
    handler = functools.partial(_TurtleFiles, directory=str(tmp_path))
    with http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler) as files:
        threading.Thread(target=files.serve_forever, daemon=True).start()
        lesson = f"http://127.0.0.1:{files.server_address[1]}/lesson.ttl"
        try:
            rows = _comunica(
                [f"sparql@{endpoint}", lesson],
                "SELECT ?p ?fen WHERE { ?p <http://example.org/inLesson> ?lesson ; cp:fen ?fen }",
            )
        finally:
            files.shutdown()
    assert sorted(row["p"]["value"] for row in rows) == sorted(wanted)
    assert all(row["fen"]["value"].count("/") == 7 for row in rows)


class _TurtleFiles(http.server.SimpleHTTPRequestHandler):
    """A second Linked Data source on this machine: files served as Turtle, quietly."""

    extensions_map: ClassVar[dict[str, str]] = {".ttl": "text/turtle"}

    def log_message(self, *args) -> None:
        pass
