"""``chesskb check``: HermiT over real stores, inconsistencies made on purpose, SHACL rules, the cache,
and the Protégé export reasoning cleanly.

The reasoner is the real HermiT through the system Java (each run starts a JVM, about a second), so
the stores made inconsistent here are small: one real file from ``data/`` plus the bad statements.
"""

from __future__ import annotations

import json
import shutil
from collections import Counter
from pathlib import Path

import pytest
import rdflib
from pyoxigraph import Literal, NamedNode, Quad

from chesskb.kb.mapping.iris import IriMinter
from chesskb.kb.store import open_store
from chesskb.kb.vocab import CP
from tests.conftest import DATA, run_cli

CP_NS = rdflib.Namespace(CP.Position.value.rsplit("#", 1)[0] + "#")
XSD = "http://www.w3.org/2001/XMLSchema#"
RDF_TYPE = NamedNode("http://www.w3.org/1999/02/22-rdf-syntax-ns#type")
CHECKMATE = DATA / "pgn-extract" / "test-checkmate.pgn"

pytestmark = pytest.mark.skipif(shutil.which("java") is None, reason="HermiT needs Java")


def check(store: Path, *args: str) -> tuple[int, dict]:
    result = run_cli("check", "--format", "json", *args, store=store)
    return result.exit_code, json.loads(result.stdout)


def small_store(tmp_path: Path, name: str = "s") -> Path:
    """A store holding one real file (3 games from pgn-extract's tests)."""
    store = tmp_path / name
    assert run_cli("import", str(CHECKMATE), store=store).exit_code == 0
    return store


def individuals(store: Path, cls: str) -> list[str]:
    rows = open_store(str(store)).query(f"SELECT DISTINCT ?x WHERE {{ ?x a cp:{cls} }} ORDER BY ?x")
    return [row["x"].value for row in rows]


def add_to_source(store: Path, source: str, *triples: tuple) -> None:
    """Statements added to a source's asserted graph, as a merge of sloppy files would leave them."""
    graph = IriMinter().source_graph(source)
    open_store(str(store)).replace_graphs([], [Quad(s, p, o, graph) for s, p, o in triples])


def culprits(report: dict) -> set[str]:
    return {ind["iri"] for item in report["inconsistencies"] for ind in item["individuals"]}


# --- the real collections ------------------------------------------------------------------------


def test_data_kb_checks_clean_and_records_what_its_sources_disagree_on(data_store: Path, tmp_path: Path) -> None:
    store = tmp_path / "copy"
    shutil.copytree(data_store, store, symlinks=True)
    code, report = check(store)
    # Issue 17: odds.pgn gives one event ("Casual game, knight odds", 1788) the EventDates 1788.??.??,
    # 1788.03.30 and 1788.03.31 (verified by reading the file). This test used to expect HermiT to call
    # that inconsistent; an event gathers its games' values, so it is a recorded disagreement instead.
    assert report["inconsistencies"] == [] and code == 0 and report["consistent"] is True
    assert report["unsatisfiable_classes"] == []
    assert report["shacl_violations"] == []
    sources = json.loads(run_cli("sources", "--format", "json", store=store).stdout)
    assert sorted(report["checked"]) == sorted([s["name"] for s in sources] + ["(all sources)"])  # consistent:
    kb = open_store(str(store))  # so every source is also reasoned over together
    dates = {
        row["d"].value
        for row in kb.query("SELECT ?d WHERE { ?e cp:eventName 'Casual game, knight odds' ; cp:eventDate ?d }")
    }
    assert {"1788", "1788.03.30"} <= dates
    disagree = {
        row["p"].value.rsplit("#", 1)[-1]
        for row in kb.query("SELECT ?p WHERE { ?e cp:eventName 'Casual game, knight odds' ; cp:sourcesDisagreeOn ?p }")
    }
    assert ("eventDate" in disagree) == (len({d for d in dates if len(d) == 10}) > 1)  # 03.30 vs 03.31
    assert any("xsd:date" in note and "xsd:string" in note for note in report["notes"])  # says what it retyped

    again_code, again = check(store)
    assert again_code == 0 and again["inconsistencies"] == []
    assert set(again["cached"]) >= {s["name"] for s in sources}


def test_a_consistent_store_exits_0_and_checks_all_sources_together(tmp_path: Path) -> None:
    store = tmp_path / "s"
    assert (
        run_cli(
            "import", str(DATA / "pychess" / "mate_in_3.pgn"), str(DATA / "seed" / "seed-000-sample.pgn"), store=store
        ).exit_code
        == 0
    )
    code, report = check(store)
    assert code == 0, report
    assert report["consistent"] is True and report["inconsistencies"] == []
    assert sorted(report["checked"]) == ["(all sources)", "mate_in_3", "seed-000-sample"]
    text = run_cli("check", store=store)
    assert text.exit_code == 0 and text.stdout.startswith("consistent (hermit)")
    assert "from cache (unchanged since last check): " in text.stdout
    code, split = check(store, "--whole-limit", "10", "--no-cache", "--no-shacl")
    assert code == 0 and sorted(split["checked"]) == ["mate_in_3", "seed-000-sample"]
    assert any("--whole-limit" in note for note in split["notes"])


# --- inconsistent on purpose ---------------------------------------------------------------------


def test_ontology_declares_player_and_position_disjoint() -> None:
    from chesskb import ontology

    graph = rdflib.Graph().parse(data=ontology.turtle_text(), format="turtle")
    from rdflib.collection import Collection

    groups = [
        set(Collection(graph, graph.value(node, rdflib.OWL.members)))
        for node in graph.subjects(rdflib.RDF.type, rdflib.OWL.AllDisjointClasses)
    ]
    assert any({CP_NS.Player, CP_NS.Position} <= group for group in groups)


def test_an_individual_that_is_both_player_and_position_is_named(tmp_path: Path) -> None:
    store = small_store(tmp_path)
    player = individuals(store, "Player")[0]
    add_to_source(store, "test-checkmate", (NamedNode(player), RDF_TYPE, CP.Position))
    code, report = check(store)
    assert code == 1 and report["consistent"] is False
    assert culprits(report) == {player}
    item = report["inconsistencies"][0]
    assert item["source"] == "test-checkmate"
    assert any("DisjointClasses(" in a and "cp:Player" in a and "cp:Position" in a for a in item["axioms"])
    assert any(s.endswith("rdf:type cp:Position") for s in item["statements"])
    text = run_cli("check", store=store)
    assert text.exit_code == 1 and f"<{player}>" in text.stdout and "INCONSISTENT" in text.stdout


def test_a_game_with_two_results_from_two_sources_is_a_recorded_conflict(tmp_path: Path) -> None:
    """The same game (same moves, same roster) in two files with different results. Issue 17: this
    test used to expect HermiT to call the knowledge base inconsistent; two sources disagreeing is
    a conflict recorded for merge-report and cp:sourcesDisagreeOn, and the check passes."""
    store = small_store(tmp_path)
    first_game = CHECKMATE.read_text(encoding="utf-8").split("\n\n[")[0]
    assert '[Result "1-0"]' in first_game or '[Result "0-1"]' in first_game
    swapped = (
        first_game.replace('[Result "1-0"]', '[Result "X"]')
        .replace('[Result "0-1"]', '[Result "1-0"]')
        .replace('[Result "X"]', '[Result "0-1"]')
    )
    copy = tmp_path / "copy.pgn"
    copy.write_text(swapped + "\n", encoding="utf-8")
    assert run_cli("import", str(copy), store=store).exit_code == 0
    code, report = check(store)
    assert code == 0 and report["inconsistencies"] == []
    assert "copy" in report["checked"] and "test-checkmate" in report["checked"]
    kb = open_store(str(store))
    two_results = {row["m"].value for row in kb.query("SELECT ?m WHERE { ?m cp:result ?a, ?b FILTER(?a != ?b) }")}
    assert len(two_results) == 1
    annotated = {row["m"].value for row in kb.query("SELECT ?m WHERE { ?m cp:sourcesDisagreeOn cp:result }")}
    assert annotated == two_results
    merged = json.loads(run_cli("merge-report", "--format", "json", store=store).stdout)["games"]
    assert [set(g["conflicts"]["result"]) for g in merged if g["iri"] in two_results] == [{"1-0", "0-1"}]


def test_a_string_where_an_integer_is_required_is_named(tmp_path: Path) -> None:
    store = small_store(tmp_path)
    player = individuals(store, "Player")[-1]
    add_to_source(store, "test-checkmate", (NamedNode(player), CP.elo, Literal("2700 (estimated)")))
    code, report = check(store)
    assert code == 1 and culprits(report) == {player}
    assert any(a == "Range(cp:elo xsd:integer)" for a in report["inconsistencies"][0]["axioms"])
    # SHACL says the same in its own words.
    assert any(v["iri"] == player and v["path"] == "cp:elo" for v in report["shacl_violations"])
    # A source too big to classify is checked for consistency only, and still named.
    code, quick = check(store, "--classify-limit", "0", "--no-cache", "--no-shacl")
    assert code == 1 and culprits(quick) == {player}
    assert any("consistency only" in note for note in quick["notes"])


def test_source_option_checks_one_source(tmp_path: Path) -> None:
    store = small_store(tmp_path)
    assert run_cli("import", str(DATA / "seed" / "seed-000-sample.pgn"), store=store).exit_code == 0
    code, report = check(store, "--source", "seed-000-sample")
    assert code == 0 and report["checked"] == ["seed-000-sample"]
    missing = run_cli("check", "--source", "nope", store=store)
    assert missing.exit_code == 2 and "no source named 'nope'" in missing.stderr


# --- SHACL --------------------------------------------------------------------------------------


def test_shacl_violations_are_listed_with_label_and_iri(tmp_path: Path) -> None:
    store = small_store(tmp_path)
    base = IriMinter().base
    position = NamedNode(base + "position/handmade-1")
    match = NamedNode(base + "match/handmade-1")
    player = NamedNode(base + "player/handmade-1")
    label = NamedNode("http://www.w3.org/2000/01/rdf-schema#label")
    date = Literal("1994-02-30", datatype=NamedNode(XSD + "date"))
    add_to_source(
        store,
        "test-checkmate",
        (position, RDF_TYPE, CP.MateInTwo),
        (position, label, Literal("Broken position")),
        (position, CP.fen, Literal("8/8/8/8/8/8/8/8 w - - 0 1")),  # well formed, no kings
        (match, RDF_TYPE, CP.Match),
        (match, label, Literal("Broken game")),
        (match, CP.result, Literal("2-0")),
        (match, CP.date, Literal("1994.02.30")),
        (match, CP.gameDate, date),
        (player, RDF_TYPE, CP.Player),
        (player, label, Literal("Nobody")),
        (player, CP.name, Literal("  ")),
        (player, CP.elo, Literal(5000)),
    )
    code, report = check(store, "--no-cache")
    assert code == 1
    found = {(v["iri"], v["path"]) for v in report["shacl_violations"]}
    assert {
        (position.value, "cp:fen"),
        (position.value, "cp:hasMatch"),
        (match.value, "cp:result"),
        (match.value, "cp:date"),
        (match.value, "cp:gameDate"),
        (player.value, "cp:name"),
        (player.value, "cp:elo"),
    } <= found
    assert all(v["label"] for v in report["shacl_violations"] if v["iri"].startswith(base + "position/handmade"))
    fen = next(v for v in report["shacl_violations"] if v["path"] == "cp:fen")
    assert "king" in fen["message"]
    text = run_cli("check", store=store).stdout
    assert f'<{position.value}> "Broken position" cp:fen' in text
    assert "SHACL violation" in text


def test_fen_and_date_rules_beside_shacl() -> None:
    from chesskb.kb.checks.shacl import date_problem, fen_problem

    assert fen_problem("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR w KQkq - 0 1") is None
    assert fen_problem("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBN w KQkq - 0 1")  # 7 files on rank 1
    assert "pawns on backrank" in (fen_problem("P3k3/8/8/8/8/8/8/4K3 w - - 0 1") or "")
    assert date_problem("1994.02.30") and date_problem("1994.13.01")
    assert date_problem("2000.02.29") is None and date_problem("1994") is None


# --- cache ---------------------------------------------------------------------------------------


def test_an_unchanged_source_comes_from_the_cache_a_changed_one_is_checked(tmp_path: Path) -> None:
    store = small_store(tmp_path)
    assert run_cli("import", str(DATA / "seed" / "seed-000-sample.pgn"), store=store).exit_code == 0
    _, first = check(store)
    assert sorted(first["checked"]) == ["(all sources)", "seed-000-sample", "test-checkmate"]
    assert (store / "check-cache.json").is_file()
    player = individuals(store, "Player")[0]
    add_to_source(store, "test-checkmate", (NamedNode(player), CP.elo, Literal(2500)))
    code, second = check(store)
    assert code == 0
    assert second["checked"] == ["test-checkmate", "(all sources)"] and second["cached"] == ["seed-000-sample"]
    _, forced = check(store, "--no-cache")
    assert forced["cached"] == [] and "seed-000-sample" in forced["checked"]


def test_java_missing_exits_2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import owlready2

    store = small_store(tmp_path)
    monkeypatch.setattr(owlready2, "JAVA_EXE", str(tmp_path / "no-java-here"))
    result = run_cli("check", store=store)
    assert result.exit_code == 2 and "Java" in result.stderr


def _java_major() -> int:
    import re
    import subprocess

    from chesskb.kb.checks.owl import java_executable

    out = subprocess.run([java_executable("check"), "-version"], capture_output=True, text=True).stderr
    match = re.search(r'version "(\d+)', out)
    return int(match.group(1)) if match else 0


def test_pellet_checks_or_says_which_java_it_needs(tmp_path: Path) -> None:
    """owlready2 >= 0.50 ships a Pellet built for Java 25: on an older Java the check cannot decide
    anything, which is exit 2 with the way out, never exit 1 (that means inconsistent)."""
    store = small_store(tmp_path)
    result = run_cli("check", "--reasoner", "pellet", "--no-shacl", store=store)
    if _java_major() >= 25:
        assert result.exit_code == 0, result.stderr
    else:
        assert result.exit_code == 2 and "Java 25" in result.stderr and "--reasoner hermit" in result.stderr


# --- the Protégé export -------------------------------------------------------------------------


def test_owl_export_reloads_with_the_same_individuals_per_class_and_reasons(data_store: Path, tmp_path: Path) -> None:
    import owlready2

    from chesskb.kb.checks.owl import run_reasoner

    out = tmp_path / "kb.owl"
    assert run_cli("export", "--format", "owl", "-o", str(out), store=data_store).exit_code == 0
    graph = rdflib.Graph().parse(out, format="xml")
    assert (
        rdflib.URIRef("http://www.semanticweb.org/ontologies/2011/3/ChessPosition.owl"),
        rdflib.OWL.versionIRI,
        None,
    ) in graph
    in_rdflib = Counter(
        str(o)
        for s, o in graph.subject_objects(rdflib.RDF.type)
        if str(o).startswith(str(CP_NS)) and (s, rdflib.RDF.type, rdflib.OWL.NamedIndividual) in graph
    )
    kb = open_store(str(data_store))
    in_store = Counter()
    for row in kb.query("""SELECT ?c (COUNT(DISTINCT ?x) AS ?n) WHERE { GRAPH ?g { ?x a ?c }
                          FILTER(STRSTARTS(STR(?c), STR(cp:)) && !STRENDS(STR(?g), "/inferred")) } GROUP BY ?c"""):
        in_store[row["c"].value] = int(row["n"].value)
    assert in_rdflib == in_store
    world = owlready2.World()
    world.get_ontology(out.as_uri()).load()
    in_owlready = Counter(
        parent.iri
        for ind in world.individuals()
        for parent in ind.is_a
        if getattr(parent, "iri", "").startswith(str(CP_NS))
    )
    assert in_owlready == in_store
    unlabelled = [ind.iri for ind in world.individuals() if not ind.label]
    assert unlabelled == []
    world.close()

    single = tmp_path / "mate_in_2.owl"
    assert (
        run_cli("export", "--format", "owl", "--source", "mate_in_2", "-o", str(single), store=data_store).exit_code
        == 0
    )
    from pyoxigraph import RdfFormat, parse

    verdict = run_reasoner([t for t in parse(path=str(single), format=RdfFormat.RDF_XML)])
    assert verdict.consistent and verdict.unsatisfiable_classes == []


def _owlready_statements(path: Path) -> tuple[int, set]:
    """What owlready2 reads from an ontology document: all its statements, and those without blank nodes."""
    import owlready2

    world = owlready2.World()
    world.get_ontology(path.as_uri()).load()
    graph = world.as_rdflib_graph()
    named = {t for t in graph if not isinstance(t[0], rdflib.BNode) and not isinstance(t[2], rdflib.BNode)}
    total = len(graph)
    world.close()
    return total, named


def test_owlxml_export_says_in_owl_xml_exactly_what_the_owl_export_says(data_store: Path, tmp_path: Path) -> None:
    rdfxml, owlxml = tmp_path / "kb.owl", tmp_path / "kb.owx"
    for fmt, out in (("owl", rdfxml), ("owlxml", owlxml)):
        assert (
            run_cli("export", "--format", fmt, "--source", "mate_in_2", "-o", str(out), store=data_store).exit_code == 0
        )
    head = owlxml.read_text(encoding="utf-8")[:2000]
    assert '<Ontology xmlns="http://www.w3.org/2002/07/owl#"' in head
    assert 'ontologyIRI="http://www.semanticweb.org/ontologies/2011/3/ChessPosition.owl"' in head
    assert 'versionIRI="' in head
    total_owl, named_owl = _owlready_statements(rdfxml)
    total_owx, named_owx = _owlready_statements(owlxml)
    assert total_owx == total_owl
    assert named_owx == named_owl  # the same axioms, individuals, labels and typed values
    assert any(p == rdflib.RDFS.label and getattr(o, "language", None) == "es" for _, p, o in named_owx)


def test_owlxml_export_without_java_exits_2_and_writes_nothing(
    data_store: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import owlready2

    monkeypatch.setattr(owlready2, "JAVA_EXE", str(tmp_path / "no-java-here"))
    out = tmp_path / "kb.owx"
    result = run_cli("export", "--format", "owlxml", "-o", str(out), store=data_store)
    assert result.exit_code == 2 and "Java" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_axioms_named_are_the_ones_the_statements_break() -> None:
    from chesskb.kb.checks.owl import axioms_involved

    base = IriMinter().base
    position, thing = NamedNode(base + "position/p"), NamedNode(base + "player/x")
    # A position's game that is a player: hasMatch's range (Match) is disjoint with Player.
    axioms = axioms_involved([(Quad(position, CP.hasMatch, thing)).triple, Quad(thing, RDF_TYPE, CP.Player).triple])
    assert "Range(cp:hasMatch cp:Match)" in axioms
    assert any(a.startswith("DisjointClasses(") for a in axioms)
    assert "FunctionalProperty(cp:hasMatch)" not in axioms  # one value only
    two = axioms_involved([Quad(position, CP.fen, Literal("a")).triple, Quad(position, CP.fen, Literal("b")).triple])
    assert two == ["FunctionalProperty(cp:fen)"]


def test_text_report_escapes_control_characters_in_data() -> None:
    from chesskb.kb.checks.runner import CheckReport
    from chesskb.kb.findings import shacl_finding
    from chesskb.service.commands.check import render_text

    report = CheckReport(
        reasoner="hermit",
        shacl_violations=[
            shacl_finding(
                "https://w3id.org/chesskb/id/player/x",
                "Evil\x1b[2J\x07 name",
                "cp:name",
                "a player's name is not empty",
            )
        ],
    )
    text = render_text(report)
    assert "\x1b" not in text and "\x07" not in text
    assert "Evil\\x1b[2J\\x07 name" in text and "1 SHACL violation(s):" in text
