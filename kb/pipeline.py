"""The import pipeline in batches: read → analyse → map, in this process or in workers.

A file is cut into *work units* (a few dozen PGN game segments or CSV rows, with the game numbers
they start at), cheap to make because nothing is parsed yet. ``process_unit`` turns a unit into
N-Quads bytes plus findings; it is pure, so with ``jobs`` > 1 units run in worker processes while
the importer's process only loads the results. Results come back in file order, and at most a
few units per worker are in flight, so memory stays flat however large the file.
"""

from __future__ import annotations

import csv
import hashlib
import multiprocessing
import os
from collections import deque
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import chess
from pyoxigraph import Quad, RdfFormat, serialize

from .analysis import analyse
from .findings import Finding
from .iris import IriMinter
from .mapping import MappingContext, record_quads
from .mapping.game import MinedPosition
from .analysis.engine import close_shared_engine, shared_engine
from .mining import mine_game
from .reading import file_kind
from .reading.lichess import iter_rows, row_to_record
from .reading.pgn import Segment, parse_segment, split_segments
from .reading.text import looks_binary, open_text
from .records import GameRecord
from .store.base import SerializedBatch
from .vocab import CP, RDF

#: Games per work unit: large enough to amortise inter-process overhead, small enough to stream.
UNIT_SIZE = 64
#: Units in flight per worker before the reader waits (bounds memory).
IN_FLIGHT_PER_JOB = 4


@dataclass(frozen=True)
class PipelineSettings:
    """What every worker needs to map games the same way as the importer's process."""

    base_iri: str
    user_themes: tuple[str, ...] = ()
    lang: str | None = None
    mine: bool = False


@dataclass(frozen=True)
class WorkUnit:
    source: str
    file_name: str
    kind: str  # "pgn" | "lichess-csv" | "finding"
    first_game: int
    items: tuple = ()


@dataclass
class UnitResult:
    batch: SerializedBatch | None = None
    findings: list[Finding] = field(default_factory=list)
    games: int = 0
    quads: int = 0
    #: Who the unit's statements describe, for the per-source counts the importer writes into the
    #: meta graph (so ``chesskb sources`` and the ``sources`` query read three numbers instead of
    #: scanning the store): 64-bit digests of match and position IRIs, player IRIs as text.
    matches: set[int] = field(default_factory=set)
    positions: set[int] = field(default_factory=set)
    players: set[str] = field(default_factory=set)


def _digest64(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")


def _count_individuals(quads: Iterable[Quad], result: UnitResult) -> None:
    for quad in quads:
        if quad.predicate != _RDF_TYPE:
            continue
        if quad.object == _MATCH:
            result.matches.add(_digest64(quad.subject.value))
        elif quad.object == _POSITION:
            result.positions.add(_digest64(quad.subject.value))
        elif quad.object == _PLAYER and not quad.subject.value.rsplit("/", 1)[-1].startswith("unknown-"):
            result.players.add(quad.subject.value)


_RDF_TYPE, _MATCH, _POSITION, _PLAYER = RDF.type, CP.Match, CP.Position, CP.Player


def default_jobs() -> int:
    return max(1, os.cpu_count() or 1)


def work_units(path: Path, source: str, file_name: str, lang: str | None, *,
               first_game: int = 0) -> Iterator[WorkUnit]:
    """The units of one file, in order; an unreadable file or stream error is a ``finding`` unit.
    Games are numbered from ``first_game`` + 1 (after a source's last game when appending)."""
    kind = file_kind(path)
    try:
        if looks_binary(path):
            finding = Finding("error", "file-binary", "the file is not text (NUL or control bytes): nothing read",
                              file=file_name)
            yield WorkUnit(source, file_name, "finding", 0, (finding,))
            return
        handle = open_text(path)
    except (OSError, EOFError, ValueError) as exc:
        yield _finding_unit(source, file_name, 0, f"cannot open file: {exc}")
        return
    games = first_game
    with handle:
        try:
            items = split_segments(handle) if kind == "pgn" else iter_rows(handle, file_name)
            batch: list = []
            for item in items:
                if isinstance(item, Finding):
                    yield WorkUnit(source, file_name, "finding", games, (item,))
                    return
                batch.append(item)
                if len(batch) == UNIT_SIZE:
                    yield WorkUnit(source, file_name, kind, games, tuple(batch))
                    games += len(batch)
                    batch = []
            if batch:
                yield WorkUnit(source, file_name, kind, games, tuple(batch))
                games += len(batch)
        except (OSError, EOFError, ValueError, csv.Error) as exc:  # truncated gzip, corrupt zstd …
            yield _finding_unit(source, file_name, games + 1, f"reading stopped: {exc}")


def _finding_unit(source: str, file_name: str, game: int, message: str) -> WorkUnit:
    finding = Finding("error", "file-unreadable", message, file=file_name, game=game or None)
    return WorkUnit(source, file_name, "finding", game, (finding,))


def _records(unit: WorkUnit, lang: str | None) -> Iterator[GameRecord | Finding]:
    if unit.kind == "finding":
        yield from unit.items
    elif unit.kind == "pgn":
        for offset, segment in enumerate(unit.items):
            assert isinstance(segment, Segment)
            items, _count = parse_segment(segment, unit.file_name, unit.first_game + offset, lang=lang)
            yield from items
    else:
        for offset, (row, line) in enumerate(unit.items):
            yield row_to_record(row, unit.file_name, unit.first_game + offset + 1, line)


def process_unit(unit: WorkUnit, settings: PipelineSettings) -> UnitResult:
    """Read, analyse and map one unit. Never raises: every problem is a finding."""
    result = UnitResult()
    ctx = MappingContext(IriMinter(settings.base_iri), unit.source, settings.user_themes)
    quads = []
    for item in _records(unit, settings.lang):
        if isinstance(item, Finding):
            result.findings.append(item)
            continue
        try:
            analysis = analyse(item.start_board(), item.solution)
            mined = _mine(item) if settings.mine and item.puzzle is None else ()
            record = record_quads(item, analysis, ctx, mined)
        except Exception as exc:  # a detector or mapping bug costs this game only
            result.findings.append(Finding(
                "error", "analysis-failed", f"analysis failed ({type(exc).__name__}: {exc}); game skipped",
                file=item.location.file, game=item.location.game_number, line=item.location.line))
            continue
        quads.extend(record)
        result.games += 1
    result.quads = len(quads)
    _count_individuals(quads, result)
    if quads:
        by_graph: dict[str, list] = {}
        for quad in quads:
            by_graph.setdefault(quad.graph_name.value, []).append(quad.triple)
        result.batch = SerializedBatch({graph: serialize(triples, format=RdfFormat.N_TRIPLES)
                                        for graph, triples in by_graph.items()})
    return result


def _mine(record: GameRecord) -> list[MinedPosition]:
    """Exercises the engine finds in the game, each with its own analysis (one engine per process)."""
    return [(exercise, analyse(chess.Board(exercise.fen), list(exercise.solution)))
            for exercise in mine_game(shared_engine(), record.start_board(), record.solution)]


_WORKER_SETTINGS: PipelineSettings | None = None


def _init_worker(settings: PipelineSettings) -> None:
    global _WORKER_SETTINGS
    _WORKER_SETTINGS = settings


def _work(unit: WorkUnit) -> UnitResult:
    assert _WORKER_SETTINGS is not None
    return process_unit(unit, _WORKER_SETTINGS)


class UnitProcessor:
    """Runs units in order, in-process (``jobs`` = 1) or in a pool of worker processes."""

    def __init__(self, settings: PipelineSettings, jobs: int = 1) -> None:
        self.settings = settings
        self.jobs = max(1, jobs)
        self._pool = None

    def __enter__(self) -> UnitProcessor:
        if self.jobs > 1:
            context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
            self._pool = context.Pool(self.jobs, initializer=_init_worker, initargs=(self.settings,))
        return self

    def __exit__(self, *exc_info) -> None:
        close_shared_engine()  # in-process engine (jobs = 1); workers' engines end with the workers
        if self._pool is not None:
            self._pool.terminate()
            self._pool.join()
            self._pool = None

    def run(self, units: Iterable[WorkUnit]) -> Iterator[UnitResult]:
        if self._pool is None:
            for unit in units:
                yield process_unit(unit, self.settings)
            return
        pending: deque = deque()
        limit = self.jobs * IN_FLIGHT_PER_JOB
        for unit in units:
            pending.append(self._pool.apply_async(_work, (unit,)))
            if len(pending) >= limit:
                yield pending.popleft().get()
        while pending:
            yield pending.popleft().get()
