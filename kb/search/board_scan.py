"""A pattern tested on a generation's board index (``kb.store.board_file``): every position at once, with numpy.

:func:`candidate_rows` only *narrows*: it keeps every position whose board could match (the side to move,
every list item and every FEN-form square whose place is known exactly, and every index lookup the
pattern implies, :meth:`Pattern.anchors`: a piece on a square, a piece on a rank, n of one piece on a
rank, at most n pieces). :func:`matching_rows` then applies
the pattern's own compiled regular expressions (:meth:`Pattern.board_clauses`, :meth:`Pattern.signature_regex`)
to the survivors' board strings and material signatures, rebuilt from the bitboards by the analysis's own
functions, so that the store is asked about matches only: each position the store looks up by IRI costs
about as much as scanning a thousand bitboards. The SPARQL query (``queries.find``) tests the rows it returns
again with the same REGEX, so the store, not this module, has the last word on every row.
"""

from __future__ import annotations

import re

import chess
import numpy as np

from chesskb.kb.analysis.board_facts import material_signature
from chesskb.kb.analysis.board_index import ALPHABET, EMPTY
from chesskb.kb.search.patterns import Anchor, Item, Pattern, placed_squares
from chesskb.kb.store.board_file import BLACK, PIECE_LETTERS, WHITE, BoardIndex, board_strings

_RANKS = tuple(np.uint64(chess.BB_RANKS[rank]) for rank in range(8))
_NONE = np.uint64(0)


def candidate_rows(pattern: Pattern, index: BoardIndex) -> np.ndarray:
    """The rows of ``index`` (in its order) whose position may match ``pattern`` or, for either
    colour, its flip; every position that matches is among them."""
    scan = _Scan(index)
    keep = np.zeros(len(index), dtype=bool)
    for variant in pattern.variants():
        keep |= scan.variant(variant)
    return np.flatnonzero(keep)


def matching_rows(pattern: Pattern, index: BoardIndex, rows: np.ndarray) -> list[int]:
    """Those of ``rows`` (candidates) whose board, side and material match ``pattern`` or, for either colour,
    its flip, by the pattern's compiled regular expressions (the same text the SPARQL REGEX tests)."""
    tests = [
        (
            [(re.compile(regex), negated) for regex, negated in variant.board_clauses()],
            None if variant.side is None else (WHITE if variant.side == "white" else BLACK),
            None if (signature := variant.signature_regex()) is None else re.compile(signature),
        )
        for variant in pattern.variants()
    ]
    kept = []
    rows = np.asarray(rows, dtype=np.intp)
    for row, squares in zip(map(int, rows), board_strings(np.asarray(index.boards)[:, rows]), strict=True):
        side, signature = int(index.sides[row]), None
        for clauses, wanted_side, material in tests:
            if wanted_side is not None and side != wanted_side:
                continue
            if any(bool(regex.search(squares)) == negated for regex, negated in clauses):
                continue
            if material is not None:
                signature = signature or material_signature(board_at(index, row))
            if material is None or material.search(signature or ""):
                kept.append(row)
                break
    return kept


def board_at(index: BoardIndex, row: int) -> chess.Board:
    """Row ``row``'s pieces as a python-chess board (its side to move is not set: only the pieces are read)."""
    board = chess.Board.empty()
    for letter, bitboard in zip(PIECE_LETTERS, index.boards[:, row], strict=True):
        piece = chess.Piece.from_symbol(letter)
        for square in chess.scan_forward(int(bitboard)):
            board.set_piece_at(square, piece)
    return board


def has_board(pattern: Pattern) -> bool:
    """Whether ``pattern`` says something about the board (a scan narrows it); side and material alone
    are looked up by the store's own indexes."""
    return pattern.ranks is not None or bool(pattern.items)


class _Scan:
    """The tests of one scan over one index (the occupied squares are computed once, when first needed)."""

    def __init__(self, index: BoardIndex) -> None:
        self.index = index
        self._occupied: np.ndarray | None = None

    def occupied(self) -> np.ndarray:
        if self._occupied is None:
            self._occupied = np.bitwise_or.reduce(np.asarray(self.index.boards), axis=0)
        return self._occupied

    def variant(self, pattern: Pattern) -> np.ndarray:
        mask = np.ones(len(self.index), dtype=bool)
        if pattern.side is not None:
            mask &= np.asarray(self.index.sides) == (WHITE if pattern.side == "white" else BLACK)
        for item in pattern.items:
            mask &= self.item(item)
        for number, rank in zip(range(7, -1, -1), pattern.ranks or (), strict=False):
            for square, contents in placed_squares(rank, number):
                if contents != ALPHABET:  # '?': any square
                    mask &= self.holds(contents, np.uint64(1 << square))
        for anchor in pattern.anchors():
            mask &= self.anchor(anchor)
        return mask

    def item(self, item: Item) -> np.ndarray:
        """Some square of the item holds one of its contents (or, ``absent``, none does): exact."""
        squares = np.uint64(sum(1 << s for s in item.squares))
        found = self.holds(item.contents, squares)
        return ~found if item.absent else found

    def holds(self, contents: frozenset[str], squares: np.uint64) -> np.ndarray:
        """Per position: some square of the bitboard ``squares`` holds one of ``contents``."""
        found = np.zeros(len(self.index), dtype=bool)
        for letter in contents:
            board = self.index.bitboard(letter) if letter != EMPTY else ~self.occupied()
            found |= (board & squares) != _NONE
        return found

    def anchor(self, anchor: Anchor) -> np.ndarray:
        """Per position: it holds one of the anchor's values (``Nf5``, ``R*7``, ``2R*7``, a piece count)."""
        found = np.zeros(len(self.index), dtype=bool)
        if anchor.property == "pieceCount":
            found |= np.isin(np.bitwise_count(self.occupied()), np.array(anchor.values))
        elif anchor.property == "pieceOn":
            for value in map(str, anchor.values):
                found |= self.holds(frozenset(value[0]), np.uint64(1 << chess.parse_square(value[1:])))
        elif anchor.property == "pieceIn":
            for value in map(str, anchor.values):
                count, letter, rank = value[:-3] or "1", value[-3], int(value[-1]) - 1
                on_rank = self.index.bitboard(letter) & _RANKS[rank]
                found |= np.bitwise_count(on_rank) >= int(count)
        else:  # a lookup this index cannot test is no condition here (the REGEX still decides)
            found[:] = True
        return found
