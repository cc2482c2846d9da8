"""Mate patterns, read off the final (checkmate) position of the line.

Each pattern is decided by where the mated king stands, what boxes it in (its own pieces or
attacked squares) and which piece gives the mate — the textbook definitions (seed-000 §6 and the
usual chess literature), checked with python-chess's attack maps.
"""

from __future__ import annotations

import chess

from ..line import Line


def mate_patterns(line: Line) -> list[str]:
    if not line.ends_in_mate:
        return []
    board = line.end
    mated = board.turn
    king = board.king(mated)
    assert king is not None
    checkers = board.checkers()
    found = []
    for name, test in (("SmotheredMate", _smothered), ("BackRankMate", _back_rank), ("AnastasiaMate", _anastasia),
                       ("ArabianMate", _arabian), ("HookMate", _hook), ("BodenMate", _boden),
                       ("DoubleBishopMate", _double_bishop), ("DovetailMate", _dovetail)):
        if test(board, king, mated, checkers):
            found.append(name)
    return found


def _neighbours(king: chess.Square) -> chess.SquareSet:
    return chess.SquareSet(chess.BB_KING_ATTACKS[king])


def _types(board: chess.Board, squares: chess.SquareSet) -> list[int]:
    return [board.piece_type_at(s) for s in squares if board.piece_type_at(s) is not None]  # type: ignore[misc]


def _smothered(board: chess.Board, king: chess.Square, mated: chess.Color, checkers: chess.SquareSet) -> bool:
    """A knight mates a king whose every neighbouring square holds one of its own pieces."""
    return _types(board, checkers) == [chess.KNIGHT] and all(
        board.color_at(s) == mated for s in _neighbours(king))


def _back_rank(board: chess.Board, king: chess.Square, mated: chess.Color, checkers: chess.SquareSet) -> bool:
    """Mate on the back rank: the checker stands on the king's first rank, and every square in front of
    the king holds one of its own pieces that the solver does not attack (the king walled itself in)."""
    back = 0 if mated == chess.WHITE else 7
    if chess.square_rank(king) != back or not any(chess.square_rank(c) == back for c in checkers):
        return False
    front_rank = back + (1 if mated == chess.WHITE else -1)
    front = [chess.square(f, front_rank) for f in range(8) if abs(f - chess.square_file(king)) <= 1]
    return all(board.color_at(s) == mated and not board.is_attacked_by(not mated, s) for s in front)


def _anastasia(board: chess.Board, king: chess.Square, mated: chess.Color, checkers: chess.SquareSet) -> bool:
    """King on the edge file, mated along it by a rook or queen; a knight guards the escape squares,
    one of the king's own pieces blocks the other side."""
    file = chess.square_file(king)
    if file not in (0, 7) or len(checkers) != 1:
        return False
    checker = next(iter(checkers))
    if chess.square_file(checker) != file or board.piece_type_at(checker) not in (chess.ROOK, chess.QUEEN):
        return False
    inward = 1 if file == 0 else -1
    knights = board.pieces(chess.KNIGHT, not mated)
    covered_by_knight = any(board.attackers(not mated, s) & knights
                            for s in _neighbours(king) if chess.square_file(s) == file + inward)
    own_blocker = board.color_at(chess.square(file + inward, chess.square_rank(king))) == mated
    return covered_by_knight and own_blocker


def _arabian(board: chess.Board, king: chess.Square, mated: chess.Color, checkers: chess.SquareSet) -> bool:
    """King in a corner, a rook next to it mates, protected by a knight (which also covers the diagonal)."""
    if king not in (chess.A1, chess.H1, chess.A8, chess.H8) or len(checkers) != 1:
        return False
    rook = next(iter(checkers))
    if board.piece_type_at(rook) != chess.ROOK or chess.square_distance(rook, king) != 1:
        return False
    return bool(board.attackers(not mated, rook) & board.pieces(chess.KNIGHT, not mated))


def _hook(board: chess.Board, king: chess.Square, mated: chess.Color, checkers: chess.SquareSet) -> bool:
    """A rook next to the king mates, defended by a knight that a pawn defends."""
    if len(checkers) != 1:
        return False
    rook = next(iter(checkers))
    if board.piece_type_at(rook) != chess.ROOK or chess.square_distance(rook, king) != 1:
        return False
    for knight in board.attackers(not mated, rook) & board.pieces(chess.KNIGHT, not mated):
        if board.attackers(not mated, knight) & board.pieces(chess.PAWN, not mated):
            return True
    return False


def _bishop_net(board: chess.Board, king: chess.Square, mated: chess.Color) -> tuple[bool, set[bool]]:
    """Every escape square attacked only by bishops (two of them); and which side of the king's file they stand."""
    bishops = board.pieces(chess.BISHOP, not mated)
    if len(bishops) < 2:
        return False, set()
    used = set()
    for square in list(_neighbours(king)) + [king]:
        if board.color_at(square) == mated and square != king:
            continue
        attackers = board.attackers(not mated, square)
        if not attackers:
            continue
        if not attackers.issubset(bishops):
            return False, set()
        used |= set(attackers)
    if len(used) < 2:
        return False, set()
    return True, {chess.square_file(b) < chess.square_file(king) for b in used}


def _boden(board: chess.Board, king: chess.Square, mated: chess.Color, checkers: chess.SquareSet) -> bool:
    """Two bishops on criss-crossing diagonals, from both sides of the king."""
    net, sides = _bishop_net(board, king, mated)
    return net and len(sides) == 2


def _double_bishop(board: chess.Board, king: chess.Square, mated: chess.Color, checkers: chess.SquareSet) -> bool:
    """Two bishops on adjacent diagonals, from the same side."""
    net, sides = _bishop_net(board, king, mated)
    return net and len(sides) == 1


def _dovetail(board: chess.Board, king: chess.Square, mated: chess.Color, checkers: chess.SquareSet) -> bool:
    """The queen mates from a diagonally adjacent square; the king's two flight squares behind it are
    blocked by its own pieces (the dovetail's shape)."""
    if len(checkers) != 1:
        return False
    queen = next(iter(checkers))
    diagonal = chess.square_file(queen) != chess.square_file(king) and \
        chess.square_rank(queen) != chess.square_rank(king)
    if board.piece_type_at(queen) != chess.QUEEN or chess.square_distance(queen, king) != 1 or not diagonal:
        return False
    if chess.square_file(king) in (0, 7) or chess.square_rank(king) in (0, 7):
        return False
    for square in _neighbours(king):
        if board.color_at(square) == mated:
            continue
        attackers = board.attackers(not mated, square)
        if attackers and attackers != chess.SquareSet([queen]):
            return False
        if not attackers and board.piece_at(square) is None:
            return False
    return True
