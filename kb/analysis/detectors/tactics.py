"""Tactical motifs decided from the solver's moves and the boards around them.

The definitions are the ones a chess teacher gives (seed-000 §6, the usual literature), made
precise with python-chess's attack maps and pins: a fork attacks two valuable pieces at once from
a safe square, a pin leaves a piece unable to move off a line to its king, and so on.
"""

from __future__ import annotations

from itertools import pairwise

import chess

from chesskb.kb.analysis.line import (
    VALUES,
    Line,
    Ply,
    in_bad_spot,
    is_hanging,
    mates_in_one,
    mating_moves,
    orthogonal,
    passed,
)

SLIDERS = (chess.BISHOP, chess.ROOK, chess.QUEEN)


def _between(a: chess.Square, b: chess.Square) -> chess.SquareSet:
    return chess.SquareSet(chess.between(a, b))


def _non_final(line: Line) -> list[Ply]:
    return [p for p in line.solver_plies if p.index < len(line.plies) - 1]


def fork(line: Line) -> bool:
    """A solver move (not the last, not by the king) to a square where it is safe, attacking two
    non-pawn pieces at once, each worth more than the mover or undefended and unable to take it."""
    for ply in _non_final(line):
        if ply.piece.piece_type == chess.KING:
            continue
        board, to = ply.after, ply.move.to_square
        if in_bad_spot(board, to):
            continue
        targets = [square for square in board.attacks(to) if _fork_target(board, square, to, ply, line.solver)]
        if len(targets) >= 2:
            return True
        if len(targets) == 1 and _decides(line) and _threatens_mate(board, to):
            return True
    return False


def _fork_target(board: chess.Board, square: chess.Square, to: chess.Square, ply: Ply, solver: chess.Color) -> bool:
    """A non-pawn opponent piece worth more than the mover, or undefended and unable to take it."""
    victim = board.piece_at(square)
    if victim is None or victim.color == solver or victim.piece_type == chess.PAWN:
        return False
    return VALUES[victim.piece_type] > VALUES[ply.piece.piece_type] or (
        is_hanging(board, square) and to not in board.attacks(square)
    )


def _threatens_mate(board: chess.Board, mover: chess.Square) -> bool:
    """The piece on ``mover`` would mate next move if the opponent (to move, not in check) passed:
    a double attack on a piece and on the king's last squares (lichess practice "Double Attack #2":
    Nh6 hits the rook f5 and threatens Qf7#, with the queen the knight now guards f7 for)."""
    if board.is_check():
        return False
    probe = passed(board)
    reach = probe.attacks(mover)
    return mates_in_one(probe, lambda move: move.from_square == mover or move.to_square in reach)


def pin(line: Line) -> bool:
    """An opponent piece pinned to its king cannot take a solver piece, or cannot escape an attack,
    somewhere along the line."""
    opponent = not line.solver
    for ply in line.plies:
        board = ply.after
        if board.turn != opponent:
            continue
        for square in (
            board.pieces(chess.PAWN, opponent)
            | board.pieces(chess.KNIGHT, opponent)
            | board.pieces(chess.BISHOP, opponent)
            | board.pieces(chess.ROOK, opponent)
            | board.pieces(chess.QUEEN, opponent)
        ):
            if not board.is_pinned(opponent, square):
                continue
            pinned = board.piece_at(square)
            assert pinned is not None
            pin_line = board.pin(opponent, square)
            # the pin stops a capture it would otherwise have
            for target in board.attacks(square):
                victim = board.piece_at(target)
                if (
                    victim is not None
                    and victim.color == line.solver
                    and target not in pin_line
                    and (VALUES[victim.piece_type] >= VALUES[pinned.piece_type] or is_hanging(board, target))
                ):
                    return True
            # the pinned piece is attacked by something cheaper and cannot step away
            attackers = board.attackers(line.solver, square)
            if any(VALUES[board.piece_type_at(a) or chess.KING] < VALUES[pinned.piece_type] for a in attackers):
                return True
    return False


def skewer(line: Line) -> bool:
    """The inverse of a pin: a solver slider attacks a valuable piece, which steps off the line, and
    the slider takes the less valuable piece that stood behind it, a piece that could not be held
    (attacked and undefended, or worth more than the slider): an even trade is no skewer."""
    for ply in line.solver_plies[1:]:
        if not ply.is_capture or ply.piece.piece_type not in SLIDERS or ply.after.is_checkmate():
            continue
        previous = line.plies[ply.index - 1]
        captured = ply.captured
        assert captured is not None
        if (
            previous.move.to_square != ply.move.to_square
            and previous.move.from_square in _between(ply.move.from_square, ply.move.to_square)
            and VALUES[previous.piece.piece_type] > VALUES[captured.piece_type]
            and in_bad_spot(ply.before, ply.move.to_square)
        ):
            return True
    return False


def collinear_move(line: Line) -> bool:
    """A solver's bishop, rook or queen moves, capturing nothing, along the line on which it attacks
    an opponent bishop, rook or queen that moves along that line too and that it could legally have
    taken: it stays on the line facing the piece instead of taking it (lichess's "collinear move":
    keeping a pin, or letting the opponent take first and taking back with gain)."""
    for ply in line.solver_plies:
        if ply.piece.piece_type not in SLIDERS or ply.is_capture:
            continue
        start, to = ply.move.from_square, ply.move.to_square
        for target in ply.before.attacks(start):
            piece = ply.before.piece_at(target)
            if piece is None or piece.color == ply.piece.color or piece.piece_type not in SLIDERS:
                continue
            if not chess.ray(start, target) & chess.BB_SQUARES[to]:
                continue  # it left the line
            if piece.piece_type == (chess.BISHOP if orthogonal(start, target) else chess.ROOK):
                continue  # the piece it faces cannot move along this line
            if ply.before.is_legal(chess.Move(start, target)):
                return True
    return False


def discovered_check(line: Line) -> bool:
    """A solver move gives check, and the piece that moved is not the one checking."""
    return any(
        ply.is_check and ply.move.to_square not in ply.checkers and not ply.before.is_castling(ply.move)
        for ply in line.solver_plies
    )


def discovered_attack(line: Line) -> bool:
    """A discovered check, or a solver capture along a line its previous move opened, or a solver
    move that unmasks an attack on a valuable piece and wins material by the end of the line."""
    if discovered_check(line) or unmasked_attack(line):
        return True
    solver = line.solver_plies
    for earlier, later in pairwise(solver):
        # the uncovering move made a threat of its own (check or capture): the opponent could not
        # answer both, which is what makes a discovery a tactic rather than a rearrangement
        forcing = earlier.is_check or earlier.is_capture
        doubled = later.move.to_square == earlier.move.to_square  # a battery taking back on the same square
        same_piece = later.move.from_square == earlier.move.to_square  # a piece uncovers nothing for itself
        # taking back the piece the opponent has just moved is a recapture, whichever line it runs along
        recapture = line.plies[later.index - 1].move.to_square == later.move.to_square
        if (
            forcing
            and not doubled
            and not same_piece
            and not recapture
            and later.is_capture
            and earlier.move.from_square in _between(later.move.from_square, later.move.to_square)
            and not earlier.before.is_castling(earlier.move)
        ):
            return True
    return False


def unmasked_attack(line: Line) -> bool:
    """A solver move (neither a capture nor a check: those are threats of their own, told above)
    steps off the line between a solver slider and an opponent piece worth more than the slider or
    left undefended, the solver takes that piece later in the line (where it stands or where it
    fled to) and is at least two points up on that move by the end: the piece behind did the
    attacking (lichess practice "Discovered Attack #4": Nd5 unmasks the rook a4 on the rook c4,
    which flees to c7 into the knight's reach)."""
    for ply in _non_final(line):
        if ply.is_capture or ply.is_check or line.balance(line.end) - line.balance(ply.before) < 2:
            continue
        vacated, board = ply.move.from_square, ply.after
        for slider in (
            board.pieces(chess.BISHOP, line.solver)
            | board.pieces(chess.ROOK, line.solver)
            | board.pieces(chess.QUEEN, line.solver)
        ):
            if slider == ply.move.to_square:
                continue
            for target in board.attacks(slider) & board.occupied_co[not line.solver]:
                if vacated not in _between(slider, target):
                    continue
                worth = VALUES[board.piece_type_at(target) or chess.PAWN]
                if (
                    worth > VALUES[board.piece_type_at(slider) or chess.QUEEN]
                    or (worth >= 3 and is_hanging(board, target))
                ) and _taken_later(line, ply.index, target):
                    return True
    return False


def _taken_later(line: Line, index: int, square: chess.Square) -> bool:
    """The opponent piece on ``square`` after ply ``index`` is captured by a later solver move,
    followed as it moves."""
    for ply in line.plies[index + 1 :]:
        if ply.by_solver and ply.move.to_square == square:
            return True
        if not ply.by_solver and ply.move.from_square == square:
            square = ply.move.to_square
    return False


def double_check(line: Line) -> bool:
    return any(len(ply.checkers) >= 2 for ply in line.solver_plies)


def hanging_piece(line: Line) -> bool:
    """The first solver move takes an undefended piece (not a pawn), which is not just the answer to a
    capture of equal or greater value on that square, and the gain holds through the next exchange."""
    solver = line.solver_plies
    if not solver or not solver[0].is_capture:
        return False
    first = solver[0]
    captured = first.captured
    assert captured is not None
    if captured.piece_type == chess.PAWN or not is_hanging(first.before, first.move.to_square):
        return False
    previous = line.previous
    if (
        previous is not None
        and previous.captured is not None
        and previous.move.to_square == first.move.to_square
        and VALUES[previous.captured.piece_type] >= VALUES[captured.piece_type]
    ):
        return False
    # the gain holds through the next exchange: after the solver's following move the material is
    # no worse than right after the capture (…Qxd2 Bxf6 gxf6 keeps the knight; Qxd6 Rxc1+ Bf1 does not)
    following = first.index + 2
    if following < len(line.plies):
        return line.balance(line.plies[following].after) >= line.balance(first.after) or line.ends_in_mate
    return line.balance(line.end) - line.balance(first.before) >= 2 or line.ends_in_mate


def sacrifice(line: Line) -> bool:
    """At some point of the line the solver is two or more points down on where it started, without a
    promotion explaining it."""
    start = line.balance(line.start)
    if any(p.move.promotion for p in line.plies):
        return False
    # after the solver's later moves: the opponent has taken what was offered by then
    return any(line.balance(p.after) - start <= -2 for p in line.solver_plies[1:]) or declined_offer(line)


def declined_offer(line: Line) -> bool:
    """A piece offered and declined is still a sacrifice (the Greek gift 10. Bxh7+ Kh8): a solver
    move before the last checks with a piece (not a pawn) from a square next to the king where
    nothing defends it, the king could take it, and the opponent declines; the line goes on to
    mate or to win two points (an offer that leads nowhere is a slip, not a sacrifice)."""
    for ply in _non_final(line):
        to = ply.move.to_square
        if ply.piece.piece_type == chess.PAWN or to not in ply.checkers:
            continue
        king = ply.after.king(not line.solver)
        if king is None or chess.square_distance(king, to) != 1 or not is_hanging(ply.after, to):
            continue
        if ply.after.is_legal(chess.Move(king, to)) and line.plies[ply.index + 1].move.to_square != to:
            return _decides(line)
    return False


def _decides(line: Line) -> bool:
    """The line mates, or the solver ends it two or more points up on where it started."""
    return line.ends_in_mate or line.balance(line.end) - line.balance(line.start) >= 2


def trapped_piece(line: Line) -> bool:
    """The solver takes a non-pawn piece that, when its side was last to move, stood in a bad spot and
    had nowhere better to go: every move it had also landed in a bad spot (or it had none). When
    the piece's last move was its (vain) escape, it is judged on the square it fled from."""
    for ply in line.solver_plies:
        captured = ply.captured
        if ply.index == 0 or captured is None or captured.piece_type in (chess.PAWN, chess.KING):
            continue
        reply = line.plies[ply.index - 1]
        board = reply.before  # the opponent to move, before its last move
        square = ply.move.to_square
        if reply.move.to_square == square:
            square = reply.move.from_square
        if board.piece_at(square) != captured or not in_bad_spot(board, square):
            continue
        if board.is_check() or board.is_pinned(captured.color, square):
            continue  # it could not move for another reason: not trapped
        if all(_lands_badly(board, move) for move in board.legal_moves if move.from_square == square):
            return True
    return False


def _lands_badly(board: chess.Board, move: chess.Move) -> bool:
    taken = board.piece_type_at(move.to_square)
    mover = board.piece_type_at(move.from_square)
    if taken is not None and mover is not None and VALUES[taken] >= VALUES[mover]:
        return False  # an even or better trade is an escape
    probe = board.copy(stack=False)
    probe.push(move)
    return in_bad_spot(probe, move.to_square)


def deflection(line: Line) -> bool:
    """The solver's previous move forced the opponent's reply (it took what was offered, or answered a
    check), that reply pulled a defender away from a square, and the solver now captures or promotes
    there with a piece worth at least what it takes."""
    for ply in line.solver_plies[1:]:
        if not (ply.is_capture or ply.move.promotion) or ply.index < 2:
            continue
        reply, offer = line.plies[ply.index - 1], line.plies[ply.index - 2]
        square = ply.move.to_square
        captured = ply.captured
        if captured is not None and VALUES[captured.piece_type] > VALUES[ply.piece.piece_type]:
            continue
        if offer.captured is not None and VALUES[offer.captured.piece_type] >= VALUES[offer.piece.piece_type]:
            continue  # the solver's previous move simply won material: nothing was offered
        forced = reply.move.to_square == offer.move.to_square or reply.before.is_check()
        if not forced or square in (reply.move.to_square, offer.move.to_square):
            continue
        if square in _guarded_through_mover(
            reply.before, reply.move.from_square, ply.move.from_square
        ) and square not in reply.after.attacks(reply.move.to_square):
            return True
    return False


def _guarded_through_mover(board: chess.Board, defender: chess.Square, mover: chess.Square) -> chess.SquareSet:
    """The squares ``defender`` attacks once the solver's piece on ``mover`` has left: a rook behind
    a pawn about to promote guards the promotion square (lichess-puzzler's case oGLtH: Re6 holds e1
    through the e2 pawn until …Rxa6 draws it away and …e1=Q follows)."""
    vacated = board.copy(stack=False)
    vacated.remove_piece_at(mover)
    return vacated.attacks(defender)


def overload(line: Line) -> bool:
    """Overloading: one opponent piece guards two squares; the solver makes it carry out one duty
    (it takes on the square the solver's move went to), and the solver's next move uses the other
    square, now unguarded, to capture, promote, check or mate. The guard of both squares before the
    first move is what tells an overload from a plain lure (lichess practice "Overloaded #10": the
    king c7 guards b7 and d7; 29. Rb7+ Kxb7 30. Qd7+)."""
    for first, second in pairwise(line.solver_plies):
        if second.index != first.index + 2:
            continue
        reply = line.plies[first.index + 1]
        duty, other = first.move.to_square, second.move.to_square
        if reply.move.to_square != duty or other == duty:
            continue
        if not (second.is_capture or second.move.promotion or second.is_check):
            continue
        guarded = first.before.attacks(reply.move.from_square)
        if duty in guarded and other in guarded and not second.before.is_attacked_by(not line.solver, other):
            return True
    return False


def attraction(line: Line) -> bool:
    """The solver puts a piece on a square, the opponent's king, queen or rook takes it there, and the
    solver's next move attacks that square: a check when the king was lured, else a later capture there."""
    for ply in line.solver_plies:
        if ply.index + 2 >= len(line.plies):
            continue
        reply, follow = line.plies[ply.index + 1], line.plies[ply.index + 2]
        square = ply.move.to_square
        if reply.move.to_square != square or reply.piece.piece_type not in (chess.KING, chess.QUEEN, chess.ROOK):
            continue
        if square not in follow.after.attacks(follow.move.to_square) and not (
            reply.piece.piece_type == chess.KING and follow.is_check
        ):
            continue
        if reply.piece.piece_type == chess.KING:
            if follow.is_check:
                return True
        elif any(p.is_capture and p.move.to_square == square for p in line.plies[ply.index + 2 :] if p.by_solver):
            return True
    return False


def eliminate_defense(line: Line) -> bool:
    """Capturing the defender: the solver takes a piece that guarded a square, and next move takes what
    stood there, now undefended (with a piece worth at least as much, not a recapture of the reply),
    or mates on it. The first capture is no check and not made out of check (those force the reply)."""
    for first, second in pairwise(line.solver_plies):
        if not first.is_capture or first.is_check or first.before.is_check() or second.index != first.index + 2:
            continue
        reply = line.plies[second.index - 1]
        target = second.move.to_square
        captured = second.captured
        won = (
            captured is not None
            and second.piece.piece_type != chess.KING
            and reply.move.to_square != target
            and VALUES[captured.piece_type] <= VALUES[second.piece.piece_type]
            and is_hanging(second.before, target)
        )
        if not (won or second.after.is_checkmate()) or first.move.to_square == second.move.from_square:
            continue
        if first.move.to_square in first.before.attackers(not line.solver, target):
            return True
    return False


def xray(line: Line) -> bool:
    """The solver recaptures on a square through the square the opponent's recapturing piece left."""
    for ply in line.solver_plies[1:]:
        reply = line.plies[ply.index - 1]
        if (
            ply.is_capture
            and reply.is_capture
            and reply.move.to_square == ply.move.to_square
            and reply.move.from_square in _between(ply.move.from_square, ply.move.to_square)
        ):
            return True
    return False


def zwischenzug(line: Line) -> bool:
    """The opponent captured on a square (with the move that led to the puzzle, or later), the solver
    could take back at once but first played another move, and took back only after the reply; the
    reply was not made by a piece that guarded the square (that would be a deflection, not an
    in-between move)."""
    if (line.previous is None and _delayed_recapture(line)) or _threat_ignored(line):
        return True
    plies = ([line.previous] if line.previous is not None else []) + line.plies
    for j in range(3, len(plies)):
        node = plies[j]
        if not node.by_solver or not node.is_capture:
            continue
        reply, between, taken = plies[j - 1], plies[j - 2], plies[j - 3]
        square = node.move.to_square
        if (
            taken.is_capture
            and taken.move.to_square == square
            and between.move.to_square != square
            and node.move in between.before.legal_moves
            and reply.move.from_square not in between.after.attackers(not line.solver, square)
        ):
            return True
    return False


def _threat_ignored(line: Line) -> bool:
    """The in-between capture that answers a threat: the opponent's move (no capture) attacks a
    solver piece that stands badly there; the solver, instead of saving it, takes something
    elsewhere with another piece; the opponent takes the attacked piece and the solver takes
    back on its square, ending two or more points up on the position before the threat
    (lichess practice "Zwischenzug Challenge #3", Gelfand v Svidler 1996: 23...Be2 hits the
    rook d1; 24. Bxc8 first, then 24...Bxd1 25. Rxd1)."""
    for between in line.solver_plies[1:]:
        j = between.index
        if not between.is_capture or between.is_check or j + 2 >= len(line.plies):
            continue
        threat, taken, back = line.plies[j - 1], line.plies[j + 1], line.plies[j + 2]
        square = taken.move.to_square
        if threat.is_capture or threat.is_check or not taken.is_capture or back.move.to_square != square:
            continue
        if between.move.from_square == square or between.move.to_square == square:
            continue
        if (
            threat.move.to_square not in threat.after.attackers(not line.solver, square)
            or square in threat.before.attacks(threat.move.from_square)
            or not in_bad_spot(threat.after, square)
        ):
            continue
        if line.balance(back.after) - line.balance(threat.before) >= 2:
            return True
    return False


def _delayed_recapture(line: Line) -> bool:
    """For a set-up position whose previous move is not known (a book's diagram), the material
    tells that an exchange is under way: the solver starts two or more points down and could take
    an undefended piece (not a pawn) at once, but first plays other moves, and takes that piece, still on its
    square, only later, coming back to within a point of level (lichess practice "Zwischenzug":
    9...Nd5 before 10...Rxb8). A line that mates is a mating attack whose captures serve the mate,
    not a recapture put off (pychess's 1. Qd5+ Ka6 2. cxb8=N#)."""
    solver = line.solver_plies
    start = line.balance(line.start)
    if start > -2 or len(solver) < 2 or line.ends_in_mate:
        return False
    for later in solver[1:]:
        square = later.move.to_square
        if (
            not later.is_capture
            or later.move.promotion
            or later.move not in line.start.legal_moves
            or line.start.piece_type_at(square) in (None, chess.PAWN)
            or not is_hanging(line.start, square)
            or line.balance(later.after) < -1
        ):
            continue
        if not any(p.move.to_square == square or p.move.from_square == square for p in line.plies[: later.index]):
            return True
    return False


def clearance(line: Line) -> bool:
    """A solver move clears a square or line for a slider, which then uses it: the slider moves
    (without capturing) to or through the square the solver's previous move vacated. The clearing
    move is no promotion and no plain capture (a piece given away counts), and the slider's move is
    neither forced by a check nor a check that only chases the king (the reply was a king move)."""
    for earlier, later in pairwise(line.solver_plies):
        if later.piece.piece_type not in SLIDERS or later.is_capture or later.before.is_check():
            continue
        if earlier.move.promotion or earlier.move.to_square in (later.move.from_square, later.move.to_square):
            continue
        if later.is_check and line.plies[later.index - 1].piece.piece_type == chess.KING:
            continue
        vacated = earlier.move.from_square
        if vacated != later.move.to_square and vacated not in _between(later.move.from_square, later.move.to_square):
            continue
        if not earlier.is_capture or in_bad_spot(earlier.after, earlier.move.to_square):
            return True
    return False


def interception(line: Line) -> bool:
    """Interference: a piece steps between an opponent slider and the piece it defended, and the solver
    then takes that piece, left undefended. The piece in between is the solver's (its previous move)
    or the opponent's own (its reply: self-interference)."""
    for earlier, later in pairwise(line.solver_plies):
        if not later.is_capture or later.index != earlier.index + 2:
            continue
        target = later.move.to_square
        if not is_hanging(later.before, target):
            continue
        reply = line.plies[later.index - 1]
        for defender in earlier.before.attackers(not line.solver, target):
            if earlier.before.piece_type_at(defender) not in SLIDERS or defender in later.before.attackers(
                not line.solver, target
            ):
                continue
            line_between = _between(defender, target)
            if earlier.move.to_square in line_between or (
                reply.move.to_square in line_between and reply.move.from_square != defender
            ):
                return True
    return cut_defence(line) or cut_mating_square(line)


def cut_mating_square(line: Line) -> bool:
    """Interference with a defence against mate: a solver move (no capture, no check) lands on the
    line of an opponent slider, and now the solver threatens a mate in one (it would mate if the
    opponent passed) that, before the move, the slider could have answered along that line (taking
    the mating piece or stepping between, through the square now blocked); the line mates or wins
    two points. The study's own words: "Black
    threatens mate on e2, but White's queen is protecting that square" (lichess practice
    "Interference #2": 20...Rd4 cuts the queen c5 from g1, and ...Qh1+ can no longer be met by
    Qg1: ...Qh1# is threatened)."""
    for ply in _non_final(line):
        if ply.is_capture or ply.is_check or ply.before.is_check():
            continue
        before, square = ply.before, ply.move.to_square
        sliders = (
            before.pieces(chess.BISHOP, not line.solver)
            | before.pieces(chess.ROOK, not line.solver)
            | before.pieces(chess.QUEEN, not line.solver)
        )
        cut = {d for d in sliders if square in before.attacks(d)}
        if cut and any(_answered_by(before, mate, cut, square) for mate in _mates_if_passed(ply.after)):
            return _decides(line)
    return False


def _mates_if_passed(board: chess.Board) -> list[chess.Move]:
    """The mating moves the side not to move would have if the side to move passed (not in check)."""
    return [] if board.is_check() else list(mating_moves(passed(board)))


def _answered_by(board: chess.Board, move: chess.Move, defenders: set[chess.Square], cut: chess.Square) -> bool:
    """``move`` (legal on ``board``) checks without mating there, and one of ``defenders`` answers
    it along a line through ``cut``: the answer the cut takes away."""
    if not board.is_legal(move):
        return False
    probe = board.copy(stack=False)
    probe.push(move)
    return not probe.is_checkmate() and any(
        reply.from_square in defenders and cut in _between(reply.from_square, reply.to_square)
        for reply in probe.legal_moves
    )


def cut_defence(line: Line) -> bool:
    """Interference that wins otherwise: a solver move (no capture) lands between an opponent slider
    and an opponent piece it defended, which the solver attacks; the defence is cut, and the line
    wins two points or mates (lichess practice "Interference Introduction": 14...Bb5 cuts the
    queen a6 from the bishop e2, which the queen e7 attacks, and attacks the queen: 15. Qxb5 Rxb5)."""
    for ply in _non_final(line):
        if ply.is_capture:
            continue
        square, before, after = ply.move.to_square, ply.before, ply.after
        for defender in (
            before.pieces(chess.BISHOP, not line.solver)
            | before.pieces(chess.ROOK, not line.solver)
            | before.pieces(chess.QUEEN, not line.solver)
        ):
            for target in before.attacks(defender) & before.occupied_co[not line.solver]:
                if before.piece_type_at(target) in (chess.PAWN, chess.KING) or square not in _between(defender, target):
                    continue
                if after.is_attacked_by(line.solver, target) and is_hanging(after, target):
                    return _decides(line)
    return False


def quiet_move(line: Line) -> bool:
    """A solver move before the last that neither checks, captures, escapes check, nor attacks anything,
    is no king move and no advanced pawn push."""
    for ply in _non_final(line):
        if ply.is_check or ply.is_capture or ply.before.is_check() or ply.piece.piece_type == chess.KING:
            continue
        if _advanced_pawn_push(ply, line.solver):
            continue
        attacked = [s for s in ply.after.attacks(ply.move.to_square) if ply.after.color_at(s) == (not line.solver)]
        if not attacked:
            return True
    return False


def _advanced_pawn_push(ply: Ply, solver: chess.Color) -> bool:
    """A pawn move to the solver's 6th, 7th or 8th rank: an attacking push, never a quiet one."""
    return ply.piece.piece_type == chess.PAWN and chess.square_rank(ply.move.to_square) in (
        (5, 6, 7) if solver == chess.WHITE else (2, 1, 0)
    )


def defensive_move(line: Line) -> bool:
    """The hard part was to defend, not to attack: among at least three legal moves the solver either
    ends the line with a quiet move (no check, capture, promotion, advanced pawn push, and no attack
    on an opponent piece), or somewhere escapes a check without checking or capturing back. A line
    that mates is an attack, never a defence."""
    if not line.plies[-1].by_solver or line.ends_in_mate:
        return False
    last = line.plies[-1]
    if (
        not (
            last.is_check
            or last.is_capture
            or last.move.promotion
            or last.before.is_check()
            or _advanced_pawn_push(last, line.solver)
        )
        and last.before.legal_moves.count() >= 3
        and not any(last.after.color_at(s) == (not line.solver) for s in last.after.attacks(last.move.to_square))
    ):
        return True
    return any(
        p.before.is_check() and not p.is_check and not p.is_capture and p.before.legal_moves.count() >= 3
        for p in line.solver_plies
    )
