"""What the import pipeline remembers to save time changes no statement.

``kb.pipeline`` keeps the analyses of recent positions (``AnalysisMemo``, found by
``GameRecord.start_key``) and the statements recently sent (``RecentQuads``); the mapping keeps
terms, literals and class lists per process. Here the statements ``convert`` writes for the shipped
collections (each file twice in one run, so every record is a copy the caches answer) are compared
with each record analysed and mapped on its own, with nothing remembered: python-chess sets the board
up from the record, ``analyse`` and ``record_quads`` run fresh per record.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import chess
import pytest
from pyoxigraph import Literal, NamedNode, Quad, RdfFormat, parse

from chesskb.kb import pipeline
from chesskb.kb.analysis import analyse
from chesskb.kb.analysis.exercises import assess_themes, is_exercise, is_game_start
from chesskb.kb.analysis.verify import MateVerifier
from chesskb.kb.export.convert import convert_files
from chesskb.kb.findings import Finding
from chesskb.kb.mapping.game import MappingContext, literal, record_quads, source_quads
from chesskb.kb.mapping.iris import IriMinter
from chesskb.kb.pipeline import AnalysisMemo, RecentQuads
from chesskb.kb.reading.records import GameRecord
from chesskb.kb.reading.units import source_units, unit_records
from chesskb.kb.vocab import XSD
from tests.conftest import DATA

#: puzzles (a setup move on the board), mate problems (FEN), full games, odds games
FILES = ("lichess/puzzles.csv", "pychess/mate_in_2.pgn", "games/kasparov-deep-blue-1997.pgn", "pgn-extract/odds.pgn")


def _records(paths: list[Path], source: str) -> list[GameRecord]:
    """The records of a source's files, numbered on from one file to the next as an import numbers them."""
    return [
        item
        for unit in source_units(paths, source)
        for item in unit_records(unit, None)
        if not isinstance(item, Finding)
    ]


def _fresh_quads(paths: list[Path], source: str) -> set[str]:
    """Every record of ``paths`` analysed and mapped on its own (no memo, no dedup), as N-Quads lines."""
    ctx = MappingContext(IriMinter(None), source)
    quads: list[Quad] = list(source_quads(ctx))
    for record in _records(paths, source):
        verifier = MateVerifier()  # a new one each time: nothing decided before is reused
        board = chess.Board(record.puzzle.fen_before_setup) if record.puzzle else chess.Board(record.start_fen)
        if record.puzzle:
            board.push(chess.Move.from_uci(record.puzzle.setup_move_uci))
        exercise = is_exercise(record)
        analysis = analyse(board, record.solution, verifier=verifier, exercise=exercise)
        themes = assess_themes(record, analysis, verifier=verifier, exercise=exercise)
        quads += record_quads(record, analysis, ctx, (), themes)
    return {str(quad) for quad in quads}


@pytest.mark.slow  # converts each shipped file with and without its caches
@pytest.mark.parametrize("name", FILES)
def test_convert_with_its_caches_writes_what_fresh_mapping_gives(
    name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    path = DATA / name
    copy = tmp_path / ("copy" + path.suffix)
    copy.write_bytes(path.read_bytes())  # the same records again: the memo answers, the sent statements repeat
    monkeypatch.setenv("CHESSKB_ENGINE", "none")  # the fresh side has no engine either
    monkeypatch.setenv("CHESSKB_VERIFY_CACHE", "none")  # and no claims decided by earlier runs
    # a small window of sent statements, so the oldest are dropped (and sent again) many times over
    monkeypatch.setattr(pipeline._SENT, "size", 500)
    output = tmp_path / "out.nq"
    convert_files([path, copy], output, source="s", jobs=1)
    minter = IriMinter(None)
    graphs = {minter.source_graph("s").value, minter.inferred_graph("s").value}
    written = {
        str(quad)
        for quad in parse(path=str(output), format=RdfFormat.N_QUADS)
        if isinstance(quad.graph_name, NamedNode) and quad.graph_name.value in graphs
    }
    expected = _fresh_quads([path, copy], "s")
    assert written == expected
    assert len(written) > 100


def test_start_key_identifies_the_start_board() -> None:
    """Equal keys, equal boards (move stack included); every record of the puzzles and problems."""
    seen: dict[tuple[str, ...], tuple[str, list[str]]] = {}
    records = 0
    for name in ("lichess/puzzles.csv", "pychess/mate_in_2.pgn", "pychess/mate_in_3.pgn", "pychess/mate_in_3.pgn"):
        for record in _records([DATA / name], "s"):
            board = record.start_board()
            state = (board.root().fen() + "|" + board.fen(), [m.uci() for m in board.move_stack])
            assert seen.setdefault(record.start_key(), state) == state
            records += 1
    assert len(seen) > 400 and records > len(seen)  # mate_in_3 read twice: its keys met again


def test_memo_answers_a_copy_with_the_fresh_analysis() -> None:
    memo = AnalysisMemo(size=8)
    verifier = MateVerifier()
    records = _records([DATA / "lichess/puzzles.csv"], "s")[:40]
    for record in records + records:  # the second pass: every answer from the memo or, beyond 8, anew
        got = memo.analyse_record(record, verifier, exercise=True)
        fresh = analyse(record.start_board(), record.solution, verifier=MateVerifier(), exercise=True)
        assert (got.facts, got.classes) == (fresh.facts, fresh.classes)


def test_recent_quads_sends_each_statement_once_within_its_window() -> None:
    recent = RecentQuads(size=3)
    subject, predicate = NamedNode("http://example.org/s"), NamedNode("http://example.org/p")
    a, b, c, d = (Quad(subject, predicate, Literal(text)) for text in "abcd")
    assert recent.fresh([a, b, a]) == [a, b]
    assert recent.fresh([c, b]) == [c]
    assert recent.fresh([d]) == [d]  # four seen, three kept: a, the oldest, is forgotten
    assert recent.fresh([a, b]) == [a]  # a again; b is still within the window (b, c, d before a came back)
    recent.clear()
    assert recent.fresh([b]) == [b]


@pytest.mark.parametrize("value", [False, True, 0, 1, -1, -64, -65, 4095, 4096, 10**12, "w", "", dt.date(2024, 2, 29)])
def test_literals_made_once_equal_new_ones(value) -> None:
    if isinstance(value, bool):
        expected = Literal("true" if value else "false", datatype=XSD.boolean)
    elif isinstance(value, int):
        expected = Literal(str(value), datatype=XSD.integer)
    elif isinstance(value, dt.date):
        expected = Literal(value.isoformat(), datatype=XSD.date)
    else:
        expected = Literal(value)
    assert literal(value) == expected


def test_every_literal_kept_per_process_equals_a_new_one() -> None:
    for number in range(-200, 5000):
        assert literal(number) == Literal(str(number), datatype=XSD.integer)
    assert literal(True) == Literal("true", datatype=XSD.boolean)
    assert literal(False) == Literal("false", datatype=XSD.boolean)


def test_game_start_counts_moved_men_as_python_chess_reads_the_squares() -> None:
    """The bitboard count against python-chess's square-by-square reading, on every start position of
    the shipped PGN files and on boards a few moves or men away from the start."""
    home = chess.Board()

    def expected(board: chess.Board) -> bool:
        if board.fullmove_number > 2 or board.move_stack:
            return False
        men = board.piece_map()
        moved = sum(1 for square, piece in men.items() if home.piece_at(square) != piece)
        return (len(men) >= 24 and moved <= 2) or (
            board.turn == chess.WHITE and board.copy(stack=False).chess960_pos() is not None
        )

    boards = [chess.Board(record.start_fen) for path in sorted(DATA.rglob("*.pgn")) for record in _records([path], "s")]
    for moves in (["e2e4"], ["e2e4", "e7e5"], ["g1f3", "g8f6", "f3g1"], ["d2d4", "d7d5", "c2c4", "e7e6"]):
        board = chess.Board()
        for uci in moves:
            board.push_uci(uci)
        boards.append(chess.Board(board.fen()))
    for square in (chess.A1, chess.D1, chess.E2, chess.F7, chess.H8):
        board = chess.Board()
        board.remove_piece_at(square)
        boards.append(board)
    boards.append(chess.Board.from_chess960_pos(517))
    assert any(expected(board) for board in boards) and not all(expected(board) for board in boards)
    for board in boards:
        assert is_game_start(board) == expected(board), board.fen()


def test_source_counts_include_the_individuals_of_statements_sent_before(tmp_path: Path) -> None:
    """A copy's statements are dropped as sent before (``RecentQuads``) and its individuals are not
    counted again: the counts the meta graph keeps still equal those the store's data gives, and a
    file imported twice into one source has as many matches, positions and players as imported once."""
    import shutil

    from chesskb.kb.importer import import_files, source_counts
    from chesskb.kb.store import open_store

    copies = [tmp_path / "one.pgn", tmp_path / "two.pgn"]  # 96 games each: the copies fall in later units
    for copy in copies:
        shutil.copyfile(DATA / "pychess/mate_in_2.pgn", copy)
    minter = IriMinter(None)
    counted = {}
    for name, files in (("once", copies[:1]), ("twice", copies)):
        store = open_store(str(tmp_path / name))
        try:
            import_files(store, files, source=name, jobs=1)
            row = next(
                iter(
                    store.query(
                        "SELECT ?g ?p ?l WHERE { ?s cp:gameCount ?g ; cp:positionCount ?p ; cp:playerCount ?l }"
                    )
                )
            )
            kept = tuple(int(row[k].value) for k in ("g", "p", "l"))
            assert kept == source_counts(store, minter, name)
            counted[name] = kept
        finally:
            store.close()
    assert counted["twice"] == counted["once"] and counted["once"][0] > 50
