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
