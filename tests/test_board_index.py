"""The board index beside each generation (``kb/store/board_file.py``) and ``find`` scanning it.

Expected boards are read from the source files with python-chess (``tests/test_patterns.file_positions``
and the fixtures' own reading here), never from what the importer wrote; the index must hold exactly
those boards, survive every write that publishes a generation, and be refused when damaged.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
from pathlib import Path

import chess
import chess.pgn
import numpy as np
import pytest

from chesskb.kb.search.patterns import parse
from chesskb.kb.store import EmbeddedStore, StoreDamaged, open_store
from chesskb.kb.store.board_file import BOARDS, FILES, PIECE_LETTERS, POSITIONS, SIDES, WHITE
from chesskb.kb.store.manifest import MANIFEST
from chesskb.queries.find import find_on_index, find_query
from tests.conftest import ROOT, run_cli
from tests.test_patterns import PATTERNS, _key, expected, file_positions, found

FIXTURES = ROOT / "tests" / "fixtures"
GAMES, PUZZLES = FIXTURES / "round-robin.pgn", FIXTURES / "puzzles-30.csv"


def boards_of(path) -> set[str]:
    """The positions a fixture file holds (python-chess over the file): games' start positions and each
    puzzle's position after its setup move, keyed as ``tests.test_patterns`` keys them."""
    keys: set[str] = set()
    if path.suffix == ".csv":
        with path.open(encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle):
                board = chess.Board(row["FEN"])
                board.push_uci(row["Moves"].split()[0])
                keys.add(_key(board))
        return keys
    handle = io.StringIO(path.read_text(encoding="utf-8"))
    while (game := chess.pgn.read_game(handle)) is not None:
        keys.add(_key(game.board()))
    return keys


def indexed(store_path) -> tuple[set[str], dict[str, str]]:
    """The index's boards as python-chess reads them back from the bitboards (placement and side), and
    each row's IRI with its board."""
    index = EmbeddedStore(store_path).board_index()
    assert index is not None
    keys: dict[str, str] = {}
    for row in range(len(index)):
        board = chess.Board.empty()
        for letter, bitboard in zip(PIECE_LETTERS, index.boards[:, row], strict=True):
            for square in chess.scan_forward(int(bitboard)):
                board.set_piece_at(square, chess.Piece.from_symbol(letter))
        board.turn = bool(index.sides[row] == WHITE)
        keys[index.iri(row)] = _key(board)
    return set(keys.values()), keys


def test_the_index_holds_python_chess_boards_of_every_stored_position(data_store):
    """Every position of the shipped files, bitboard for bitboard, and each row the board its own IRI's
    FEN states (the rows and the IRIs are not shuffled against each other)."""
    boards, by_iri = indexed(data_store)
    assert boards == set(file_positions())
    store = open_store(str(data_store))
    fens = {r["p"].value: r["fen"].value for r in store.query("SELECT ?p ?fen WHERE { ?p cp:fen ?fen }")}
    assert len(by_iri) == len(fens) > 400
    for iri, key in by_iri.items():
        assert _key(chess.Board(fens[iri])) == key, iri


@pytest.mark.parametrize("either", [False, True])
def test_find_on_the_index_is_find_on_board_strings_is_python_chess(data_store, either):
    """For every pattern of tests/test_patterns.py: the scan-then-REGEX query, the plain REGEX query (what
    a remote server or an older store runs) and python-chess over the files agree."""
    store = open_store(str(data_store))
    index = store.board_index()
    assert index is not None
    positions = file_positions()
    for text, predicate in PATTERNS:
        pattern = parse(text, either_colour=either)
        scanned = store.query(find_on_index(store, index, pattern, limit=0))
        plain = store.query(find_query(pattern, limit=0, piece_index=False))
        via_index = {_key(chess.Board(r["fen"].value)) for r in scanned}
        assert via_index == {_key(chess.Board(r["fen"].value)) for r in plain}, text
        assert via_index == expected(positions, predicate, either), text


def test_index_pages_join_up_to_the_whole_answer(data_store):
    store = open_store(str(data_store))
    index = store.board_index()
    pattern = parse("K** !Q**")
    whole = [r["position"].value for r in store.query(find_on_index(store, index, pattern, limit=0))]
    pages: list[str] = []
    for offset in range(0, len(whole) + 50, 50):
        page = find_on_index(store, index, pattern, limit=50, offset=offset)
        pages += [r["position"].value for r in store.query(page)]
    assert len(whole) > 100 and sorted(pages) == sorted(whole) and len(set(pages)) == len(pages)


def test_the_index_follows_append_remove_source_reimport_and_compact(tmp_path):
    store = tmp_path / "store"
    games, puzzles = boards_of(GAMES), boards_of(PUZZLES)
    assert run_cli("import", "--jobs", "1", str(GAMES), store=store).exit_code == 0
    assert indexed(store)[0] == games
    assert run_cli("import", "--jobs", "1", str(PUZZLES), store=store).exit_code == 0  # an append
    assert indexed(store)[0] == games | puzzles
    assert run_cli("remove-source", "round-robin", store=store).exit_code == 0
    assert indexed(store)[0] == puzzles
    assert run_cli("import", "--jobs", "1", str(PUZZLES), store=store).exit_code == 0  # re-import, unchanged
    assert indexed(store)[0] == puzzles
    assert run_cli("import", "--jobs", "1", str(GAMES), store=store).exit_code == 0
    result = run_cli("compact", store=store)
    assert result.exit_code == 0, result.output
    assert indexed(store)[0] == games | puzzles
    black_king_g8 = {
        k for k in games | puzzles if chess.Board(k + " - - 0 1").piece_at(chess.G8) == chess.Piece(6, False)
    }
    assert found(store, "kg8") == black_king_g8 and black_king_g8


@pytest.fixture
def small(small_store, tmp_path):
    """A copy of the run's small store (``GAMES`` and ``PUZZLES``, imported once: ``conftest.small_store``) for
    one test to damage, and its live generation."""
    store = Path(shutil.copytree(small_store, tmp_path / "store", symlinks=True))
    return store, store / os.readlink(store / "CURRENT")


@pytest.mark.parametrize("name", FILES)
def test_a_changed_index_file_is_refused_as_damage(small, name):
    store, generation = small
    path = generation / name
    data = bytearray(path.read_bytes())
    data[-1] ^= 0x01  # one bit of the last board, side or IRI
    path.write_bytes(bytes(data))
    with pytest.raises(StoreDamaged, match=f"damaged: .*{name} was changed"):
        EmbeddedStore(store).board_index()


def test_a_missing_index_file_is_refused_as_damage(small):
    store, generation = small
    (generation / BOARDS).unlink()
    with pytest.raises(StoreDamaged, match="missing"):
        EmbeddedStore(store).board_index()


def test_a_generation_without_an_index_is_searched_on_its_board_strings(small):
    """A generation written before the index (its manifest lists none) still answers, by REGEX."""
    store, generation = small
    want = found(store, "R*7 kg8")
    manifest = json.loads((generation / MANIFEST).read_text(encoding="utf-8"))
    for name in FILES:
        del manifest["files"][name]
        (generation / name).unlink()
    (generation / MANIFEST).write_text(json.dumps(manifest), encoding="utf-8")
    assert EmbeddedStore(store).board_index() is None
    assert found(store, "R*7 kg8") == want and want
    # the next write gives the new generation its index
    assert run_cli("import", "--force", "--jobs", "1", str(GAMES), store=store).exit_code == 0
    assert EmbeddedStore(store).board_index() is not None


def test_index_files_that_do_not_fit_together_are_refused(small):
    """Files that pass their checksums but disagree in length (written by hand, listed again) are
    refused, never scanned."""
    from chesskb.kb.store.manifest import write_manifest

    store, generation = small
    sides = np.load(generation / SIDES)
    np.save(generation / SIDES, sides[:-1])
    write_manifest(generation)
    with pytest.raises(StoreDamaged, match="do not fit"):
        EmbeddedStore(store).board_index()
    assert POSITIONS in FILES


def test_bitboards_and_board_strings_are_inverse_on_python_chess_boards():
    """``board_strings`` (what the scan's regular expressions read) gives back python-chess's own board
    string for random legal positions, and ``bitboards`` python-chess's piece masks."""
    import random

    from chesskb.kb.store.board_file import bitboards, board_strings

    rng, board, boards = random.Random(36), chess.Board(), []
    for _ in range(400):
        moves = list(board.legal_moves)
        board = board.copy() if moves else chess.Board()
        if moves:
            board.push(rng.choice(moves))
        boards.append(board)
    strings = [
        "/".join(
            "".join(p.symbol() if (p := b.piece_at(chess.square(f, r))) else "." for f in range(8))
            for r in range(7, -1, -1)
        )
        for b in boards
    ]
    packed = bitboards(strings)
    for column, b in enumerate(boards):
        for row, letter in enumerate(PIECE_LETTERS):
            piece = chess.Piece.from_symbol(letter)
            assert int(packed[row, column]) == int(b.pieces_mask(piece.piece_type, piece.color))
    assert board_strings(packed) == strings


def test_the_canned_pattern_query_given_the_index_answers_as_without_it(data_store):
    """``positions-matching-pattern`` given every match from the board index (a VALUES block) answers
    what it answers by REGEX alone and what python-chess finds, for every pattern of tests/test_patterns.py."""
    from chesskb.queries.executor import prepare
    from chesskb.queries.find import has_piece_index, pattern_scan

    store = open_store(str(data_store))
    scan, indexes, positions = pattern_scan(store), has_piece_index(store), file_positions()
    assert scan is not None
    given = 0
    for text, predicate in PATTERNS:
        params = {"pattern": text, "limit": "0"}
        scanned = prepare("positions-matching-pattern", params, public=True, indexes=indexes, scan=scan)
        plain = prepare("positions-matching-pattern", params, public=True, indexes=indexes)
        given += "VALUES ?position" in scanned
        rows = {_key(chess.Board(r["fen"].value)) for r in store.query(scanned)}
        assert rows == {_key(chess.Board(r["fen"].value)) for r in store.query(plain)}, text
        assert rows == expected(positions, predicate, False), text
    assert given >= len(PATTERNS) // 2
