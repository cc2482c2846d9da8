"""The competency fixture: a store and an independent reading of the same files.

``tests/fixtures/competency.pgn`` holds five hand-written games carrying every tag the competency
questions need (EventSponsor, Section, Stage, Board, NIC, UTCDate/UTCTime, TimeControl, Mode,
Annotator, titles, e-mails, a program player) followed by the six real games of
``data/games/kasparov-deep-blue-1997.pgn`` (copied verbatim; provenance in data/README.md).
``competency-traps.pgn`` is one 18th-century trap (Légal's mate) imported with ``--theme Trap``;
the real lichess sample ``data/lichess/puzzles.csv`` supplies the theme classes.

The helpers here read the files with python-chess and the csv module, *not* through the store,
so the tests' expected answers are worked out from the fixture rather than copied from a query.
"""

from __future__ import annotations

import csv
import io
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.pgn

from chesskb.kb.analysis import analyse
from chesskb.kb.analysis.engine import Engine
from chesskb.kb.analysis.themes import LICHESS_THEME_CLASSES, ancestors, mate_in_class, type_position_for
from tests.conftest import DATA, run_cli

FIXTURES = Path(__file__).resolve().parent / "fixtures"
COMPETENCY = FIXTURES / "competency.pgn"
TRAPS = FIXTURES / "competency-traps.pgn"
PUZZLES = DATA / "lichess" / "puzzles.csv"

ORDER = (chess.KING, chess.QUEEN, chess.ROOK, chess.BISHOP, chess.KNIGHT, chess.PAWN)


def build_store(path: Path) -> Path:
    result = run_cli("import", str(COMPETENCY), str(PUZZLES), store=path)
    assert result.exit_code == 0, result.output
    result = run_cli("import", "--theme", "Trap", str(TRAPS), store=path)
    assert result.exit_code == 0, result.output
    return path


def with_ancestors(classes: set[str]) -> set[str]:
    return classes | {a for name in classes for a in ancestors(name)}


@dataclass
class Game:
    number: int  # 1-based game number in its file
    file: str
    headers: dict[str, str]
    start: chess.Board
    end: chess.Board
    plies: int
    asserted: set[str]  # classes the file's Termination and the analysis give the start position
    facts: dict
    exercise: bool = True  # False for an ordinary game from the initial position (kb/analysis/exercises.py)

    @property
    def classes(self) -> set[str]:
        return with_ancestors(self.asserted)

    @property
    def type_position(self) -> str:
        return type_position_for(self.asserted or {"Position"})

    @property
    def ident(self) -> tuple[str, object]:
        return (self.file, self.number)

    def h(self, tag: str) -> str:
        return self.headers.get(tag, "")


def read_games(path: Path = COMPETENCY, themes: tuple[str, ...] = (), *, engine: Engine | None = None) -> list[Game]:
    """The games of ``path`` as python-chess reads them; ``engine``: the one the importer would use."""
    games = []
    with open(path, encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            board = game.board()
            start = board.copy()
            moves = list(game.mainline_moves())
            for move in moves:
                board.push(move)
            # An exercise sets up a position (these fixtures' FEN games) or is named by --theme; the
            # Kasparov games start from the initial position: games, whose start carries no theme.
            exercise = bool(themes) or start.board_fen() != chess.Board().board_fen()
            analysis = analyse(start.copy(), moves, exercise=exercise, engine=engine)
            asserted = set(themes) | set(analysis.classes)
            termination = game.headers.get("Termination", "")
            if exercise and termination.startswith("mate in "):
                asserted.add(mate_in_class(int(termination.split()[-1])))
            games.append(
                Game(
                    len(games) + 1,
                    path.name,
                    dict(game.headers),
                    start,
                    board,
                    len(moves),
                    asserted,
                    dict(analysis.facts),
                    exercise,
                )
            )
    return games


@dataclass
class Puzzle:
    puzzle_id: str
    board: chess.Board  # after the opponent's setup move: the solver is to move
    solution_plies: int
    rating: int
    themes: set[str]
    mate_in: int | None = None  # the solver's moves when the given solution ends in mate
    asserted: set[str] | None = None  # lichess themes' classes and the analysis's classes
    facts: dict | None = None

    @property
    def classes(self) -> set[str]:
        return with_ancestors(self.asserted or set())

    @property
    def ident(self) -> tuple[str, object]:
        return ("puzzle", self.puzzle_id)


def read_puzzles(*, engine: Engine | None = None) -> list[Puzzle]:
    out = []
    for row in csv.DictReader(io.StringIO(PUZZLES.read_text(encoding="utf-8"))):
        board = chess.Board(row["FEN"])
        moves = row["Moves"].split()
        board.push_uci(moves[0])
        end = board.copy()
        for move in moves[1:]:
            end.push_uci(move)
        mate_in = len(moves) // 2 if end.is_checkmate() and len(moves) % 2 == 0 else None
        themes = set(row["Themes"].split())
        analysis = analyse(board.copy(), [chess.Move.from_uci(m) for m in moves[1:]], engine=engine)
        asserted = {LICHESS_THEME_CLASSES[t] for t in themes if t in LICHESS_THEME_CLASSES} | set(analysis.classes)
        out.append(
            Puzzle(
                row["PuzzleId"],
                board,
                len(moves) - 1,
                int(row["Rating"]),
                themes,
                mate_in,
                asserted,
                dict(analysis.facts),
            )
        )
    return out


def signature(board: chess.Board, color: chess.Color) -> str:
    return "".join(chess.piece_symbol(p).upper() * len(board.pieces(p, color)) for p in ORDER)
