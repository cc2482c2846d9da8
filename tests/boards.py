"""What python-chess decides about a board, for tests that check the KB's answers independently of it."""

from __future__ import annotations

import chess


def mates_in_one(board: chess.Board) -> bool:
    """Some legal move of the side to move gives checkmate (python-chess's own move generation)."""
    for move in list(board.legal_moves):
        board.push(move)
        mate = board.is_checkmate()
        board.pop()
        if mate:
            return True
    return False


def _checks_first(board: chess.Board, hint: chess.Move | None) -> list[chess.Move]:
    """The legal moves, the hint first, then checks, then captures: the order only makes a proof quicker,
    every move is still tried before a side is said to have no answer."""
    moves = list(board.legal_moves)
    return sorted(moves, key=lambda m: (m != hint, not board.gives_check(m), not board.is_capture(m)))


def mates_within(board: chess.Board, moves: int, hint: tuple[chess.Move, ...] = ()) -> bool:
    """The side to move mates in at most ``moves`` moves whatever the other side answers: python-chess's own
    move generation, every answer tried (an exhaustive AND-OR search, no engine, no budget). ``hint`` (a
    solution line, the solver's and the answers' moves) is tried first: it makes a true claim quick to prove
    and changes no verdict."""
    if moves <= 0:
        return False
    first = hint[0] if hint else None
    for move in _checks_first(board, first) if moves > 1 else (m for m in board.legal_moves if board.gives_check(m)):
        board.push(move)
        try:
            if board.is_checkmate():
                return True
            if moves > 1 and _every_answer_loses(board, moves - 1, hint[1:] if move == first else ()):
                return True
        finally:
            board.pop()
    return False


def _every_answer_loses(board: chess.Board, moves: int, hint: tuple[chess.Move, ...]) -> bool:
    """Every legal answer of the side to move (none: stalemate, no mate) leaves a mate in ``moves``."""
    answers = list(board.legal_moves)
    if not answers:
        return False
    for answer in answers:
        board.push(answer)
        try:
            if not mates_within(board, moves, hint[1:] if hint and answer == hint[0] else ()):
                return False
        finally:
            board.pop()
    return True


def mate_length(board: chess.Board, most: int, hint: tuple[chess.Move, ...] = ()) -> int | None:
    """The fewest moves in which the side to move forces mate, up to ``most``; None when it cannot in ``most``."""
    return next((n for n in range(1, most + 1) if mates_within(board, n, hint)), None)
