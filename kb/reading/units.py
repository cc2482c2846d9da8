"""The one reading path: a file cut into work units, and a unit turned into records.

Every reader goes through here, whatever the format, so every file gets the same checks: a file
that is not text (NUL or control bytes) is refused with one finding, a file that cannot be opened
or stops mid-way (truncated gzip, corrupt zstd, a broken CSV quote) gives a finding and keeps what
was read before, and lines whose encoding was repaired are reported where they are.

A *unit* is a few dozen games not parsed yet (PGN game segments or CSV rows) with the game number
it starts at in its file and the number of the source's games before that file (a source of
several files numbers its records on across them, so no two records share a number). Units are
cheap to make, so ``kb.pipeline`` hands them to worker processes, and ``kb.reading.read_records``
simply flattens them (``unit_records``).

>>> import tempfile, pathlib
>>> folder = tempfile.TemporaryDirectory()
>>> path = pathlib.Path(folder.name) / "two.pgn"
>>> _ = path.write_text('[White "A"]\\n\\n1. e4 e5 *\\n\\n[White "B"]\\n\\n1. d4 *\\n')
>>> [(unit.kind, unit.first_game, len(unit.items)) for unit in work_units(path, "two", "two.pgn")]
[('pgn', 0, 2)]
>>> [record.headers["White"] for unit in work_units(path, "two", "two.pgn") for record in unit_records(unit)]
['A', 'B']
>>> _ = path.write_bytes(bytes(range(32)) * 10)       # not text: one finding, whatever the format
>>> [str(f) for unit in work_units(path, "two", "two.pgn") for f in unit.items]
['two.pgn: the file is not text (NUL or control bytes): nothing read']
>>> folder.cleanup()
"""

from __future__ import annotations

import csv
from collections.abc import Generator, Iterable, Iterator
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Literal

from chesskb.kb.findings import Finding
from chesskb.kb.reading.lichess import iter_rows, row_to_record
from chesskb.kb.reading.pgn import Segment, parse_segment, split_segments
from chesskb.kb.reading.records import GameRecord
from chesskb.kb.reading.text import TOO_LARGE, looks_binary, open_text, repair_findings

#: Games per work unit: large enough to amortise inter-process overhead, small enough to stream.
UNIT_SIZE = 64


def file_kind(path: str | Path) -> Literal["pgn", "lichess-csv"]:
    """``"pgn"`` or ``"lichess-csv"`` by the name, ignoring a compression suffix."""
    name = Path(path).name.lower()
    for suffix in (".gz", ".zst"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    if name.endswith(".csv"):
        return "lichess-csv"
    return "pgn"


#: What a unit holds: a PGN game's text (``Segment``), a CSV row with the line it starts on, or a finding.
UnitItem = Segment | tuple[dict[str, str], int] | Finding


@dataclass(frozen=True)
class WorkUnit:
    """Consecutive games of one file, unparsed: PGN ``Segment``s or CSV ``(row, line)`` pairs, with the
    findings about the lines between them (repaired encodings) in file order. ``first_game``: the
    number of the game before the first in its file (games are numbered from 1); ``record_offset``: the
    source's games before this file (files read before it, games stored before an append). A
    ``finding`` unit holds only findings: the file could not be read (further)."""

    source: str
    file_name: str
    kind: Literal["pgn", "lichess-csv", "finding"]
    first_game: int
    items: tuple[UnitItem, ...] = ()
    record_offset: int = 0


def source_units(
    paths: Iterable[Path], source: str, lang: str | None = None, *, records_before: int = 0
) -> Iterator[WorkUnit]:
    """The units of a source's files, in order, its records numbered on from one file to the next
    (after ``records_before``: the source's last record when appending)."""
    offset = records_before
    for path in paths:
        offset += yield from work_units(path, source, path.name, lang, record_offset=offset)


def work_units(
    path: Path, source: str, file_name: str, lang: str | None = None, *, record_offset: int = 0
) -> Generator[WorkUnit, None, int]:
    """The units of one file, in order; an unreadable file or stream error is a ``finding`` unit
    (after a unit with the games read before it). Games are numbered from 1 in the file, records
    from ``record_offset`` + 1 in the source; ``file_name`` is how findings name the file. Returns
    how many games the file gave numbers to (what the source's next file numbers its records after)."""
    kind = file_kind(path)
    try:
        if looks_binary(path):
            finding = Finding(
                "error", "file-binary", "the file is not text (NUL or control bytes): nothing read", file=file_name
            )
            yield WorkUnit(source, file_name, "finding", 0, (finding,), record_offset)
            return 0
        handle = open_text(path)
    except (OSError, EOFError, ValueError) as exc:
        yield _finding_unit(source, file_name, 0, f"cannot open file: {exc}", record_offset)
        return 0
    games = 0
    batch: list[UnitItem] = []
    in_batch = 0  # games in ``batch`` (the rest are findings)
    with handle:
        try:
            items = split_segments(handle) if kind == "pgn" else iter_rows(handle, file_name)
            for item in items:
                if isinstance(item, Finding) and item.rule != TOO_LARGE:  # not what its name says (CSV columns)
                    yield WorkUnit(source, file_name, "finding", games, (item,), record_offset)
                    return games
                # lines repaired before this game's first line belong to the games before it
                start = item.line if isinstance(item, (Segment, Finding)) else item[1]
                batch.extend(repair_findings(handle, file_name, games + in_batch, start))
                if isinstance(item, Finding):  # a game too large to read: it keeps its number
                    item = replace(item, file=file_name, game=games + in_batch + 1)
                batch.append(item)
                in_batch += 1
                if in_batch == UNIT_SIZE:
                    yield WorkUnit(source, file_name, kind, games, tuple(batch), record_offset)
                    games, batch, in_batch = games + in_batch, [], 0
            batch.extend(repair_findings(handle, file_name, games + in_batch))
        except (OSError, EOFError, ValueError, csv.Error) as exc:  # truncated gzip, corrupt zstd …
            if batch:
                yield WorkUnit(source, file_name, kind, games, tuple(batch), record_offset)
            yield _finding_unit(source, file_name, games + in_batch + 1, f"reading stopped: {exc}", record_offset)
            return games + in_batch
    if batch:
        yield WorkUnit(source, file_name, kind, games, tuple(batch), record_offset)
    return games + in_batch


def _finding_unit(source: str, file_name: str, game: int, message: str, record_offset: int = 0) -> WorkUnit:
    finding = Finding("error", "file-unreadable", message, file=file_name, game=game or None)
    return WorkUnit(source, file_name, "finding", game, (finding,), record_offset)


def unit_records(unit: WorkUnit, lang: str | None = None) -> Iterator[GameRecord | Finding]:
    """The unit's games as records (or the findings that cost them) and its findings, in file order.
    ``lang``: the language of the PGN piece letters (``kb.reading.notation``)."""
    number = unit.first_game
    for item in unit.items:
        if isinstance(item, Finding):
            if item.rule == TOO_LARGE:  # it stands for a game
                number += 1
            yield item
        elif isinstance(item, Segment):  # a PGN unit's game (a CSV unit holds rows)
            parsed, _count = parse_segment(item, unit.file_name, number, lang=lang)
            number += 1
            yield from (_in_source(found, unit.record_offset) for found in parsed)
        else:
            row, line = item
            number += 1
            yield _in_source(row_to_record(row, unit.file_name, number, line), unit.record_offset)


def _in_source(found: GameRecord | Finding, record_offset: int) -> GameRecord | Finding:
    """A record numbered in its source as well as in its file (findings keep the file's numbers)."""
    if isinstance(found, Finding) or not record_offset:
        return found
    found.location = replace(found.location, record=record_offset + found.location.game_number)
    return found
