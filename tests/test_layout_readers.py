"""Every reader of what one source says gives the same answer in both store layouts.

The earlier layout holds every statement in its source's graph and in the default graph; the compact
one (``kb/store/layout.py``) keeps in a source's graphs only its type statements and what not every
source asserting a subject says, the rest in the default graph only. The same knowledge base is
built twice: imported as the importer writes it (the earlier layout; its answers are the ones the
other test files check against python-chess), and a copy of that store compacted in place by
``kb.store.compaction`` (every subject re-encoded by the layout's rules). Each reader that reads a
source's statements inside ``GRAPH`` (or ``store.quads`` of a source's graph) must answer the same
on both; the naive reading is shown to differ on the compact copy, so the comparisons can fail.

Sources: the Polgar puzzles, the club bulletin and nine games of the mate-in-2 collection (shared
games, positions, players and events, with conflicting spellings and dates: tests/fixtures/merge/README.md)
and 30 lichess puzzles (a source sharing nothing: its subjects keep only their type statements). Each
reader is compared on every kind of subject and graph, which a few of each show as well as the whole
collections do.
"""

from __future__ import annotations

import gc
import io
import os
import shutil
from collections import defaultdict
from pathlib import Path

import pytest
from pyoxigraph import BlankNode, DefaultGraph, Quad
from pyoxigraph import Store as OxStore

from chesskb.kb.courses.course_file import COURSE_MAX_EXERCISES
from chesskb.kb.mapping.iris import IriMinter
from chesskb.kb.store import EmbeddedStore, layout
from chesskb.kb.store.compaction import compact_generation
from chesskb.kb.store.embedded import CURRENT
from chesskb.queries.executor import run
from chesskb.queries.source_statements import graph_statements, source_statements
from tests.conftest import DATA, ROOT, run_cli
from tests.earlier_layout import earlier_layout
from tests.pgn_slices import write_games
from tests.shared_proofs import shared_proofs  # noqa: F401 (autouse: the run's verification cache)

MERGE = ROOT / "tests" / "fixtures" / "merge"
#: Of the mate-in-2 collection: two games against Anderssen (a name variant), games starting with the
#: white king on g1 (the searches), and Tal v Benko (game 49), which the club bulletin shares.
MATE_IN_2_GAMES = [*range(8), 49]
PUZZLES = ROOT / "tests" / "fixtures" / "puzzles-30.csv"
SOURCES = ["polgar-puzzles", "club-bulletin", "mate_in_2", "puzzles"]
COURSE = DATA / "courses" / "first-steps.yaml"
SHARED = ["polgar-puzzles", "club-bulletin"]  # the sources whose subjects others assert too
MINTER = IriMinter()


def _live(store_dir: Path) -> Path:
    return store_dir / os.readlink(store_dir / CURRENT)


def _compacted_copy(store_dir: Path, target: Path):
    shutil.copytree(store_dir, target, symlinks=True)
    return compact_generation(_live(target))


@pytest.fixture(scope="module")
def stores(tmp_path_factory) -> tuple[EmbeddedStore, EmbeddedStore]:
    """(the store as imported, the same store compacted)."""
    base = tmp_path_factory.mktemp("layouts")
    files = [
        MERGE / "polgar-puzzles.pgn",
        MERGE / "club-bulletin.pgn",
        write_games(DATA / "pychess" / "mate_in_2.pgn", MATE_IN_2_GAMES, base / "mate_in_2.pgn"),
        Path(shutil.copy(PUZZLES, base / "puzzles.csv")),  # the source keeps the name of the shipped one
    ]
    with earlier_layout():  # a store as written before the compact layout
        result = run_cli("import", *map(str, files), store=base / "old")
        assert result.exit_code == 0, result.output
        result = run_cli("course", "import", str(COURSE), store=base / "old")  # a course's graph is compacted too
        assert result.exit_code == 0, result.output
    done = _compacted_copy(base / "old", base / "compact")
    assert done.dropped > 0 and done.subjects > 0  # compacting only drops the copies of common statements
    return EmbeddedStore(base / "old"), EmbeddedStore(base / "compact")


def _quads(store: EmbeddedStore) -> list[Quad]:
    reader = OxStore.read_only(str(_live(store.path)))
    return list(reader.quads_for_pattern(None, None, None, None))


def _rows(result) -> list[tuple[str, ...]]:
    return sorted(tuple(str(term) for term in row) for row in result)


# --- the compacted store -----------------------------------------------------------------------------


def test_the_compacted_copy_is_compact_and_merges_the_same(stores) -> None:
    old, compact = (_quads(store) for store in stores)
    merged = [{q for q in quads if isinstance(q.graph_name, DefaultGraph)} for quads in (old, compact)]
    assert merged[0] == merged[1]  # the merge (every query over the default graph) is untouched
    in_sources, in_sources_before = (
        [
            q
            for q in quads
            if not isinstance(q.graph_name, DefaultGraph) and layout.is_source(layout.owner_of(q.graph_name))
        ]
        for quads in (compact, old)
    )
    # the sources' graphs lose most of what they held (the ontology's graph, the same size whatever was
    # imported, and the bookkeeping graphs stay whole: checked below)
    assert len(in_sources) < 0.3 * len(in_sources_before) and len(compact) < len(old)
    # beyond its markers, a source's graphs keep only what it says of a subject another source asserts too
    # (or a subject the bookkeeping graphs describe: the source itself)
    asserting: dict[object, set] = defaultdict(set)
    for q in in_sources:
        if layout.is_marker(q):
            asserting[q.subject].add(layout.owner_of(q.graph_name))
    bookkeeping = {
        q.subject
        for q in compact
        if not isinstance(q.graph_name, DefaultGraph) and not layout.is_source(layout.owner_of(q.graph_name))
    }
    said_alone = [
        q
        for q in in_sources
        if not layout.is_marker(q) and len(asserting[q.subject]) < 2 and q.subject not in bookkeeping
    ]
    assert said_alone == [] and len(in_sources) > sum(map(layout.is_marker, in_sources))  # shared ones keep more
    named_old = {q for q in old if not isinstance(q.graph_name, DefaultGraph)}
    assert {q for q in in_sources} < named_old  # only statements dropped, none invented
    for name in SOURCES:  # every source keeps its markers
        assert any(layout.is_marker(q) and q.graph_name == MINTER.source_graph(name) for q in in_sources)
    for owner in (MINTER.meta_graph, MINTER.links_graph, MINTER.counts_graph):  # bookkeeping stays whole
        assert {q for q in compact if q.graph_name == owner} == {q for q in old if q.graph_name == owner}


def test_compacting_twice_changes_nothing(stores, tmp_path: Path) -> None:
    done = _compacted_copy(stores[1].path, tmp_path / "again")
    assert done.dropped == 0 and done.subjects > 0
    assert set(_quads(EmbeddedStore(tmp_path / "again"))) == set(_quads(stores[1]))


def test_a_subject_outside_the_merge_is_copied_as_it_is() -> None:
    """No store writes one, but re-encoding it would add it to the merge: it is left alone."""
    from pyoxigraph import Literal, NamedNode

    from chesskb.kb.store.compaction import compacted_quads

    store = OxStore()
    graph, subject = MINTER.source_graph("x"), NamedNode("http://example.org/s")
    lone = Quad(subject, NamedNode("http://example.org/p"), Literal("v"), graph)
    store.add(lone)
    assert list(compacted_quads(store)) == [lone]


# --- one source's statements: checks and RDF exports -----------------------------------------------


@pytest.mark.parametrize("name", SOURCES)
@pytest.mark.parametrize("inferred", [True, False])
def test_source_statements_are_what_the_imported_graphs_hold(stores, name: str, inferred: bool) -> None:
    old, compact = stores
    graph = MINTER.source_graph(name)
    graphs = [graph, MINTER.inferred_graph(name)] if inferred else [graph]
    expected = set(old.quads(graphs))  # the importer's graphs, every statement in them
    for store in stores:
        read = list(source_statements(store, graph, inferred=inferred))
        assert len(read) == len(set(read)) and set(read) == expected
    assert set(compact.quads(graphs)) < expected  # reading the graph alone would lose statements


def test_a_course_reads_the_same(stores) -> None:
    from chesskb.kb.courses.course_file import course_graph, courses_in, export_course

    graph = course_graph("first-steps")
    assert set(source_statements(stores[1], graph)) == set(stores[0].quads([graph]))
    assert set(stores[1].quads([graph])) < set(stores[0].quads([graph]))
    old, compact = ((courses_in(store), export_course(store, courses_in(store)[0]["iri"])) for store in stores)
    assert old == compact and old[0]


def _without_blank_nodes(quads) -> set[Quad]:
    """The ontology's anonymous classes get new blank nodes at each reading: left out of comparisons."""
    return {q for q in quads if not isinstance(q.subject, BlankNode) and not isinstance(q.object, BlankNode)}


@pytest.mark.parametrize("fmt", ["nq", "ttl", "owl"])
@pytest.mark.parametrize("source", [None, "club-bulletin", "puzzles"])
def test_rdf_exports_are_the_same(stores, fmt: str, source: str | None) -> None:
    from chesskb.kb.export.rdf import export_quads

    old, compact = (_without_blank_nodes(export_quads(store, fmt, source=source)) for store in stores)
    assert old == compact
    assert any(q.predicate.value.endswith("#fen") for q in old)
    if source is not None:
        assert {q.graph_name for q in old if not q.graph_name.value.endswith("ChessPosition.owl")} <= {
            MINTER.source_graph(source),
            MINTER.inferred_graph(source),
            MINTER.meta_graph,
            MINTER.counts_graph,
        }


def test_graph_statements_reads_bookkeeping_graphs_as_stored(stores) -> None:
    old, compact = stores
    graphs = [MINTER.links_graph, MINTER.source_graph("mate_in_2")]
    assert set(graph_statements(old, graphs)) == set(graph_statements(compact, graphs)) == set(old.quads(graphs))


def test_nt_export_file_is_the_same(stores, tmp_path: Path) -> None:
    texts = []
    for store in stores:
        out = tmp_path / f"{Path(store.location).name}.nt"
        result = run_cli("export", "--format", "nt", "--source", "club-bulletin", "-o", str(out), store=store.path)
        assert result.exit_code == 0, result.output
        texts.append({line for line in out.read_text(encoding="utf-8").splitlines() if "_:" not in line})
    assert texts[0] == texts[1] and len(texts[0]) > 100


@pytest.mark.parametrize("name", SHARED)
def test_check_of_one_source_is_the_same(stores, name: str) -> None:
    from chesskb.kb.checks.runner import check_store

    reports = []
    for store in stores:
        report = check_store(store, source=name, use_cache=False).to_dict()
        report.pop("seconds")
        reports.append(report)
    assert reports[0] == reports[1] and reports[0]["checked"] == [name]


# --- PGN export, search, courses, counts -----------------------------------------------------------


@pytest.mark.parametrize("source", [*SOURCES, None])
def test_pgn_export_is_the_same(stores, source: str | None) -> None:
    from chesskb.kb.export.pgn import write_pgn

    texts = []
    for store in stores:
        out = io.StringIO()
        assert write_pgn(store, out, source=source) > 0
        texts.append(out.getvalue())
    assert texts[0] == texts[1]


@pytest.mark.parametrize("pattern", ["Kg1", "Qd1", "w", "KR-K", "*/*/*/*/*/*/PPP?????/*"])
@pytest.mark.parametrize("source", SOURCES)
def test_find_in_one_source_is_the_same(stores, pattern: str, source: str) -> None:
    from chesskb.kb.search.patterns import parse
    from chesskb.queries.find import find_query

    sparql = find_query(parse(pattern), source_graph=MINTER.source_graph(source).value, limit=0)
    old, compact = (_rows(store.query(sparql)) for store in stores)
    assert old == compact


def test_find_in_one_source_finds_positions(stores) -> None:
    from chesskb.kb.search.patterns import parse
    from chesskb.queries.find import find_query

    for source in SOURCES:
        sparql = find_query(parse("Kg1"), source_graph=MINTER.source_graph(source).value, limit=0)
        assert _rows(stores[1].query(sparql)), source


@pytest.mark.parametrize(
    "select",
    [{"source": name, "limit": COURSE_MAX_EXERCISES} for name in SOURCES]
    + [{"theme": "MateInTwo", "limit": COURSE_MAX_EXERCISES}, {"theme": "MateInTwo", "source": "club-bulletin"}],
)
def test_course_selection_is_the_same(stores, select: dict) -> None:
    from chesskb.kb.courses.course_file import LEVELS, resolve_course

    data = {"id": "layouts", "title": "Layouts", "chapters": [{"title": "One", "level": LEVELS[0], "select": select}]}
    old, compact = (resolve_course(data, store).chapters[0].exercises for store in stores)
    assert old == compact and old


@pytest.mark.parametrize("name", SOURCES)
def test_source_counts_and_last_record_are_the_same(stores, name: str) -> None:
    from chesskb.kb.importer import last_record_number, source_counts

    graphs = {"graph": MINTER.source_graph(name), "inferred": MINTER.inferred_graph(name)}
    old, compact = (
        (
            _rows(run(store, "source-counts", graphs)),
            source_counts(store, MINTER, name),
            last_record_number(store, MINTER, name),
        )
        for store in stores
    )
    assert old == compact and old[2] > 0


def test_start_positions_by_key_are_the_same(stores) -> None:
    keys = [
        row["key"] for row in stores[0].query("SELECT DISTINCT ?key WHERE { ?p cp:plyInGame 0 ; cp:positionKey ?key }")
    ]
    assert keys
    for name in SOURCES:
        params = {"graph": MINTER.source_graph(name), "inferred": MINTER.inferred_graph(name)}
        found = [
            [_rows(run(store, "start-position-by-key", {**params, "key": key})) for key in keys] for store in stores
        ]
        assert found[0] == found[1]
        assert any(found[0]) == (name != "puzzles")  # a lichess puzzle is no game's start


def test_appending_a_game_answers_the_same(stores, tmp_path: Path) -> None:
    """The authoring page's save (``append_pgn``): the next record number and the saved position."""
    import chess.pgn

    from chesskb.kb.analysis.board_facts import position_key
    from chesskb.kb.importer import append_pgn, last_record_number

    game = chess.pgn.read_game(io.StringIO((MERGE / "club-bulletin.pgn").read_text(encoding="utf-8")))
    assert game is not None
    answers = []
    for store in stores:
        copy = EmbeddedStore(shutil.copytree(store.path, tmp_path / Path(store.location).name, symlinks=True))
        before = last_record_number(copy, MINTER, "club-bulletin")
        saved = append_pgn(copy, str(game), position_key(game.board()), source="club-bulletin")
        answers.append((before, last_record_number(copy, MINTER, "club-bulletin"), saved.games, saved.position))
    assert answers[0] == answers[1]
    assert answers[0][1] == answers[0][0] + 1 and answers[0][3] is not None


# --- merge report and name variants ------------------------------------------------------------------


def test_merge_report_is_the_same(stores) -> None:
    from chesskb.kb.merge.report import merge_report

    old, compact = (merge_report(store) for store in stores)
    assert old == compact
    assert old["games"] and old["players"]


def test_disagreements_are_the_same(stores) -> None:
    from chesskb.kb.merge.conflicts import disagreements

    subjects = [
        row["s"].value
        for row in stores[0].query(
            "SELECT DISTINCT ?s WHERE { GRAPH ?g { ?s a ?t } FILTER(STRENDS(STR(?g), 'club-bulletin')) }"
        )
    ]
    old, compact = (disagreements(store, subjects) for store in stores)
    assert [(d.subject, d.prop, d.values) for d in old] == [(d.subject, d.prop, d.values) for d in compact]
    assert old


@pytest.mark.parametrize("player", ["Polgar", "Judit", "Susan", "Anderssen", "Club"])
def test_name_variants_are_the_same(stores, player: str) -> None:
    old, compact = (
        _rows(run(store, "players-by-name-variant", {"player": player, "limit": "0"}, public=True)) for store in stores
    )
    assert old == compact and old
    assert all(row[2] != "None" for row in old)  # every spelling comes with the source using it


def test_every_canned_query_is_the_same(stores) -> None:
    """The public questions with their default parameters (most read the merge only; none may differ)."""
    from chesskb.queries import list_queries

    for query in list_queries():
        params = {"limit": "0"}
        old, compact = (_rows(run(store, query.name, params, public=True)) for store in stores)
        assert old == compact, query.name


# --- the same readers on a SPARQL server holding the compact layout ---------------------------------


def test_readers_on_a_server_holding_the_compact_layout(stores, tmp_path: Path) -> None:
    """``oxigraph serve`` over the compacted statements (as ``chesskb convert`` + ``oxigraph load``
    would leave them): the readers answer through HTTP what they answer on the imported store."""
    from chesskb.kb.export.pgn import write_pgn
    from chesskb.kb.merge.report import merge_report
    from chesskb.kb.store import open_store
    from chesskb.kb.store.compaction import compacted_quads
    from tests.live_server import oxigraph_server

    served = OxStore(str(tmp_path / "oxigraph"))
    served.bulk_extend(compacted_quads(OxStore.read_only(str(_live(stores[0].path)))))
    served.flush()
    del served
    gc.collect()  # closes its files before the server opens the directory
    old = stores[0]
    with oxigraph_server(tmp_path / "oxigraph", read_only=True) as base:
        remote = open_store(base + "/query")
        for name in SHARED:
            graph = MINTER.source_graph(name)
            assert set(source_statements(remote, graph)) == set(old.quads([graph, MINTER.inferred_graph(name)]))
            assert set(remote.quads([graph])) < set(old.quads([graph]))  # the server holds the compact layout
        texts = []
        for store in (old, remote):
            out = io.StringIO()
            write_pgn(store, out, source="club-bulletin")
            texts.append(out.getvalue())
        assert texts[0] == texts[1] and texts[0]
        assert merge_report(remote) == merge_report(old)
        params = {"player": "Polgar", "limit": "0"}
        assert _rows(run(remote, "players-by-name-variant", params, public=True)) == _rows(
            run(old, "players-by-name-variant", params, public=True)
        )
