"""A PGN tokenizer that knows where every token is (line and column), for the validator.

python-chess's reader is built to import: it skips what it does not understand (a Spanish ``Cf3``
becomes the pawn move ``f3``), ignores move numbers and loses positions. A validator has to see
every character, so this scanner yields every token with its line and column — including the
ones python-chess would drop — and leaves the chess to python-chess (``Board.parse_san``).

It reads line by line and keeps only a bounded prefix of comment text, so a 100 MB comment or a
file of any size costs memory for one line, not for the file.
"""

from __future__ import annotations

import itertools
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Literal

TokenKind = Literal[
    "tag",
    "bad-tag",
    "comment",
    "unclosed-comment",
    "stray-brace",
    "open-rav",
    "close-rav",
    "nag",
    "number",
    "move",
    "result",
    "annotation",
    "unknown",
]

#: The groups of ``_TOKEN`` whose token kind is the group's own name (the others are translated below).
_NAMED_AS_KIND: tuple[TokenKind, ...] = ("nag", "number", "result", "annotation")

#: How much of a comment's text a token keeps: enough to show it, not a 100 MB copy.
COMMENT_KEEP = 200

#: A line holding only a tag pair (possibly several): how a game's tags look. The reader uses it too
#: (a runaway comment ends where a tag line follows a blank line).
TAG_LINE = re.compile(r'(?:\[\s*[A-Za-z0-9_]+\s+"(?:[^"\\]|\\.)*"\s*\]\s*)+$')
# A well-formed tag pair: name of letters, digits and underscores, one quoted value with \" and \\ escapes.
TAG_PAIR = re.compile(r'\[\s*([A-Za-z0-9_]+)\s+"((?:[^"\\]|\\.)*)"\s*\]')
_TAG_LINE_REST = re.compile(r"\s*(;.*)?$")
# Tokens outside comments, tried in this order at each position.
_TOKEN = re.compile(
    r"(?P<space>\s+)"
    r"|(?P<brace>\{)"
    r"|(?P<close_brace>\})"
    r"|(?P<semicolon>;)"
    r"|(?P<evaluation>\([=+\-]{1,2}\))"
    r"|(?P<open>\()"
    r"|(?P<close>\))"
    r"|(?P<nag>\$\d+)"
    r"|(?P<result>(?:1-0|0-1|1/2-1/2|\*)(?![\w/-]))"
    r"|(?P<number>\d+\s*\.+|\d+(?=\s|$))"
    r"|(?P<null>--(?=[\s)]|$))"
    r"|(?P<annotation>[!?]{1,2}(?![\w])|[ae]\.\s?p\.|[=+\-]{1,2}(?=\s|$))"
    r"|(?P<word>[A-Za-z0-9][A-Za-z0-9+#=:!?/\-]*)"
    r"|(?P<other>.)",
)
_CAPTURE_IN_TEXT = re.compile(r"(?<![\w])[A-Za-z]?[a-h]?[1-8]?[x:][a-h][1-8]")


@dataclass(frozen=True)
class Token:
    """One token: ``text`` is the token as written (a comment's first ``COMMENT_KEEP`` characters);
    ``quiet_depth`` is, for a comment, the deepest capture-free level inside it (seed 002's metric)."""

    kind: TokenKind
    text: str
    line: int
    column: int
    quiet_depth: int = 0


def tokenize(lines: Iterable[str], first_line: int = 1) -> Iterator[Token]:
    """Every token of a PGN text given as lines (with or without their newlines)."""
    in_comment: tuple[int, int] | None = None  # where the open brace was
    kept: list[str] = []
    kept_len = 0
    nesting = _CommentNesting()
    number = first_line - 1
    previous_blank = False
    for number, raw in enumerate(lines, start=first_line):
        line = raw.rstrip("\r\n")
        position = 0
        if in_comment is not None and previous_blank and TAG_LINE.match(line.lstrip()):
            # The importer's resynchronisation (``split_segments``): the next game's tags end a
            # comment that was never closed, so one missing "}" does not swallow the rest of the file.
            yield Token("unclosed-comment", "".join(kept).strip(), in_comment[0], in_comment[1], nesting.finish())
            in_comment, kept, kept_len, nesting = None, [], 0, _CommentNesting()
        previous_blank = not line.strip()
        if in_comment is None:
            stripped = line.lstrip()
            if stripped.startswith("%"):
                continue  # PGN escape line: ignored by definition
            if stripped.startswith("["):
                yield from _tag_tokens(line, number)
                continue
        while position < len(line):
            if in_comment is not None:
                end = line.find("}", position)
                piece = line[position:] if end < 0 else line[position:end]
                if kept_len < COMMENT_KEEP:
                    kept.append(piece[: COMMENT_KEEP - kept_len])
                    kept_len += len(kept[-1])
                nesting.feed(piece)
                if end < 0:
                    break
                yield Token("comment", "".join(kept).strip(), in_comment[0], in_comment[1], nesting.finish())
                in_comment, kept, kept_len, nesting = None, [], 0, _CommentNesting()
                position = end + 1
                continue
            match = _TOKEN.match(line, position)
            assert match is not None  # the last alternative matches any character
            kind = match.lastgroup
            column = position + 1
            position = match.end()
            text = match.group()
            if kind == "space":
                continue
            if kind == "brace":
                in_comment = (number, column)
            elif kind == "semicolon":
                rest = line[position:]
                yield Token(
                    "comment", rest.strip()[:COMMENT_KEEP], number, column, 0 if _CAPTURE_IN_TEXT.search(rest) else 1
                )
                break
            elif kind == "close_brace":
                yield Token("stray-brace", text, number, column)
            elif kind == "open":
                yield Token("open-rav", text, number, column)
            elif kind == "close":
                yield Token("close-rav", text, number, column)
            elif kind in ("word", "null"):
                yield Token("move", text, number, column)
            elif kind == "other":
                yield Token("unknown", text, number, column)
            elif kind == "evaluation":
                yield Token("annotation", text, number, column)  # "(=)", "(+-)": a verdict, not a variation
            else:
                assert kind in _NAMED_AS_KIND, kind  # every group of _TOKEN is handled
                yield Token(kind, text, number, column)
        if in_comment is not None:
            kept.append(" ")
            kept_len += 1
            nesting.feed("\n")
    if in_comment is not None:
        yield Token("unclosed-comment", "".join(kept).strip(), in_comment[0], in_comment[1], nesting.finish())


class _CommentNesting:
    """Seed 002's metric inside one ``{…}`` comment, fed piece by piece.

    Standard PGN comments do not nest, but the seed's dialect nests ``(…)`` and ``{…}`` inside
    comments, and teachers write that way; so the text is read as the seed reads it: every ``(`` or
    ``{`` opens a deeper comment, and the answer is the deepest level (the comment itself is 1)
    whose own text has no capture. Pieces without brackets cost one regular-expression search.
    """

    def __init__(self) -> None:
        self.captured = [False]  # one flag per open level, outermost first
        self.deepest_quiet = 0

    def feed(self, piece: str) -> None:
        if not any(bracket in piece for bracket in "(){"):
            if not self.captured[-1] and _CAPTURE_IN_TEXT.search(piece):
                self.captured[-1] = True
            return
        for part in _BRACKETS.split(piece):
            if part in ("(", "{"):
                self.captured.append(False)
            elif part == ")":
                if len(self.captured) > 1:
                    self._close()
            elif part and not self.captured[-1] and _CAPTURE_IN_TEXT.search(part):
                self.captured[-1] = True

    def _close(self) -> None:
        depth = len(self.captured)
        if not self.captured.pop():
            self.deepest_quiet = max(self.deepest_quiet, depth)

    def finish(self) -> int:
        """The deepest capture-free level (0: every level has a capture)."""
        while self.captured:
            self._close()
        return self.deepest_quiet


_BRACKETS = re.compile(r"([(){])")


def _tag_tokens(line: str, number: int) -> Iterator[Token]:
    """The tag pairs of a tag line (standard PGN allows several on one line); what is left that is
    neither a tag pair nor a trailing ``;`` comment is one ``bad-tag`` token."""
    position = len(line) - len(line.lstrip())
    while position < len(line):
        match = TAG_PAIR.match(line, position)
        if match is None:
            rest = line[position:]
            if not _TAG_LINE_REST.fullmatch(rest):
                yield Token("bad-tag", rest.strip()[:COMMENT_KEEP], number, position + 1)
            return
        yield Token("tag", match.group(), number, position + 1)
        position = match.end()
        while position < len(line) and line[position].isspace():
            position += 1


def tag_name_value(token: Token) -> tuple[str, str]:
    """Name and unescaped value of a well-formed ``tag`` token."""
    match = TAG_PAIR.match(token.text)
    assert match is not None
    return match.group(1), unescape_tag_value(match.group(2))


def unescape_tag_value(written: str) -> str:
    """A tag's value as meant: PGN writes ``"`` as ``\\"`` and ``\\`` as ``\\\\`` inside its string token
    (python-chess reads the token's text without undoing them)."""
    return re.sub(r"\\(.)", r"\1", written) if "\\" in written else written


class UnwritableComment(ValueError):
    """A comment a PGN file cannot carry as written: the caller refuses it rather than store other text."""


def comment_text(text: str) -> str:
    """``text`` as a brace comment carries it through a PGN file and back, as typed: line breaks, blank
    lines and lines starting with ``%`` kept (inside ``{…}`` a ``%`` line is text, not an escape line;
    python-chess and ``split_segments`` read it so), Windows line ends made ``\n``, other control
    characters spaces, the ends trimmed (PGN writers trim them). Raises ``UnwritableComment`` for what a
    PGN file cannot carry as written: a ``}`` (a brace comment ends at the first one and PGN has no escape
    for it; a look-alike character would make the knowledge base state a comment the author did not
    write), and a tag pair alone on a line after a blank line (readers take it as the next game's tags,
    the rule that keeps one unclosed comment from swallowing a file: ``split_segments``)."""
    if "}" in text:
        raise UnwritableComment(
            "contains '}', which ends a PGN comment (PGN has no escape for it); write ')' or ']' instead"
        )
    text = re.sub(r"[\x00-\x09\x0b-\x1f\x7f]", " ", text.replace("\r\n", "\n")).strip()
    lines = text.split("\n")
    for before, line in itertools.pairwise(lines):
        if not before.strip() and TAG_LINE.match(line.lstrip()):
            raise UnwritableComment(
                f"has the tag pair {line.strip()[:40]!r} alone on a line after a blank line, where PGN "
                "readers start the next game; remove the blank line or put text beside the tag"
            )
    return text


#: What ``movetext_pieces`` tells apart: a ``{…}`` comment (to its ``}`` or the end), a ``;`` comment (to
#: the line's end), and the text between them.
_COMMENT_PIECE = re.compile(r"\{[^}]*\}?|;[^\n]*")


def movetext_pieces(movetext: str) -> Iterator[tuple[str, bool]]:
    """``movetext`` cut into pieces, each with whether it is a comment: the whitespace of a comment is
    its author's (kept), the whitespace between tokens is layout (``movetext_layout_free``)."""
    position = 0
    for match in _COMMENT_PIECE.finditer(movetext):
        if match.start() > position:
            yield movetext[position : match.start()], False
        yield match.group(), True
        position = match.end()
    if position < len(movetext):
        yield movetext[position:], False


def without_blank_lines(movetext: str) -> str:
    """``movetext`` without its blank lines outside comments (python-chess ends a game at one), the blank
    lines inside ``{…}`` comments kept: they are the comment's text, and python-chess reads them so."""
    return "".join(
        piece if comment else re.sub(r"\n[ \t\r]*(?=\n)", "", piece) for piece, comment in movetext_pieces(movetext)
    )


def movetext_layout_free(movetext: str) -> str:
    """``movetext`` on one line as far as its comments allow: every run of whitespace between tokens one
    space, the text of ``{…}`` comments as written (their line breaks and blank lines are the author's),
    and a line end after each ``;`` comment (it runs to the line's end: the moves after it must stay on
    the next line)."""
    out: list[str] = []
    after_line_comment = False
    for piece, comment in movetext_pieces(movetext):
        if comment:
            out.append(piece)
        else:
            spaced = re.sub(r"\s+", " ", piece)
            out.append("\n" + spaced.lstrip() if after_line_comment else spaced)
        after_line_comment = comment and piece.startswith(";")
    return "".join(out).strip()


def escape_tag_value(value: str) -> str:
    """``value`` as the inside of a PGN string token: one line (a tag is one line; line breaks and
    tabs become spaces), ``\\`` and ``"`` escaped. ``unescape_tag_value`` gives it back."""
    one_line = re.sub(r"[\x00-\x1f\x7f]+", " ", value)
    return one_line.replace("\\", "\\\\").replace('"', '\\"')


# --- What python-chess's reader skips ------------------------------------------------------------
# python-chess reads movetext with one pattern (``chess.pgn.MOVETEXT_REGEX``) and silently passes over
# whatever it does not match: ``1. ZZ9 @@@ %%% 2. ??? *`` is read as a game with no moves, without an
# error. This is the one rule for "a token the reader skips", shared by the importer (which reports
# such games and never imports garbage as an empty game) and anything else that needs it.

#: A move as python-chess's reader takes it (the first group of its own pattern), with the check,
#: mate and annotation marks and the ``e.p.`` it passes over harmlessly.
_READER_MOVE = re.compile(
    r"(?:[NBKRQ]?[a-h]?[1-8]?[\-x]?[a-h][1-8](?:=?[nbrqkNBRQK])?|[PNBRQK]?@[a-h][1-8]|--|Z0|0000|@@@@"
    r"|O-O(?:-O)?|0-0(?:-0)?)[+#]?[!?]{0,2}[+#]?(?:e\.p\.)?"
)
#: Movetext in which every token is one the reader understands: one C-speed test, so ordinary games
#: never pay for the tokenizer.
_CLEAN_MOVETEXT = re.compile(
    r"(?:\s++|\{[^}]*+\}|;[^\n]*(?:\n|$)|\$\d+|\([=+\-]{1,2}\)|[()]|\d+\s*\.+|\d+(?=\s|$)|(?:1-0|0-1|1/2-1/2|\*)(?![\w/-])"
    r"|[!?]{1,2}(?!\w)|[=+\-]{1,2}(?=\s|$)|e\.p\.|" + _READER_MOVE.pattern + r"(?![\w]))*+"
)


def reader_skips(token: Token) -> bool:
    """Whether python-chess's reader would pass over ``token`` without a word (not a move, number,
    result, comment, NAG, annotation or variation bracket it knows)."""
    if token.kind == "unknown":
        return True
    return token.kind == "move" and _READER_MOVE.fullmatch(token.text) is None


def skipped_tokens(movetext: str, first_line: int = 1) -> list[Token]:
    """The tokens of ``movetext`` (its first line is ``first_line`` of the file) the reader skips."""
    if _CLEAN_MOVETEXT.fullmatch(movetext):
        return []
    return [token for token in tokenize(movetext.splitlines(), first_line) if reader_skips(token)]
