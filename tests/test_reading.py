"""Reading real files: counts match python-chess, encodings and compressions read the same."""

from __future__ import annotations

import gzip
import io
import json
from pathlib import Path

import chess.pgn
import pytest
import zstandard

from chesskb.kb.findings import Finding
from chesskb.kb.reading import read_records
from chesskb.kb.reading.records import GameRecord
from chesskb.kb.reading.text import sniff_encoding

from .conftest import DATA, run_cli

PGN_FILES = sorted(p for p in DATA.rglob("*.pgn"))


def python_chess_count(path: Path, encoding: str) -> tuple[int, int]:
    """Games python-chess reads from the file, and how many of them it reads without error."""
    total = clean = 0
    with open(path, encoding=encoding) as handle:
        while True:
            game = chess.pgn.read_game(handle)
            if game is None:
                return total, clean
            total += 1
            clean += not game.errors


def split(items) -> tuple[list[GameRecord], list[Finding]]:
    records = [i for i in items if isinstance(i, GameRecord)]
    findings = [i for i in items if isinstance(i, Finding)]
    return records, findings


# Files where python-chess reads one game as two: a blank line after the game comment of
# Barnes–Horton ends the game for python-chess, and its moves become a tagless game of their own.
# We read the tagged game whole (tests below), so these files count one game fewer.
SPLIT_BY_PYTHON_CHESS = {"test-checkmate.pgn": 1, "test-stalemate.pgn": 1}


@pytest.mark.parametrize("path", PGN_FILES, ids=lambda p: p.name)
def test_game_counts_equal_what_python_chess_reads(path: Path) -> None:
    encoding = sniff_encoding(path)
    total, clean = python_chess_count(path, "utf-8-sig" if encoding == "utf-8-sig" else "latin-1")
    fewer = SPLIT_BY_PYTHON_CHESS.get(path.name, 0)
    records, findings = split(list(read_records(path)))
    assert len(records) == clean - fewer
    # every game is a record or an error; warnings (a token passed over) sit beside a record
    assert len(records) + len([f for f in findings if f.game is not None and f.level == "error"]) == total - fewer


@pytest.mark.parametrize("name", sorted(SPLIT_BY_PYTHON_CHESS))
def test_a_blank_line_after_the_game_comment_does_not_split_the_game(name: str) -> None:
    records, _ = split(list(read_records(DATA / "pgn-extract" / name)))
    barnes = next(r for r in records if r.headers.get("White") == "Barnes, David J.")
    assert barnes.headers["Black"] == "Horton, Mark" and len(barnes.solution) == 72
    assert barnes.comments[0].startswith("Game played inaccurately")
    assert [r.location.game_number for r in records] == list(range(1, len(records) + 1))


def test_comment_text_and_line_comments_are_kept_as_written(tmp_path: Path) -> None:
    """Inside a {…} comment a blank line and a line starting with "%" are the comment's text (python-chess
    reads them so; "%" is an escape line only outside comments), and a ";" comment runs to its line's
    end: the stored movetext, read again by python-chess, gives the file's moves and comments."""
    text = (
        '[Event "Lesson"]\n[SetUp "1"]\n[FEN "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"]\n\n'
        "{ Before the move.\n\n%  of the class\n  indented }\n"
        "1. Ra8# ; a line comment {not a brace\n{ Mate.\n\n\nThe end. } 1-0\n"
    )
    path = tmp_path / "lesson.pgn"
    path.write_text(text, encoding="utf-8")
    expected = chess.pgn.read_game(io.StringIO(text))
    records, findings = split(list(read_records(path)))
    assert len(records) == 1 and not [f for f in findings if f.level == "error"], findings
    wanted = {node.ply(): node.comment for node in expected.mainline() if node.comment} | {0: expected.comment}
    assert records[0].comments == wanted
    again = chess.pgn.read_game(io.StringIO(text[: text.index("\n\n") + 2] + records[0].movetext + "\n"))
    assert again.errors == [] and list(again.mainline_moves()) == list(expected.mainline_moves())
    assert again.comment == expected.comment == "Before the move.\n\n%  of the class\n  indented"
    assert [node.comment for node in again.mainline()] == [node.comment for node in expected.mainline()]


def test_latin1_file_is_detected_and_names_decoded() -> None:
    path = DATA / "pychess" / "mate_in_2.pgn"
    assert sniff_encoding(path) == "latin-1"
    names = {r.headers.get("White") for r in read_records(path) if isinstance(r, GameRecord)}
    names |= {r.headers.get("Black") for r in read_records(path) if isinstance(r, GameRecord)}
    assert any("Polgár" in (name or "") for name in names)


def _variants(tmp_path: Path, source: Path) -> dict[str, Path]:
    raw = source.read_bytes()
    text = raw.decode("utf-8")
    out = {}
    for name, data in {
        "plain.pgn": raw,
        "bom.pgn": b"\xef\xbb\xbf" + raw,
        "crlf.pgn": text.replace("\n", "\r\n").encode(),
        "latin1.pgn": text.encode("latin-1"),
        "gzip.pgn.gz": gzip.compress(raw),
        "zstd.pgn.zst": zstandard.ZstdCompressor().compress(raw),
    }.items():
        path = tmp_path / name
        path.write_bytes(data)
        out[name] = path
    return out


def test_bom_crlf_latin1_gzip_zstd_read_identically(tmp_path: Path) -> None:
    source = DATA / "games" / "kasparov-deep-blue-1997.pgn"
    # add a non-ASCII name so the Latin-1 variant differs from UTF-8 at the byte level
    text = source.read_text(encoding="utf-8").replace("Garry Kasparov", "Garri Kaspárov", 1)
    base = tmp_path / "base.pgn"
    base.write_text(text, encoding="utf-8")
    reference = [
        (r.headers, r.start_fen, [m.uci() for m in r.solution], r.location.line)
        for r in read_records(base)
        if isinstance(r, GameRecord)
    ]
    assert len(reference) == 6
    assert any(h.get("White") == "Garri Kaspárov" for h, *_ in reference)
    for name, path in _variants(tmp_path, base).items():
        got = [
            (r.headers, r.start_fen, [m.uci() for m in r.solution], r.location.line)
            for r in read_records(path)
            if isinstance(r, GameRecord)
        ]
        assert got == reference, name


def test_lichess_csv_position_is_after_the_setup_move() -> None:
    records, findings = split(list(read_records(DATA / "lichess" / "puzzles.csv")))
    assert not findings
    assert len(records) == 300
    first = records[0]
    assert first.puzzle is not None and first.puzzle.puzzle_id == "000rZ"
    board = chess.Board("2kr1b1r/p1p2pp1/2pqb3/7p/3N2n1/2NPB3/PPP2PPP/R2Q1RK1 w - - 2 13")
    board.push_uci("d4e6")
    assert first.start_fen == board.fen()
    assert [m.uci() for m in first.solution] == ["d6h2"]
    assert first.puzzle.rating == 633 and "mateIn1" in first.puzzle.themes


def test_lichess_csv_zst_is_read_directly(tmp_path: Path) -> None:
    path = tmp_path / "puzzles.csv.zst"
    path.write_bytes(zstandard.ZstdCompressor().compress((DATA / "lichess" / "puzzles.csv").read_bytes()))
    assert len([r for r in read_records(path) if isinstance(r, GameRecord)]) == 300


def test_broken_game_is_reported_with_file_game_and_line_and_neighbours_survive(tmp_path: Path) -> None:
    good = '[Event "A"]\n[White "X"]\n[Black "Y"]\n[Result "1-0"]\n\n1. e4 e5 2. Qh5 Nc6 3. Bc4 Nf6 4. Qxf7# 1-0\n\n'
    crash = '[Event "Crash"]\n[Result "*"]\n\n1. e4 (1. Nh6) (1. d4) e5 *\n\n'  # python-chess 1.11 raises
    illegal = '[Event "Illegal"]\n[Result "*"]\n\n1. e4 e5 2. Ke3 *\n\n'
    path = tmp_path / "mixed.pgn"
    path.write_text(good + crash + illegal + good.replace('"A"', '"B"'), encoding="utf-8")
    records, findings = split(list(read_records(path, display_name="mixed.pgn")))
    assert [r.headers["Event"] for r in records] == ["A", "B"]
    assert [r.location.game_number for r in records] == [1, 4]
    assert [(f.game, f.line) for f in findings] == [(2, 8), (3, 16)]  # game start; line of the bad move
    # named as `validate` names it: move number, the move as written, line and column (issue 34)
    assert str(findings[1]).startswith(
        "mixed.pgn: game 3 (line 16, column 13): move 2. 'Ke3' is illegal in this position (White to move, "
    )
    assert "illegal san" not in findings[1].message


def test_comment_with_bracket_lines_does_not_split_a_game(tmp_path: Path) -> None:
    path = tmp_path / "comment.pgn"
    path.write_text('[Event "C"]\n\n1. e4 {a comment\n[%clk 0:01:00]\nstill comment} e5 *\n', encoding="utf-8")
    records, findings = split(list(read_records(path)))
    assert not findings and len(records) == 1
    assert [m.uci() for m in records[0].solution] == ["e2e4", "e7e5"]


def test_fen_tag_without_setup_is_the_start_position(tmp_path: Path) -> None:
    fen = "6k1/5ppp/8/8/8/8/5PPP/3R2K1 w - - 0 1"
    path = tmp_path / "fen.pgn"
    path.write_text(f'[Event "Back rank"]\n[FEN "{fen}"]\n\n1. Rd8# *\n', encoding="utf-8")
    (record,) = [r for r in read_records(path) if isinstance(r, GameRecord)]
    assert record.start_fen == fen
    assert record.movetext == "1. Rd8#"


def test_empty_and_binary_files_give_findings_not_exceptions(tmp_path: Path) -> None:
    empty = tmp_path / "empty.pgn"
    empty.write_bytes(b"")
    assert list(read_records(empty)) == []
    binary = tmp_path / "binary.pgn"
    binary.write_bytes(bytes(range(256)) * 50)
    items = list(read_records(binary))
    assert all(isinstance(i, (Finding, GameRecord)) for i in items)
    assert not any(isinstance(i, GameRecord) and i.solution for i in items)


def test_missing_file_is_a_finding(tmp_path: Path) -> None:
    (finding,) = list(read_records(tmp_path / "nope.pgn"))
    assert isinstance(finding, Finding) and finding.rule == "file-unreadable"


def test_stream_is_not_loaded_whole(tmp_path: Path, monkeypatch) -> None:
    """Segments are produced lazily: the first game arrives before the file is read to the end."""
    from chesskb.kb.reading import pgn

    text = '[Event "G"]\n\n1. e4 e5 *\n\n' * 2000
    handle = io.StringIO(text)
    segments = pgn.split_segments(handle)
    next(segments)
    assert handle.tell() < len(text) / 100


BINARY = bytes(range(256)) * 50


@pytest.mark.parametrize("name", ["binary.pgn", "binary.csv", "binary.csv.gz", "binary.pgn.zst"])
def test_every_format_gets_the_same_file_checks(tmp_path: Path, name: str) -> None:
    """A file that is not text is one finding, whatever its name says: the CSV reader had no such
    check (its bytes went to the csv module) until every format read through ``kb.reading.units``."""
    path = tmp_path / name
    if name.endswith(".gz"):
        path.write_bytes(gzip.compress(BINARY))
    elif name.endswith(".zst"):
        path.write_bytes(zstandard.ZstdCompressor().compress(BINARY))
    else:
        path.write_bytes(BINARY)
    (finding,) = list(read_records(path))
    assert isinstance(finding, Finding) and finding.rule == "file-binary" and finding.level == "error"
    result = run_cli("import", str(path), store=tmp_path / "store")
    assert result.exit_code == 1 and "not text" in result.output


def test_a_stream_that_breaks_keeps_the_games_read_before_it(tmp_path: Path) -> None:
    """A gzip file cut short inside its fourth game: the three games before the break are read and
    imported, the break is reported at game 4. (The importer used to drop the unfinished work unit,
    so this file imported nothing and reported the break at game 1.)"""
    games = [
        f'[Event "Before the break {n}"]\n[White "W{n}"]\n[Black "B{n}"]\n\n1. e4 e5 2. Nf3 *\n\n' for n in range(1, 4)
    ]
    long_game = '[Event "Cut"]\n\n1. e4 {' + "a lesson that never ends " * 120_000 + "} e5 *\n"
    text = "".join(games) + long_game
    compressed = gzip.compress(text.encode("utf-8"))
    path = tmp_path / "cut.pgn.gz"
    path.write_bytes(compressed[: len(compressed) // 2])
    expected = []  # independently: the games python-chess reads from the text before the break
    stream = io.StringIO("".join(games))
    while (game := chess.pgn.read_game(stream)) is not None:
        expected.append(game.headers["Event"])
    records, findings = split(list(read_records(path)))
    assert [r.headers["Event"] for r in records] == expected and len(expected) == 3
    (finding,) = findings
    assert finding.rule == "file-unreadable" and finding.game == 4
    store = tmp_path / "store"
    result = run_cli("import", str(path), store=store)
    assert result.exit_code == 0, result.output
    assert "game 4: reading stopped" in result.output
    rows = run_cli(
        "query",
        "--format",
        "json",
        "SELECT ?e WHERE { ?m a cp:Match ; cp:hasEvent ?ev . ?ev cp:eventName ?e }",
        store=store,
    )
    assert sorted(b["e"]["value"] for b in json.loads(rows.output)["results"]["bindings"]) == expected
