"""The solution line as detectors see it: every board along it, who solves, what each move did.

Detectors ask the same questions again and again (the board before and after a move, whether it
captured, gave check, which piece moved); ``Line`` replays the solution once and answers them all.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from functools import cached_property

import chess

from chesskb.kb.analysis.board_facts import material

#: Piece values for material questions; the king is worth more than anything it can be traded for.
VALUES = {chess.PAWN: 1, chess.KNIGHT: 3, chess.BISHOP: 3, chess.ROOK: 5, chess.QUEEN: 9, chess.KING: 99}


@dataclass(frozen=True)
class Ply:
    """One move of the line with the boards around it."""

    index: int
    move: chess.Move
    before: chess.Board
    after: chess.Board
    by_solver: bool

    @cached_property
    def piece(self) -> chess.Piece:
        piece = self.before.piece_at(self.move.from_square)
        assert piece is not None
        return piece

    @cached_property
    def captured(self) -> chess.Piece | None:
        if self.before.is_en_passant(self.move):
            return chess.Piece(chess.PAWN, not self.before.turn)
        return self.before.piece_at(self.move.to_square)

    @cached_property
    def is_check(self) -> bool:
        return self.after.is_check()

    @property
    def is_capture(self) -> bool:
        return self.captured is not None

    @cached_property
    def checkers(self) -> chess.SquareSet:
        return self.after.checkers()


class Line:
    """The position and its (legal) solution, replayed once."""

    def __init__(self, board: chess.Board, solution: list[chess.Move]) -> None:
        self.start = board.copy(stack=False)
        self.solver = board.turn
        #: the opponent's move that led to the position, when the board knows it (lichess setup move)
        self.previous: Ply | None = None
        if board.move_stack:
            before = board.copy()
            move = before.pop()
            self.previous = Ply(-1, move, before.copy(stack=False), self.start, False)
        self.plies: list[Ply] = []
        current = self.start
        for index, move in enumerate(solution):
            after = current.copy(stack=False)
            after.push(move)
            self.plies.append(Ply(index, move, current, after, current.turn == self.solver))
            current = after
        self.end = current

    @property
    def solver_plies(self) -> list[Ply]:
        return [p for p in self.plies if p.by_solver]

    @cached_property
    def ends_in_mate(self) -> bool:
        return bool(self.plies) and self.end.is_checkmate() and self.plies[-1].by_solver

    def balance(self, board: chess.Board) -> int:
        """Material (P1 N3 B3 R5 Q9) of the solver minus the opponent's on ``board``."""
        return material(board, self.solver) - material(board, not self.solver)


def _xray_attackers(board: chess.Board, square: chess.Square, by: chess.Color) -> chess.SquareSet:
    """Sliders of ``by`` that attack ``square`` through one of their own sliders on the same line."""
    found = chess.SquareSet()
    for front in board.attackers(by, square):
        piece = board.piece_at(front)
        if piece is None or piece.piece_type not in (chess.BISHOP, chess.ROOK, chess.QUEEN):
            continue
        without = board.copy(stack=False)
        without.remove_piece_at(front)
        for behind in without.attackers(by, square):
            if behind != front and chess.square_distance(behind, square) > chess.square_distance(front, square):
                found.add(behind)
    return found


def mating_moves(board: chess.Board, candidate: Callable[[chess.Move], bool] | None = None) -> Iterator[chess.Move]:
    """The side to move's mating moves (among the moves ``candidate`` accepts), lazily. One push per
    move: python-chess's is_checkmate tests check first, so a quiet move costs no move generation."""
    for move in board.legal_moves:
        if candidate is None or candidate(move):
            board.push(move)
            mate = board.is_checkmate()
            board.pop()
            if mate:
                yield move


def mates_in_one(board: chess.Board, candidate: Callable[[chess.Move], bool] | None = None) -> bool:
    """Has the side to move a mating move (among the moves ``candidate`` accepts)?"""
    return next(mating_moves(board, candidate), None) is not None


def passed(board: chess.Board) -> chess.Board:
    """A copy of ``board`` as if the side to move passed (a null move): what the other side threatens."""
    probe = board.copy(stack=False)
    probe.push(chess.Move.null())
    return probe


def orthogonal(a: chess.Square, b: chess.Square) -> bool:
    """``a`` and ``b`` share a rank or a file (a rook's line), rather than a diagonal or no line."""
    return chess.square_file(a) == chess.square_file(b) or chess.square_rank(a) == chess.square_rank(b)


def is_hanging(board: chess.Board, square: chess.Square) -> bool:
    """The piece on ``square`` is not defended by its own side."""
    piece = board.piece_at(square)
    return (
        piece is not None
        and not board.is_attacked_by(piece.color, square)
        and not _xray_attackers(board, square, piece.color)
    )


def in_bad_spot(board: chess.Board, square: chess.Square) -> bool:
    """Attacked, and either undefended or attackable by something cheaper."""
    piece = board.piece_at(square)
    if piece is None:
        return False
    attackers = board.attackers(not piece.color, square)
    if not attackers:
        return False
    if is_hanging(board, square):
        return True
    return any(VALUES[board.piece_type_at(a) or chess.KING] < VALUES[piece.piece_type] for a in attackers)
