"""Spanish pages name positions, games, boards, records and sources in Spanish, composed from data (issue 34
item 5): listings (source, event and class pages), search, find, the player page, canned query cells and
the linked-data table show no English prose from the importer's labels ("vs", "lichess puzzle", "move",
"Start position", "Board of", "game N, line M").

The store is the real importer's over a round robin and 30 lichess puzzles (tests/fixtures). Every expected
title is computed here from those files with python-chess and the csv module: a game is
``<White> – <Black>, <Event>, ronda <Round>``, a game's first position ``Posición inicial — <game>``, a
puzzle ``problema de lichess <id>``, a record ``<file>, partida <n>, línea <line>``. The store is asked only
which IRI stands for which game.
"""

from __future__ import annotations

import csv
import io
import re
from html import unescape
from pathlib import Path

import chess
import chess.pgn
import pytest

from tests.conftest import web_app

FIXTURES = Path(__file__).parent / "fixtures"
ROUND_ROBIN = FIXTURES / "round-robin.pgn"
PUZZLES = FIXTURES / "puzzles-30.csv"
BROWSER = {"Accept": "text/html"}

#: The importer's English phrases (kb.mapping.game): none may reach a Spanish page's text.
ENGLISH_PROSE = re.compile(
    r"\bvs\b|lichess (puzzle|game)|\bmove\b|Start position|Board of|\bPosition\b"
    r"|, game \d+, line \d+|Unknown player|Source "
)


@pytest.fixture(scope="module")
def client(small_store):
    app = web_app(small_store, QUERY_WORKERS=0)
    return app.test_client()


@pytest.fixture(scope="module")
def minter(client):
    from chesskb.kb.mapping.iris import IriMinter

    return IriMinter(client.application.config["BASE_IRI"])


def _games() -> list[tuple[chess.pgn.Game, int]]:
    """The round robin's games with the line each one's first tag is on."""
    text = ROUND_ROBIN.read_text(encoding="utf-8")
    starts = [n + 1 for n, line in enumerate(text.splitlines()) if line.startswith("[Event ")]
    stream = io.StringIO(text)
    return [(chess.pgn.read_game(stream), start) for start in starts]  # type: ignore[misc]


def game_title(game: chess.pgn.Game, lang: str = "es") -> str:
    h = game.headers
    return f"{h['White']} – {h['Black']}, {h['Event']}, {'ronda' if lang == 'es' else 'round'} {h['Round']}"


def _puzzles() -> list[dict[str, str]]:
    with PUZZLES.open(encoding="utf-8") as handle:
        return list(csv.DictReader(handle))


def _puzzle_board(row: dict[str, str]) -> chess.Board:
    """The position a lichess puzzle asks about: the CSV's FEN after its first move (the opponent's)."""
    board = chess.Board(row["FEN"])
    board.push_uci(row["Moves"].split()[0])
    return board


def page(client, path: str, **args: str) -> str:
    response = client.get(path, query_string={**args, "lang": "es"}, headers=BROWSER)
    assert response.status_code == 200, (path, args, response.status_code)
    return unescape(response.get_data(as_text=True))


def shown_text(body: str) -> str:
    """What a reader of the page meets as Spanish text: no scripts, no SPARQL source, no element the page
    marks as another language (a stored label kept as the importer wrote it, under "Linked data")."""
    body = re.sub(r"<(script|style|pre|code|textarea)\b.*?</\1>", " ", body, flags=re.S)
    body = re.sub(r'<span lang="en">.*?</span>', " ", body, flags=re.S)
    return unescape(re.sub(r"<[^>]+>", "\n", body))


def assert_no_english_prose(body: str, where: str) -> None:
    # a material signature (cp:materialSignature, "KRP vs KR") is notation, not the importer's prose
    text = re.sub(r"\bK[QRBNP]* vs K[QRBNP]*\b", " ", shown_text(body))
    found = [text[max(0, m.start() - 40) : m.end() + 40] for m in ENGLISH_PROSE.finditer(text)]
    assert not found, (where, found)


def link_texts(body: str) -> list[str]:
    return [unescape(" ".join(t.split())) for t in re.findall(r"<a [^>]*>([^<]+)</a>", body)]


def card_texts(body: str) -> list[str]:
    return [unescape(t) for t in re.findall(r"<span>([^<]+)</span></a>", body)]


def _match_of(client, game_number: int) -> str:
    rows = client.get(
        "/sparql",
        query_string={
            "query": (
                "SELECT ?m WHERE { ?m dcterms:source ?r . ?r cp:sourceFile ?f ; cp:gameNumber ?n "
                f'FILTER(STRENDS(STR(?f), "round-robin.pgn") && ?n = {game_number}) }}'
            )
        },
        headers={"Accept": "application/sparql-results+json"},
    ).get_json()["results"]["bindings"]
    assert len(rows) == 1, game_number
    return rows[0]["m"]["value"]


def test_a_source_page_lists_its_games_by_players_event_and_round(client, minter):
    body = page(client, "/page", iri=minter.source("round-robin").value)
    assert "<h1>Fuente round-robin</h1>" in body
    listed = re.findall(r'<li value="\d+"><a [^>]*>([^<]+)</a>', body)
    assert [unescape(t) for t in listed] == [game_title(game) for game, _line in _games()]
    assert_no_english_prose(body, "source page")


def test_an_event_page_lists_each_rounds_games_in_spanish(client):
    games = _games()
    event = client.get(
        "/sparql",
        query_string={
            "query": "SELECT ?e WHERE { ?e a cp:Event ; cp:eventName ?n "
            f'FILTER(?n = "{games[0][0].headers["Event"]}") }}'
        },
        headers={"Accept": "application/sparql-results+json"},
    ).get_json()
    body = page(client, "/page", iri=event["results"]["bindings"][0]["e"]["value"])
    assert {game_title(game) for game, _line in games} <= set(link_texts(body))
    assert_no_english_prose(body, "event page")


def test_a_player_page_names_her_games_and_their_positions_in_spanish(client):
    games = [game for game, _line in _games() if "Alpha, Ann" in (game.headers["White"], game.headers["Black"])]
    player = client.get(
        "/sparql",
        query_string={"query": 'SELECT ?p WHERE { ?p a cp:Player ; cp:name "Alpha, Ann" }'},
        headers={"Accept": "application/sparql-results+json"},
    ).get_json()
    body = page(client, "/page", iri=player["results"]["bindings"][0]["p"]["value"])
    assert {game_title(game) for game in games} <= set(link_texts(body))
    # a game's first position is no exercise: it is titled as the start of its game
    assert {f"Posición inicial — {game_title(game)}" for game in games} == set(card_texts(body))
    assert_no_english_prose(body, "player page")


def test_a_game_pages_linked_data_table_names_what_it_links_to_in_spanish(client):
    """The game's source record, board and first position, each by its title, in the linked-data table;
    the stored English label stays there as stored, marked as English."""
    for number, (game, line) in enumerate(_games(), start=1):
        match = _match_of(client, number)
        body = page(client, "/page", iri=match)
        table = body.split('class="properties"', 1)[1]
        links = set(link_texts(table))
        assert f"round-robin.pgn, partida {number}, línea {line}" in links, number
        assert f"Tablero de {game_title(game)}" in links and f"Posición inicial — {game_title(game)}" in links
        assert f"<title>{game_title(game)} · ChessPosition KB</title>" in body
        assert re.search(r'<span lang="en">[^<]* vs [^<]*</span>', table), "the stored label, marked English"
        assert_no_english_prose(body, f"game {number}")


def test_a_puzzles_game_page_is_titled_by_its_lichess_id(client):
    row = _puzzles()[0]
    game_id = row["GameUrl"].split("lichess.org/", 1)[1].split("#")[0].split("/")[0]
    found = client.get(
        "/sparql",
        query_string={"query": f'SELECT ?p ?m WHERE {{ ?p cp:puzzleId "{row["PuzzleId"]}" ; cp:hasMatch ?m }}'},
        headers={"Accept": "application/sparql-results+json"},
    ).get_json()
    body = page(client, "/page", iri=found["results"]["bindings"][0]["m"]["value"])
    assert f"<h1>partida de lichess {game_id}</h1>" in body
    assert f"problema de lichess {row['PuzzleId']}" in link_texts(body)
    assert_no_english_prose(body, "puzzle's game page")
    # the puzzle's own page: its title, and its game in the game rows and in the table of properties
    position = page(client, "/page", iri=found["results"]["bindings"][0]["p"]["value"])
    assert f"<h1>problema de lichess {row['PuzzleId']}</h1>" in position
    assert link_texts(position).count(f"partida de lichess {game_id}") == 2
    assert_no_english_prose(position, "puzzle page")


def test_search_by_fen_and_find_by_pattern_show_spanish_cards(client):
    for row in _puzzles()[:5]:
        board = _puzzle_board(row)
        expected = f"problema de lichess {row['PuzzleId']}"
        found = page(client, "/search", q=board.fen())
        assert expected in card_texts(found), row["PuzzleId"]
        assert_no_english_prose(found, "search")
        pattern = page(client, "/find", pattern=board.board_fen(), side="w" if board.turn else "b")
        assert expected in card_texts(pattern), row["PuzzleId"]
        assert_no_english_prose(pattern, "find")


def test_search_by_player_and_event_names_them_as_the_file_does(client):
    body = page(client, "/search", q="Alpha")
    assert "Alpha, Ann" in link_texts(body)
    assert_no_english_prose(body, "search by name")


def test_a_class_page_and_a_canned_querys_label_cells_name_puzzles_in_spanish(client):
    """Every mate-in-one puzzle of the CSV is a card on the Spanish class page and a label cell of the
    Spanish ``mate-in-one`` answer (whose JSON keeps the stored label)."""
    mates = [row["PuzzleId"] for row in _puzzles() if "mateIn1" in row["Themes"].split()]
    assert mates
    cards = set(card_texts(page(client, "/class/MateInOne")))
    answer = page(client, "/queries/mate-in-one")
    cells = {unescape(c.strip()) for c in re.findall(r"<td>([^<]*)</td>", answer)}
    for puzzle_id in mates:
        assert f"problema de lichess {puzzle_id}" in cards, puzzle_id
        assert f"problema de lichess {puzzle_id}" in cells, puzzle_id
    assert_no_english_prose(answer, "canned query")
    stored = client.get("/queries/mate-in-one.json").get_json()["rows"]
    assert any(" — lichess puzzle " in row["label"]["value"] for row in stored)  # the JSON: what the store says


def test_the_english_pages_say_the_same_in_english(client, minter):
    """The same composition in English (so the Spanish checks above can fail): the game titles say
    "round", and a puzzle is a "lichess puzzle"."""
    body = unescape(
        client.get("/page", query_string={"iri": minter.source("round-robin").value}, headers=BROWSER).get_data(
            as_text=True
        )
    )
    assert "<h1>Source round-robin</h1>" in body
    assert game_title(_games()[0][0], "en") in link_texts(body)
    answer = unescape(client.get("/queries/mate-in-one", headers=BROWSER).get_data(as_text=True))
    assert ENGLISH_PROSE.search(shown_text(answer))
