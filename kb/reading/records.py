"""What the readers produce: one ``GameRecord`` per game, independent of the file format.

A record holds what the file said (headers, start position, moves, movetext) and where it was
(file, game number, line), nothing derived. Analysis and mapping work from records only, so PGN,
lichess CSV and any later reader feed the same pipeline.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import lru_cache

import chess


@lru_cache(maxsize=1024)
def _parsed(fen: str) -> chess.Board:
    return chess.Board(fen)


def board_at(fen: str) -> chess.Board:
    """A new board at ``fen``. The importer reads a record's start position several times (the
    exercise rule, the identity rule, the mapping, the analysis); parsing a FEN costs about 20
    times copying a board, so the parse is kept and each caller gets its own copy to change."""
    return _parsed(fen).copy(stack=False)


@dataclass(frozen=True)
class SourceLocation:
    """Where a game came from: the file as the user named it, its 1-based number, its first line."""

    file: str
    game_number: int
    line: int
    #: The record's number in its source, counted over all the source's files (and appends) in
    #: order: what names its ``SourceRecord`` (two files of one source both have a game 1). 0 when
    #: read outside a source (``read_records``): the game number then.
    record: int = 0

    @property
    def record_number(self) -> int:
        return self.record or self.game_number


@dataclass(frozen=True)
class LichessPuzzle:
    """The lichess puzzle CSV fields that are kept beside the position (format: shared data README)."""

    puzzle_id: str
    rating: int | None
    rating_deviation: int | None
    popularity: int | None
    nb_plays: int | None
    themes: tuple[str, ...]
    game_url: str | None
    opening_tags: tuple[str, ...]
    setup_move_uci: str
    fen_before_setup: str = ""


@dataclass
class GameRecord:
    """One game or exercise as read from a file.

    ``start_fen`` is the position the exercise starts from (the ``FEN`` tag even without ``SetUp``,
    the standard start otherwise, or for a lichess puzzle the position *after* its setup move).
    ``solution`` is the main line from there in UCI; ``movetext`` is the text stored as the
    position's ``move`` (the solution as the file wrote it, comments and variations included).
    """

    location: SourceLocation
    headers: dict[str, str]
    start_fen: str
    solution: list[chess.Move]
    movetext: str
    puzzle: LichessPuzzle | None = None
    comments: dict[int, str] = field(default_factory=dict)

    def start_board(self) -> chess.Board:
        """The exercise's board; for a lichess puzzle with the opponent's setup move on its move stack
        (detectors ask what that move did: a recapture, a capture of a defender …)."""
        if self.puzzle is not None and self.puzzle.fen_before_setup:
            board = board_at(self.puzzle.fen_before_setup)
            board.push(chess.Move.from_uci(self.puzzle.setup_move_uci))
            return board
        return board_at(self.start_fen)

    def start_key(self) -> tuple[str, ...]:
        """What identifies ``start_board()`` without writing its FEN again: equal keys give equal boards
        (move stacks included), so work remembered per board (``kb.pipeline.AnalysisMemo``) can be
        found by it."""
        if self.puzzle is not None and self.puzzle.fen_before_setup:
            return (self.puzzle.fen_before_setup, self.puzzle.setup_move_uci)
        return (self.start_fen,)
