"""Every command against Debian's Virtuoso (``virtuoso-opensource``), started here on free ports.

Virtuoso's default graph is the union of all graphs and cannot be written, so the store keeps the
merge in a named graph and reads it as every query's default graph (``default-graph-uri``). The
same collections go into the embedded store and into Virtuoso: sources, stats and every canned
query must agree; removing or re-importing a source must be exact; and a ``convert`` file bulk
loaded with Virtuoso's own loader must answer as an import through SPARQL Update does.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Iterator
from decimal import Decimal
from pathlib import Path

import pytest
from pyoxigraph import Literal, NamedNode, Quad

from chesskb.kb.store.remote import MERGE_GRAPH, RemoteStore
from chesskb.queries import list_queries
from tests.conftest import DATA, ROOT, run_cli
from tests.live_server import Virtuoso, virtuoso_server
from tests.test_remote_store import _default_graph, check_remove_source_and_reimport

XSD = "http://www.w3.org/2001/XMLSchema#"
FIXTURES = ROOT / "tests" / "fixtures"
FILES = [FIXTURES / "round-robin.pgn", FIXTURES / "puzzles-30.csv", DATA / "games" / "kasparov-deep-blue-1997.pgn"]
#: Canned queries Virtuoso 7.2.5 cannot run as written (its SPARQL compiler's own limits; the
#: queries are standard SPARQL 1.1, and every other server here answers them): docs/remote-stores.md.
VIRTUOSO_CANNOT = {
    "class-hierarchy-counts": "rdfs:subClassOf* with an unbound subject finds 4 of the classes",
    "event-crosstable": "a draw's points from nested IF(...) come out 0, not 0.5",
    "event-standings": "SUM(1 - ?finished) counts finished games as unfinished",
    "played-between-utc": "xsd:time() of a time literal: 'Incorrect hour field length'",
    "started-after": "xsd:time() of a time literal: 'Incorrect hour field length'",
    "positions-on-event-day": "xsd:dayTimeDuration arithmetic",
    "player-games": "'Internal Optimized compiler error' (SQ156)",
    "positions-of-player": "'Internal Optimized compiler error' (SQ156)",
    "winning-for-white": "its SPARQL parser refuses the query (SQ074)",
    "winning-in-section": "its SPARQL parser refuses the query (SQ074)",
    "winning-in-stage": "its SPARQL parser refuses the query (SQ074)",
    "winning-then-lost": "its SPARQL parser refuses the query (SQ074)",
    "winning-with-titled-player": "its SPARQL parser refuses the query (SQ074)",
}


@pytest.fixture()
def virtuoso(tmp_path: Path) -> Iterator[Virtuoso]:
    with virtuoso_server(tmp_path / "virtuoso") as server:
        yield server


def _remote(server: Virtuoso, *args: str):
    return run_cli("--store", server.sparql, *args)


def _sources(result) -> list[dict]:
    return [
        {k: v for k, v in s.items() if k in ("name", "games", "positions", "players", "checksum")}
        for s in json.loads(result.output)
    ]


NUMBERS = {XSD + name for name in ("integer", "decimal", "double", "float", "int", "long")}


def _rows(result) -> list[str]:
    """The rows as comparable text; a number by its value (servers write 0 or 0.0 for the same decimal)."""
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)["results"]["bindings"]
    for row in rows:
        for term in row.values():
            if term.get("datatype") in NUMBERS:
                term["value"], term["datatype"] = str(Decimal(term["value"]).normalize() + 0), "number"
    return sorted(json.dumps(row, sort_keys=True) for row in rows)


def _agree_on_every_canned_query(server: Virtuoso, embedded: Path) -> None:
    assert _sources(_remote(server, "sources", "--format", "json")) == _sources(
        run_cli("sources", "--format", "json", store=embedded)
    )
    remote_stats = json.loads(_remote(server, "stats", "--format", "json").output)
    local_stats = json.loads(run_cli("stats", "--format", "json", store=embedded).output)
    remote_stats.pop("store"), local_stats.pop("store")
    assert remote_stats == local_stats
    answered = 0
    assert set(VIRTUOSO_CANNOT) <= {query.name for query in list_queries()}
    for query in list_queries():
        if query.name in VIRTUOSO_CANNOT:
            continue
        local = run_cli("query", "--name", query.name, "--format", "json", store=embedded)
        remote = _remote(server, "query", "--name", query.name, "--format", "json")
        assert _rows(remote) == _rows(local), query.name
        answered += bool(_rows(local))
    assert answered > 10, answered  # the fixtures give many queries something to find


def test_imports_and_every_canned_query_agree_with_the_embedded_store(virtuoso: Virtuoso, tmp_path: Path) -> None:
    embedded = tmp_path / "embedded"
    for path in FILES:
        assert run_cli("import", "--jobs", "1", str(path), store=embedded).exit_code == 0
        result = _remote(virtuoso, "import", "--jobs", "1", str(path))
        assert result.exit_code == 0, result.output
    assert RemoteStore(virtuoso.sparql).merge_graph.value == MERGE_GRAPH  # found by asking the server
    _agree_on_every_canned_query(virtuoso, embedded)
    graphs = _remote(virtuoso, "query", "SELECT DISTINCT ?g WHERE { GRAPH ?g { ?s ?p ?o } }", "--format", "tsv")
    assert "staging" not in graphs.output and MERGE_GRAPH not in graphs.output and "openlinksw" not in graphs.output


def _endpoints(server: Virtuoso) -> dict[str, str]:
    """The server as tests/test_remote_store.py's helpers take one (Virtuoso updates at its query URL)."""
    return {"query": server.sparql, "update": server.sparql}


def _merge(server: Virtuoso) -> set[str]:
    return _default_graph(_endpoints(server))


def test_remove_source_and_reimport_are_exact(virtuoso: Virtuoso) -> None:
    check_remove_source_and_reimport(_endpoints(virtuoso), FILES[1], FILES[0])


def test_a_bulk_loaded_convert_file_answers_as_an_import_and_takes_writes(virtuoso: Virtuoso, tmp_path: Path) -> None:
    """``convert`` + Virtuoso's own loader (ld_dir, parallel rdf_loader_run) = ``import``; then
    ``chesskb`` removes and re-imports sources on the loaded server exactly."""
    from chesskb.kb.store.virtuoso import VirtuosoSql, bulk_load

    parts = virtuoso.folder / "parts"  # inside the server's DirsAllowed
    parts.mkdir()
    # one conversion (the ontology's blank-node lists once), in two parts for two loaders
    result = run_cli("convert", "--jobs", "1", *map(str, FILES), "-o", str(parts / "part-0.nq.gz"))
    assert result.exit_code == 0, result.output
    with gzip.open(parts / "part-0.nq.gz") as whole:
        lines = whole.read().splitlines(keepends=True)
    blank = [line for line in lines if b"_:" in line]  # a list's statements stay in one file
    plain = [line for line in lines if b"_:" not in line]
    (parts / "part-0.nq.gz").write_bytes(gzip.compress(b"".join(blank + plain[: len(plain) // 2])))
    (parts / "part-1.nq").write_bytes(b"".join(plain[len(plain) // 2 :]))
    assert bulk_load(VirtuosoSql(virtuoso.sql_port), parts, loaders=2) == 2
    embedded = tmp_path / "embedded"
    assert run_cli("import", "--jobs", "1", *map(str, FILES), store=embedded).exit_code == 0
    _agree_on_every_canned_query(virtuoso, embedded)
    loaded = _merge(virtuoso)
    assert _remote(virtuoso, "import", "--force", "--jobs", "1", str(FILES[1])).exit_code == 0  # replaced by itself
    assert _merge(virtuoso) == loaded
    _agree_on_every_canned_query(virtuoso, embedded)
    assert _remote(virtuoso, "remove-source", "round-robin").exit_code == 0
    without = tmp_path / "without-round-robin"
    assert run_cli("import", "--jobs", "1", *map(str, FILES[1:]), store=without).exit_code == 0
    _agree_on_every_canned_query(virtuoso, without)


def test_a_folder_of_parts_loads_exactly_what_its_manifest_lists(virtuoso: Virtuoso, tmp_path: Path) -> None:
    """``convert --parts``: the workers' parts and the driver's, listed in the manifest, and only those (a
    file an earlier run left in the folder is not loaded); the result answers as an import does."""
    from chesskb.kb.store.virtuoso import VirtuosoSql, bulk_load

    parts = virtuoso.folder / "worker-parts"  # inside the server's DirsAllowed
    parts.mkdir()
    (parts / "left-by-an-earlier-run.nq").write_text("<urn:x:stale> <urn:x:p> <urn:x:o> .\n", encoding="utf-8")
    result = run_cli("convert", "--jobs", "2", "--parts", *map(str, FILES), "-o", str(parts))
    assert result.exit_code == 0, result.output
    listed = (parts / "manifest.sha256").read_text(encoding="utf-8").splitlines()
    assert bulk_load(VirtuosoSql(virtuoso.sql_port), parts, loaders=2) == len(listed) > 2
    assert not [statement for statement in _merge(virtuoso) if "urn:x:stale" in statement]
    embedded = tmp_path / "embedded"
    assert run_cli("import", "--jobs", "1", *map(str, FILES), store=embedded).exit_code == 0
    _agree_on_every_canned_query(virtuoso, embedded)


def test_a_manifest_of_many_parts_loads_every_part(virtuoso: Virtuoso) -> None:
    """A million puzzles make 15,625 parts; the files are registered in calls of ``LD_ADD_PER_CALL``, which
    ``isql-vt`` must accept (it refuses a line of more than 50 statements)."""
    from chesskb.kb.store.nquads_parts import part_bytes, write_manifest, write_part
    from chesskb.kb.store.virtuoso import LD_ADD_PER_CALL, VirtuosoSql, bulk_load

    parts = virtuoso.folder / "many-parts"
    parts.mkdir()
    count = 2 * LD_ADD_PER_CALL + 7
    written = [
        write_part(
            parts,
            f"part-{n:04d}.nq.gz",
            part_bytes([Quad(NamedNode(f"urn:x:s{n}"), NamedNode("urn:x:p"), Literal(str(n)), NamedNode(graph))]),
            (graph,),
        )
        for n, graph in ((n, f"urn:x:g{n % 3}") for n in range(count))
    ]
    write_manifest(parts, written)
    assert bulk_load(VirtuosoSql(virtuoso.sql_port), parts, loaders=2) == count
    loaded = [statement for statement in _merge(virtuoso) if "urn:x:s" in statement]
    assert len(loaded) == count
    # the graphs registered (from the list convert --parts writes, graphs.txt) are where RemoteStore finds them
    assert {graph.value for graph in RemoteStore(virtuoso.sparql).named_graphs()} >= {
        "urn:x:g0",
        "urn:x:g1",
        "urn:x:g2",
    }


def test_the_loader_names_what_it_cannot_load(virtuoso: Virtuoso) -> None:
    from chesskb.kb.store.virtuoso import VirtuosoSql, bulk_load

    parts = virtuoso.folder / "broken"
    parts.mkdir()
    (parts / "part-0.nq").write_text("<urn:s> <urn:p> this is not N-Quads .\n", encoding="utf-8")
    with pytest.raises(RuntimeError, match=r"part-0\.nq"):
        bulk_load(VirtuosoSql(virtuoso.sql_port), parts)
    with pytest.raises(RuntimeError, match="no"):
        bulk_load(VirtuosoSql(virtuoso.sql_port), virtuoso.folder / "missing")
