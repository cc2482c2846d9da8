"""Opening chess files as text: compression by suffix, encoding sniffed per file.

PGN has no declared encoding. Real collections are UTF-8 (sometimes with a BOM) or Latin-1
(``mate_in_2.pgn``, ``odds.pgn``); python-chess needs text, so the caller chooses. We scan the
file once as UTF-8 in chunks (cheap next to parsing) and fall back to Latin-1 for the whole file
if any byte sequence is invalid, so one file never mixes two decodings.
"""

from __future__ import annotations

import codecs
import gzip
import io
from pathlib import Path
from typing import BinaryIO, TextIO

_CHUNK = 1 << 20
_BINARY_SAMPLE = 8192
#: Share of control bytes (other than tab, newlines, form feed) in a file's first bytes above which it
#: is not text: a stray NUL in a comment is a broken game, a JPEG renamed .pgn is not a PGN file.
_BINARY_CONTROL_SHARE = 0.05


def open_binary(path: str | Path) -> BinaryIO:
    """The file's bytes, decompressed when the name ends in ``.gz`` or ``.zst``."""
    name = str(path).lower()
    if name.endswith(".gz"):
        return gzip.open(path, "rb")  # type: ignore[return-value]
    if name.endswith(".zst"):
        import zstandard

        raw = open(path, "rb")
        return zstandard.ZstdDecompressor().stream_reader(raw, closefd=True)  # type: ignore[return-value]
    return open(path, "rb")


def looks_binary(path: str | Path) -> bool:
    """Whether the file (decompressed) starts with bytes no text file has."""
    with open_binary(path) as handle:
        head = handle.read(_BINARY_SAMPLE)
    if not head:
        return False
    control = sum(1 for byte in head if byte < 32 and byte not in (9, 10, 12, 13))
    return control / len(head) > _BINARY_CONTROL_SHARE


def sniff_encoding(path: str | Path) -> str:
    """``"utf-8-sig"`` if the whole file decodes as UTF-8, else ``"latin-1"``."""
    decoder = codecs.getincrementaldecoder("utf-8")()
    with open_binary(path) as handle:
        while True:
            chunk = handle.read(_CHUNK)
            try:
                decoder.decode(chunk, final=not chunk)
            except UnicodeDecodeError:
                return "latin-1"
            if not chunk:
                return "utf-8-sig"


def open_text(path: str | Path, encoding: str | None = None) -> TextIO:
    """A text stream with universal newlines (CRLF read as LF) in the sniffed encoding."""
    encoding = encoding or sniff_encoding(path)
    return io.TextIOWrapper(open_binary(path), encoding=encoding, newline=None, errors="strict")
