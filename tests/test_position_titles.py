"""Position pages are titled in the page's language from data, never from the stored English label
(issue 34 item 5): a lichess puzzle by its id, a PGN exercise by its game, a position mined from a game
by its game and move number, a game's first position as the start of that game, and the game's place in
its file (``partida N, línea M``).

Every expected title is computed here from the source files with python-chess and the csv module; the
store is used only to find which IRI stands for which puzzle or game.
"""

from __future__ import annotations

import csv
import io
import re
import shutil
from html import unescape
from pathlib import Path

import chess
import chess.pgn
import pytest

from chesskb.kb.reading.names import is_person
from tests.conftest import BASE, DATA, run_cli, web_app
from tests.shared_proofs import shared_proofs  # noqa: F401 (autouse: the run's verification cache)

BROWSER = {"Accept": "text/html"}
PUZZLES = Path(__file__).parent / "fixtures" / "puzzles-30.csv"
MINED = DATA / "games" / "molinari-bordais-1979.pgn"
#: Words of the English titles that a Spanish title must not contain (the catalogue's English phrases).
ENGLISH_WORDS = re.compile(r"\b(move|game|line|puzzle|Start|position|Board)\b")


def _games(text: str) -> list[tuple[chess.pgn.Game, int]]:
    """Each game of a PGN text with the line its first tag is on."""
    lines = text.splitlines()
    starts = [n + 1 for n, line in enumerate(lines) if line.startswith("[Event ")]
    stream = io.StringIO(text)
    games = []
    for start in starts:
        game = chess.pgn.read_game(stream)
        assert game is not None
        games.append((game, start))
    return games


@pytest.fixture(scope="module")
def sources(tmp_path_factory) -> dict[str, Path]:
    """Four exercises of the shipped mate-in-two file, and Kasparov–Deep Blue's first game without its
    opening tags (so its first position is titled as the game's start, not by its opening)."""
    folder = tmp_path_factory.mktemp("titles")
    exercises = (DATA / "pychess" / "mate_in_2.pgn").read_text(encoding="latin-1").split("\n\n[Event ")
    (folder / "exercises.pgn").write_text(
        exercises[0] + "".join(f"\n\n[Event {g}" for g in exercises[1:4]) + "\n", encoding="utf-8"
    )
    game = chess.pgn.read_game(io.StringIO((DATA / "games" / "kasparov-deep-blue-1997.pgn").read_text()))
    assert game is not None
    for tag in ("ECO", "Opening", "Variation"):
        game.headers.pop(tag, None)
    (folder / "game.pgn").write_text(str(game) + "\n\n", encoding="utf-8")
    return {"exercises": folder / "exercises.pgn", "game": folder / "game.pgn"}


@pytest.fixture(scope="module")
def store(tmp_path_factory, sources) -> Path:
    path = tmp_path_factory.mktemp("titles-kb") / "store"
    result = run_cli("import", str(PUZZLES), str(sources["exercises"]), str(sources["game"]), store=path)
    assert result.exit_code == 0, result.output
    if shutil.which("stockfish") or Path("/usr/games/stockfish").exists():
        result = run_cli("import", "--mine", str(MINED), store=path)
        assert result.exit_code == 0, result.output
    return path


@pytest.fixture(scope="module")
def client(store):
    app = web_app(store, QUERY_WORKERS=0)
    return app.test_client()


@pytest.fixture(scope="module")
def kb(store):
    from chesskb.kb.store import open_store

    return open_store(str(store))


def _titles(client, iri: str, lang: str) -> tuple[str, str]:
    """The page's <title> (without the site's name) and its <h1>."""
    page = client.get("/page", query_string={"iri": iri, "lang": lang}, headers=BROWSER).get_data(as_text=True)
    title = unescape(re.search(r"<title>(.*?) · ChessPosition KB</title>", page, re.S).group(1)).strip()
    heading = unescape(re.search(r"<h1>(.*?)</h1>", page, re.S).group(1)).strip()
    return title, heading


def _page(client, iri: str, lang: str) -> str:
    return unescape(
        client.get("/page", query_string={"iri": iri, "lang": lang}, headers=BROWSER).get_data(as_text=True)
    )


def _game_positions(kb, file_name: str) -> dict[int, list[tuple[str, int, str]]]:
    """Game number -> (position IRI, ply, FEN) of the positions the store keeps of that file's games."""
    rows = kb.query(
        "SELECT ?p ?n ?ply ?fen WHERE { ?p cp:hasMatch ?m ; cp:plyInGame ?ply ; cp:fen ?fen . ?m dcterms:source ?r . "
        f'?r cp:sourceFile ?f ; cp:gameNumber ?n FILTER(STRENDS(STR(?f), "{file_name}")) }}'
    )
    found: dict[int, list[tuple[str, int, str]]] = {}
    for row in rows:
        found.setdefault(int(row["n"].value), []).append((row["p"].value, int(row["ply"].value), row["fen"].value))
    return found


def test_a_lichess_puzzle_is_titled_by_its_id_in_each_language(client, kb):
    with PUZZLES.open(encoding="utf-8") as handle:
        ids = [row["PuzzleId"] for row in csv.DictReader(handle)]
    assert len(ids) == 30
    for puzzle_id in ids[:8]:
        iri = next(iter(kb.query(f'SELECT ?p WHERE {{ ?p cp:puzzleId "{puzzle_id}" }}')))["p"].value
        assert _titles(client, iri, "es") == (f"problema de lichess {puzzle_id}",) * 2
        assert _titles(client, iri, "en") == (f"lichess puzzle {puzzle_id}",) * 2


def test_a_pgn_exercise_is_titled_by_its_game_and_no_theme(client, kb, sources):
    """The title names the game's players (no theme: the trainer hides it until solved), the same in
    both languages; the source row reads ``<file>, partida N, línea M`` on Spanish pages."""
    games = _games(sources["exercises"].read_text(encoding="utf-8"))
    positions = _game_positions(kb, "exercises.pgn")
    assert len(games) == 4 and set(positions) == {1, 2, 3, 4}
    for number, (game, line) in enumerate(games, start=1):
        [(iri, _ply, fen)] = [p for p in positions[number] if p[1] == 0]
        assert fen == game.board().fen()
        spanish, _ = _titles(client, iri, "es")
        assert spanish == _titles(client, iri, "en")[0]
        # a name that is no person ("NN", "?": kb.reading.names.is_person) is the "?" of the game header
        white, black = (game.headers[c] if is_person(game.headers[c]) else "?" for c in ("White", "Black"))
        assert white.split()[-1] in spanish and f" – {black}" in spanish
        assert not ENGLISH_WORDS.search(spanish) and "Mate" not in spanish and "mate" not in spanish
        page = _page(client, iri, "es")
        assert f"exercises.pgn, partida {number}, línea {line}" in page
        assert f"exercises.pgn, game {number}, line {line}" in _page(client, iri, "en")


def test_a_games_first_position_is_titled_as_its_start(client, kb, sources):
    [(game, _line)] = _games(sources["game"].read_text(encoding="utf-8"))
    [(iri, _ply, fen)] = [p for p in _game_positions(kb, "game.pgn")[1] if p[1] == 0]
    assert fen == game.board().fen()
    spanish, heading = _titles(client, iri, "es")
    assert spanish == heading and spanish.startswith("Posición inicial — ")
    assert "Kasparov" in spanish and not ENGLISH_WORDS.search(spanish)
    # the title is the game header's: players, event, round; this file's Round is "?" and its Site the
    # game number ChessBase writes there ("01"), which the header shows as the round
    h = game.headers
    game_title, round_ = f"{h['White']} – {h['Black']}, {h['Event']}", int(h["Site"])
    assert h["Round"] == "?"
    assert spanish == f"Posición inicial — {game_title}, ronda {round_}"
    assert _titles(client, iri, "en")[0] == f"Start position — {game_title}, round {round_}"


def test_a_mined_position_is_titled_by_its_game_and_move_number(client, kb):
    """The move number is the one python-chess counts replaying the file's game to the mined board."""
    if not (shutil.which("stockfish") or Path("/usr/games/stockfish").exists()):
        pytest.skip("mining needs stockfish (scripts/setup.sh installs it)")
    games = _games(MINED.read_text(encoding="utf-8"))
    positions = _game_positions(kb, MINED.name)
    mined = [(number, p) for number, found in positions.items() for p in found if p[1] > 0]
    assert mined
    for number, (iri, ply, fen) in mined:
        game = games[number - 1][0]
        board = game.board()
        for move in list(game.mainline_moves())[:ply]:
            board.push(move)
        assert board.fen() == fen
        spanish, _ = _titles(client, iri, "es")
        english, _ = _titles(client, iri, "en")
        assert spanish.endswith(f", jugada {board.fullmove_number}") and not ENGLISH_WORDS.search(spanish)
        assert english.endswith(f", move {board.fullmove_number}")
        assert spanish.removesuffix(f", jugada {board.fullmove_number}") == english.removesuffix(
            f", move {board.fullmove_number}"
        )
        assert game.headers["White"] in spanish and game.headers["Black"] in spanish


def test_class_page_cards_say_where_each_position_comes_from_in_spanish(client, kb):
    """A class page's cards: the puzzles of the class by id, in the page's language."""
    with PUZZLES.open(encoding="utf-8") as handle:
        mates = {row["PuzzleId"] for row in csv.DictReader(handle) if "mateIn1" in row["Themes"].split()}
    assert mates
    for lang, words in (("es", "problema de lichess {}"), ("en", "lichess puzzle {}")):
        page = unescape(client.get(f"/class/MateInOne?lang={lang}", headers=BROWSER).get_data(as_text=True))
        cards = set(re.findall(r'class="position-link">.*?<span>([^<]+)</span>', page))
        assert {words.format(i) for i in mates} <= cards, lang


def test_names_that_read_like_the_importers_phrases_stay_as_the_file_gives_them(tmp_path):
    """Players are data: "Board of Trade" is not "Tablero de Trade" in a Spanish page's title and game rows
    (they used to be the stored English label with its phrases translated by regular expressions)."""
    from chesskb.kb.store import open_store
    from chesskb.service.app import create_app

    game = chess.pgn.Game()
    game.headers.update(
        {
            "Event": "Club match",
            "Site": "Leeds",
            "Date": "1990.01.02",
            "White": "Board of Trade",
            "Black": "Mate in one",
            "Result": "1-0",
        }
    )
    game.add_line([chess.Move.from_uci(u) for u in ("e2e4", "e7e5", "g1f3")])
    source = tmp_path / "names.pgn"
    source.write_text(str(game) + "\n\n", encoding="utf-8")
    store = tmp_path / "store"
    assert run_cli("import", str(source), store=store).exit_code == 0
    kb = open_store(str(store))
    client = create_app({"STORE": str(store), "QUERY_WORKERS": 0}, store=kb).test_client()
    [(iri, _ply, _fen)] = [p for p in _game_positions(kb, "names.pgn")[1] if p[1] == 0]
    spanish, _ = _titles(client, iri, "es")
    assert spanish.startswith("Posición inicial — Board of Trade") and "Tablero" not in spanish
    assert "Mate in one" in spanish and "Mate en uno" not in spanish
    # the page's own rows; the stored properties under "Linked data" keep their filter (see CHANGELOG)
    page = _page(client, iri, "es").split('class="all-properties"')[0]
    assert ">Board of Trade<" in page and ">Mate in one<" in page and "Tablero de Trade" not in page


def test_a_game_is_named_alike_in_its_header_and_in_its_positions_titles(tmp_path):
    """One game in two sources whose tags write a player two ways ("Polgar, Judit", "Judit Polgár": one player,
    two labels): the game page's title names the player as its header does, by the first label in code-point
    order, and so does the title of each position listed under the game (it read an arbitrary one); the source's
    page and the game's list the game and its position once (a row per label listed them twice)."""

    moves = "1. e4 c5 2. Nf3 d6 3. d4 cxd4 4. Nxd4 Nf6 5. Nc3 a6 1-0"
    written = ("Polgar, Judit", "Judit Polgár")
    files = []
    for number, black in enumerate(written):
        path = tmp_path / f"source-{number}.pgn"
        path.write_text(
            f'[Event "Dortmund"]\n[Site "Dortmund"]\n[Date "1996.??.??"]\n[Round "8"]\n'
            f'[White "Anand, Viswanathan"]\n[Black "{black}"]\n[Result "1-0"]\n\n{moves}\n',
            encoding="utf-8",
        )
        files.append(str(path))
    store = tmp_path / "store"
    assert run_cli("import", *files, "--jobs", "1", store=store).exit_code == 0
    client = web_app(store).test_client()
    read = [chess.pgn.read_game(io.StringIO(Path(f).read_text(encoding="utf-8"))) for f in files]
    expected_name = min(game.headers["Black"] for game in read if game is not None)
    source = client.get("/page.json", query_string={"iri": BASE + "source/source-0"}).get_json()
    [game] = source["games"]  # listed once, though each source gave it a label of its own
    for lang in ("en", "es"):
        page = client.get(game["url"].replace("/page?", "/page.json?") + f"&lang={lang}").get_json()
        assert page["header"]["black"]["name"] == expected_name
        title = page["header"]["title"]
        assert expected_name in title
        listed = [p["label"] for p in page["positions"]]
        assert listed and all(label.endswith(title) for label in listed), (title, listed)
        assert len({p["iri"] for p in page["positions"]}) == len(listed)  # each position once
