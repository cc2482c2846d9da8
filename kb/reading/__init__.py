"""Readers: files in, ``GameRecord``s and ``Finding``s out, one game at a time.

``read_records(path)`` picks the reader by file name (``.pgn``, ``.pgn.gz``, ``.pgn.zst``,
``.csv``, ``.csv.zst``, ``.csv.gz``) and streams: a 1 GB file is never held in memory. A game that
cannot be read is yielded as a ``Finding`` (file, game number, line, reason) and reading goes on.
It is the import's own reading path (``kb.reading.units``: the work units the pipeline hands to
its workers), flattened, so a file reads here exactly as ``chesskb import`` reads it.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from chesskb.kb.findings import Finding
from chesskb.kb.reading.records import GameRecord
from chesskb.kb.reading.text import open_text
from chesskb.kb.reading.units import WorkUnit, file_kind, unit_records, work_units


def read_records(
    path: str | Path, *, lang: str | None = None, display_name: str | None = None
) -> Iterator[GameRecord | Finding]:
    """Every game of ``path`` as a ``GameRecord``; every unreadable one as a ``Finding``.

    ``lang`` names the language of the piece letters in PGN movetext (``es``, ``it``, ``de`` …);
    ``display_name`` is how findings name the file (default: the path as given).

    >>> import tempfile, pathlib
    >>> folder = tempfile.TemporaryDirectory()
    >>> path = pathlib.Path(folder.name) / "mates.pgn"
    >>> _ = path.write_text('[FEN "6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1"]\\n\\n1. Ra8# *\\n\\n'
    ...                     '[White "Nobody"]\\n\\n1. e4 e5 2. Ke3 *\\n')
    >>> first, second = read_records(path, display_name="mates.pgn")
    >>> first.start_fen, [move.uci() for move in first.solution]
    ('6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1', ['a1a8'])
    >>> str(second).startswith("mates.pgn: game 2 (line 7, column 13): move 2. 'Ke3' is illegal")
    True
    >>> folder.cleanup()
    """
    name = display_name or str(path)
    for unit in work_units(Path(path), "", name, lang):
        yield from unit_records(unit, lang)


__all__ = ["WorkUnit", "file_kind", "open_text", "read_records", "unit_records", "work_units"]
