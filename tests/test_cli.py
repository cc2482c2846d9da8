"""The ``chesskb`` command: query formats parse back, exports round-trip, errors are one line."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import rdflib
from pyoxigraph import QueryResultsFormat, parse_query_results

from chesskb.kb.store import EmbeddedStore

from .conftest import DATA, run_cli

COUNT_MATES = "SELECT ?position ?fen WHERE { ?position a cp:MateInOne ; cp:fen ?fen } ORDER BY ?position"


def expected_mates(store: Path) -> list[tuple[str, str]]:
    return [(r["position"].value, r["fen"].value) for r in EmbeddedStore(store).query(COUNT_MATES)]


def test_query_json_is_w3c_sparql_results(data_store: Path) -> None:
    result = run_cli("query", COUNT_MATES, "--format", "json", store=data_store)
    assert result.exit_code == 0
    doc = json.loads(result.stdout)
    assert doc["head"]["vars"] == ["position", "fen"]
    rows = [(b["position"]["value"], b["fen"]["value"]) for b in doc["results"]["bindings"]]
    assert rows == expected_mates(data_store) and len(rows) > 80


@pytest.mark.parametrize("fmt, results_format", [("tsv", QueryResultsFormat.TSV), ("xml", QueryResultsFormat.XML)])
def test_query_tsv_xml_parse_back(data_store: Path, fmt: str, results_format) -> None:
    result = run_cli("query", COUNT_MATES, "--format", fmt, store=data_store)
    assert result.exit_code == 0
    parsed = parse_query_results(result.stdout_bytes, results_format)
    rows = [(r["position"].value, r["fen"].value) for r in parsed]
    assert rows == expected_mates(data_store)


def test_query_csv_is_w3c_csv(data_store: Path) -> None:
    import csv
    import io

    result = run_cli("query", COUNT_MATES, "--format", "csv", store=data_store)
    rows = list(csv.reader(io.StringIO(result.stdout)))
    assert rows[0] == ["position", "fen"]
    assert [tuple(r) for r in rows[1:]] == expected_mates(data_store)


def test_query_table_and_ask(data_store: Path) -> None:
    table = run_cli("query", COUNT_MATES, store=data_store)
    assert table.exit_code == 0 and f"({len(expected_mates(data_store))} rows)" in table.stdout
    ask = run_cli("query", "ASK { ?p a cp:MateInTwo }", "--format", "json", store=data_store)
    assert json.loads(ask.stdout)["boolean"] is True


def test_query_by_name_and_file(data_store: Path, tmp_path: Path) -> None:
    by_name = run_cli("query", "--name", "mate-in-one", "--format", "csv", store=data_store)
    assert by_name.exit_code == 0
    assert by_name.stdout.count("\n") - 1 == len(expected_mates(data_store))
    rq = tmp_path / "q.rq"
    rq.write_text(COUNT_MATES, encoding="utf-8")
    by_file = run_cli("query", "--file", str(rq), "--format", "csv", store=data_store)
    assert by_file.stdout == run_cli("query", COUNT_MATES, "--format", "csv", store=data_store).stdout


def test_query_errors_are_one_line_with_exit_2(data_store: Path) -> None:
    bad = run_cli("query", "SELECT ?x WHERE { ?x ", store=data_store)
    assert bad.exit_code == 2 and "SPARQL syntax error" in bad.output and "Traceback" not in bad.output
    assert run_cli("query", store=data_store).exit_code == 2
    assert run_cli("query", "--name", "no-such-query", store=data_store).exit_code == 2


def _store_triples(store: Path) -> set:
    """Ontology + asserted triples of the store (what the owl export must hold): not the inferred
    graphs, the sources' descriptions or the class counts."""
    from chesskb.queries.source_statements import graph_statements

    kb = EmbeddedStore(store)
    graphs = [g for g in kb.named_graphs() if not g.value.endswith(("/inferred", "/_meta", "/_counts"))]
    out = set()
    for quad in graph_statements(kb, graphs):  # what the graphs say, whatever the store's layout
        out.add(tuple(_to_rdflib(term) for term in (quad.subject, quad.predicate, quad.object)))
    return out


def _to_rdflib(term):
    from pyoxigraph import BlankNode, Literal, NamedNode

    if isinstance(term, NamedNode):
        return rdflib.URIRef(term.value)
    if isinstance(term, BlankNode):
        return rdflib.BNode(term.value)
    assert isinstance(term, Literal)
    if term.language:
        return rdflib.Literal(term.value, lang=term.language)
    if term.datatype.value == "http://www.w3.org/2001/XMLSchema#string":
        return rdflib.Literal(term.value)
    return rdflib.Literal(term.value, datatype=rdflib.URIRef(term.datatype.value))


CP = rdflib.Namespace("http://www.semanticweb.org/ontologies/2011/3/ChessPosition.owl#")


def _for_hermit(triple):
    """The owl export writes xsd:date/xsd:time literals as strings (HermiT refuses those datatypes)."""
    s, p, o = triple
    if isinstance(o, rdflib.Literal) and o.datatype in (rdflib.XSD.date, rdflib.XSD.time):
        return s, p, rdflib.Literal(str(o))
    return triple


def test_owl_export_parses_back_to_the_same_triples_and_loads_in_owlready2(tmp_path: Path) -> None:
    store = tmp_path / "s"
    assert (
        run_cli(
            "import", str(DATA / "pychess" / "mate_in_3.pgn"), str(DATA / "seed" / "seed-000-sample.pgn"), store=store
        ).exit_code
        == 0
    )
    out = tmp_path / "kb.owl"
    result = run_cli("export", "--format", "owl", "-o", str(out), store=store)
    assert result.exit_code == 0
    graph = rdflib.Graph().parse(out, format="xml")
    exported = {t for t in graph if not isinstance(t[0], rdflib.BNode) and not isinstance(t[2], rdflib.BNode)}
    declared = {t for t in exported if t[2] == rdflib.OWL.NamedIndividual}
    expected = {
        _for_hermit(t)
        for t in _store_triples(store)
        if not isinstance(t[0], rdflib.BNode) and not isinstance(t[2], rdflib.BNode)
    }
    assert exported - declared == expected
    assert {s for s, _, _ in declared} == {
        s
        for s, p, o in expected
        if p == rdflib.RDF.type and str(o).startswith(str(CP)) and not str(s).startswith(str(CP))
    }
    import owlready2

    world = owlready2.World()
    onto = world.get_ontology(out.as_uri()).load()
    mates = list(world.search(type=onto.MateInThree))
    assert len(mates) >= 35
    assert {m.iri for m in mates} <= {str(s) for s, _, o in graph.triples((None, rdflib.RDF.type, None))}


@pytest.mark.parametrize(
    "fmt, rdflib_format", [("ttl", "turtle"), ("nt", "nt"), ("nq", "nquads"), ("jsonld", "json-ld")]
)
def test_other_exports_parse(tmp_path: Path, fmt: str, rdflib_format: str) -> None:
    store = tmp_path / "s"
    assert run_cli("import", str(DATA / "seed" / "seed-000-sample.pgn"), store=store).exit_code == 0
    out = tmp_path / f"kb.{fmt}"
    assert run_cli("export", "--format", fmt, "-o", str(out), "--source", "seed-000-sample", store=store).exit_code == 0
    fen = rdflib.URIRef("http://www.semanticweb.org/ontologies/2011/3/ChessPosition.owl#fen")
    if fmt == "nq":
        dataset = rdflib.Dataset()
        dataset.parse(out, format=rdflib_format)
        quads = list(dataset.quads((None, fen, None, None)))
        positions = {q[0] for q in quads}
        assert {str(q[3]) for q in quads} == {"https://w3id.org/chesskb/id/graph/seed-000-sample"}
    else:
        graph = rdflib.Graph().parse(out, format=rdflib_format)
        positions = {s for s, _, o in graph.triples((None, fen, None))}
    assert len(positions) == 3


def test_stats_and_sources_json(data_store: Path) -> None:
    stats = json.loads(run_cli("stats", "--format", "json", store=data_store).stdout)
    assert stats["positions"] > 400 and stats["classes"]["MateInTwo"] >= 96
    assert "engine" in stats
    sources = json.loads(run_cli("sources", "--format", "json", store=data_store).stdout)
    by_name = {s["name"]: s for s in sources}
    assert by_name["mate_in_2"]["positions"] == 96
    assert by_name["puzzles"]["positions"] == 300 and by_name["puzzles"]["games"] == 300
    assert by_name["puzzles"]["checksum"].startswith("sha256:")


def test_unknown_source_export_is_an_error(tmp_path: Path) -> None:
    store = tmp_path / "s"
    assert run_cli("import", str(DATA / "seed" / "seed-000-sample.pgn"), store=store).exit_code == 0
    import subprocess
    import sys

    from .conftest import ROOT

    result = subprocess.run(
        [sys.executable, "-m", "chesskb", "--store", str(store), "export", "--format", "ttl", "--source", "nope"],
        cwd=ROOT,
        capture_output=True,
        text=True,
    )
    assert result.returncode == 1
    assert result.stderr.strip() == f"error: no source named 'nope' in {store}"


def test_bench_queries_times_every_query_with_defaults(data_store) -> None:
    from chesskb.queries import list_queries

    result = run_cli("bench-queries", "--repeat", "2", "--format", "json", store=data_store)
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)
    with_defaults = {q.name for q in list_queries() if all(p.default is not None for p in q.params)}
    assert {r["name"] for r in rows} == with_defaults
    assert all(set(r) == {"name", "median_ms", "p95_ms", "rows"} and 0 <= r["median_ms"] <= r["p95_ms"] for r in rows)
    mate = next(r for r in rows if r["name"] == "mate-in-one")
    count = run_cli(
        "query",
        "SELECT (COUNT(DISTINCT ?p) AS ?n) WHERE { ?p a cp:MateInOne ; cp:fen ?f }",
        "--format",
        "json",
        store=data_store,
    )
    total = int(json.loads(count.output)["results"]["bindings"][0]["n"]["value"])
    assert total > 0 and mate["rows"] == min(100, total)  # the first page
