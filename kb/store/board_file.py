"""The board index beside a generation: every position's twelve piece bitboards and side to move.

A pattern search (``chesskb find``) needs each position's board; reading 71-character
``cp:boardSquares`` strings out of the triples costs microseconds per position, and the per-piece
lookups that once made it fast (``cp:pieceOn``, ``cp:pieceIn``) were a third of every position's
statements (issue 36). Like Scid's and ChessBase's position encodings, this index keeps the board in a
form built for scanning: one ``uint64`` per piece kind per position (bit ``n`` set: that piece stands on
python-chess's square ``n``), tested for a whole store at once with numpy.

It is *derived* from the generation's own ``cp:boardSquares`` and ``cp:sideToMove`` statements (the merge,
the default graph) and written into the generation before its manifest (``manifest.py``) lists its files,
so every write that publishes a generation (import, append, remove-source, compact) publishes the index of
exactly that generation, it switches with ``CURRENT``, and a missing or changed index file is refused as
damage like any file of the store. A generation whose manifest lists no index (written before it existed)
has none: the search then matches the board strings in SPARQL, as on a remote server.

Three files, each a plain ``.npy`` opened memory-mapped (a scan reads only the bitboards it tests):
:data:`BOARDS` (12 × N ``uint64``, in :data:`PIECE_LETTERS` order), :data:`SIDES` (N ``uint8``,
:data:`WHITE`/:data:`BLACK`/:data:`UNKNOWN`) and :data:`POSITIONS` (N IRIs, UTF-8).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from pyoxigraph import DefaultGraph, Literal, NamedNode
from pyoxigraph import Store as OxStore

from chesskb.kb.store.base import StoreDamaged
from chesskb.kb.vocab import CP

BOARDS = "CHESSKB-BOARDS.npy"
SIDES = "CHESSKB-SIDES.npy"
POSITIONS = "CHESSKB-POSITIONS.npy"
FILES = (BOARDS, SIDES, POSITIONS)
#: The rows of :data:`BOARDS`: python-chess's piece symbols, white then black.
PIECE_LETTERS = "PNBRQKpnbrqk"
WHITE, BLACK, UNKNOWN = 1, 0, 2
_SIDE_CODES = {"white": WHITE, "black": BLACK}
#: Positions decoded per step while the index is built (memory: about 1 KB per position per step).
BUILD_CHUNK = 65_536
#: ``cp:boardSquares`` lists rank 8 first: column ``i`` of its 64 squares (``/`` removed) is square
#: ``_SQUARE_OF_COLUMN[i]``, and square ``n`` is column ``_COLUMN_OF_SQUARE[n]``.
_SQUARE_OF_COLUMN = np.array([(7 - i // 8) * 8 + i % 8 for i in range(64)])
_COLUMN_OF_SQUARE = np.argsort(_SQUARE_OF_COLUMN)


@dataclass(frozen=True)
class BoardIndex:
    """A generation's board index, memory-mapped: ``boards[k]`` is the bitboard of ``PIECE_LETTERS[k]``
    for every position, ``sides`` the side to move, ``positions`` the positions' IRIs (UTF-8 bytes)."""

    boards: np.ndarray
    sides: np.ndarray
    positions: np.ndarray

    def __len__(self) -> int:
        return int(self.sides.shape[0])

    def bitboard(self, letter: str) -> np.ndarray:
        """The bitboards of the piece ``letter`` (``N``, ``k`` …), one per position."""
        row: np.ndarray = self.boards[PIECE_LETTERS.index(letter)]
        return row

    def iri(self, row: int) -> str:
        return bytes(self.positions[row]).decode("utf-8")


def bitboards(squares: list[str]) -> np.ndarray:
    """The 12 × N bitboards of N ``cp:boardSquares`` strings (71 characters each: rank 8 first, ``/``
    between ranks, ``.`` for an empty square). A string of another shape raises ``ValueError``."""
    text = "".join(s.replace("/", "") for s in squares).encode("ascii")
    if len(text) != 64 * len(squares) or any(len(s) != 71 for s in squares):
        raise ValueError("a cp:boardSquares value is not 64 squares in 8 ranks")
    if not squares:
        return np.zeros((len(PIECE_LETTERS), 0), dtype=np.uint64)
    columns = np.frombuffer(text, dtype=np.uint8).reshape(len(squares), 64)[:, _COLUMN_OF_SQUARE]
    out = np.empty((len(PIECE_LETTERS), len(squares)), dtype=np.uint64)
    for row, letter in enumerate(PIECE_LETTERS):
        bits = np.packbits(columns == ord(letter), axis=1, bitorder="little")  # bit n: square n
        out[row] = np.ascontiguousarray(bits).view("<u8")[:, 0]
    return out


def board_strings(boards: np.ndarray) -> list[str]:
    """The ``cp:boardSquares`` strings of 12 × K bitboards (the inverse of :func:`bitboards`)."""
    count = boards.shape[1]
    columns = np.full((count, 64), ord("."), dtype=np.uint8)
    shifts = np.arange(64, dtype=np.uint64)
    for row, letter in enumerate(PIECE_LETTERS):
        placed = ((np.asarray(boards[row])[:, None] >> shifts) & np.uint64(1)).astype(bool)  # column n: square n
        columns[placed] = ord(letter)
    ranks = columns[:, _SQUARE_OF_COLUMN].reshape(count, 8, 8)
    text = np.concatenate([ranks, np.full((count, 8, 1), ord("/"), dtype=np.uint8)], axis=2).reshape(count, 72)
    return [bytes(line[:71]).decode("ascii") for line in text]


def write_board_index(generation: Path) -> int:
    """Build the index of the finished generation at ``generation`` (closed by its writer) from its
    default graph and write its files into it; returns the number of positions. A subject with
    two board strings (two sources disagreeing) is indexed once per string: a scan finds it if either matches."""
    store = OxStore.read_only(str(generation))
    default = DefaultGraph()
    sides = {
        q.subject.value: _SIDE_CODES.get(q.object.value, UNKNOWN)
        for q in store.quads_for_pattern(None, CP.sideToMove, None, default)
        if isinstance(q.subject, NamedNode) and isinstance(q.object, Literal)
    }
    iris: list[bytes] = []
    side_codes: list[int] = []
    parts: list[np.ndarray] = []
    pending: list[str] = []
    for quad in store.quads_for_pattern(None, CP.boardSquares, None, default):
        if not isinstance(quad.subject, NamedNode) or not isinstance(quad.object, Literal):
            continue
        iris.append(quad.subject.value.encode("utf-8"))
        side_codes.append(sides.get(quad.subject.value, UNKNOWN))
        pending.append(quad.object.value)
        if len(pending) == BUILD_CHUNK:
            parts.append(bitboards(pending))
            pending = []
    del store
    parts.append(bitboards(pending))
    _save(generation / BOARDS, np.concatenate(parts, axis=1))
    _save(generation / SIDES, np.array(side_codes, dtype=np.uint8))
    _save(generation / POSITIONS, np.array(iris, dtype=bytes) if iris else np.array([], dtype="S1"))
    return len(iris)


def _save(path: Path, array: np.ndarray) -> None:
    partial = path.with_name(path.name + ".tmp")  # the manifest lists no .tmp file
    with open(partial, "wb") as handle:
        np.save(handle, array, allow_pickle=False)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(partial, path)


def read_board_index(generation: Path, listed: bool) -> BoardIndex | None:
    """The index of ``generation`` (already checked against its manifest), memory-mapped; ``None``
    when the manifest does not list it (``listed``: a generation written before the index existed).
    Files of shapes that do not fit together raise ``StoreDamaged``: never a silently wrong scan."""
    if not listed:
        return None
    try:
        boards = np.load(generation / BOARDS, mmap_mode="r", allow_pickle=False)
        sides = np.load(generation / SIDES, mmap_mode="r", allow_pickle=False)
        positions = np.load(generation / POSITIONS, mmap_mode="r", allow_pickle=False)
    except (OSError, ValueError) as exc:
        raise StoreDamaged(
            f"the store is damaged: the board index of {generation} cannot be read ({exc}); "
            "restore the store from a backup or import the sources again into a new store"
        ) from exc
    count = sides.shape[0]
    if boards.dtype != np.uint64 or boards.shape != (len(PIECE_LETTERS), count) or positions.shape != (count,):
        raise StoreDamaged(
            f"the store is damaged: the board index files of {generation} do not fit together "
            f"({boards.shape}, {sides.shape}, {positions.shape}); restore the store from a backup "
            "or import the sources again into a new store"
        )
    return BoardIndex(boards, sides, positions)
