"""Decompression bombs, over-long lines and games, and the import workers' memory cap (issue 35, item 5).

Reproductions: a 45 KB ``.pgn.zst`` took the import to 2.1 GB; one-line ``.gz`` and ``.csv.gz`` bombs
grew quadratically in time. Each bomb is built here (tens of kilobytes compressed, hundreds of
megabytes decompressed) behind real games, and imported by the real ``chesskb`` in a child process
under an address-space bound far below what the bomb decompresses to: the import must end soon,
name the file, the game and the line, and keep the real games.
"""

from __future__ import annotations

import csv
import gzip
import io
import os
import random
import re
import resource
import subprocess
import sys
import time
from pathlib import Path

import chess.pgn
import pytest
import zstandard

from chesskb.kb.reading.memory import cap_address_space
from chesskb.kb.reading.pgn import MAX_GAME_CHARACTERS
from chesskb.kb.reading.text import MAX_LINE_BYTES, RATIO_CHECKED_FROM, open_binary
from chesskb.kb.reading.units import unit_records, work_units
from chesskb.kb.store.embedded import EmbeddedStore
from tests.conftest import DATA, ROOT

#: The child's address space: a few times what an import of a few games needs, a fraction of any bomb.
MEMORY_BOUND = 1_200_000_000
GAMES = DATA / "games" / "kasparov-deep-blue-1997.pgn"
PUZZLES = ROOT / "tests" / "fixtures" / "puzzles-30.csv"
MiB = 1 << 20


def _import(store: Path, path: Path) -> tuple[subprocess.CompletedProcess[str], float]:
    def limit() -> None:
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BOUND, MEMORY_BOUND))

    # glibc reserves 64 MiB of address space per malloc arena and opens one per busy thread (the store's
    # and the reader pool's): under load those reservations alone crossed the bound and the store aborted
    # (CI, 2026-11-28). Two arenas, as the capped query workers keep (limit_malloc_arenas): the bound then
    # measures what the import uses, not what malloc reserves.
    env = {**os.environ, "MALLOC_ARENA_MAX": "2"}
    started = time.monotonic()
    result = subprocess.run(
        [sys.executable, "-m", "chesskb", "--store", str(store), "import", "--jobs", "1", str(path)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        preexec_fn=limit,
        timeout=300,
        env=env,
    )
    return result, time.monotonic() - started


def _real_games() -> bytes:
    return GAMES.read_bytes().rstrip() + b"\n\n"


def _count_games(pgn: bytes) -> int:
    handle = io.StringIO(pgn.decode())
    count = 0
    while chess.pgn.read_game(handle) is not None:
        count += 1
    return count


def _stored(store: Path, cls: str) -> int:
    rows = EmbeddedStore(store).query(f"SELECT (COUNT(DISTINCT ?x) AS ?n) WHERE {{ ?x a cp:{cls} }}")
    return int(next(iter(rows))["n"].value)


def _write_compressed(path: Path, parts: list[tuple[bytes, int]]) -> None:
    """``parts``: (bytes, times) written in order, streamed through the file's compressor."""
    with open(path, "wb") as raw:
        if path.suffix == ".zst":
            writer = zstandard.ZstdCompressor(level=3).stream_writer(raw, closefd=False)
        else:
            writer = gzip.GzipFile(fileobj=raw, mode="wb", compresslevel=1)
        for data, times in parts:
            for _ in range(times):
                writer.write(data)
        writer.close()


def test_a_zstd_bomb_of_short_lines_stops_at_the_ratio_bound(tmp_path: Path) -> None:
    """A comment of 512 MB of short lines (51 KB compressed): every line is short, the game would
    be half a gigabyte."""
    real = _real_games()
    bomb = tmp_path / "bomb.pgn.zst"
    _write_compressed(
        bomb, [(real + b'[Event "bomb"]\n\n1. e4 {', 1), ((b"abcdefgh" * 8 + b"\n") * 16384, 512), (b"} e5 *\n", 1)]
    )
    assert bomb.stat().st_size < 100_000
    result, seconds = _import(tmp_path / "s", bomb)
    assert result.returncode in (0, 1), result.stderr[-1000:]
    games = _count_games(real)
    message = re.search(
        r"bomb\.pgn\.zst: game (\d+): reading stopped: .*MAX_DECOMPRESSION_RATIO.*at line ([\d,]+)", result.stderr
    )
    assert message and int(message.group(1)) == games + 1, result.stderr[-1000:]
    assert _stored(tmp_path / "s", "Match") == games and seconds < 120


@pytest.mark.parametrize("kind", ["pgn.gz", "csv.gz", "pgn.zst", "csv.zst"])
def test_a_one_line_bomb_ends_in_linear_time(tmp_path: Path, kind: str) -> None:
    """256 MB on one line behind real games or puzzles: read in 1 MB pieces, never joined, stopped
    by the ratio bound; before, every piece copied the line so far (quadratic)."""
    if kind.startswith("pgn"):
        head, tail = _real_games() + b'[Event "bomb"]\n\n1. e4 ', b" *\n"
    else:
        head, tail = PUZZLES.read_bytes().rstrip(b"\n") + b"\n", b"\n"
    bomb = tmp_path / f"bomb.{kind}"
    _write_compressed(bomb, [(head, 1), (b"a" * MiB, 256), (tail, 1)])
    result, seconds = _import(tmp_path / "s", bomb)
    stopped = rf"bomb\.{re.escape(kind)}: game \d+: reading stopped: .*MAX_DECOMPRESSION_RATIO"
    assert re.search(stopped, result.stderr), result.stderr[-1000:]
    if kind.startswith("pgn"):
        assert _stored(tmp_path / "s", "Match") == _count_games(_real_games())
    else:
        with open(PUZZLES, newline="") as handle:
            assert _stored(tmp_path / "s", "Position") == sum(1 for _ in csv.DictReader(handle))
    assert seconds < 120


def test_an_over_long_line_or_game_costs_that_game_only(tmp_path: Path) -> None:
    real = _real_games()
    games = _count_games(real)
    long_line = b'[Event "long line"]\n\n1. e4 {' + b"x" * (MAX_LINE_BYTES + 10) + b"} e5 *\n\n"
    long_game = b'[Event "long game"]\n\n1. e4 {' + (b"y" * 79 + b"\n") * (MAX_GAME_CHARACTERS // 80 + 10) + b"} *\n\n"
    path = tmp_path / "long.pgn"
    path.write_bytes(real + long_line + long_game + real)
    result, seconds = _import(tmp_path / "s", path)
    assert result.returncode in (0, 1), result.stderr[-1000:]
    first = real.count(b"\n") + 1  # the long-line game's first line
    assert re.search(
        rf"long\.pgn: game {games + 1} \(line {first}\): game dropped: line {first + 2} is longer than "
        r"[\d,]+ bytes \(MAX_LINE_BYTES\)",
        result.stderr,
    ), result.stderr[-1000:]
    assert re.search(
        rf"long\.pgn: game {games + 2} \(line {first + 4}\): game dropped: longer than [\d,]+ "
        r"characters \(MAX_GAME_CHARACTERS\)",
        result.stderr,
    ), result.stderr[-1000:]
    # the games after them are read, numbered on; the same games twice are the same matches
    records = [r for unit in work_units(path, "long", "long.pgn") for r in unit_records(unit)]
    numbers = [r.location.game_number for r in records if hasattr(r, "location")]
    assert numbers == list(range(1, games + 1)) + list(range(games + 3, 2 * games + 3))
    assert _stored(tmp_path / "s", "Match") == games and seconds < 120


def test_an_over_long_csv_row_costs_that_row_only(tmp_path: Path) -> None:
    lines = PUZZLES.read_bytes().splitlines(keepends=True)
    path = tmp_path / "long.csv"
    path.write_bytes(b"".join(lines[:4]) + b"x" * (MAX_LINE_BYTES + 1) + b"\n" + b"".join(lines[4:]))
    records = [r for unit in work_units(path, "long", "long.csv") for r in unit_records(unit)]
    dropped = [r for r in records if getattr(r, "rule", None) == "input-too-large"]
    assert len(dropped) == 1 and (dropped[0].line, dropped[0].game) == (5, 4)
    assert "MAX_LINE_BYTES" in dropped[0].message
    kept = [r for r in records if hasattr(r, "location")]
    assert len(kept) == len(lines) - 1
    assert [r.location.game_number for r in kept] == [1, 2, 3, *list(range(5, len(lines) + 1))]


def test_ordinary_compressed_files_read_whole(tmp_path: Path) -> None:
    """The ratio is judged only past ``RATIO_CHECKED_FROM`` bytes: a small file of repeated games
    (far above the ratio) and a larger one of real text read whole."""
    real = _real_games()
    repeated = tmp_path / "repeated.pgn.gz"
    _write_compressed(repeated, [(real, 400)])
    with open_binary(repeated) as handle:
        assert len(handle.read()) == 400 * len(real) < RATIO_CHECKED_FROM
    varied = tmp_path / "varied.pgn.zst"
    rng = random.Random(35)  # commented games: text as varied as real annotations
    vocabulary = ["e4", "Nf3", "the", "knight", "attack", "{", "}", "weak", "square", "1-0"]
    numbered = [f"{word}{number}" for word in vocabulary for number in range(100)]
    # every third word plain, the others with a number: drawn a slice at a time (a loop over 4M words
    # drawing each was 2 CPU-s of the test)
    words = [""] * (4 << 20)
    words[0::3] = rng.choices(vocabulary, k=len(words[0::3]))
    words[1::3] = rng.choices(numbered, k=len(words[1::3]))
    words[2::3] = rng.choices(numbered, k=len(words[2::3]))
    text = " ".join(words).encode()
    _write_compressed(varied, [(text, 1)])
    assert len(text) > RATIO_CHECKED_FROM and len(text) / varied.stat().st_size < 100
    with open_binary(varied) as handle:
        assert handle.read() == text


@pytest.mark.parametrize("jobs", [1, 2])
def test_import_workers_have_an_address_space_cap(jobs: int) -> None:
    """``--jobs 1`` included: one capped worker, not the importer's own uncapped process."""
    from chesskb.kb.pipeline import PipelineSettings, UnitProcessor

    settings = PipelineSettings(base_iri="https://example.org/id/", reader_memory=256 * MiB)
    with UnitProcessor(settings, jobs=jobs) as processor:
        assert processor._pool is not None
        soft, _hard = processor._pool.apply(resource.getrlimit, (resource.RLIMIT_AS,))
        used = processor._pool.apply(_address_space)
        assert soft != resource.RLIM_INFINITY and used < soft <= used + 256 * MiB
        with pytest.raises(MemoryError):
            processor._pool.apply(bytearray, (512 * MiB,))
        assert processor._pool.apply(len, ("still alive",)) == 11


def test_a_game_past_the_cap_fails_alone_with_one_job(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """With ``jobs`` 1 a game whose mapping needs more than ``reader_memory`` is reported and skipped,
    and the next game is imported: the allocation happened in a capped worker (forked, so it runs the
    patched mapping), not in this process, which would have granted it."""
    from chesskb.kb import pipeline

    real_record_quads = pipeline.record_quads

    def greedy(record, *args, **kwargs):  # the second game needs 512 MiB more
        if record.location.game_number == 2:
            bytearray(512 * MiB)
        return real_record_quads(record, *args, **kwargs)

    monkeypatch.setattr(pipeline, "record_quads", greedy)
    path = tmp_path / "three.pgn"
    path.write_text("".join(f'[Event "E{n}"]\n\n1. e4 e5 *\n\n' for n in (1, 2, 3)), encoding="utf-8")
    settings = pipeline.PipelineSettings(base_iri="https://example.org/id/", reader_memory=256 * MiB)
    with pipeline.UnitProcessor(settings, jobs=1) as processor:
        results = list(processor.run(work_units(path, "three", "three.pgn")))
    findings = [f for result in results for f in result.findings]
    assert sum(result.games for result in results) == 2
    assert [(f.rule, f.game) for f in findings] == [("analysis-failed", 2)], findings
    assert "READER_MEMORY_BYTES" in findings[0].message


def test_without_a_cap_one_job_runs_in_this_process() -> None:
    from chesskb.kb.pipeline import PipelineSettings, UnitProcessor

    with UnitProcessor(PipelineSettings(base_iri="https://example.org/id/", reader_memory=0), jobs=1) as processor:
        assert processor.in_process and processor._pool is None


def _address_space() -> int:
    from chesskb.kb.reading.memory import current_address_space

    return current_address_space()


def test_the_cap_is_the_present_address_space_plus_the_setting() -> None:
    code = (
        "from chesskb.kb.reading.memory import cap_address_space\n"
        "limit = cap_address_space(128 << 20)\n"
        "try:\n    bytearray(512 << 20)\nexcept MemoryError:\n    print('refused', limit > 0)\n"
        "print(len(bytearray(16 << 20)))\n"
    )
    done = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert done.stdout.split() == ["refused", "True", str(16 << 20)], done.stderr
    assert cap_address_space(0) is None
