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
from tests.demo_kb import ROOT

CP = "http://www.semanticweb.org/ontologies/2011/3/ChessPosition.owl#"
THEMES = ("Position", *PARENT)


def ontology_labels(lang: str) -> dict[str, str]:
    graph = rdflib.Graph().parse(ROOT / "ontology" / "chessposition.ttl")
    return {str(s)[len(CP):]: str(o) for s, o in graph.subject_objects(rdflib.RDFS.label)
            if str(s).startswith(CP) and getattr(o, "language", None) == lang}


def test_every_theme_class_in_an_imported_label_reads_in_spanish():
    from chesskb.service.i18n import localise_label

    spanish = ontology_labels("es")
    assert len(THEMES) >= 76
    for name in THEMES:
        label = f"{class_label(name)} — lichess puzzle 00UwP"
        assert localise_label(label, "es") == f"{spanish[name]} — problema de lichess 00UwP", name


@pytest.fixture(scope="module")
def client(demo_store):
    from chesskb.kb.store import open_store
    from chesskb.service.app import create_app

    return create_app({"STORE": str(demo_store)}, store=open_store(str(demo_store))).test_client()


def test_spanish_class_pages_name_every_class_in_spanish(client):
    spanish, english = ontology_labels("es"), ontology_labels("en")
    english_only = {class_label(n) for n in THEMES} | set(english.values())
    english_only -= set(spanish.values())  # a word both languages use (Zugzwang) is not "left in English"
    shown = 0
    for name in THEMES:
        page = client.get(f"/class/{name}?lang=es", headers={"Accept": "text/html"}).get_data(as_text=True)
        assert f"<h1>{spanish[name]}" in unescape(page), name
        for card in re.findall(r'<span>([^<]+)</span></a></li>', page):
            head = unescape(card).partition(" — ")[0]
            assert head not in english_only, (name, card)
            shown += 1
    assert shown > 100  # the demo's positions were really looked at


def test_a_mined_exercise_is_labelled_with_its_move_number_in_words(tmp_path):
    """A position mined from a game reads "…, move 5" (it read "…, 5..."), and "jugada 5" in Spanish.
    Molinari–Bordais 1979 ends 5...Nd3#: the engine finds Black's mate in one at move 5."""
    import shutil

    import chess

    from chesskb.kb.store import open_store
    from chesskb.service.i18n import localise_label
    from tests.conftest import run_cli

    if shutil.which("stockfish") is None and not shutil.which("/usr/games/stockfish"):
        pytest.skip("mining needs stockfish (scripts/setup.sh installs it)")
    store = tmp_path / "store"
    result = run_cli("import", "--mine", str(ROOT / "data" / "games" / "molinari-bordais-1979.pgn"), store=store)
    assert result.exit_code == 0, result.output
    rows = list(open_store(str(store)).query(
        "SELECT ?label ?fen WHERE { ?p cp:plyInGame ?ply ; rdfs:label ?label ; cp:fen ?fen FILTER(?ply > 0) }"))
    assert rows
    for row in rows:
        label, board = row["label"].value, chess.Board(row["fen"].value)
        assert label.endswith(f", move {board.fullmove_number}") and "..." not in label
        spanish = localise_label(label, "es")
        assert spanish.endswith(f", jugada {board.fullmove_number}") and " — " in spanish


def test_every_theme_class_is_named_in_spanish_in_a_position_title(demo_store):
    """The class a position's title names is the ontology's Spanish label, for every theme class (titles
    are composed from the position's classes, service.titles, never by translating the stored label)."""
    from chesskb.kb.store import open_store
    from chesskb.service.app import create_app
    from chesskb.service.resources import Resource
    from chesskb.service.titles import theme_class_title

    spanish, english = ontology_labels("es"), ontology_labels("en")
    app = create_app({"STORE": str(demo_store)}, store=open_store(str(demo_store)))
    with app.test_request_context("/?lang=es"):
        for name in THEMES:
            position = Resource(iri="urn:x:p", label="", types=[CP + "Position", CP + name])
            assert theme_class_title(position, "es") == spanish[name], name
            assert theme_class_title(position, "en") == english[name], name
        # a mate is named before a theme and a theme before a phase, as the importer's label does
        both = Resource(iri="urn:x:p", label="", types=[CP + "PositionMiddle", CP + "Fork", CP + "MateInTwo"])
        assert theme_class_title(both, "es") == spanish["MateInTwo"]
