"""Zugzwang: the opponent must move, and every move it has worsens its position.

Lichess's description: "The opponent is limited in the moves they can make, and all moves worsen
their position." Its tagger asks an engine whether the side to move would score better if it
could pass (a null move). We ask the same question without an engine, and so more narrowly: after
a solver move that is no check, the opponent has few moves (``MAX_REPLIES``, lichess's limit),
and *each* of them either loses material at once (the solver then wins a piece or a pawn by a
capture: a man left undefended, or one worth more than its taker) or allows a mate in one, while
passing would lose nothing (no such capture, no mate). That the pass is safe is what tells a
zugzwang from a plain threat: the solver's move threatened nothing, the obligation to move does
the damage (lichess 0AC8g: 63...Ka5, White's king must leave the pawn a4). Zugzwangs whose loss
lies deeper than one capture (a king that must give ground in a pawn race) are beyond this test.
"""

from __future__ import annotations

import chess

from chesskb.kb.analysis.line import VALUES, Line, mates_in_one, passed

#: Lichess's tagger considers a position for zugzwang only when the side to move has at most this
#: many legal moves ("limited in the moves they can make").
MAX_REPLIES = 15


def zugzwang(line: Line) -> bool:
    """Some solver move (no check, no mate) leaves the opponent in zugzwang as defined above."""
    for ply in line.solver_plies:
        board = ply.after
        if board.is_check() or board.is_game_over():
            continue
        replies = list(board.legal_moves)
        if len(replies) > MAX_REPLIES:
            continue
        if_passed = passed(board)
        if (
            _best_gain(if_passed) == 0
            and all(_loses(board, reply) for reply in replies)
            and not mates_in_one(if_passed)
        ):
            return True
    return False


def _loses(board: chess.Board, reply: chess.Move) -> bool:
    """After ``reply`` the solver wins more than the reply took, or mates in one."""
    taken = board.piece_type_at(reply.to_square) or (chess.PAWN if board.is_en_passant(reply) else None)
    probe = board.copy(stack=False)
    probe.push(reply)
    return _best_gain(probe) > (VALUES[taken] if taken else 0) or mates_in_one(probe)


def _best_gain(board: chess.Board) -> int:
    """The most the side to move wins by one capture, counted as the usual quick exchange: the
    whole man when it cannot be taken back (no legal recapture: a king may not step into check,
    a pinned piece may not leave its line), else what it is worth above the piece that takes it."""
    best = 0
    for move in board.generate_legal_captures():
        victim = chess.PAWN if board.is_en_passant(move) else board.piece_type_at(move.to_square)
        taker = board.piece_type_at(move.from_square)
        if victim is None or taker is None or VALUES[victim] <= best:
            continue
        board.push(move)
        retaken = any(board.generate_legal_captures(to_mask=chess.BB_SQUARES[move.to_square]))
        board.pop()
        best = max(best, VALUES[victim] - VALUES[taker] if retaken else VALUES[victim])
    return best
