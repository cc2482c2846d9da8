"""The board index: what a position's board is stored as, so that a pattern finds it.

The mapping stores every position's 64 squares as one string (``cp:boardSquares``: :func:`board_squares`);
the pattern language (``kb.search.patterns``) compiles a pattern to tests over exactly this value, and the
embedded store derives its board index from it (``kb.store.board_file``). The piece index values
(``cp:pieceOn``: :func:`pieces_on`, ``cp:pieceIn``: :func:`pieces_in`) are no longer written (issue 36);
stores imported before carry them, and ``bench/patterns.py`` builds them to measure that layout.
They are facts of the board, written at import time by the analysis and the mapping, so they live in
analysis/, below the search that reads them.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator

import chess

#: What one square of ``cp:boardSquares`` can hold: a piece letter or ``.`` (empty).
WHITE_PIECES = frozenset("KQRBNP")
BLACK_PIECES = frozenset("kqrbnp")
EMPTY = "."
ALPHABET = WHITE_PIECES | BLACK_PIECES | {EMPTY}


def board_squares(board: chess.Board, placement: str | None = None) -> str:
    """The ``cp:boardSquares`` string of ``board`` (the FEN placement with every empty square a ``.``);
    ``placement``: ``board.board_fen()`` when the caller has it already."""
    return re.sub(r"[1-8]", lambda m: EMPTY * int(m.group()), placement or board.board_fen())


#: Pieces whose count on one rank is indexed too (``2R*7``: at least two white rooks on the 7th).
#: Two of them on one rank is rare, so the values cost little and make a rare pattern such as
#: ``*/*R*R*R*/…`` a lookup; pawns and kings are left out (pawns share ranks all the time).
COUNTED_ON_RANK = frozenset("QRBNqrbn")


def pieces_in(board: chess.Board) -> list[str]:
    """Each piece letter with each rank it stands on, ``R*7`` (the ``cp:pieceIn`` values, list-form
    items the position matches), so that a pattern placing a piece somewhere on a rank (``*R*`` in a
    FEN-form rank, ``[QR]*8``, ``A*7``) is still looked up by index (``kb.search.patterns.Pattern.anchors``); and,
    for the pieces of :data:`COUNTED_ON_RANK` that stand more than once on a rank, ``2R*7`` …
    ``nR*7`` (at least two … n of them there)."""
    counts = Counter(f"{symbol}*{chess.square_rank(square) + 1}" for square, symbol in _placed(board))
    return sorted(
        list(counts)
        + [f"{n}{value}" for value, count in counts.items() if value[0] in COUNTED_ON_RANK for n in range(2, count + 1)]
    )


def pieces_on(board: chess.Board) -> list[str]:
    """Each piece with its square, ``Nf5``/``kg8`` (the ``cp:pieceOn`` values): an index a pattern's fixed
    pieces are looked up in before the board strings are tested (``kb.search.patterns.Pattern.anchors``)."""
    return [symbol + chess.square_name(square) for square, symbol in _placed(board)]


_SYMBOLS = tuple(
    (colour, piece_type, chess.Piece(piece_type, colour).symbol())
    for colour in chess.COLORS
    for piece_type in chess.PIECE_TYPES
)


def _placed(board: chess.BaseBoard) -> Iterator[tuple[chess.Square, str]]:
    """Every piece's square and letter, read from the board's twelve piece bitboards (the import maps
    every position with this: ``piece_map`` asks each of the 64 squares what stands there)."""
    for colour, piece_type, symbol in _SYMBOLS:
        for square in chess.scan_reversed(board.pieces_mask(piece_type, colour)):
            yield square, symbol
