"""A pattern tested on a generation's board index (``kb.store.board_file``): every position at once, with numpy.

The scan only *narrows*: it keeps every position whose board could match (the side to move, every list
item exactly, and every index lookup the pattern implies, :meth:`Pattern.anchors`: a piece on a square, a
piece on a rank, n of one piece on a rank, at most n pieces), and the SPARQL query then tests the survivors'
``cp:boardSquares`` with the same REGEX tests as on any server (``queries.find``). So the answer is decided
by one rule, the compiled REGEX; the index decides only how many boards that rule reads.
"""

from __future__ import annotations

import chess
import numpy as np

from chesskb.kb.analysis.board_index import EMPTY
from chesskb.kb.search.patterns import Anchor, Item, Pattern
from chesskb.kb.store.board_file import BLACK, WHITE, BoardIndex

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
