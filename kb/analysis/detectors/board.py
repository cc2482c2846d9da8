"""Special moves, attacks on the king, how the line ends, and endgames by material."""

from __future__ import annotations

import chess

from chesskb.kb.analysis.line import Line
from chesskb.kb.analysis.phase import game_phase


def promotion(line: Line) -> bool:
    return any(p.move.promotion for p in line.solver_plies)


def underpromotion(line: Line) -> bool:
    """The solver promotes to a rook, bishop or knight where it matters: a promotion that mates when
    a queen would mate as well is no underpromotion (the solution just names one of the mates)."""
    for ply in line.solver_plies:
        if ply.move.promotion in (None, chess.QUEEN):
            continue
        if not ply.after.is_checkmate():
            return True
        as_queen = ply.before.copy(stack=False)
        as_queen.push(chess.Move(ply.move.from_square, ply.move.to_square, chess.QUEEN))
        if not as_queen.is_checkmate():
            return True
    return False


def en_passant(line: Line) -> bool:
    return any(p.before.is_en_passant(p.move) for p in line.solver_plies)


def castling(line: Line) -> bool:
    return any(p.before.is_castling(p.move) for p in line.solver_plies)


def advanced_pawn(line: Line) -> bool:
    """A solver pawn moves to its 7th or 8th rank."""
    far = (6, 7) if line.solver == chess.WHITE else (1, 0)
    return any(
        p.piece.piece_type == chess.PAWN and chess.square_rank(p.move.to_square) in far for p in line.solver_plies
    )


def stalemate(line: Line) -> bool:
    """The line ends in stalemate (the original's *Drowned*: the king drowns with no move)."""
    return bool(line.plies) and line.end.is_stalemate()


def perpetual_check(line: Line) -> bool:
    """Perpetual check (the original's *ContinuousCheck*, a drawing resource): the solver checks with
    every move, at least twice, the line does not mate, and the perpetual shows in the line itself:
    a position comes back (the checks go round) or the line ends in a draw by rule.

    A line of checks that mates is a mating attack, not a perpetual (Rotlevi–Suchting's queen
    sacrifice was tagged as one before), and a series of sacrificial checks that simply stops is
    not one either: nothing shows that the checks could go on.
    """
    solver = line.solver_plies
    if len(solver) < 2 or not all(p.is_check for p in solver) or line.end.is_checkmate():
        return False
    keys = [(line.start.board_fen(), line.start.turn)] + [(p.after.board_fen(), p.after.turn) for p in line.plies]
    return len(keys) != len(set(keys)) or line.end.is_fifty_moves() or line.end.is_insufficient_material()


def attacking_f2f7(line: Line) -> bool:
    target = chess.F7 if line.solver == chess.WHITE else chess.F2
    king_home = chess.E8 if line.solver == chess.WHITE else chess.E1
    return any(
        p.is_capture and p.move.to_square == target and p.before.king(not line.solver) == king_home
        for p in line.solver_plies
    )


def _king_side_score(line: Line, files: tuple[int, ...], corner_file: int, min_pieces: int) -> bool:
    king = line.start.king(not line.solver)
    back = 7 if line.solver == chess.WHITE else 0
    if king is None or chess.square_rank(king) != back or chess.square_file(king) not in files:
        return False
    if chess.popcount(line.start.occupied) < min_pieces or not any(p.is_check for p in line.solver_plies):
        return False
    corner = chess.square(corner_file, back)
    score = 0
    for ply in line.solver_plies:
        distance = chess.square_distance(ply.move.to_square, corner)
        if distance <= 3:
            score += ply.is_check + ply.is_capture
        elif distance >= 5:
            score -= 1
    return score >= 2


def kingside_attack(line: Line) -> bool:
    """The opponent's king castled short (on its back rank, files g-h) and the solver's checks and
    captures land near it."""
    return _king_side_score(line, (6, 7), 7, 20)


def queenside_attack(line: Line) -> bool:
    return _king_side_score(line, (0, 1, 2), 0, 18)


def king_in_centre_attack(line: Line) -> bool:
    """An attack on a king that delayed castling: with queens or at least one rook pair still on the
    board (not an endgame), the opponent's king stands uncastled on the d-, e- or f-file of its first
    two ranks, and the solver checks it (the original's *AttackKingCenter*)."""
    king = line.start.king(not line.solver)
    if king is None or chess.square_file(king) not in (3, 4, 5):
        return False
    home = (7, 6) if line.solver == chess.WHITE else (0, 1)
    if chess.square_rank(king) not in home or game_phase(line.start) == "endgame":
        return False
    return any(p.is_check for p in line.solver_plies)


def exposed_king(line: Line) -> bool:
    """The opponent's king has lost its pawn cover at home and the solver keeps checking it: the king
    stands on its own first three ranks, none of its pawns shelters it (on the squares directly or
    diagonally in front of it, or beside it on its rank: a king on h7 next to its g7 pawn is tucked
    in, not bare), and the solver checks it again after the first move and before the last (a
    sustained attack on a bare king, not a single check that ends the line or opens it)."""
    king = line.start.king(not line.solver)
    if king is None:
        return False
    from_own_side = chess.square_rank(king) if line.solver == chess.BLACK else 7 - chess.square_rank(king)
    if from_own_side > 2:  # walked out of its camp: a king hunt, not an exposed king at home
        return False
    if pawn_shelter(line.start, king) & line.start.pieces(chess.PAWN, not line.solver):
        return False
    return any(p.is_check for p in line.solver_plies[1:-1])


def pawn_shelter(board: chess.Board, king: chess.Square) -> chess.SquareSet:
    """The squares where a pawn of the king's side shelters it: beside the king on its rank, and
    directly or diagonally in front of it (towards the enemy's side)."""
    colour = board.color_at(king)
    forward = 1 if colour == chess.WHITE else -1
    file, rank = chess.square_file(king), chess.square_rank(king)
    return chess.SquareSet(
        chess.square(f, r)
        for f in range(file - 1, file + 2)
        for r in (rank, rank + forward)
        if 0 <= f <= 7 and 0 <= r <= 7 and (f, r) != (file, rank)
    )


def weak_back_rank(line: Line) -> bool:
    """A weak line (the original's *WeakLine*, in its usual form, the weak back rank): the solver's rook
    or queen invades the opponent's first rank on a square no opponent piece but the king guards, with
    check or a capture, and the line ends in mate or wins at least three points: the rank could not
    be held."""
    first = 7 if line.solver == chess.WHITE else 0
    if not (line.ends_in_mate or line.balance(line.end) - line.balance(line.start) >= 3):
        return False
    for ply in line.solver_plies:
        to = ply.move.to_square
        if ply.piece.piece_type not in (chess.ROOK, chess.QUEEN) or chess.square_rank(to) != first:
            continue
        guards = ply.before.attackers(not line.solver, to) - ply.before.pieces(chess.KING, not line.solver)
        if (ply.is_check or ply.is_capture) and not guards:
            return True
    return False


def endgame_class(*boards: chess.Board) -> str | None:
    """The endgame type by material, when every board given (the position, and the one after the
    first solution move, so a capture that just changed the material does not count) has the same
    kind of pieces besides kings and pawns: ``PawnEndgame``, ``RookEndgame``, ``QueenEndgame``,
    ``MinorPieceEndgame`` (bishops only, or knights only), ``OtherEndgame`` (one queen and rooks);
    else ``None``."""
    kinds = {frozenset(p.piece_type for p in b.piece_map().values()) - {chess.KING, chess.PAWN} for b in boards}
    if len(kinds) != 1:
        return None
    (kind,) = kinds
    if kind == {chess.QUEEN, chess.ROOK} and any(
        len(b.pieces(chess.QUEEN, chess.WHITE) | b.pieces(chess.QUEEN, chess.BLACK)) != 1 for b in boards
    ):
        return None
    return _ENDGAMES.get(kind)


_ENDGAMES = {
    frozenset(): "PawnEndgame",
    frozenset({chess.ROOK}): "RookEndgame",
    frozenset({chess.QUEEN}): "QueenEndgame",
    frozenset({chess.BISHOP}): "MinorPieceEndgame",
    frozenset({chess.KNIGHT}): "MinorPieceEndgame",
    frozenset({chess.QUEEN, chess.ROOK}): "OtherEndgame",
}
