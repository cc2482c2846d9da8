"""Readers: files in, ``GameRecord``s and ``Finding``s out, one game at a time.

``read_records(path)`` picks the reader by file name (``.pgn``, ``.pgn.gz``, ``.pgn.zst``,
``.csv``, ``.csv.zst``, ``.csv.gz``) and streams: a 1 GB file is never held in memory. A game that
cannot be read is yielded as a ``Finding`` (file, game number, line, reason) and reading goes on.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

from chesskb.kb.checks.findings import Finding
from chesskb.kb.reading.records import GameRecord
from chesskb.kb.reading.lichess import read_lichess_csv
from chesskb.kb.reading.pgn import read_pgn
from chesskb.kb.reading.text import open_text


def file_kind(path: str | Path) -> str:
    """``"pgn"`` or ``"lichess-csv"`` by the name, ignoring a compression suffix."""
    name = Path(path).name.lower()
    for suffix in (".gz", ".zst"):
        if name.endswith(suffix):
            name = name[: -len(suffix)]
    if name.endswith(".csv"):
        return "lichess-csv"
    return "pgn"


def read_records(path: str | Path, *, lang: str | None = None,
                 display_name: str | None = None) -> Iterator[GameRecord | Finding]:
    """Every game of ``path`` as a ``GameRecord``; every unreadable one as a ``Finding``.

    ``lang`` names the language of the piece letters in PGN movetext (``es``, ``it``, ``de`` …);
    ``display_name`` is how findings name the file (default: the path as given).
    """
    name = display_name or str(path)
    if file_kind(path) == "lichess-csv":
        yield from read_lichess_csv(path, display_name=name)
    else:
        yield from read_pgn(path, lang=lang, display_name=name)


__all__ = ["file_kind", "open_text", "read_records", "read_pgn", "read_lichess_csv"]
