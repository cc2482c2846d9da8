"""The home page's ways in, on the knowledge base demo.sh builds (service/home.py), and the files a site
serves by name (service/site_files.py): the favicon, the editor's prefix list, the ontology."""

from __future__ import annotations

import datetime as dt
import re
from html import unescape
from urllib.parse import parse_qs, urlsplit

import chess
import pytest
import rdflib

from tests.conftest import web_app
from tests.demo_kb import ROOT

BROWSER = {"Accept": "text/html"}
CP = rdflib.Namespace("http://www.semanticweb.org/ontologies/2011/3/ChessPosition.owl#")
FIXTURE_SOURCES = ("test-checkmate", "test-fixresulttags-in", "nested-comment", "test-setup-in", "test-stalemate")


@pytest.fixture(scope="module")
def app(demo_store):
    return web_app(demo_store)


@pytest.fixture(scope="module")
def client(app):
    return app.test_client()


def home(client, lang: str = "en") -> str:
    response = client.get("/" + ("?lang=es" if lang == "es" else ""), headers=BROWSER)
    assert response.status_code == 200
    return response.get_data(as_text=True)


def cards(body: str) -> list[dict[str, str]]:
    found = re.findall(
        r'<a href="([^"]+)" class="theme-card" data-class="(\w+)"><img src="([^"]+)".*?'
        r'<strong>([^<]+)</strong><span class="description">([^<]*)</span>\s*'
        r'<span class="count">([^<]+)</span>',
        body,
        re.DOTALL,
    )
    return [
        {"url": u, "name": n, "board": unescape(b), "label": unescape(lab), "description": unescape(d), "count": c}
        for u, n, b, lab, d, c in found
    ]


def fen_of(board_url: str) -> str:
    return parse_qs(urlsplit(board_url).query)["fen"][0]


def test_home_offers_ways_in_and_no_test_fixture(client):
    body = home(client)
    assert re.search(r'<a id="start-training" class="button" href="/train">', body)
    assert 'class="daily-link"' in body and "from=class/MiddlegameTheme" in body
    assert re.search(r'<a href="/course/first-steps" class="course-link">[^<]+</a> \(5 chapters\)', body)
    assert "(1 chapter)" in body  # the openings course: singular
    tour = body[body.index('class="tour"') :]
    assert len(re.findall(r'<li><a href="/queries/[\w-]+">', tour)) == 3
    assert 'href="/sparql"' in tour and 'href="/chessposition.owl"' in tour and "/sparql</code>" in tour
    assert not [name for name in FIXTURE_SOURCES if name in body]


def test_theme_cards_show_a_member_a_description_and_the_class_count(client):
    shown = cards(home(client))
    assert {"MateInOne", "MateInTwo", "DoubleAttack", "Pinning"} <= {c["name"] for c in shown}
    for card in shown:
        listed = client.get(f"/class/{card['name']}.json").get_json()
        assert card["count"] == f"{listed['count']} positions"
        assert fen_of(card["board"]) in {p["fen"] for p in listed["positions"]}
        assert card["description"] and "." in card["description"]
    # the mate-in-one card's board is one, as python-chess sees it
    board = chess.Board(fen_of(next(c for c in shown if c["name"] == "MateInOne")["board"]))
    assert any(_mates(board, move) for move in board.legal_moves)


def _mates(board: chess.Board, move: chess.Move) -> bool:
    board.push(move)
    try:
        return board.is_checkmate()
    finally:
        board.pop()


def test_spanish_home_names_the_themes_by_the_ontologys_spanish_labels(client):
    ontology = rdflib.Graph().parse(ROOT / "ontology" / "chessposition.ttl")
    spanish = {
        str(s).split("#")[1]: str(o)
        for s, o in ontology.subject_objects(rdflib.RDFS.label)
        if getattr(o, "language", None) == "es"
    }
    comments = {
        str(s).split("#")[1]: str(o)
        for s, o in ontology.subject_objects(rdflib.RDFS.comment)
        if getattr(o, "language", None) == "es"
    }
    body = home(client, "es")
    shown = cards(body)
    assert shown
    for card in shown:
        assert card["label"] == spanish[card["name"]]
        assert comments[card["name"]].startswith(card["description"])
        assert card["count"].endswith(" posiciones") or card["count"] == "1 posición"
    assert "Empezar a entrenar" in body and "Ejercicio del día" in body and "(1 capítulo)" in body


def test_the_exercise_of_the_day_is_the_days_member_of_its_class(app):
    from chesskb.service import home as home_module
    from chesskb.service.classes import class_count

    with app.test_request_context("/"):
        count = min(class_count(home_module.DAILY_CLASS), home_module.DAILY_POOL)
        day = dt.date(2026, 11, 28)
        today, tomorrow = home_module.exercise_of_the_day(day), home_module.exercise_of_the_day(day + dt.timedelta(1))
        assert count > 1 and today["url"] != tomorrow["url"]
        assert f"i={day.toordinal() % count}" in today["url"]
        assert home_module.exercise_of_the_day(day) == today  # the same all day


def test_favicon_prefixes_and_ontology_are_served(client):
    icon = client.get("/favicon.ico")
    assert icon.status_code == 200 and icon.data[:4] == b"\x00\x00\x01\x00"  # an ICO file
    prefixes = client.get("/prefixes.json").get_json()
    assert prefixes["cp"] == str(CP) and "rdfs" in prefixes
    owl = client.get("/chessposition.owl")
    assert owl.status_code == 200 and owl.mimetype == "application/rdf+xml"
    graph = rdflib.Graph().parse(data=owl.data, format="xml")
    assert (CP.MateInOne, rdflib.RDF.type, rdflib.OWL.Class) in graph


def test_game_page_header_from_the_games_tags_and_linked_data_folded(client):
    """Dortmund 1996, game 1 (Anand–Polgár) as python-chess reads it: the header names the players with this
    game's ratings, event, round and result; the title never uses Site; IRIs and keys only under Linked data."""
    import chess.pgn

    with open(ROOT / "data" / "games" / "dortmund-1996-1997.pgn", encoding="utf-8") as handle:
        tags = chess.pgn.read_game(handle).headers
    source = client.get("/page.json", query_string={"iri": "https://w3id.org/chesskb/id/source/dortmund-1996-1997"})
    game = next(g for g in source.get_json()["games"] if g["number"] == "1")
    header = client.get("/page.json", query_string={"iri": game["iri"]}).get_json()["header"]
    assert (header["white"]["elo"], header["black"]["elo"]) == (tags["WhiteElo"], tags["BlackElo"])
    assert header["event"]["name"] == tags["Event"] and header["round"] == tags["Round"]
    assert header["result"] == tags["Result"] and header["site"] == tags["Site"]
    assert tags["Site"] not in header["title"] and header["title"].endswith(f", {tags['Event']}, round 8")
    body = client.get(game["url"] + "&lang=es", headers=BROWSER).get_data(as_text=True)
    assert f'<strong class="game-result">{tags["Result"]}</strong></p>' in body  # after the last move
    assert "ronda 8</h1>" in body and f'<dd class="site">{tags["Site"]}</dd>' in body
    folded = body.index('<details class="linked-data">')
    assert 'class="iri"' not in body[:folded] and "gameKey" not in body[:folded]
    assert "gameKey" in body[folded:]


def test_exercise_page_shows_lichess_opening_tags_as_words(client):
    import csv

    with open(ROOT / "data" / "lichess" / "puzzles.csv", encoding="utf-8", newline="") as handle:
        row = next(r for r in csv.DictReader(handle) if r["PuzzleId"] == "000rZ")
    body = client.get(
        "/page", query_string={"iri": "https://w3id.org/chesskb/id/position/lichess-000rZ"}, headers=BROWSER
    ).get_data(as_text=True)
    start = body.index('<section class="game">')
    table = body[start : body.index("</section>", start)]
    for tag in row["OpeningTags"].split():
        assert tag.replace("_", " ") in table
    assert "_" not in re.sub(r"<[^>]+>", "", table)


def test_course_pages_say_chapter_counts_and_the_pass_mark_plainly(client):
    listing = client.get("/courses", headers=BROWSER).get_data(as_text=True)
    assert (
        "(1 chapter)" in listing
        and "(5 chapters)" in listing
        and "chapters)" not in listing.replace("(5 chapters)", "")
    )
    spanish = client.get("/courses?lang=es", headers=BROWSER).get_data(as_text=True)
    assert "(1 capítulo)" in spanish and "(5 capítulos)" in spanish
    course = client.get("/course/first-steps", headers=BROWSER).get_data(as_text=True)
    assert "Pass mark: " in course and "Passed at" not in course
    assert "🔒" not in course and "🔒" not in (ROOT / "service" / "static" / "course.js").read_text(encoding="utf-8")
