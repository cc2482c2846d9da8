"""Every canned query answers with its defaults on the knowledge base ``scripts/demo.sh`` builds.

The store is built from the import commands demo.sh itself runs (read from the script, so the test and
the demo cannot drift apart). Each query must return at least one row with its default parameters, and
where the default names something in the demo files (a player, a year, an event, a tag value), the rows
must be exactly the games python-chess finds with that value in the same files, read here without the
importer. Where the knowledge base decides (a mate, a phase, a theme, a class count), the check is what
python-chess and the ontology file decide on their own: a claimed mate proven by an exhaustive search
(``tests.boards.mates_within``), a phase by its material count, a fork by a necessary condition, a
lichess label through the ontology's ``cp:lichessTheme``; each test's docstring says what it leaves unchecked.
"""

from __future__ import annotations

import csv
import io
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import date, time
from functools import lru_cache
from pathlib import Path

import chess
import chess.pgn
import pytest
import rdflib

from chesskb.kb.reading.names import fold, name_key
from chesskb.queries import list_queries, load_query
from tests.boards import mate_length, mates_in_one, mates_within
from tests.demo_kb import demo_imports

ROOT = Path(__file__).resolve().parent.parent


@pytest.fixture(scope="module")
def demo_kb(demo_store):
    from chesskb.kb.store import open_store

    return open_store(str(demo_store))


def run(kb, name: str, params: dict[str, str] | None = None) -> list[dict]:
    """Every row of the canned query ``name`` with its defaults (or ``params``), values as text."""
    query = load_query(name)
    result = kb.query(query.paged_text({"limit": "0"}), bindings=query.bind(params or {}))
    names = [v.value for v in result.variables]
    return [{n: (row[n].value if row[n] is not None else None) for n in names} for row in result]


def rows_per_query(kb) -> dict[str, int]:
    return {query.name: len(run(kb, query.name)) for query in list_queries()}


def test_demo_imports_no_test_fixture():
    files = [Path(arg).name for args in demo_imports() for arg in args if not arg.startswith("-")]
    assert "puzzles.csv" in files and "odds.pgn" in files and "legall-1750.pgn" in files
    assert not {
        "test-checkmate.pgn",
        "test-fixresulttags-in.pgn",
        "nested-comment.pgn",
        "test-setup-in.pgn",
        "test-stalemate.pgn",
    } & set(files)


def test_every_query_answers_with_its_defaults(demo_kb):
    for query in list_queries():
        assert all(p.default is not None for p in query.params), f"{query.name} needs a default"
    empty = [name for name, count in rows_per_query(demo_kb).items() if count == 0]
    assert not empty, f"no rows with the defaults on the demo KB: {empty}"


# --- the rows are the games python-chess finds in the same files ------------------------------


@dataclass
class DemoGame:
    file: str
    number: int
    headers: chess.pgn.Headers
    mates: bool  # its moves end in checkmate
    mined: bool  # imported with --mine: the engine cuts exercises out of the game
    moves: int  # full moves played (move numbers with a move in them), 0 when the start cannot be set up
    game: chess.pgn.Game  # as python-chess read it
    themed: bool  # imported with --theme (the traps): an exercise whatever its board

    @property
    def won(self) -> bool:
        """Won by someone, as the queries read it: a decided result, or an exercise whose solution mates."""
        return self.h("Result") in ("1-0", "0-1") or (bool(self.h("FEN")) and self.mates)

    def h(self, tag: str) -> str:
        return self.headers.get(tag, "")


def decoded_line(raw: bytes) -> str:
    """One line of a PGN file as text: UTF-8 when its bytes are UTF-8, else latin-1. Line by line, because a
    file can mix both: odds.pgn writes Philidor in latin-1 on most lines and in UTF-8 on two."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


@lru_cache(maxsize=1)
def demo_games() -> tuple[DemoGame, ...]:
    """Every PGN game demo.sh imports, numbered per file as python-chess reads it (``decoded_line``); read once
    per run (the files do not change, and the checks only read the games)."""
    games = []
    for args in demo_imports():
        mined = "--mine" in args
        themed = "--theme" in args
        for path in (Path(a) for a in args if a.endswith(".pgn")):
            handle = io.StringIO("\n".join(decoded_line(raw) for raw in path.read_bytes().split(b"\n")))
            number = 0
            while (game := chess.pgn.read_game(handle)) is not None:
                number += 1
                try:
                    mates = game.end().board().is_checkmate()
                    moves = len({node.parent.board().fullmove_number for node in game.mainline()})
                except ValueError:  # the seed's invalid FEN, kept on purpose (data/README.md)
                    mates, moves = False, 0
                games.append(DemoGame(path.name, number, game.headers, mates, mined, moves, game, themed))
    return tuple(games)


def idents(kb, rows: list[dict], column: str) -> set:
    iris = {row[column] for row in rows if row[column]}
    if not iris:
        return set()
    values = " ".join(f"<{iri}>" for iri in iris)
    found = kb.query(f"""SELECT ?file ?n WHERE {{ VALUES ?x {{ {values} }}
        {{ ?x cp:hasMatch ?m }} UNION {{ ?x a cp:Match BIND(?x AS ?m) }}
        ?m dcterms:source ?rec . ?rec cp:sourceFile ?file ; cp:gameNumber ?n }}""")
    return {(row["file"].value, int(row["n"].value)) for row in found}


def default(name: str, param: str) -> str:
    return next(p.default for p in load_query(name).params if p.name == param)


def has_name(value: str, wanted: str) -> bool:
    """Every word of ``wanted`` among the name's words, case and accents ignored (the queries' rule), or
    the name is a shortened writing of ``wanted`` (``abbreviates``): the queries follow ``owl:sameAs``."""
    return set(name_key(wanted).split()) <= set(name_key(value).split()) or abbreviates(value, wanted)


def abbreviates(value: str, wanted: str) -> bool:
    """``value`` is ``wanted`` written as TWIC writes names, "Family,Gi": the same family name, and each
    given name cut to its first letters ("Polgar,Ju" is "Polgar, Judit"). The knowledge base links such a
    writing to the one fuller name it fits (``kb.merge.linking``); the demo files hold one Judit Polgár."""
    if "," not in value or "," not in wanted:
        return False
    (family, given), (wanted_family, wanted_given) = (
        [fold(part).split() for part in name.split(",", 1)] for name in (value, wanted)
    )
    return (
        family == wanted_family
        and 0 < len(given) == len(wanted_given)
        and all(full.startswith(short) for short, full in zip(given, wanted_given, strict=True))
    )


def contains(value: str, wanted: str) -> bool:
    return fold(wanted).lower() in fold(value).lower()


#: query -> (column holding the position or game, which games its default finds).
BY_TAG = {
    "positions-of-player": (
        "position",
        lambda g: any(has_name(g.h(c), default("positions-of-player", "player")) for c in ("White", "Black")),
    ),
    "positions-of-player-as-black": (
        "position",
        lambda g: has_name(g.h("Black"), default("positions-of-player-as-black", "player")),
    ),
    "positions-in-year": ("position", lambda g: g.h("Date").startswith(default("positions-in-year", "year") + ".")),
    "positions-of-event": ("position", lambda g: contains(g.h("Event"), default("positions-of-event", "event"))),
    "annotated-by": ("position", lambda g: contains(g.h("Annotator"), default("annotated-by", "annotator"))),
    "sponsored-by": ("match", lambda g: contains(g.h("EventSponsor"), default("sponsored-by", "sponsor"))),
    "positions-by-nic": ("position", lambda g: g.h("NIC") == default("positions-by-nic", "nic")),
    "over-the-board": ("match", lambda g: g.h("Mode").upper() == default("over-the-board", "mode")),
    "positions-by-subvariation": (
        "position",
        lambda g: contains(g.h("SubVariation"), default("positions-by-subvariation", "subvariation")),
    ),
    "winning-in-section": ("position", lambda g: g.won and g.h("Section") == default("winning-in-section", "section")),
    "winning-in-stage": ("position", lambda g: g.won and g.h("Stage") == default("winning-in-stage", "stage")),
    "positions-on-board": ("position", lambda g: g.h("Board") == default("positions-on-board", "board")),
    "winning-with-titled-player": (
        "position",
        lambda g: g.won and default("winning-with-titled-player", "title") in (g.h("WhiteTitle"), g.h("BlackTitle")),
    ),
    "started-after": ("position", lambda g: bool(g.h("Time")) and g.h("Time") > default("started-after", "time")),
    "played-before-utc": (
        "position",
        lambda g: bool(g.h("UTCDate")) and g.h("UTCDate").replace(".", "-") < default("played-before-utc", "date"),
    ),
    "players-rated-above": (
        "position",
        lambda g: any(
            g.h(tag).isdigit() and int(g.h(tag)) > int(default("players-rated-above", "elo"))
            for tag in ("WhiteElo", "BlackElo")
        ),
    ),
    "positions-by-variation": (
        "position",
        lambda g: contains(g.h("Variation"), default("positions-by-variation", "variation")),
    ),
    "fast-time-control": (
        "position",
        lambda g: (
            base_seconds(g.h("TimeControl")) is not None
            and base_seconds(g.h("TimeControl")) <= int(default("fast-time-control", "minutes")) * 60
        ),
    ),
    "played-between-utc": (
        "match",
        lambda g: utc_between(
            g.h("UTCTime"), default("played-between-utc", "from"), default("played-between-utc", "to")
        ),
    ),
    "positions-by-eco": ("position", lambda g: in_eco_range(g.h("ECO"), default("positions-by-eco", "eco"))),
    "positions-with-program": (
        "position",
        lambda g: any(
            g.h(side + "Type").lower() == "program" or "(computer)" in g.h(side).lower() for side in ("White", "Black")
        ),
    ),
    "positions-on-event-day": ("position", lambda g: event_day(g) == int(default("positions-on-event-day", "day"))),
    "player-games": (
        "match",
        lambda g: any(has_name(g.h(c), default("player-games", "player")) for c in ("White", "Black")),
    ),
    "ended-by-resignation": ("position", lambda g: resigned(g)),
    "winning-in-long-games": (
        "position",
        lambda g: (
            g.h("Result") in ("1-0", "0-1")
            and max(g.moves, (int(g.h("PlyCount")) + 1) // 2 if g.h("PlyCount").isdigit() else 0)
            > int(default("winning-in-long-games", "moves"))
        ),
    ),
    "miniatures": (
        "match",
        lambda g: (
            g.h("Result") in ("1-0", "0-1")
            and readable(g)
            and g.game.board() == chess.Board()
            and 0 < g.moves <= int(default("miniatures", "moves"))
        ),
    ),
    "mate-in-n-by-player": (
        "position",
        lambda g: (
            mates_in(g, default("mate-in-n-by-player", "n"))
            and any(has_name(g.h(c), default("mate-in-n-by-player", "player")) for c in ("White", "Black"))
        ),
    ),
}


def base_seconds(time_control: str) -> int | None:
    """The first period's base time in seconds, read as the PGN standard writes TimeControl: "300+2" (300),
    "40/7200:20/3600" (7200 for the first 40 moves); None for "?", "-" (unknown, none) or a sandglass ("*180")."""
    first = time_control.split(":")[0].split("/")[-1].split("+")[0]
    return int(first) if first.isdigit() else None


def in_eco_range(code: str, wanted: str) -> bool:
    """``code`` is the ECO code ``wanted`` or lies in its range ("B00-B99"), compared case-blind."""
    code, wanted = code.upper(), wanted.replace(" ", "").upper()
    if "-" in wanted:
        low, high = wanted.split("-", 1)
        return bool(code) and low <= code <= high
    return code == wanted


def readable(game: DemoGame) -> bool:
    """python-chess can set up the game's start position (the seed's invalid FEN gives no position to list)."""
    try:
        chess.Board(game.h("FEN") or chess.STARTING_FEN)
    except ValueError:
        return False
    return True


def resigned(game: DemoGame) -> bool:
    """The game ended by resignation: its Termination says so ("abandoned" is the PGN standard's word), or it
    was decided (1-0, 0-1) with a normal or no Termination and its moves do not end in checkmate; its start
    position must be one python-chess can set up, or the knowledge base holds no position of it."""
    how = (game.h("Termination") or "normal").lower()
    return readable(game) and (
        "resign" in how
        or how == "abandoned"
        or (game.h("Result") in ("1-0", "0-1") and how == "normal" and not game.mates)
    )


def utc_between(utc_time: str, earliest: str, latest: str) -> bool:
    """The UTCTime tag is a time of day between the two, both included; False when it is missing or unreadable."""
    try:
        return time.fromisoformat(earliest) <= time.fromisoformat(utc_time) <= time.fromisoformat(latest)
    except ValueError:
        return False


def event_day(game: DemoGame) -> int | None:
    """Which day of its event the game was played (1 = the EventDate), when both dates are whole."""
    try:
        played, started = (date.fromisoformat(game.h(tag).replace(".", "-")) for tag in ("Date", "EventDate"))
    except ValueError:
        return None
    return (played - started).days + 1


def mates_in(game: DemoGame, n: str) -> bool:
    """The game holds a mate in ``n``: an exercise whose source says so (``Termination``), or, for a mate in
    one, a mined game whose last move mates (the position before it is the exercise ``--mine`` cuts out)."""
    return game.h("Termination") == f"mate in {n}" or (n == "1" and game.mined and game.mates)


@pytest.mark.parametrize("name", sorted(BY_TAG))
def test_default_rows_are_the_games_python_chess_finds(demo_kb, name):
    column, wanted = BY_TAG[name]
    expected = {(g.file, g.number) for g in demo_games() if wanted(g)}
    assert expected, f"{name}: its default names nothing in the demo files"
    assert idents(demo_kb, run(demo_kb, name), column) == expected


def test_player_emails_are_the_files_na_tags(demo_kb):
    expected = {(name_key(g.h(c)), g.h(c + "NA")) for g in demo_games() for c in ("White", "Black") if g.h(c + "NA")}
    assert expected
    assert {(name_key(r["name"]), r["email"]) for r in run(demo_kb, "player-emails")} == expected


def test_same_position_elsewhere_finds_the_puzzles_twin(demo_kb):
    """The default puzzle's position (after lichess's setup move) is also a game of the tag sample."""
    iri = load_query("same-position-elsewhere").bind({})["position"].value
    puzzle_id = iri.rsplit("lichess-", 1)[1]
    with open(ROOT / "data" / "lichess" / "puzzles.csv", encoding="utf-8", newline="") as handle:
        row = next(r for r in csv.DictReader(handle) if r["PuzzleId"] == puzzle_id)
    board = chess.Board(row["FEN"])
    board.push_uci(row["Moves"].split()[0])
    key = board.fen().split()[:4]  # placement, side, castling, en passant: the position key
    twins = {(g.file, g.number) for g in demo_games() if g.h("FEN") and g.h("FEN").split()[:4] == key}
    assert twins
    assert idents(demo_kb, run(demo_kb, "same-position-elsewhere"), "other") == twins


def test_opening_traps_are_the_trap_files(demo_kb):
    traps = [Path(a).name for args in demo_imports() if "Trap" in args for a in args if a.endswith(".pgn")]
    assert traps
    rows = run(demo_kb, "opening-traps")
    assert len(rows) == len(traps) and all(re.match(r"^[1-8pnbrqkPNBRQK/]+ [wb] ", r["fen"]) for r in rows)


def test_polgar_mates_in_one_with_black(demo_kb):
    """The demo's headline question, "mate-in-one positions from games Polgár played with Black", answered
    by the canned query's defaults: in every mined game where a Polgár has Black and mates with the last move,
    the position before it (Black to move) is a mate-in-one exercise linked to her as Black."""
    assert (default("mate-in-n-by-player", "n"), default("mate-in-n-by-player", "player")) == ("1", "Polgar")
    expected = set()
    for args in demo_imports():
        for path in (Path(a) for a in args if "--mine" in args and a.endswith(".pgn")):
            with open(path, encoding="utf-8") as handle:
                while (game := chess.pgn.read_game(handle)) is not None:
                    end = game.end()
                    if (
                        has_name(game.headers.get("Black", ""), "Polgar")
                        and end.parent is not None
                        and end.board().is_checkmate()
                        and end.board().turn == chess.WHITE
                    ):
                        expected.add(" ".join(end.parent.board().fen().split()[:4]))
    assert expected, "no mined game in which a Polgar mates with Black"
    positions = " ".join(f"<{row['position']}>" for row in run(demo_kb, "mate-in-n-by-player"))
    found = demo_kb.query(f"""SELECT ?fen ?black WHERE {{ VALUES ?x {{ {positions} }}
        ?x cp:fen ?fen ; cp:hasPlayerBlack/cp:nameKey ?black }}""")
    as_black = {" ".join(row["fen"].value.split()[:4]) for row in found if has_name(row["black"].value, "Polgar")}
    assert expected <= as_black


def opening_text(text: str) -> str:
    """An opening name as positions-by-opening compares it: lower case, underscores as spaces, apostrophes
    dropped, Defence spelled Defense."""
    return text.lower().replace("_", " ").replace("'", "").replace("defence", "defense")


def test_positions_by_opening_are_the_games_and_puzzles_naming_it(demo_kb):
    """The default opening's positions: the PGN games whose Opening or Variation tag contains it (or whose
    ECO code it is), and the lichess puzzles whose OpeningTags contain it, read from the CSV demo.sh imports."""
    wanted = default("positions-by-opening", "opening")
    games = {
        (g.file, g.number)
        for g in demo_games()
        if opening_text(wanted) in opening_text(g.h("Opening")) + "\n" + opening_text(g.h("Variation"))
        or g.h("ECO").upper() == wanted.upper()
    }
    with open(ROOT / "data" / "lichess" / "puzzles.csv", encoding="utf-8", newline="") as handle:
        puzzles = {
            row["PuzzleId"]
            for row in csv.DictReader(handle)
            if opening_text(wanted) in opening_text(row["OpeningTags"])
        }
    assert games and puzzles
    rows = run(demo_kb, "positions-by-opening")
    found_puzzles = {row["position"].rsplit("lichess-", 1)[1] for row in rows if "lichess-" in row["position"]}
    game_rows = [row for row in rows if "lichess-" not in row["position"]]
    assert found_puzzles == puzzles
    assert idents(demo_kb, game_rows, "position") == games


# --- the rows are the positions python-chess decides from the board ---------------------------


def every_position(kb) -> dict[str, chess.Board]:
    """Every position the demo KB holds, as python-chess sets up its FEN: the boards the checks below decide
    with python-chess (the population is the store's; which of them a query must list is python-chess's word)."""
    found = kb.query("SELECT ?position ?fen WHERE { ?position a cp:Position ; cp:fen ?fen }")
    return {row["position"].value: chess.Board(row["fen"].value) for row in found}


def test_mate_in_one_is_every_position_python_chess_mates_in_one(demo_kb):
    """Every position with a mating move, and only those; among them each lichess puzzle whose one-move
    solution mates, set up from the CSV demo.sh imports."""
    boards = every_position(demo_kb)
    expected = {iri for iri, board in boards.items() if mates_in_one(board)}
    with open(ROOT / "data" / "lichess" / "puzzles.csv", encoding="utf-8", newline="") as handle:
        puzzles = set()
        for row in csv.DictReader(handle):
            board, moves = chess.Board(row["FEN"]), row["Moves"].split()
            board.push_uci(moves[0])
            if len(moves) == 2 and board.is_checkmate() is False:
                board.push_uci(moves[1])
                if board.is_checkmate():
                    board.pop()
                    puzzles.add(" ".join(board.fen().split()[:4]))
    rows = run(demo_kb, "mate-in-one")
    assert expected and puzzles
    assert {row["position"] for row in rows} == expected
    assert puzzles <= {" ".join(row["fen"].split()[:4]) for row in rows}


def test_no_castling_either_side_is_every_board_without_castling_rights(demo_kb):
    boards = every_position(demo_kb)
    expected = {iri for iri, board in boards.items() if not board.castling_rights}
    assert expected and expected != set(boards)
    assert {row["position"] for row in run(demo_kb, "no-castling-either-side")} == expected


def pieces(board: chess.Board, colour: chess.Color) -> str:
    """One side's pieces as positions-with-material's parameters write them: K Q R B N in that order, a letter
    per piece, then P for one or more pawns."""
    letters = "".join(
        chess.piece_symbol(kind).upper() * len(board.pieces(kind, colour))
        for kind in (chess.KING, chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT)
    )
    return letters + ("P" if board.pieces(chess.PAWN, colour) else "")


def test_positions_with_material_are_the_boards_with_those_pieces(demo_kb):
    white, black = (sorted(default("positions-with-material", side)) for side in ("white", "black"))
    expected = {
        iri
        for iri, board in every_position(demo_kb).items()
        if sorted(pieces(board, chess.WHITE)) == white and sorted(pieces(board, chess.BLACK)) == black
    }
    assert expected
    assert {row["position"] for row in run(demo_kb, "positions-with-material")} == expected


def rook_endgame(*boards: chess.Board) -> bool:
    """Only kings, rooks and pawns, with a rook, on every board given: the position and the one after the first
    solution move (a capture that changes the material on that move does not make an endgame)."""
    return all(
        {piece.piece_type for piece in board.piece_map().values()} - {chess.KING, chess.PAWN} == {chess.ROOK}
        for board in boards
    )


def test_drawn_rook_endgames_are_the_drawn_games_and_equal_puzzles_with_rooks(demo_kb):
    """Drawn games set up (FEN) in a rook endgame, and lichess puzzles of the "equality" theme (no mate or
    winning theme besides) that are rook endgames, by their theme or their board after lichess's setup move."""
    games = set()
    for game in demo_games():
        if game.h("Result") == "1/2-1/2" and game.h("FEN") and readable(game):
            first = game.game.next()
            if rook_endgame(game.game.board(), *([first.board()] if first else [])):
                games.add((game.file, game.number))
    with open(ROOT / "data" / "lichess" / "puzzles.csv", encoding="utf-8", newline="") as handle:
        puzzles = set()
        for row in csv.DictReader(handle):
            themes = set(row["Themes"].split())
            if "equality" not in themes or themes & {"mate", "crushing", "advantage"}:
                continue
            board, moves = chess.Board(row["FEN"]), row["Moves"].split()
            board.push_uci(moves[0])
            after = board.copy()
            after.push_uci(moves[1])
            if "rookEndgame" in themes or rook_endgame(board, after):
                puzzles.add(row["PuzzleId"])
    rows = run(demo_kb, "drawn-rook-endgames")
    assert games
    assert {row["position"].rsplit("lichess-", 1)[1] for row in rows if "lichess-" in row["position"]} == puzzles
    assert idents(demo_kb, [row for row in rows if "lichess-" not in row["position"]], "position") == games


def exercise_lost_by_its_solver(game: DemoGame) -> bool:
    """The game holds an exercise for one side (a set-up position whose side to move mates: in one, by its
    moves, or as its Termination says; or, mined, the position before the game's mating move) and the game's
    result says that side lost."""
    loser = {"1-0": chess.BLACK, "0-1": chess.WHITE}.get(game.h("Result"))
    if loser is None or not readable(game):
        return False
    start = game.game.board()
    if game.h("FEN") and (
        mates_in_one(start)
        or game.h("Termination").startswith("mate in")
        or (game.mates and game.game.end().board().turn != start.turn)
    ):
        return start.turn == loser
    return game.mined and game.mates and game.game.end().board().turn != loser  # the mated side is to move


def test_winning_then_lost_are_the_exercises_whose_solver_lost(demo_kb):
    expected = {(g.file, g.number) for g in demo_games() if exercise_lost_by_its_solver(g)}
    assert expected
    assert idents(demo_kb, run(demo_kb, "winning-then-lost"), "position") == expected


def lichess_white_wins() -> set[str]:
    """The lichess puzzles White solves for a mate or a win: White to move after lichess's setup move, and a
    mate or winning theme among the puzzle's Themes, or a solution that ends in checkmate."""
    with open(ROOT / "data" / "lichess" / "puzzles.csv", encoding="utf-8", newline="") as handle:
        wins = set()
        for row in csv.DictReader(handle):
            board = chess.Board(row["FEN"])
            board.push_uci(row["Moves"].split()[0])
            solver, end = board.turn, board.copy()
            for move in row["Moves"].split()[1:]:
                end.push_uci(move)
            themes = set(row["Themes"].split())
            if solver == chess.WHITE and (
                themes & {"mate", "crushing", "advantage"}
                or end.is_checkmate()
                or any(t.startswith("mateIn") for t in themes)
            ):
                wins.add(row["PuzzleId"])
    return wins


def odds_start(board: chess.Board) -> bool:
    """A set-up board that is a game's start, not an exercise: at least 24 men, at most two of them off their
    home squares (odds games give at most a queen and a rook, or a pawn and a move or two)."""
    home, men = chess.Board(), board.piece_map()
    return len(men) >= 24 and sum(piece != home.piece_at(square) for square, piece in men.items()) <= 2


def white_solves(game: DemoGame) -> bool:
    """The game holds an exercise White solves: a set-up position (no odds game's start) or a trap with White to
    move that mates (in one, by its moves, or as its Termination says), else one from a game White won; or, mined,
    White gives the final mate."""
    if not readable(game):
        return False
    start = game.game.board()
    if (game.h("FEN") and not odds_start(start)) or game.themed:
        solver = (
            start.turn
            if (
                mates_in_one(start)
                or game.h("Termination").startswith("mate in")
                or (game.mates and game.game.end().board().turn != start.turn)
            )
            else None
        )
        return solver == chess.WHITE or (solver is None and game.h("Result") == "1-0")
    return game.mined and game.mates and game.game.end().board().turn == chess.BLACK


def test_winning_for_white_are_the_exercises_white_solves(demo_kb):
    rows = run(demo_kb, "winning-for-white")
    games = {(g.file, g.number) for g in demo_games() if white_solves(g)}
    puzzles = lichess_white_wins()
    assert games and puzzles
    assert {row["position"].rsplit("lichess-", 1)[1] for row in rows if "lichess-" in row["position"]} == puzzles
    assert idents(demo_kb, [row for row in rows if "lichess-" not in row["position"]], "position") == games


@dataclass
class Exercise:
    """An exercise as the demo files set it: a lichess puzzle (its board after lichess's setup move) or a PGN
    game that sets up a position (``FEN``, no game's start), names its themes (a ``Themes`` tag) or is imported
    as a theme (``--theme``); ``key`` is the puzzle id or the game's (file, number)."""

    key: str | tuple[str, int]
    board: chess.Board
    solution: list[chess.Move]
    themes: frozenset[str]  # lichess's Themes; none for a PGN game
    claim: int | None  # the mate the source claims: lichess's mateInN, a "mate in N" Termination, a mating line

    @property
    def solver_moves(self) -> int:
        return (len(self.solution) + 1) // 2


def lichess_rows() -> list[dict[str, str]]:
    with open(ROOT / "data" / "lichess" / "puzzles.csv", encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def mate_claim(board: chess.Board, solution: list[chess.Move], said: int | None) -> int | None:
    """What a source claims: the length it says, else the line's own when it ends in the solver's mate."""
    if said is not None:
        return said
    end = board.copy(stack=False)
    for move in solution:
        end.push(move)
    return (len(solution) + 1) // 2 if end.is_checkmate() and end.turn != board.turn else None


@lru_cache(maxsize=1)
def file_exercises() -> tuple[Exercise, ...]:
    """Every exercise of the demo files, read with python-chess and csv (mined ones are the engine's: not here);
    read once per run, as ``demo_games``."""
    out = []
    for row in lichess_rows():
        board, moves = chess.Board(row["FEN"]), [chess.Move.from_uci(m) for m in row["Moves"].split()]
        board.push(moves[0])
        themes = frozenset(row["Themes"].split())
        said = next((int(t[6:]) for t in themes if re.fullmatch(r"mateIn\d", t)), None)
        out.append(Exercise(row["PuzzleId"], board, moves[1:], themes, mate_claim(board, moves[1:], said)))
    for game in demo_games():
        if not readable(game):
            continue
        start = game.game.board()
        if game.themed or game.h("Themes").strip() or (game.h("FEN") and not odds_start(start)):
            solution = list(game.game.mainline_moves())
            said = re.search(r"mate in (\d+)", game.h("Termination"))
            claim = mate_claim(start, solution, int(said.group(1)) if said else None)
            out.append(Exercise((game.file, game.number), start, solution, frozenset(), claim))
    return tuple(out)


def keys(kb, rows: list[dict], column: str) -> set:
    """The rows' positions as the files name them: a lichess puzzle by its id, a game's start position by
    (file, game number); a position mined from a game (``plyInGame`` above 0) as ("mined", file, number, ply)."""
    found = set()
    for row in rows:
        iri = row[column]
        if "lichess-" in iri:
            found.add(iri.rsplit("lichess-", 1)[1])
            continue
        ply = int(next(iter(kb.query(f"SELECT ?ply WHERE {{ <{iri}> cp:plyInGame ?ply }}")))["ply"].value)
        for game in idents(kb, [row], column):
            found.add(game if ply == 0 else ("mined", *game, ply))
    return found


def is_mined(key) -> bool:
    return isinstance(key, tuple) and key[0] == "mined"


def assert_boards_are_the_files(kb, rows: list[dict], exercises: dict) -> None:
    """Each row's FEN (placement, side, castling, en passant) is the board of its exercise in the files."""
    for row in rows:
        (key,) = keys(kb, [row], "position")
        if not is_mined(key) and key in exercises:
            assert row["fen"].split()[:4] == exercises[key].board.fen().split()[:4], key


#: The longest claimed mate the checks below prove with their own search (``tests.boards.mates_within``).
PROVEN_UP_TO = 5


def test_positions_by_side_and_goal_are_the_proven_mate_claims(demo_kb):
    """White to move and mate: the exercises whose source claims a mate (a lichess mate theme, a "mate in N"
    Termination, a solution that ends in the solver's mate), White to move in the FEN, and the claim proven
    here by an exhaustive python-chess search; every row's side is its FEN's side to move. Set aside: claims
    longer than ``PROVEN_UP_TO`` moves (Legall's trap claims seven; the search here cannot decide them) and
    positions mined by the engine (which moments it cuts out is the engine's word)."""
    assert (default("positions-by-side-and-goal", "side"), default("positions-by-side-and-goal", "goal")) == (
        "white",
        "mate",
    )
    exercises = file_exercises()
    undecided = {e.key for e in exercises if e.claim is not None and e.claim > PROVEN_UP_TO}
    expected = {
        e.key
        for e in exercises
        if e.board.turn == chess.WHITE
        and e.claim is not None
        and e.key not in undecided
        and mates_within(e.board, e.claim, tuple(e.solution))
    }
    rows = run(demo_kb, "positions-by-side-and-goal")
    assert all(chess.Board(row["fen"]).turn == chess.WHITE and row["side"] == "white" for row in rows)
    found = {key for key in keys(demo_kb, rows, "position") if key not in undecided and not is_mined(key)}
    assert_boards_are_the_files(demo_kb, rows, {e.key: e for e in exercises})
    assert expected and undecided
    assert found == expected


CP_IRI = "http://www.semanticweb.org/ontologies/2011/3/ChessPosition.owl#"


@lru_cache(maxsize=1)
def ontology() -> rdflib.Graph:
    """The ontology file as rdflib reads it: the class tree and labels the checks below expect."""
    return rdflib.Graph().parse(ROOT / "ontology" / "chessposition.ttl", format="turtle")


def subclasses(name: str) -> set[str]:
    """The class and every class under it (``rdfs:subClassOf`` followed down), as IRIs."""
    top = rdflib.URIRef(CP_IRI + name)
    return {str(c) for c in ontology().transitive_subjects(rdflib.RDFS.subClassOf, top)}


def lichess_label_classes() -> dict[str, str]:
    """lichess theme -> the class whose ``cp:lichessTheme`` annotation names it, as the ontology file says."""
    return {str(label): str(c) for c, label in ontology().subject_objects(rdflib.URIRef(CP_IRI + "lichessTheme"))}


def labelled(exercises: Iterable[Exercise], class_name: str) -> set:
    """The puzzles lichess labels with a theme of the class or of a class under it."""
    under, classes = subclasses(class_name), lichess_label_classes()  # the file read once, not once per theme
    return {e.key for e in exercises if any(classes.get(t) in under for t in e.themes)}


FORK_VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 100}


def forks(exercise: Exercise) -> bool:
    """A necessary condition of a fork (DoubleAttack's definition): after a solver move that is not the last
    nor a king's, the moved piece attacks at least two enemy pieces that are not pawns, each the king, worth
    more than the mover or defended by nothing (python-chess's attack maps)."""
    board = exercise.board.copy(stack=False)
    for index, move in enumerate(exercise.solution[:-1]):
        mover = board.piece_at(move.from_square)
        board.push(move)
        if index % 2 or mover is None or mover.piece_type == chess.KING:
            continue
        targets = [
            square
            for square in board.attacks(move.to_square)
            if (victim := board.piece_at(square)) is not None
            and victim.color != mover.color
            and victim.piece_type != chess.PAWN
            and (
                FORK_VALUES[victim.piece_type] > FORK_VALUES[mover.piece_type]
                or not board.attackers(victim.color, square)
            )
        ]
        if len(targets) >= 2:
            return True
    return False


def tactic_rows(kb, name: str) -> tuple[list[dict], dict]:
    """The query's rows and the file exercise of each row's position, by ``keys``, whose board must be the row's
    FEN; no row may be a position the engine mined (none is on the demo KB: its solution would be the engine's
    choice, not a file's)."""
    rows = run(kb, name)
    exercises = {e.key: e for e in file_exercises()}
    found = keys(kb, rows, "position")
    assert not [key for key in found if is_mined(key)]
    if rows and "fen" in rows[0]:
        assert_boards_are_the_files(kb, rows, exercises)
    return rows, {key: exercises[key] for key in found}


def test_positions_by_tactic_are_forks_and_every_fork_lichess_labels(demo_kb):
    """DoubleAttack (forks), the default: every row is an exercise of the files whose solution shows a fork by
    ``forks``' necessary condition, and every lichess puzzle labelled with a theme the ontology maps to the class
    ("fork") is a row. Not checked: that the KB finds every fork (a detector's word; ``forks`` is only necessary)."""
    tactic = default("positions-by-tactic", "tactic")
    rows, found = tactic_rows(demo_kb, "positions-by-tactic")
    by_label = labelled(file_exercises(), tactic)
    assert by_label and rows
    assert {row["tactic"] for row in rows} == {CP_IRI + tactic}
    assert all(forks(exercise) for exercise in found.values()), [k for k, e in found.items() if not forks(e)]
    assert by_label <= set(found)


def test_exercises_by_difficulty_are_the_tactics_rated_and_ordered(demo_kb):
    """The default class's exercises (the same positions as positions-by-tactic's), easiest first: a lichess
    puzzle's rating and difficulty are the CSV's Rating; a PGN exercise has no rating and a difficulty on the
    scale's range; every row's solver moves are the solution's in the file. Not checked: the estimate itself."""
    assert default("exercises-by-difficulty", "tactic") == default("positions-by-tactic", "tactic")
    rows, found = tactic_rows(demo_kb, "exercises-by-difficulty")
    ratings = {row["PuzzleId"]: row["Rating"] for row in lichess_rows()}
    assert set(found) == keys(demo_kb, run(demo_kb, "positions-by-tactic"), "position")
    difficulties = [int(row["difficulty"]) for row in rows]
    assert difficulties == sorted(difficulties)
    for row in rows:
        (key,) = keys(demo_kb, [row], "position")
        assert int(row["solverMoves"]) == found[key].solver_moves, key
        if isinstance(key, str):
            assert row["rating"] == row["difficulty"] == ratings[key], key
        else:
            assert row["rating"] is None and 400 <= int(row["difficulty"]) <= 3000, key


def officers(board: chess.Board) -> int:
    """The queens, rooks, bishops and knights on the board, both sides."""
    kinds = (chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT)
    return sum(len(board.pieces(kind, colour)) for kind in kinds for colour in chess.COLORS)


def endgame_by_material(board: chess.Board) -> bool:
    """At most six officers on the board: the phase rule's endgame (PositionEnd's definition in the ontology)."""
    return officers(board) <= 6


def middlegame_by_material(board: chess.Board) -> bool:
    """No endgame, and at most ten officers or a side with fewer than four of its men on its first rank: the
    phase rule's middlegame by material alone (the rule also calls a board where the armies have met one)."""
    back_ranks = ((chess.WHITE, chess.BB_RANK_1), (chess.BLACK, chess.BB_RANK_8))
    sparse = any(chess.popcount(board.occupied_co[colour] & rank) < 4 for colour, rank in back_ranks)
    return not endgame_by_material(board) and (officers(board) <= 10 or sparse)


def test_positions_by_theme_and_phase_are_the_tactics_in_endgames(demo_kb):
    """The default class in the default phase, endgame: exactly positions-by-tactic's positions whose board has
    at most six pieces besides kings and pawns, counted by python-chess."""
    assert default("positions-by-theme-and-phase", "tactic") == default("positions-by-tactic", "tactic")
    assert default("positions-by-theme-and-phase", "phase") == "endgame"
    _, tactics = tactic_rows(demo_kb, "positions-by-tactic")
    rows, found = tactic_rows(demo_kb, "positions-by-theme-and-phase")
    expected = {key for key, exercise in tactics.items() if endgame_by_material(exercise.board)}
    assert expected and expected != set(tactics)
    assert all(row["phase"] == "endgame" and endgame_by_material(chess.Board(row["fen"])) for row in rows)
    assert set(found) == expected


def test_tactics_in_first_round_are_the_round_one_exercises(demo_kb):
    """Round 1, the default: exactly the exercises of the files (``file_exercises``) from games of round 1 (the
    Round tag's first number, else the game number ending the Site), each with the round the file gives; a row
    typed "final" holds a mate its source claims, proven here by python-chess, or an endgame by material. Not
    checked: that a "tactic" row shows its tactic (a detector's word), nor that an exercise of round 1 without a
    tactic or final theme is left out (every one in the demo files has one)."""
    assert default("tactics-in-first-round", "round") == "1"
    games = {(g.file, g.number): g for g in demo_games()}
    exercises = {e.key: e for e in file_exercises() if isinstance(e.key, tuple)}
    expected = {key for key in exercises if round_of(games[key]) == "1"}
    rows = run(demo_kb, "tactics-in-first-round")
    assert expected
    assert keys(demo_kb, rows, "position") == expected
    for row in rows:
        (key,) = keys(demo_kb, [row], "position")
        exercise = exercises[key]
        assert row["round"] == "1" and row["type"] in ("tactic", "final"), key
        if row["type"] == "final":
            proven = exercise.claim is not None and mates_within(
                exercise.board, exercise.claim, tuple(exercise.solution)
            )
            assert proven or endgame_by_material(exercise.board), key


def typed(kb) -> dict[str, set[str]]:
    """Class IRI -> the positions the store types with it (asserted or implied), read once per call."""
    members: dict[str, set[str]] = {}
    for row in kb.query("SELECT DISTINCT ?position ?class WHERE { ?position a ?class ; cp:fen ?fen }"):
        members.setdefault(row["class"].value, set()).add(row["position"].value)
    return members


def members_under(members: dict[str, set[str]], class_iri: str) -> set[str]:
    """The positions typed with the class or with a class the ontology file puts under it."""
    return set().union(*(members.get(c, set()) for c in subclasses(class_iri.rsplit("#", 1)[1])))


def english_label(class_iri: str) -> str | None:
    return next(
        (str(x) for x in ontology().objects(rdflib.URIRef(class_iri), rdflib.RDFS.label) if x.language == "en"), None
    )


def test_class_hierarchy_counts_are_the_ontology_tree_and_its_members(demo_kb):
    """One row per class under Position and direct parent, with its English label, as rdflib reads the ontology
    file; each count is the number of distinct positions typed with the class or a class the file puts under it
    (what those types are worth is the next test's)."""
    graph = ontology()
    expected = set()
    for cls in subclasses("Position"):
        parents = [
            str(p) for p in graph.objects(rdflib.URIRef(cls), rdflib.RDFS.subClassOf) if isinstance(p, rdflib.URIRef)
        ]
        expected |= {(cls, parent, english_label(cls)) for parent in parents if parent != cls}
    rows = run(demo_kb, "class-hierarchy-counts")
    assert {(r["class"], r["parent"], r["name"]) for r in rows} == expected
    members = typed(demo_kb)
    counts = {r["class"]: int(r["positions"]) for r in rows}
    assert counts == {cls: len(members_under(members, cls)) for cls in counts}
    assert counts[CP_IRI + "Exercise"] > 0 and counts[CP_IRI + "PositionEnd"] > 0


#: The mate classes by the length of the mate their members must have, exactly.
MATE_CLASSES = {"MateInOne": 1, "MateInTwo": 2, "MateInThree": 3, "MateInFour": 4, "MateInFive": 5}


def test_class_members_are_what_the_files_and_python_chess_say(demo_kb):
    """The types the counts above count, against the files, for the classes a rule decides (exercises mined by the
    engine are taken as the store lists them, their boards from their FEN):

    * Position: every game python-chess can set up and every lichess row, and the mined exercises;
    * Exercise: exactly ``file_exercises`` (and the mined ones);
    * the phase classes: one per exercise, none elsewhere; PositionEnd exactly the boards with at most six queens,
      rooks, bishops and knights (the phase rule's material count), PositionMiddle every other board the rule's
      material part calls a middlegame (``middlegame_by_material``; its measure of contact is not redone here);
    * every game imported with ``--theme CLASS`` a member of that class;
    * MateInOne … MateInFive: exactly the exercises whose source claims a mate and whose shortest forced mate,
      found by an exhaustive python-chess search within the claim, has that length (claims longer than
      ``PROVEN_UP_TO`` set aside: the search here cannot decide them); a mined member's mate proven the same way;
    * every class the ontology maps a lichess theme to (``cp:lichessTheme``; mate classes aside, decided by proof)
      holds every puzzle lichess labels with it.

    Not checked: the classes only a detector decides (forks, pins …), beyond the lichess labels."""
    members = typed(demo_kb)
    key_of = {iri: keys(demo_kb, [{"position": iri}], "position") for iri in members[CP_IRI + "Position"]}
    exercises = {e.key: e for e in file_exercises()}

    def board(iri: str) -> chess.Board:
        (key,) = key_of[iri]
        if is_mined(key):
            return chess.Board(next(iter(demo_kb.query(f"SELECT ?f WHERE {{ <{iri}> cp:fen ?f }}")))["f"].value)
        return exercises[key].board

    def files_keys(cls: str) -> set:
        return {key for iri in members.get(CP_IRI + cls, set()) for key in key_of[iri]}

    games = {(g.file, g.number) for g in demo_games() if readable(g)}
    mined = {key for key in files_keys("Position") if is_mined(key)}
    assert mined and files_keys("Position") == games | {row["PuzzleId"] for row in lichess_rows()} | mined
    assert files_keys("Exercise") == set(exercises) | mined
    exercise_iris = members[CP_IRI + "Exercise"]
    phases = [members.get(CP_IRI + name, set()) for name in ("PositionBegin", "PositionMiddle", "PositionEnd")]
    assert sorted(iri for phase in phases for iri in phase) == sorted(exercise_iris)
    assert phases[2] == {iri for iri in exercise_iris if endgame_by_material(board(iri))}
    assert {iri for iri in exercise_iris if middlegame_by_material(board(iri))} <= phases[1]
    claims = {key: e for key, e in exercises.items() if e.claim is not None and e.claim <= PROVEN_UP_TO}
    shortest = {key: mate_length(e.board, e.claim or 0, tuple(e.solution)) for key, e in claims.items()}
    for name, length in MATE_CLASSES.items():
        found = files_keys(name)
        assert {key for key in found if not is_mined(key)} == {key for key, n in shortest.items() if n == length}
        for iri in members.get(CP_IRI + name, set()) & {iri for iri, k in key_of.items() if any(map(is_mined, k))}:
            assert mate_length(board(iri), length) == length, iri
    for args in demo_imports():
        if "--theme" in args:
            theme = args[args.index("--theme") + 1]
            files = {Path(a).name for a in args if a.endswith(".pgn")}
            assert files and {(f, n) for f, n in games if f in files} <= files_keys(theme)
    mate_classes = {CP_IRI + name for name in MATE_CLASSES}
    for theme, cls in lichess_label_classes().items():
        if cls not in mate_classes:
            assert {e.key for e in exercises.values() if theme in e.themes} <= files_keys(cls.rsplit("#", 1)[1]), theme


def solver_moves(exercise: Exercise) -> list[tuple[chess.Board, chess.Move]]:
    """Each move of the solver with the board it is played on (the solver moves first, then every other move)."""
    board, out = exercise.board.copy(stack=False), []
    for index, move in enumerate(exercise.solution):
        if index % 2 == 0:
            out.append((board.copy(stack=False), move))
        board.push(move)
    return out


def _after(board: chess.Board, move: chess.Move) -> chess.Board:
    board = board.copy(stack=False)
    board.push(move)
    return board


def _line_end(exercise: Exercise) -> chess.Board:
    board = exercise.board.copy(stack=False)
    for move in exercise.solution:
        board.push(move)
    return board


#: Classes whose definition is a fact of the solver's moves that python-chess states exactly (ontology file).
MOVE_CLASSES: dict[str, Callable[[Exercise], bool]] = {
    "Promotion": lambda e: any(move.promotion for _, move in solver_moves(e)),
    "EnPassant": lambda e: any(board.is_en_passant(move) for board, move in solver_moves(e)),
    "CastlingMove": lambda e: any(board.is_castling(move) for board, move in solver_moves(e)),
    "DoubleCheck": lambda e: any(len(_after(board, move).checkers()) >= 2 for board, move in solver_moves(e)),
    "AdvancedPawn": lambda e: any(
        board.piece_type_at(move.from_square) == chess.PAWN
        and chess.square_rank(move.to_square) in ((6, 7) if board.turn == chess.WHITE else (1, 0))
        for board, move in solver_moves(e)
    ),
    "Drowned": lambda e: bool(e.solution) and _line_end(e).is_stalemate(),
}


@pytest.mark.parametrize("name", sorted(MOVE_CLASSES))
def test_special_move_classes_are_the_exercises_that_play_them(demo_kb, name):
    """A class defined by what the solver plays (a promotion, en passant, castling, a double check, a pawn to its
    seventh or eighth rank, a line ending in stalemate) holds exactly the exercises of the files whose solution
    plays it, by python-chess, and the puzzles lichess labels with it (``cp:lichessTheme``); the counts of
    class-hierarchy-counts and tactics-present rest on these types. Mined exercises are left aside."""
    exercises = file_exercises()
    expected = {e.key for e in exercises if MOVE_CLASSES[name](e)} | labelled(exercises, name)
    members = members_under(typed(demo_kb), CP_IRI + name)
    found = {key for key in keys(demo_kb, [{"position": iri} for iri in members], "position") if not is_mined(key)}
    assert found == expected


def test_tactics_present_are_the_middlegame_classes_with_positions(demo_kb):
    """Every class the ontology file puts under MiddlegameTheme that has positions (typed with it or a class under
    it), with its English label and that number, most first; each at least the puzzles lichess labels with it
    (``cp:lichessTheme``), and DoubleAttack's the rows of positions-by-tactic (whose forks are checked above)."""
    members = typed(demo_kb)
    counts = {
        cls: len(members_under(members, cls)) for cls in subclasses("MiddlegameTheme") - {CP_IRI + "MiddlegameTheme"}
    }
    expected = {(cls, english_label(cls), n) for cls, n in counts.items() if n}
    rows = run(demo_kb, "tactics-present")
    assert [(r["tactic"], r["name"], int(r["positions"])) for r in rows] == sorted(
        expected, key=lambda r: (-r[2], r[0])
    )
    exercises = file_exercises()
    for cls, _, n in expected:
        assert n >= len(labelled(exercises, cls.rsplit("#", 1)[1])), cls
    assert counts[CP_IRI + "DoubleAttack"] == len(run(demo_kb, "positions-by-tactic"))


def test_event_standings_are_the_files_results(demo_kb):
    """Per player of the default event: 1 a win, 0.5 a draw, and the finished and unfinished games, counted
    from the Result tags of the games whose Event contains the text."""
    wanted = default("event-standings", "event")
    table: dict[str, list[float]] = {}
    for game in demo_games():
        if not contains(game.h("Event"), wanted):
            continue
        for side, win in (("White", "1-0"), ("Black", "0-1")):
            score = table.setdefault(game.h(side), [0.0, 0, 0])
            result = game.h("Result")
            if result in ("1-0", "0-1", "1/2-1/2"):
                score[0] += 1.0 if result == win else 0.5 if result == "1/2-1/2" else 0.0
                score[1] += 1
            else:
                score[2] += 1
    rows = run(demo_kb, "event-standings")
    assert table and len(rows) == len(table)
    for name, (points, played, unfinished) in table.items():
        assert [
            (float(r["score"]), int(r["games"]), int(r["unfinished"])) for r in rows if has_name(r["name"], name)
        ] == [(points, played, unfinished)], name


def round_of(game: DemoGame) -> str:
    """The round as the crosstable lists it: the Round tag's first number ("3.1" is round 3), else the game
    number a Site ends with ("New York USA 01"), else "?"."""
    if match := re.match(r"\s*(\d+)", game.h("Round")):
        return str(int(match.group(1)))
    if game.h("Round") in ("", "?", "-") and (match := re.search(r"(?:^|\s)(\d{1,2})\s*$", game.h("Site"))):
        return str(int(match.group(1)))
    return "?"


def test_event_crosstable_is_the_files_games(demo_kb):
    """One cell per game and colour of the default event: round, colour, opponent, result and points, from the
    games' tags."""
    wanted = default("event-crosstable", "event")
    games = [g for g in demo_games() if contains(g.h("Event"), wanted)]
    expected = []
    for game in games:
        result = game.h("Result") if game.h("Result") in ("1-0", "0-1", "1/2-1/2") else "*"
        for side, other, colour, win in (("White", "Black", "white", "1-0"), ("Black", "White", "black", "0-1")):
            points = None if result == "*" else 1.0 if result == win else 0.5 if result == "1/2-1/2" else 0.0
            expected.append((game.h(side), round_of(game), colour, game.h(other), points, result))
    names = {g.h(side) for g in games for side in ("White", "Black")}

    def named(shown: str) -> str:
        (name,) = [n for n in names if has_name(shown, n)]
        return name

    rows = run(demo_kb, "event-crosstable")
    assert expected
    assert sorted(
        (
            (
                named(r["name"]),
                r["round"],
                r["colour"],
                named(r["opponent"]),
                None if r["points"] is None else float(r["points"]),
                r["result"],
            )
            for r in rows
        ),
        key=str,
    ) == sorted(expected, key=str)


def test_positions_matching_pattern_are_the_boards_python_chess_reads(demo_kb):
    """The default pattern "R*7 kg8": a white rook somewhere on the 7th rank and the black king on g8."""
    assert default("positions-matching-pattern", "pattern") == "R*7 kg8"
    expected = {
        iri
        for iri, board in every_position(demo_kb).items()
        if board.pieces(chess.ROOK, chess.WHITE) & chess.BB_RANK_7 and board.king(chess.BLACK) == chess.G8
    }
    assert expected
    assert {row["position"] for row in run(demo_kb, "positions-matching-pattern")} == expected


#: How the demo files write "no one": such a name is no player (the KB links the game to a stand-in).
NO_PLAYER = {"", "?", "nn"}


def written_players(game: DemoGame) -> list[str]:
    """The game's White and Black names as the file writes them, persons only."""
    return [game.h(side) for side in ("White", "Black") if fold(game.h(side)) not in NO_PLAYER]


def test_sources_count_the_files_games_and_players(demo_kb):
    """One source per file demo.sh imports, named by its stem, with the games python-chess can set up in it (a
    lichess CSV: its rows, and no players), and its players: the different persons its White and Black tags
    name, one name written two ways (case, accents, word order: "François André Philidor", "Francois Andre
    Philidor") being one person. Shortened writings ("Polgar,Ju") and spellings with lost letters count as
    names of their own, as a source cannot tell more; the files give no two people one name (FIDE IDs)."""
    games: dict[str, int] = {}
    players: dict[str, set[str]] = {}
    for game in demo_games():
        stem = Path(game.file).stem
        games[stem] = games.get(stem, 0) + readable(game)
        players.setdefault(stem, set()).update(name_key(name) for name in written_players(game))
    with open(ROOT / "data" / "lichess" / "puzzles.csv", encoding="utf-8", newline="") as handle:
        games["puzzles"] = sum(1 for _ in csv.DictReader(handle))
    players["puzzles"] = set()
    assert len(players["odds"]) == 14  # Philidor written four ways, three of them different names
    rows = run(demo_kb, "sources")
    assert {r["name"]: int(r["games"]) for r in rows} == games
    assert {r["name"]: int(r["players"]) for r in rows} == {stem: len(names) for stem, names in players.items()}


@pytest.mark.parametrize("player", [default("players-by-name-variant", "player"), "Polgar", "Philidor"])
def test_name_variants_are_the_files_spellings(demo_kb, player):
    """Every spelling of a player name in the files that contains the word asked for (case and accents
    ignored), with the files that write it; the spellings of one name (the same words, case, accents and order
    ignored) listed under one player, and different names under different players: "Polgar, Judit" and "Judit
    Polgár" together, "Polgar,Ju" on its own (the query does not follow ``owl:sameAs``). The default's rows
    and two players the files write several ways."""
    wanted = fold(player)
    spellings: dict[str, set[tuple[str, str]]] = {}
    for game in demo_games():
        for name in written_players(game):
            if wanted in fold(name).split():
                spellings.setdefault(name_key(name), set()).add((name, Path(game.file).stem))
    found: dict[str, set[tuple[str, str]]] = {}
    for row in run(demo_kb, "players-by-name-variant", {"player": player}):
        found.setdefault(row["who"], set()).add((row["variant"], row["source"]))
    assert spellings
    assert sorted(map(sorted, found.values())) == sorted(map(sorted, spellings.values()))


#: The cities of the USA the demo files name in Site or Event, written here from the files, not from the KB's table.
US_CITIES = r"(new york|philadelphia|st\.? louis|new orleans|palo alto|cambridge springs)\b"


def test_positions_in_country_are_the_games_placed_there(demo_kb):
    """The default country, USA: its code as the EventCountry tag or ending the Site or Event ("New York USA"),
    or a city of the USA named by the Site or Event. The rows are exactly those games."""
    wanted = default("positions-in-country", "country")
    assert wanted == "USA"

    def placed(game: DemoGame) -> bool:
        texts = (game.h("Site"), game.h("Event"))
        return readable(game) and (
            game.h("EventCountry").upper() == wanted
            or any(re.search(rf"\b{wanted}\s*\d*\s*$", text) or re.match(US_CITIES, text.lower()) for text in texts)
        )

    expected = {(g.file, g.number) for g in demo_games() if placed(g)}
    assert expected
    assert idents(demo_kb, run(demo_kb, "positions-in-country"), "position") == expected
