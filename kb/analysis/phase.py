"""The game phase of a position: opening, middlegame or endgame, by one rule (lichess's game divider).

Lichess labels every puzzle ``opening``, ``middlegame`` or ``endgame`` with the divider its game
analysis uses (scalachess ``Divider``, MIT licence), described in ``docs`` and README. We apply the
same three tests to the position itself (the position the solver faces), so the KB's phase and
lichess's label mean the same thing:

* **endgame** — at most 6 queens, rooks, bishops and knights left on the board (both sides);
* **middlegame** — otherwise, when at most 10 of them are left, or a side has fewer than 4 of its
  own pieces on its back rank (development has begun), or the pieces of both sides have come into
  contact: the *mixedness* below exceeds 150;
* **opening** — everything else.

Lichess decides a game's phases at the first ply where each test holds, so a game that was mixed
once stays a middlegame; for one position without its game the tests are read off the position
itself. On the dev split of the lichess puzzles this agrees with lichess's label on every puzzle
(``bench/tactics_accuracy.py``).
"""

from __future__ import annotations

import chess

#: The three phase values (``cp:gamePhase``) and the class each one is asserted as.
PHASE_CLASS = {"opening": "PositionBegin", "middlegame": "PositionMiddle", "endgame": "PositionEnd"}

ENDGAME_MAX_PIECES = 6
MIDDLEGAME_MAX_PIECES = 10
DEVELOPED_BACK_RANK = 4
MIXEDNESS_MIDDLEGAME = 150


def _window_score(rank: int, white: int, black: int) -> int:
    """Score of one 2×2 window whose lower rank is ``rank`` (1-based, 1…7) holding ``white`` and
    ``black`` pieces: pieces of one side score by how far they stand from home, windows holding
    both sides score as contact. The weights are lichess's, written from the mover's point of view
    (a black window is scored as the white one mirrored: its distance from home is ``8 - rank``)."""
    if white == 0 and black == 0:
        return 0
    if white and black:
        if white == black:
            return 5 + abs(4 - rank) if white == 1 else (7 if white == 2 else 0)
        more, fewer = max(white, black), min(white, black)
        advance = rank if white > black else 8 - rank
        return advance + more + 1 if fewer == 1 and more <= 3 else 0
    count = white or black
    advance = rank if white else 8 - rank
    if count == 1:
        return 9 - advance
    if count == 2:
        return advance if advance > 2 else 0
    return advance + 2 if advance > 1 and count <= 4 else 0


def _window(file: int, rank: int) -> int:
    """The 2×2 squares with lower-left corner on ``file`` (0…6) and ``rank`` (1-based, 1…7), as a mask."""
    squares = (chess.square(file + df, rank - 1 + dr) for df in (0, 1) for dr in (0, 1))
    return sum(chess.BB_SQUARES[s] for s in squares)


#: (rank, mask) of the 49 overlapping 2×2 windows the mixedness sums over.
_WINDOWS = tuple((rank, _window(file, rank)) for rank in range(1, 8) for file in range(7))


def mixedness(board: chess.Board) -> int:
    """How far the two armies have advanced into and mixed with each other (0 in the initial position)."""
    white, black = board.occupied_co[chess.WHITE], board.occupied_co[chess.BLACK]
    return sum(
        _window_score(rank, chess.popcount(mask & white), chess.popcount(mask & black)) for rank, mask in _WINDOWS
    )


def pieces_besides_kings_and_pawns(board: chess.Board) -> int:
    return chess.popcount(board.occupied & ~board.kings & ~board.pawns)


def back_rank_sparse(board: chess.Board) -> bool:
    """A side has fewer than 4 of its own pieces left on its first rank."""
    return (
        chess.popcount(board.occupied_co[chess.WHITE] & chess.BB_RANK_1) < DEVELOPED_BACK_RANK
        or chess.popcount(board.occupied_co[chess.BLACK] & chess.BB_RANK_8) < DEVELOPED_BACK_RANK
    )


def game_phase(board: chess.Board) -> str:
    """``opening``, ``middlegame`` or ``endgame`` by the rule in the module docstring."""
    pieces = pieces_besides_kings_and_pawns(board)
    if pieces <= ENDGAME_MAX_PIECES:
        return "endgame"
    if pieces <= MIDDLEGAME_MAX_PIECES or back_rank_sparse(board) or mixedness(board) > MIXEDNESS_MIDDLEGAME:
        return "middlegame"
    return "opening"


def phase_class(board: chess.Board) -> str:
    """The one phase class (``PositionBegin``, ``PositionMiddle`` or ``PositionEnd``) of ``board``."""
    return PHASE_CLASS[game_phase(board)]
