"""Mining exercises from ordinary games with a UCI engine (``chesskb import --mine``).

A teacher's archive of games holds exercises nobody has cut out yet: moments where the side to
move has a forced mate, or where the opponent's last move lost decisively and the game shows the
punishment. The engine looks at every position of the game once; a moment becomes an exercise
only when *the game itself* played the engine's best move there, so the solution is what
happened, checked by the engine, never a line the players did not find.

* mate: the engine sees mate in N (N <= ``MAX_MATE``) for the side to move and the game's moves
  follow the engine's mating line until mate; the solution is that line.
* decisive gain: the opponent's last move swung the evaluation by at least ``SWING_CP`` towards
  the side to move, who now stands at least ``WINNING_CP`` better; the game's moves follow the
  engine's best move for one to ``MAX_SOLVER_MOVES`` solver moves and win at least ``MIN_GAIN``
  points of material. The solution is that stretch of the game.

Both kinds skip the moves of a sequence already taken, so one combination is one exercise. A moment at
the game's start (ply 0) is the record's own position, stated once by the importer: it is not mined
again (``kb.pipeline``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Literal

import chess
import chess.engine

from chesskb.kb.analysis.board_facts import material
from chesskb.kb.analysis.engine import EngineMissing, engine_path

__all__ = ["EngineMissing", "MinedExercise", "engine_path", "material", "mine_game"]

MAX_MATE = 5
SWING_CP = 300
WINNING_CP = 200
MAX_SOLVER_MOVES = 3
MIN_GAIN = 2
#: Search depth per position: enough for the mates and tactics a lesson uses, fast on two cores.
DEPTH = int(os.environ.get("CHESSKB_MINE_DEPTH", "12"))


@dataclass(frozen=True)
class MinedExercise:
    """An exercise found in a game: the position before ``ply`` and its solution from there."""

    ply: int
    fen: str
    solution: tuple[chess.Move, ...]
    goal: Literal["mate", "win"]


@dataclass(frozen=True)
class _Seen:
    best: chess.Move | None
    cp: int | None  # from the side to move's point of view; None when a mate is seen
    mate: int | None  # moves to mate for the side to move (negative: being mated)


def _look(engine: chess.engine.SimpleEngine, board: chess.Board, game: object = None) -> _Seen:
    # without the move stack: a null move in it ('--' in PGN) cannot be sent to a UCI engine
    info = engine.analyse(board.copy(stack=False), chess.engine.Limit(depth=DEPTH), game=game)
    score = info["score"].pov(board.turn)
    pv = info.get("pv") or []
    return _Seen(pv[0] if pv else None, score.score(), score.mate())


def mine_game(engine: chess.engine.SimpleEngine, start: chess.Board, moves: list[chess.Move]) -> list[MinedExercise]:
    """Every exercise the game ``moves`` (from ``start``) shows; see the module docstring."""
    boards = [start.copy(stack=False)]
    for move in moves:
        board = boards[-1].copy(stack=False)
        board.push(move)
        boards.append(board)
    game = object()  # the hash table starts empty for every game: the same game gives the same exercises
    seen = [_look(engine, board, game) for board in boards[:-1]]
    found: list[MinedExercise] = []
    ply = 0
    while ply < len(moves):
        exercise = _mate_at(boards, moves, seen, ply) or _gain_at(boards, moves, seen, ply)
        if exercise is None:
            ply += 1
            continue
        found.append(exercise)
        ply += len(exercise.solution)
    return found


def _mate_at(boards: list[chess.Board], moves: list[chess.Move], seen: list[_Seen], ply: int) -> MinedExercise | None:
    mate = seen[ply].mate
    if mate is None or not 0 < mate <= MAX_MATE:
        return None
    length = 2 * mate - 1
    if ply + length > len(moves) or not boards[ply + length].is_checkmate():
        return None
    if not all(_mates_as_fast(boards, moves, seen, p) for p in range(ply, ply + length, 2)):
        return None
    return MinedExercise(ply, boards[ply].fen(), tuple(moves[ply : ply + length]), "mate")


def _mates_as_fast(boards: list[chess.Board], moves: list[chess.Move], seen: list[_Seen], ply: int) -> bool:
    """The game's move at ``ply`` is the engine's, or another move that mates as fast (mates often
    have twins: the game's choice is as right as the engine's)."""
    if seen[ply].best == moves[ply] or boards[ply + 1].is_checkmate():
        return True
    mate = seen[ply].mate
    return mate is not None and ply + 1 < len(seen) and seen[ply + 1].mate == -(mate - 1)


def _gain_at(boards: list[chess.Board], moves: list[chess.Move], seen: list[_Seen], ply: int) -> MinedExercise | None:
    now = seen[ply]
    if ply == 0 or now.cp is None or now.cp < WINNING_CP or now.best != moves[ply]:
        return None
    before = seen[ply - 1]  # the opponent was to move: the solver's view is the negation
    if before.mate is not None or before.cp is None or now.cp - (-before.cp) < SWING_CP:
        return None
    solver = boards[ply].turn

    def gain(board: chess.Board) -> int:
        return (material(board, solver) - material(board, not solver)) - (
            material(boards[ply], solver) - material(boards[ply], not solver)
        )

    for solver_move in range(MAX_SOLVER_MOVES):
        p = ply + 2 * solver_move
        if p >= len(moves) or seen[p].best != moves[p]:
            return None
        end = p + 1
        # won material that the opponent's reply does not win back (else play on: a recapture)
        if gain(boards[end]) >= MIN_GAIN and (end == len(moves) or gain(boards[end + 1]) >= MIN_GAIN):
            return MinedExercise(ply, boards[ply].fen(), tuple(moves[ply:end]), "win")
    return None
