"""Every theme class is named in Spanish on Spanish pages (issue 34: 18 of 76 stayed English, because the
importer names a class by its own rule, "Position middle", which is not the ontology's English label).

Expected names are the ontology's ``rdfs:label@es``, read here with rdflib from ontology/chessposition.ttl."""

from __future__ import annotations

import re
from html import unescape

import pytest
import rdflib

from chesskb.kb.analysis.themes import PARENT
from chesskb.kb.mapping.game import class_label
from tests.conftest import web_app
from tests.demo_kb import ROOT

CP = "http://www.semanticweb.org/ontologies/2011/3/ChessPosition.owl#"
THEMES = ("Position", *PARENT)


def ontology_labels(lang: str) -> dict[str, str]:
    graph = rdflib.Graph().parse(ROOT / "ontology" / "chessposition.ttl")
    return {
        str(s)[len(CP) :]: str(o)
        for s, o in graph.subject_objects(rdflib.RDFS.label)
        if str(s).startswith(CP) and getattr(o, "language", None) == lang
    }


@pytest.fixture(scope="module")
def client(demo_store):
    return web_app(demo_store).test_client()


def test_spanish_class_pages_name_every_class_in_spanish(client):
    spanish, english = ontology_labels("es"), ontology_labels("en")
    english_only = {class_label(n) for n in THEMES} | set(english.values())
    english_only -= set(spanish.values())  # a word both languages use (Zugzwang) is not "left in English"
    shown = 0
    for name in THEMES:
        page = client.get(f"/class/{name}?lang=es", headers={"Accept": "text/html"}).get_data(as_text=True)
        assert f"<h1>{spanish[name]}" in unescape(page), name
        for card in re.findall(r"<span>([^<]+)</span></a></li>", page):
            head = unescape(card).partition(" — ")[0]
            assert head not in english_only, (name, card)
            shown += 1
    assert shown > 100  # the demo's positions were really looked at


def _page_title(client, iri: str, lang: str = "es") -> str:
    page = client.get("/page", query_string={"iri": iri, "lang": lang}, headers={"Accept": "text/html"})
    return unescape(
        re.search(r"<title>(.*?) · ChessPosition KB</title>", page.get_data(as_text=True), re.S).group(1)
    ).strip()


def test_a_mined_exercise_is_titled_with_its_move_number_in_words(tmp_path):
    """A position mined from a game is stored as "…, move 5" (it read "…, 5..."), and its Spanish page is
    titled "<White> – <Black>, <Event>, jugada 5" from the game's tags (read here with python-chess).
    Molinari–Bordais 1979 ends 5...Nd3#: the engine finds Black's mate in one at move 5."""
    import shutil

    import chess
    import chess.pgn

    from chesskb.kb.store import open_store
    from chesskb.service.app import create_app
    from tests.conftest import run_cli

    if shutil.which("stockfish") is None and not shutil.which("/usr/games/stockfish"):
        pytest.skip("mining needs stockfish (scripts/setup.sh installs it)")
    source = ROOT / "data" / "games" / "molinari-bordais-1979.pgn"
    with source.open(encoding="utf-8") as handle:
        headers = chess.pgn.read_headers(handle)
    assert headers is not None
    store = tmp_path / "store"
    result = run_cli("import", "--mine", str(source), store=store)
    assert result.exit_code == 0, result.output
    kb = open_store(str(store))
    client = create_app({"STORE": str(store), "QUERY_WORKERS": 0}, store=kb).test_client()
    rows = list(
        kb.query(
            "SELECT ?p ?label ?fen WHERE { ?p cp:plyInGame ?ply ; rdfs:label ?label ; cp:fen ?fen FILTER(?ply > 0) }"
        )
    )
    assert rows
    for row in rows:
        label, board = row["label"].value, chess.Board(row["fen"].value)
        assert label.endswith(f", move {board.fullmove_number}") and "..." not in label
        assert (
            _page_title(client, row["p"].value)
            == f"{headers['White']} – {headers['Black']}, {headers['Event']}, jugada {board.fullmove_number}"
        )


def test_every_theme_class_is_named_in_spanish_in_a_position_title(demo_store):
    """The class a position's title names is the ontology's Spanish label, for every theme class (titles
    are composed from the position's classes, service.titles, never by translating the stored label): a
    position card reads "<class> — <game>, jugada N" with N python-chess's move number of its FEN."""
    import chess

    from chesskb.service.titles import TitleFacts, theme_class_title, title_from_facts

    spanish, english = ontology_labels("es"), ontology_labels("en")
    assert len(THEMES) >= 76
    app = web_app(demo_store)
    fen = "r1bqkb1r/pppp1Qpp/2n2n2/4p3/2B1P3/8/PPPP1PPP/RNB1K1NR b KQkq - 0 4"
    move = chess.Board(fen).fullmove_number
    with app.test_request_context("/?lang=es"):
        for name in THEMES:
            types = [CP + "Position", CP + name]
            assert theme_class_title(types, "es") == spanish[name], name
            assert theme_class_title(types, "en") == english[name], name
            card = TitleFacts(iri="urn:x:p", types=frozenset(types), fen=fen, ply="7", game="Ann – Ben")
            assert title_from_facts(card, "es") == f"{spanish[name]} — Ann – Ben, jugada {move}", name
            assert title_from_facts(card, "en") == f"{english[name]} — Ann – Ben, move {move}", name
            # an exercise's card names no theme: the theme is the answer (issue 34 item 3)
            exercise = TitleFacts(
                iri="urn:x:p", types=frozenset([*types, CP + "Exercise"]), fen=fen, ply="7", game="Ann – Ben"
            )
            assert title_from_facts(exercise, "es") == f"Ann – Ben, jugada {move}", name
        # a mate is named before a theme and a theme before a phase, as the importer's label does
        both = [CP + "PositionMiddle", CP + "Fork", CP + "MateInTwo"]
        assert theme_class_title(both, "es") == spanish["MateInTwo"]


def test_every_theme_class_with_members_is_named_in_spanish_on_a_members_page(client, demo_store):
    """Each theme class the demo has members of: one member's Spanish page lists the class by its Spanish
    label among its themes (membership read from the store; the label from the ontology with rdflib)."""
    from chesskb.kb.store import open_store

    spanish = ontology_labels("es")
    kb = open_store(str(demo_store))
    seen = 0
    for name in THEMES:
        if name == "Position":
            continue
        rows = list(kb.query(f"SELECT ?p WHERE {{ ?p a cp:{name} }} ORDER BY ?p LIMIT 1"))
        if not rows:
            continue
        page = unescape(
            client.get(
                "/page", query_string={"iri": rows[0]["p"].value, "lang": "es"}, headers={"Accept": "text/html"}
            ).get_data(as_text=True)
        )
        assert f">{spanish[name]}<" in page, name
        seen += 1
    assert seen >= 30  # the demo's classes were really looked at
