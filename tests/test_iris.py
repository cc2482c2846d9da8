"""IriMinter mints every individual's IRI and alone reads one back: every IRI it makes parses back to
what made it, whatever the names (hostile ones included), and IRIs it did not make are no one's."""

from __future__ import annotations

import io
import json
from pathlib import Path
from urllib.parse import unquote

import chess
import chess.pgn
import pytest
from pyoxigraph import NamedNode

from chesskb.kb.importer import import_files
from chesskb.kb.mapping.identity import game_identity
from chesskb.kb.mapping.iris import IriMinter
from chesskb.kb.store import EmbeddedStore
from chesskb.kb.vocab import ALL_TERMS, CP, CP_IRI, RDF

from .conftest import run_cli

BASES = ["https://w3id.org/chesskb/id/", "http://example.org/kb#", "urn:x-kb:base/"]

HOSTILE = [
    "mate_in_2",
    "a/b",
    "..",
    "_links",
    "100%",
    "sp ace",
    "ünïcödé-名前",
    "<script>",
    "x?y#z",
    "game",
    "inferred",
    "course-first-steps",
    "unknown-0123456789abcdef",
    "a%2Fb",
    "graph/x",
]


def game_keys() -> list[str]:
    """Real game keys, made by the identity rule from real games (not written by hand)."""
    keys = []
    for moves, headers in (
        (["e2e4", "e7e5", "g1f3", "b8c6", "f1b5", "a7a6"], {"White": "Polgar, Judit"}),
        ([], {"Event": "Unknown", "White": "?", "Black": "?"}),
    ):
        board = chess.Board()
        keys.append(game_identity(board.epd(), True, moves, headers).key)
    return keys


@pytest.mark.parametrize("base", BASES)
@pytest.mark.parametrize("name", HOSTILE)
def test_source_iris_read_back_to_their_source(base: str, name: str) -> None:
    minter = IriMinter(base)
    graph, inferred, source = minter.source_graph(name), minter.inferred_graph(name), minter.source(name)
    if name.startswith("_"):  # the bookkeeping graphs' names: never a source (import refuses the name)
        assert minter.source_of(graph) is None and not minter.is_source_graph(graph)
        return
    assert minter.source_of(graph) == name and minter.is_source_graph(graph) and not minter.is_inferred_graph(graph)
    assert minter.source_of(inferred) == name and minter.is_inferred_graph(inferred)
    assert not minter.is_source_graph(inferred)
    assert minter.source_of(source) == name and not minter.is_source_graph(source)
    for number in (1, 7, 100_000):
        record = minter.source_record(name, number)
        assert minter.record_number(record) == (name, number)
        assert minter.source_of(record) == name
        assert minter.record_number(record.value) == (name, number)  # text or node alike
    assert minter.record_number(source) is None and minter.record_number(graph) is None
    record = minter.source_record(name, 3)
    for iri, kind in ((graph, "graph"), (inferred, "graph"), (source, "source"), (record, "source")):
        assert minter.kind_of(iri) == kind
        assert not minter.is_placeholder(iri)
        assert iri.value.startswith(minter.base) and "/" not in iri.value[len(minter.base) :].split("/")[1]


@pytest.mark.parametrize("base", BASES)
def test_bookkeeping_graphs_and_other_individuals_are_no_source(base: str) -> None:
    minter = IriMinter(base)
    key = game_keys()[0]
    for iri in (
        minter.links_graph,
        minter.counts_graph,
        minter.meta_graph,
        minter.match(key),
        minter.position(key, 3),
        minter.board(key),
        minter.player("Kasparov, Garry"),
        minter.event("Linares", 1994),
        minter.course("c"),
        minter.chapter("c", 1),
        minter.chapter_item("c", 1, 2),
        NamedNode(CP_IRI + "Position"),
        NamedNode("https://elsewhere.example/graph/x"),
        NamedNode(minter.base + "source/x/game/1a"),
        NamedNode(minter.base + "source/x/game/²"),
        NamedNode(minter.base + "graph/x/inferred/more"),
    ):
        assert minter.source_of(iri) is None, iri
        assert minter.record_number(iri) is None, iri
        assert not minter.is_source_graph(iri) and not minter.is_inferred_graph(iri)


@pytest.mark.parametrize("base", BASES)
def test_every_individual_says_its_kind(base: str) -> None:
    minter = IriMinter(base)
    key = game_keys()[0]
    made = {
        "match": [minter.match(key), minter.lichess_match("https://lichess.org/seIMDWkD/black#44")],
        "position": [minter.position(key, 0), minter.lichess_position("00sHx")],
        "player": [minter.player("Polgár, Judit"), minter.player("x", "123"), minter.unknown_player(key, "black")],
        "event": [minter.event("Linares", 1994), minter.unknown_event(key)],
        "board": [minter.board(key)],
        "graph": [minter.links_graph, minter.meta_graph, minter.counts_graph, minter.course_graph("c")],
        "course": [minter.course("c"), minter.chapter("c", 1), minter.chapter_item("c", 1, 1)],
    }
    for kind, iris in made.items():
        for iri in iris:
            assert minter.kind_of(iri) == kind and minter.kind_of(iri.value) == kind, iri
    assert minter.kind_of(CP.Position) is None and minter.kind_of(minter.base + "elsewhere/x") is None


def test_iris_of_another_base_are_not_read_as_this_ones() -> None:
    ours, theirs = IriMinter(BASES[0]), IriMinter("https://other.example/kb/")
    assert ours.source_of(theirs.source_graph("x")) is None
    assert ours.record_number(theirs.source_record("x", 1)) is None
    assert not ours.is_placeholder(theirs.unknown_player(game_keys()[0], "white"))


@pytest.mark.parametrize("base", BASES)
def test_placeholders_are_exactly_the_stand_ins(base: str) -> None:
    minter = IriMinter(base)
    for key in game_keys():
        assert minter.is_placeholder(minter.unknown_player(key, "white"))
        assert minter.is_placeholder(minter.unknown_player(key, "black").value)
        assert minter.is_placeholder(minter.unknown_event(key))
        assert not minter.is_placeholder(minter.match(key))
    # real people and events whose names begin with "Unknown" are people and events (issue 20)
    for name in ("Unknown", "Unknown Zed", "unknown white", "Unknown, Black", "Unknown 0123456789abcdef"):
        assert not minter.is_placeholder(minter.player(name)), name
        assert not minter.is_placeholder(minter.event(name, 1999)), name
        assert not minter.is_placeholder(minter.event(name, None)), name
    assert not minter.is_placeholder(minter.player("Unknown", fide_id="123"))


def test_course_iris_nest_under_their_course() -> None:
    minter = IriMinter(BASES[0])
    assert minter.chapter("first/steps", 2).value.startswith(minter.course("first/steps").value + "/chapter/")
    assert minter.chapter_item("a", 2, 3).value.startswith(minter.chapter("a", 2).value + "/item/")
    assert minter.course("a/b") != minter.course("a").value + "/b"  # a '/' in an id stays inside its segment
    assert minter.course_graph("x") == minter.source_graph("course-x")  # the layout the stores already hold
    for course_id in ("first-steps", "a/b", "ü", "x%20y"):
        assert minter.course_id(minter.course(course_id)) == course_id
        assert minter.course_id(minter.chapter(course_id, 1)) is None
        assert minter.course_id(IriMinter("https://other.example/").course(course_id)) is None


def test_minted_iris_are_distinct_for_distinct_names() -> None:
    minter = IriMinter(BASES[0])
    sources = {minter.source_graph(name) for name in HOSTILE}
    assert len(sources) == len(HOSTILE)
    assert minter.source_graph("a/b") != minter.inferred_graph("a")  # quoting keeps '/' inside a name


def test_vocabulary_terms_read_back() -> None:
    for name in sorted(ALL_TERMS):
        assert CP.name_of(CP.term(name)) == name
        assert CP.name_of(CP.term(name).value) == name
    assert CP.name_of(CP_IRI + "NoSuchTerm") is None
    assert CP.name_of(CP_IRI) is None
    assert CP.name_of(RDF.type) is None
    with pytest.raises(AttributeError):
        CP.term("NoSuchTerm")


# --- end to end: a player and an event whose names begin with "Unknown" ------------------------

PGN = """[Event "Unknown Open"]
[Site "?"]
[Date "2001.01.01"]
[Round "1"]
[White "Unknown Zed"]
[Black "?"]
[Result "1-0"]

1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0
"""


def _names(text: str) -> set[str]:
    """The named players of the PGN, read by python-chess ('?' and empty are no one)."""
    game = chess.pgn.read_game(io.StringIO(text))
    return {game.headers[c] for c in ("White", "Black") if game.headers.get(c, "?") not in ("?", "")}


def test_players_and_events_called_unknown_are_counted_and_shown(tmp_path: Path) -> None:
    pgn = tmp_path / "unknowns.pgn"
    pgn.write_text(PGN, encoding="utf-8")
    store = tmp_path / "store"
    assert run_cli("import", str(pgn), store=store).exit_code == 0
    sources = json.loads(run_cli("sources", "--format", "json", store=store).output)
    assert sources[0]["players"] == len(_names(PGN)) == 1

    from chesskb.service.app import create_app

    app = create_app({"STORE": str(store), "QUERY_WORKERS": 0})
    minter = IriMinter(app.config["BASE_IRI"])
    with app.test_client() as client:
        start = next(
            iter(app.extensions["chesskb.store"].query("SELECT ?p WHERE { ?p a cp:Position ; cp:plyInGame 0 }"))
        )["p"].value
        page = client.get("/page.json", query_string={"iri": start}).get_json()
    shown = {row["property"]: row for row in page["game"]}
    white, event = shown[CP.hasPlayerWhite.value], shown[CP.eventName.value]  # both used to be hidden as stand-ins
    assert unquote(white["url"]).endswith("=" + minter.player("Unknown Zed").value)
    assert event["value"] == "Unknown Open"
    assert unquote(event["url"]).endswith("=" + minter.event("Unknown Open", 2001).value)
    assert CP.hasPlayerBlack.value not in shown  # the nameless Black is still left out
    assert not [row for row in page["game"] if row["url"] and minter.is_placeholder(unquote(row["url"]).split("=")[-1])]


def test_appending_counts_players_called_unknown(tmp_path: Path) -> None:
    pgn = tmp_path / "unknowns.pgn"
    pgn.write_text(PGN, encoding="utf-8")
    store = EmbeddedStore(tmp_path / "store")
    import_files(store, [pgn], jobs=1)
    more = tmp_path / "more.pgn"
    more.write_text(PGN.replace("Unknown Zed", "Unknown Yan").replace('"1"]', '"2"]'), encoding="utf-8")
    import_files(store, [more], source="unknowns", jobs=1, append=True)  # recounts the source from the store
    minter = IriMinter()
    rows = store.query("SELECT ?n WHERE { GRAPH ?g { ?s cp:playerCount ?n } }", bindings={"g": minter.meta_graph})
    assert [int(row["n"].value) for row in rows] == [len(_names(PGN) | _names(more.read_text()))]
