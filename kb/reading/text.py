"""Opening chess files as text: compression by suffix, encoding decided line by line.

PGN has no declared encoding. Real collections are UTF-8 (sometimes with a BOM) or Latin-1
(``mate_in_2.pgn``, ``odds.pgn``), and files glued together from several collections mix both: a
UTF-8 game ("Müller, Jürgen") next to a Latin-1 one ("François André"). Deciding once per file
spoils one of them ("MÃ¼ller"), so every line is decoded on its own: as UTF-8 when its bytes are
UTF-8, else as Latin-1 (which reads any byte). A line that is UTF-8 but holds UTF-8 encoded twice
("FranÃ§ois", a file that went through a Latin-1 editor) is repaired, and the repair is noted
(``DecodedLines.notes``) so the importer reports it as a warning with its line.
"""

from __future__ import annotations

import codecs
import gzip
import io
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any, BinaryIO, TextIO

from chesskb.kb.findings import Finding

_CHUNK = 1 << 20
_BINARY_SAMPLE = 8192
#: The longest line read, in bytes. Longer lines are skipped as they stream by (never held whole):
#: the game (or CSV row) they belong to is reported and left out, the others are read. PGN asks for
#: lines under 256 characters; exports that put a game's movetext on one line (lichess, with clock
#: and eval comments) stay far below this.
MAX_LINE_BYTES = 1 << 20
#: A compressed file that decompresses to more than this many times its size is a decompression
#: bomb, not chess: reading stops with an error (the games read before it are kept). PGN and the
#: puzzle CSV compress 4-10x; the ratio is judged only from ``RATIO_CHECKED_FROM`` bytes on, so a
#: small file of repeated games is never refused.
MAX_DECOMPRESSION_RATIO = 100
RATIO_CHECKED_FROM = 16 << 20


#: The rule of the finding that stands in for a game (or CSV row) dropped for its size.
TOO_LARGE = "input-too-large"


class InputTooLarge(ValueError):
    """A file that would take more memory or time than any chess file needs (named setting in the
    message)."""


class OversizedLine(str):
    """What ``DecodedLines`` gives for a line longer than ``MAX_LINE_BYTES``: an empty line that
    says so (``line``: its number), for the reader to drop the game or row it belongs to."""

    line: int

    def __new__(cls, line: int) -> OversizedLine:
        marker = super().__new__(cls, "\n")
        marker.line = line
        return marker

    def message(self) -> str:
        return f"line {self.line:,} is longer than {MAX_LINE_BYTES:,} bytes (MAX_LINE_BYTES): skipped"


class _RatioGuard(io.RawIOBase):
    """A decompressing stream that stops (``InputTooLarge``) when it has given more than
    ``MAX_DECOMPRESSION_RATIO`` times the compressed bytes it has read (``raw``'s position)."""

    def __init__(self, decompressed: BinaryIO, raw: BinaryIO) -> None:
        super().__init__()
        self._decompressed = decompressed
        self._raw = raw
        self._given = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self._decompressed.read(len(buffer))
        size = len(data)
        buffer[:size] = data
        self._given += size
        if self._given >= RATIO_CHECKED_FROM:
            consumed = max(1, self._raw.tell())
            if self._given > MAX_DECOMPRESSION_RATIO * consumed:
                raise InputTooLarge(
                    f"the file decompresses to more than {MAX_DECOMPRESSION_RATIO} times its size "
                    f"({self._given:,} bytes from {consumed:,}; MAX_DECOMPRESSION_RATIO): "
                    "a decompression bomb, not a chess file"
                )
        return size

    def close(self) -> None:
        try:
            self._decompressed.close()
        finally:
            self._raw.close()
            super().close()


#: Share of control bytes (other than tab, newlines, form feed) in a file's first bytes above which it
#: is not text: a stray NUL in a comment is a broken game, a JPEG renamed .pgn is not a PGN file.
_BINARY_CONTROL_SHARE = 0.05


def open_binary(path: str | Path) -> BinaryIO:
    """The file's bytes, decompressed when the name ends in ``.gz`` or ``.zst`` (under
    ``MAX_DECOMPRESSION_RATIO``)."""
    name = str(path).lower()
    if not name.endswith((".gz", ".zst")):
        return open(path, "rb")
    raw = open(path, "rb")  # noqa: SIM115 (returned to the caller, who closes it)
    try:
        if name.endswith(".gz"):
            # typeshed types GzipFile as an io.BufferedIOBase, not as the typing.BinaryIO it is used as everywhere
            decompressed: BinaryIO = gzip.GzipFile(fileobj=raw, mode="rb")  # type: ignore[assignment]
        else:
            import zstandard

            decompressed = zstandard.ZstdDecompressor().stream_reader(raw, closefd=False)
    except BaseException:
        raw.close()
        raise
    return io.BufferedReader(_RatioGuard(decompressed, raw), _CHUNK)


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


#: A run that looks like UTF-8 read as Latin-1/Windows-1252: a lead byte's character (Â … ô) followed
#: by continuation bytes' characters (U+0080–U+00BF, or the Windows-1252 letters at 0x80–0x9F).
_DOUBLE_ENCODED = re.compile(
    "(?:[\u00c2-\u00f4][\u0080-\u00bf\u20ac\u201a\u0192\u201e\u2026\u2020"
    "\u2021\u02c6\u2030\u0160\u2039\u0152\u017d\u2018\u2019\u201c\u201d"
    "\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u017e\u0178]{1,3})+"
)


def _undo(match: re.Match[str]) -> str:
    run = match.group()
    for codec in ("latin-1", "cp1252"):
        try:
            return run.encode(codec).decode("utf-8")
        except UnicodeError:
            continue
    return run


def repair_double_utf8(text: str) -> str:
    """``text`` with every run of twice-encoded UTF-8 decoded once more ("FranÃ§ois" -> "François");
    runs that do not decode are left as they are."""
    if text.isascii():
        return text
    return _DOUBLE_ENCODED.sub(_undo, text)


def decode_line(raw: bytes) -> tuple[str, bool]:
    """One line's text (UTF-8 if it is, else Latin-1) and whether double-encoded UTF-8 was repaired."""
    if raw.isascii():
        return raw.decode("ascii"), False
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        return raw.decode("latin-1"), False
    repaired = repair_double_utf8(text)
    return repaired, repaired != text


class DecodedLines:
    """A file's text lines (``\n`` ends every line; CRLF and lone CR read as LF), each decoded with
    ``decode_line``. Iterate it like a text file; ``notes`` holds ``(line, rule, message)`` for each
    repaired line (and each line with U+FFFD, a letter lost before the file reached us), for the
    caller to report as warnings (``repair_findings``)."""

    def __init__(self, binary: BinaryIO) -> None:
        self._binary = binary
        self._lines = self._iterate()
        self.number = 0
        self.notes: list[tuple[int, str, str]] = []  # (line, rule, message)
        self.oversized: list[OversizedLine] = []  # every line skipped for its length, in order

    def _read(self) -> bytes:
        try:
            return self._binary.read(_CHUNK)
        except InputTooLarge as exc:
            raise InputTooLarge(f"{exc} (at line {self.number + 1:,})") from None

    def _raw_lines(self) -> Iterator[bytes | None]:
        """The file's lines as bytes, ``None`` for a line longer than ``MAX_LINE_BYTES``. Linear in
        the file's size whatever its lines' lengths: a line's pieces are joined once, at its end."""
        pieces: list[bytes] = []  # the line read so far, when no chunk has ended it yet
        size = 0
        skipping = False  # inside a line found too long: its bytes are dropped up to its end
        while chunk := self._read():
            if b"\n" not in chunk and b"\r" not in chunk:
                size += len(chunk)
                if not skipping:
                    pieces.append(chunk)
                    if size > MAX_LINE_BYTES:
                        skipping, pieces = True, []
                continue
            data = b"".join(pieces) + chunk
            held = b""
            if data.endswith(b"\r"):  # a CRLF may straddle two chunks
                held, data = b"\r", data[:-1]
            lines = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").split(b"\n")
            rest = lines.pop() + held
            for index, line in enumerate(lines):
                long_line = (skipping and index == 0) or len(line) > MAX_LINE_BYTES
                yield None if long_line else line
            skipping = False
            pieces, size = [rest], len(rest)
            if size > MAX_LINE_BYTES:
                skipping, pieces = True, []
        if skipping:
            yield None
        elif rest := b"".join(pieces):
            yield rest.replace(b"\r", b"")

    def _iterate(self) -> Iterator[str]:
        first = True
        for raw in self._raw_lines():
            if raw is None:
                self.number += 1
                marker = OversizedLine(self.number)
                self.oversized.append(marker)
                yield marker
                first = False
                continue
            if first and raw.startswith(codecs.BOM_UTF8):
                raw = raw[len(codecs.BOM_UTF8) :]
            first = False
            self.number += 1
            text, repaired = decode_line(raw)
            if repaired:
                self.notes.append(
                    (
                        self.number,
                        "encoding-repaired",
                        f"UTF-8 encoded twice, repaired: {_excerpt(raw.decode('utf-8'))}",
                    )
                )
            if "\ufffd" in text:
                self.notes.append(
                    (
                        self.number,
                        "encoding-lost",
                        "U+FFFD '\ufffd' in the text: an earlier conversion lost a letter here (kept as written)",
                    )
                )
            yield text + "\n"

    def __iter__(self) -> DecodedLines:
        return self

    def __next__(self) -> str:
        return next(self._lines)

    def read(self) -> str:
        return "".join(self._lines)

    def close(self) -> None:
        self._binary.close()

    def __enter__(self) -> DecodedLines:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


def repair_findings(handle: object, file_name: str, game: int | None, before_line: int | None = None) -> list[Finding]:
    """Warnings for the lines of ``handle`` repaired so far (only those before ``before_line`` when
    given, which belong to game ``game``); the notes reported are removed."""
    notes: list[tuple[int, str, str]] = getattr(handle, "notes", [])
    taken = [note for note in notes if before_line is None or note[0] < before_line]
    if not taken:
        return []
    notes[:] = [note for note in notes if note not in taken]
    return [
        Finding("warning", rule, message, file=file_name, game=game or None, line=line) for line, rule, message in taken
    ]


def _excerpt(before: str) -> str:
    """The first repaired word, before and after ("FranÃ§ois" -> "François")."""
    match = _DOUBLE_ENCODED.search(before)
    if match is None:
        return repr(repair_double_utf8(before).strip()[:80])
    start = max(before.rfind(" ", 0, match.start()), before.rfind('"', 0, match.start())) + 1
    end_match = re.search(r'[\s"]', before[match.end() :])
    end = match.end() + (end_match.start() if end_match else len(before) - match.end())
    word = before[start:end]
    return f"{word!r} -> {repair_double_utf8(word)!r}"


def open_text(path: str | Path, encoding: str | None = None) -> TextIO | DecodedLines:
    """The file's text lines: in ``encoding`` when one is given, else decided line by line
    (``DecodedLines``); universal newlines either way."""
    if encoding is None:
        return DecodedLines(open_binary(path))
    return io.TextIOWrapper(open_binary(path), encoding=encoding, newline=None, errors="strict")
