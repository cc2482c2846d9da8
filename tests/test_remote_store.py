"""Every command against a real SPARQL 1.1 server: the ``oxigraph`` server from PyPI, started here.

The same collections go into the embedded store and into the server; sources, stats, canned queries
and exports must agree, and removing or re-importing a source must be exact on both.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from pyoxigraph import NamedNode

from chesskb.service.app import create_app
from tests.conftest import BASE, DATA, run_cli
from tests.live_server import oxigraph_server
from tests.shared_proofs import shared_proofs  # noqa: F401 (autouse: one verification cache)

CP = "http://www.semanticweb.org/ontologies/2011/3/ChessPosition.owl#"

FILES = [DATA / "pychess" / "mate_in_2.pgn", DATA / "games" / "kasparov-deep-blue-1997.pgn"]


@pytest.fixture()
def server(tmp_path: Path) -> Iterator[dict[str, str]]:
    with oxigraph_server(tmp_path / "oxigraph") as base:
        yield {"query": base + "/query", "update": base + "/update"}


def _remote(server: dict[str, str], *args: str):
    return run_cli("--store", server["query"], "--update-endpoint", server["update"], *args)


def _sources(result) -> list[dict]:
    return [
        {k: v for k, v in s.items() if k in ("name", "games", "positions", "players", "checksum")}
        for s in json.loads(result.output)
    ]


def test_import_and_query_through_the_cli_agree_with_the_embedded_store(server, tmp_path: Path) -> None:
    embedded = tmp_path / "embedded"
    for path in FILES:
        assert run_cli("import", "--jobs", "1", str(path), store=embedded).exit_code == 0
        result = _remote(server, "import", "--jobs", "1", str(path))
        assert result.exit_code == 0, result.output
    remote_sources = _remote(server, "sources", "--format", "json")
    assert _sources(remote_sources) == _sources(run_cli("sources", "--format", "json", store=embedded))
    remote_stats = json.loads(_remote(server, "stats", "--format", "json").output)
    local_stats = json.loads(run_cli("stats", "--format", "json", store=embedded).output)
    remote_stats.pop("store"), local_stats.pop("store")
    assert remote_stats == local_stats
    for name in ("mate-in-one", "sources", "positions-by-side-and-goal"):
        remote = _remote(server, "query", "--name", name, "--format", "json")
        local = run_cli("query", "--name", name, "--format", "json", store=embedded)
        assert remote.exit_code == 0, remote.output
        rows = json.loads(remote.output)["results"]["bindings"]
        assert sorted(map(json.dumps, rows)) == sorted(map(json.dumps, json.loads(local.output)["results"]["bindings"]))
    assert _remote(server, "query", "ASK { ?p a cp:MateInTwo }").output.strip().lower().endswith("true")


def _default_graph(server) -> set[str]:
    """The statements queries see (import times and class counts aside: the counts change with
    every source, so a bigger KB is not a superset). Blank nodes (the ontology's owl:unionOf
    lists) get new labels each time a server loads them, so they are compared by number."""
    result = _remote(
        server,
        "query",
        "SELECT ?s ?p ?o WHERE { ?s ?p ?o FILTER(?p != cp:importedAt && ?p != cp:memberCount) }",
        "--format",
        "tsv",
    )
    rows = result.output.splitlines()[1:]
    return {row for row in rows if "_:" not in row} | {f"blank statements: {sum('_:' in row for row in rows)}"}


def check_remove_source_and_reimport(server: dict[str, str], kept: Path, added: Path) -> None:
    """Import ``kept``, then ``added``; removing ``added``'s source and importing ``kept`` again
    leave exactly what ``kept`` alone gave (on any server: the Virtuoso tests use it too)."""
    assert _remote(server, "import", "--jobs", "1", str(kept)).exit_code == 0
    before = _default_graph(server)
    assert _remote(server, "import", "--jobs", "1", str(added)).exit_code == 0
    assert _default_graph(server) > before
    assert _remote(server, "remove-source", added.stem).exit_code == 0
    assert _default_graph(server) == before
    assert _remote(server, "import", "--force", "--jobs", "1", str(kept)).exit_code == 0  # unchanged file again
    assert _default_graph(server) == before


def test_remove_source_and_reimport_are_exact_on_the_server(server, tmp_path: Path) -> None:
    check_remove_source_and_reimport(server, FILES[1], FILES[0])
    graphs = _remote(server, "query", "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }", "--format", "tsv")
    assert "staging" not in graphs.output


def test_a_failed_import_leaves_the_server_as_it_was(server, tmp_path: Path) -> None:
    assert _remote(server, "import", "--jobs", "1", str(FILES[1])).exit_code == 0
    before = _default_graph(server)
    broken = tmp_path / "broken.pgn"
    broken.write_bytes(b"\x00\x01\x02" * 1000)
    assert _remote(server, "import", str(broken)).exit_code != 0
    assert _default_graph(server) == before


def test_without_the_graph_store_protocol_imports_go_as_sparql_updates(server, tmp_path: Path) -> None:
    """--graph-store '' loads through INSERT DATA (servers without the protocol): the same sources."""
    embedded = tmp_path / "embedded"
    assert run_cli("import", "--jobs", "1", str(FILES[0]), store=embedded).exit_code == 0
    result = _remote(server, "--graph-store", "", "import", "--jobs", "1", str(FILES[0]))
    assert result.exit_code == 0, result.output
    assert _sources(_remote(server, "sources", "--format", "json")) == _sources(
        run_cli("sources", "--format", "json", store=embedded)
    )


def test_a_graph_store_url_that_refuses_leaves_the_server_as_it_was(server) -> None:
    assert _remote(server, "import", "--jobs", "1", str(FILES[1])).exit_code == 0
    before = _default_graph(server)
    wrong = server["query"].rsplit("/", 1)[0] + "/no-such-endpoint"
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "chesskb",
            "--store",
            server["query"],
            "--update-endpoint",
            server["update"],
            "--graph-store",
            wrong,
            "import",
            "--jobs",
            "1",
            str(FILES[0]),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 1 and "no-such-endpoint" in done.stderr and "Traceback" not in done.stderr
    assert _default_graph(server) == before


def test_serve_answers_from_the_remote_store(server) -> None:
    assert _remote(server, "import", "--jobs", "1", str(FILES[0])).exit_code == 0
    app = create_app({"STORE": server["query"], "UPDATE_ENDPOINT": server["update"], "TESTING": True})
    client = app.test_client()
    sparql = client.get(
        "/sparql",
        query_string={"query": "SELECT (COUNT(*) AS ?n) WHERE { ?p a cp:MateInTwo }"},
        headers={"Accept": "application/sparql-results+json"},
    )
    assert sparql.status_code == 200
    assert int(sparql.get_json()["results"]["bindings"][0]["n"]["value"]) > 50
    page = client.get("/queries/mate-in-one.json")
    assert page.status_code == 200


def _derived(store) -> tuple[set, set, list]:
    """Links, class counts and source descriptions (import time aside) as a store keeps them."""
    from chesskb.kb.mapping.iris import IriMinter

    minter = IriMinter()
    links = {(q.subject.value, q.predicate.value, q.object.value) for q in store.quads([minter.links_graph])}
    counts = {(q.subject.value, q.object.value) for q in store.quads([minter.counts_graph])}
    meta = sorted(
        (q.subject.value, q.predicate.value, str(q.object))
        for q in store.quads([minter.meta_graph])
        if not q.predicate.value.endswith("#importedAt")
    )
    return links, counts, meta


def test_links_counts_and_an_appended_source_agree_with_the_embedded_store(server, tmp_path: Path) -> None:
    """Both stores derive links and counts inside the write, and appending to a source (what the
    authoring page does) keeps the source and recounts it the same way on both."""
    from chesskb.kb.importer import import_files
    from chesskb.kb.store import open_store

    tal = tmp_path / "tal.pgn"
    tal.write_text('[Event "Club"]\n[White "Tal, Mikhail"]\n[Black "X"]\n[Result "*"]\n\n1. e4 *\n\n', encoding="utf-8")
    short = tmp_path / "authored.pgn"
    short.write_text('[Event "Lesson"]\n[White "Tal, M."]\n[Black "Y"]\n[Result "*"]\n\n1. d4 *\n\n', encoding="utf-8")
    embedded = open_store(str(tmp_path / "embedded"))
    remote = open_store(server["query"], update_endpoint=server["update"])
    for store in (embedded, remote):
        import_files(store, [FILES[1], tal], source="club", jobs=1)
        before = {(q.subject, q.predicate, q.object) for q in store.quads([NamedNode(BASE + "graph/club")])}
        report = import_files(store, [short], source="club", jobs=1, append=True, strict=True)
        assert report.games == 1
        after = {(q.subject, q.predicate, q.object) for q in store.quads([NamedNode(BASE + "graph/club")])}
        assert before < after  # appended: nothing the source held was dropped
    local, far = _derived(embedded), _derived(remote)
    assert local == far
    links, counts, meta = local
    assert any("sameAs" in p for _, p, _ in links)  # "Tal, M." met "Tal, Mikhail" in the same write
    assert (CP + "Match", "8") in counts  # six Deep Blue games, the club game and the lesson
    assert (BASE + "source/club", CP + "gameCount", '"8"^^<http://www.w3.org/2001/XMLSchema#integer>') in meta
    graphs = _remote(server, "query", "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }", "--format", "tsv")
    assert "staging" not in graphs.output
