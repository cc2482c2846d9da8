"""Mate patterns, read off the final (checkmate) position of the line.

Each pattern is decided by where the mated king stands, what boxes it in (its own pieces or
attacked squares) and which piece gives the mate — the textbook definitions (seed-000 §6 and the
usual chess literature), checked with python-chess's attack maps.
"""

from __future__ import annotations

import itertools

import chess

from chesskb.kb.analysis.line import Line, mating_moves, orthogonal


def mate_patterns(line: Line) -> list[str]:
    """The named pattern of the final mate, if any: one name per mate, the first that fits in
    ``PATTERNS`` order (the most specific picture first, as lichess names a mate by one pattern)."""
    board = line.end if line.ends_in_mate else _finishing_mate(line)
    if board is None:
        return []
    mated = board.turn
    king = board.king(mated)
    assert king is not None
    checkers = board.checkers()
    return next(([name] for name, test in PATTERNS if test(board, king, mated, checkers)), [])


def _finishing_mate(line: Line) -> chess.Board | None:
    """The board after the one mate in one the solver has when the line stops on the opponent's
    move: a study's author may leave the last blow to the reader when it is the only mate there
    (lichess practice "Double Bishop Mate #3": 1...Qxf3+ 2. Bxf3, and ...Bxf3# is left out), and
    the exercise's picture is that mate. Lichess's puzzle lines always end on the solver's move."""
    if not line.plies or line.plies[-1].by_solver:
        return None
    board = line.end
    mates = list(itertools.islice(mating_moves(board), 2))
    if len(mates) != 1:
        return None
    after = board.copy(stack=False)
    after.push(mates[0])
    return after.copy(stack=False)


def _neighbours(king: chess.Square) -> chess.SquareSet:
    return chess.SquareSet(chess.BB_KING_ATTACKS[king])


def _types(board: chess.Board, squares: chess.SquareSet) -> list[int]:
    return [piece for s in squares if (piece := board.piece_type_at(s)) is not None]


def _smothered(board: chess.Board, king: chess.Square, mated: chess.Color, checkers: chess.SquareSet) -> bool:
    """A knight mates a king whose every neighbouring square holds one of its own pieces."""
    return _types(board, checkers) == [chess.KNIGHT] and all(board.color_at(s) == mated for s in _neighbours(king))


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
    """King on the edge file, away from the corner, mated along it by a rook or queen; a knight guards
    the escape squares, one of the king's own pieces blocks the other side (Kh7, g7 pawn, Ne7 taking
    g6 and g8). In the corner the knight takes a single square and the picture is another one
    (lichess 0A3LP, …Rh3# against Kh1 with Nf4 on g2, is not labelled Anastasia)."""
    file = chess.square_file(king)
    if file not in (0, 7) or chess.square_rank(king) in (0, 7) or len(checkers) != 1:
        return False
    checker = next(iter(checkers))
    if chess.square_file(checker) != file or board.piece_type_at(checker) not in (chess.ROOK, chess.QUEEN):
        return False
    inward = 1 if file == 0 else -1
    knights = board.pieces(chess.KNIGHT, not mated)
    covered_by_knight = any(
        board.attackers(not mated, s) & knights for s in _neighbours(king) if chess.square_file(s) == file + inward
    )
    own_blocker = board.color_at(chess.square(file + inward, chess.square_rank(king))) == mated
    return covered_by_knight and own_blocker


def _arabian(board: chess.Board, king: chess.Square, mated: chess.Color, checkers: chess.SquareSet) -> bool:
    """King in a corner, a rook next to it mates, protected by a knight that also takes the flight
    square the rook leaves (Kh8, Rh7#, Nf6: the knight guards h7 and g8). When another piece takes
    that square instead (a queen on f7), the knight only guards the rook: a protected-rook mate,
    not the Arabian picture."""
    if king not in (chess.A1, chess.H1, chess.A8, chess.H8) or len(checkers) != 1:
        return False
    rook = next(iter(checkers))
    if board.piece_type_at(rook) != chess.ROOK or chess.square_distance(rook, king) != 1:
        return False
    knights = board.attackers(not mated, rook) & board.pieces(chess.KNIGHT, not mated)
    if not knights:
        return False
    for square in _neighbours(king):
        if square == rook or board.color_at(square) == mated:
            continue
        guards = _guards(board, king, mated, square)
        if rook not in guards and not guards & knights:
            return False
    return True


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
    """Two bishops make the net on their own: a bishop checks, and every flight square (not held by
    the king's own men) is taken by a bishop, seeing through the king; other pieces may take a
    square as well (lichess's practice "Double Bishop Mate #2": Bxe5#, the rook on e7 also sees g7),
    but none is needed. Also which side of the king's file the bishops stand on."""
    bishops = board.pieces(chess.BISHOP, not mated)
    if len(bishops) < 2 or not board.checkers().issubset(bishops):
        return False, set()
    used = set(board.checkers())
    for square in _neighbours(king):
        if board.color_at(square) == mated:
            continue
        covering = _guards(board, king, mated, square) & bishops
        if not covering:
            return False, set()
        used |= set(covering)
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
    """The queen mates from a diagonally adjacent square, away from the edge, and the king's own men
    stand exactly on the squares around it that the queen does not take (seeing through the king):
    the two squares behind the king, beside the queen's diagonal, are its dovetail (lichess
    practice "Dovetail Mate #1": Qc6#, Kb7 walled in by its a7 pawn and b8 rook). Other pieces may
    guard the queen or double its squares."""
    queen = _single_checker(board, checkers, chess.QUEEN)
    if queen is None or chess.square_distance(queen, king) != 1 or orthogonal(queen, king):
        return False
    if chess.square_file(king) in (0, 7) or chess.square_rank(king) in (0, 7):
        return False
    return all(
        (board.color_at(s) == mated) != (queen in _guards(board, king, mated, s))
        for s in _neighbours(king)
        if s != queen
    )


def _single_checker(board: chess.Board, checkers: chess.SquareSet, *types: int) -> chess.Square | None:
    """The one checking piece when it is of one of ``types``, else None."""
    if len(checkers) != 1:
        return None
    square = next(iter(checkers))
    return square if board.piece_type_at(square) in types else None


def _inside(file: int, rank: int) -> bool:
    return 0 <= file <= 7 and 0 <= rank <= 7


def _all_own(board: chess.Board, mated: chess.Color, squares: list[tuple[int, int]]) -> bool:
    """Every (file, rank) is on the board and holds a piece of the mated side."""
    return all(_inside(f, r) and board.color_at(chess.square(f, r)) == mated for f, r in squares)


def _covered_by(board: chess.Board, king: chess.Square, mated: chess.Color, piece_type: int) -> bool:
    """One of the mater's pieces of ``piece_type`` takes an empty flight square from the king."""
    pieces = board.pieces(piece_type, not mated)
    return any(board.piece_at(s) is None and board.attackers(not mated, s) & pieces for s in _neighbours(king))


def _opera(board: chess.Board, king: chess.Square, mated: chess.Color, checkers: chess.SquareSet) -> bool:
    """A rook mates from the square next to the king on its rank or file, protected by a bishop
    (Morphy's Opera game, 1858: Rd8#, the rook held by the bishop on g5). Lichess's description
    ("check the king with a rook and use a bishop to defend the rook") asks nothing of where the
    king stands, and its labels name a king on h2 mated from h1 so: the back rank is not required."""
    rook = _single_checker(board, checkers, chess.ROOK)
    if rook is None or chess.square_distance(rook, king) != 1 or not orthogonal(rook, king):
        return False
    return bool(board.attackers(not mated, rook) & board.pieces(chess.BISHOP, not mated))


def _pillsbury(board: chess.Board, king: chess.Square, mated: chess.Color, checkers: chess.SquareSet) -> bool:
    """A rook mates along a rank or file while a bishop takes a flight square from the king that
    nothing else takes: a bishop that only doubles the rook's own guard plays no part in the mate."""
    rook = _single_checker(board, checkers, chess.ROOK)
    if rook is None:
        return False
    bishops = board.pieces(chess.BISHOP, not mated)
    return any(
        board.piece_at(s) is None and (guards := _guards(board, king, mated, s)) and guards.issubset(bishops)
        for s in _neighbours(king)
    )


def _guards(board: chess.Board, king: chess.Square, mated: chess.Color, square: chess.Square) -> chess.SquareSet:
    """The mater's pieces that take ``square`` from the king, seeing through the king (a slider that
    checks along a line also guards the square behind the king on it)."""
    without_king = board.copy(stack=False)
    without_king.remove_piece_at(king)
    return without_king.attackers(not mated, square)


def _morphy(board: chess.Board, king: chess.Square, mated: chess.Color, checkers: chess.SquareSet) -> bool:
    """A bishop mates along a diagonal while a rook takes a flight square from the king."""
    return _single_checker(board, checkers, chess.BISHOP) is not None and _covered_by(board, king, mated, chess.ROOK)


def _balestra(board: chess.Board, king: chess.Square, mated: chess.Color, checkers: chess.SquareSet) -> bool:
    """A bishop mates from a distance while the queen, not next to the king, takes every flight
    square the bishop does not (lichess: "a bishop delivers the checkmate, while the queen blocks
    the remaining escape squares"; practice "Balestra Mate #1": Bd6#, Qg6 holding e8, f7, g7, g8)."""
    bishop = _single_checker(board, checkers, chess.BISHOP)
    queens = board.pieces(chess.QUEEN, not mated)
    if bishop is None or chess.square_distance(bishop, king) < 2 or not queens:
        return False
    if any(chess.square_distance(q, king) == 1 for q in queens):
        return False
    helped = False
    for square in _neighbours(king):
        if board.color_at(square) == mated:
            continue
        guards = _guards(board, king, mated, square)
        if bishop in guards:
            continue
        if not guards & queens:
            return False
        helped = True
    return helped


def _blind_swine(board: chess.Board, king: chess.Square, mated: chess.Color, checkers: chess.SquareSet) -> bool:
    """Two rooks side by side on the king's second rank (the solver's seventh, "the pigs") shut the
    king in the 2 by 2 box above them: one mates from next to it, held by the other, and the box's
    squares are theirs; whatever lies outside the box may be held by anything (lichess practice
    "Blind Swine Mate #1" and #3: rooks on g7 and h7 against Kg8, a knight on e6 taking f8)."""
    rook = _single_checker(board, checkers, chess.ROOK)
    back = 0 if mated == chess.WHITE else 7
    second = 1 if mated == chess.WHITE else 6
    if (
        rook is None
        or chess.square_rank(king) != back
        or chess.square_rank(rook) != second
        or chess.square_distance(rook, king) != 1
    ):
        return False
    for pig in board.pieces(chess.ROOK, not mated):
        if chess.square_rank(pig) != second or chess.square_distance(pig, rook) != 1:
            continue
        files = {chess.square_file(rook), chess.square_file(pig)}
        if chess.square_file(king) not in files:
            continue
        rooks = chess.SquareSet([rook, pig])
        box = [s for s in _neighbours(king) if chess.square_file(s) in files]
        if all(board.color_at(s) == mated or _guards(board, king, mated, s) & rooks for s in box):
            return True
    return False


def _corner(board: chess.Board, king: chess.Square, mated: chess.Color, checkers: chess.SquareSet) -> bool:
    """A knight mates a king in a corner, hemmed in by guarded squares (not smothered by its own men)."""
    return (
        _single_checker(board, checkers, chess.KNIGHT) is not None
        and king in (chess.A1, chess.H1, chess.A8, chess.H8)
        and not all(board.color_at(s) == mated for s in _neighbours(king))
    )


def _epaulette(board: chess.Board, king: chess.Square, mated: chess.Color, checkers: chess.SquareSet) -> bool:
    """A rook or queen mates along a rank or file, and the two squares beside the king across that
    line hold the king's own pieces (its epaulettes)."""
    checker = _single_checker(board, checkers, chess.ROOK, chess.QUEEN)
    if checker is None or not orthogonal(checker, king):
        return False
    f, r = chess.square_file(king), chess.square_rank(king)
    across = [(f - 1, r), (f + 1, r)] if chess.square_file(checker) == f else [(f, r - 1), (f, r + 1)]
    return _all_own(board, mated, across)


def _swallowstail(board: chess.Board, king: chess.Square, mated: chess.Color, checkers: chess.SquareSet) -> bool:
    """A protected queen mates from the square in front of the king, and the two squares diagonally
    behind the king hold its own pieces (the swallow's tail, or Guéridon mate)."""
    queen = _single_checker(board, checkers, chess.QUEEN)
    if queen is None or chess.square_distance(queen, king) != 1 or not orthogonal(queen, king):
        return False
    f, r = chess.square_file(king), chess.square_rank(king)
    df, dr = f - chess.square_file(queen), r - chess.square_rank(queen)
    behind = [(f - 1, r + dr), (f + 1, r + dr)] if df == 0 else [(f + df, r - 1), (f + df, r + 1)]
    return _all_own(board, mated, behind)


#: Mate patterns in the order they are tried; the first that fits names the mate.
PATTERNS = (
    ("SmotheredMate", _smothered),
    ("BackRankMate", _back_rank),
    ("AnastasiaMate", _anastasia),
    ("HookMate", _hook),
    ("ArabianMate", _arabian),
    ("BodenMate", _boden),
    ("DoubleBishopMate", _double_bishop),
    ("DovetailMate", _dovetail),
    ("SwallowstailMate", _swallowstail),
    ("EpauletteMate", _epaulette),
    ("BlindSwineMate", _blind_swine),
    ("OperaMate", _opera),
    ("PillsburysMate", _pillsbury),
    ("BalestraMate", _balestra),
    ("MorphysMate", _morphy),
    ("CornerMate", _corner),
)
