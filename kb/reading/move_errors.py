"""How an illegal move is named: its move number, the move as written, the side to move and the position.

One wording for ``chesskb validate`` (``kb.checks.pgn_lint``) and ``chesskb import`` (``kb.reading.pgn``),
so a learner who sees an import error can find the move in the file without running the validator
(python-chess's own "illegal san: 'Ke3' in …" names neither the move number nor where it is written).
"""

from __future__ import annotations

import chess


def side_name(board: chess.Board) -> str:
    return "White" if board.turn == chess.WHITE else "Black"


def move_number(board: chess.Board) -> str:
    """``2.`` before a White move, ``2...`` before a Black one (PGN's own numbering)."""
    return f"{board.fullmove_number}{'.' if board.turn == chess.WHITE else '...'}"


def illegal_move_message(written: str, board: chess.Board) -> str:
    """``move 2. 'Ke3' is illegal in this position (White to move, FEN)``: ``board`` is the position the
    move was played in, ``written`` the move as the file spells it."""
    return (
        f"move {move_number(board)} {written!r} is illegal in this position ({side_name(board)} to move, {board.fen()})"
    )
