"""PGN reading through python-chess, one game at a time, each game isolated.

The file is cut into game segments by a small line scanner (a new game starts at a tag line that
follows movetext, outside any ``{…}`` comment), and each segment is given to python-chess on its
own. That buys three things python-chess alone does not give: the line where every game starts
(for error messages), isolation (python-chess 1.11 can *raise* on some broken variations instead
of recording an error — prior-art §B1 — and the crash then costs only that game), and segments
that can be handed to worker processes.
"""

from __future__ import annotations

import io
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from functools import lru_cache

import chess
import chess.pgn

from chesskb.kb.findings import Finding
from chesskb.kb.reading.move_errors import illegal_move_message
from chesskb.kb.reading.notation import guess_foreign_letters, to_english_movetext
from chesskb.kb.reading.pgn_tokens import (
    TAG_LINE,
    Token,
    movetext_layout_free,
    skipped_tokens,
    tokenize,
    unescape_tag_value,
    without_blank_lines,
)
from chesskb.kb.reading.records import GameRecord, SourceLocation
from chesskb.kb.reading.text import TOO_LARGE, OversizedLine

#: Variants whose positions are ordinary chess positions; others (crazyhouse, antichess …) are
#: reported and skipped: the ontology describes standard chess.
SUPPORTED_VARIANTS = {
    "",
    "standard",
    "chess",
    "normal",
    "from position",
    "chess960",
    "chess 960",
    "fischerandom",
    "fischer random",
    "fischerrandom",
    "960",
}

# Cheap test before the careful one: a capital that is not an English piece letter before a square.
_MAYBE_FOREIGN = re.compile(r"(?<![\w-])[AC-JLMOS-Z][a-h]?[1-8]?[x:]?[a-h][1-8]")
_RESULT_AT_END = re.compile(r"\s*(1-0|0-1|1/2-1/2|\*)\s*$")


@dataclass(frozen=True)
class Segment:
    """The text of one or more consecutive games and the line its first non-blank line is on."""

    text: str
    header_text: str
    movetext: str
    line: int
    #: A ``{`` comment was still open when the next game's tags began (see ``split_segments``).
    unclosed_comment: bool = False


#: The longest game read, in characters (tags and movetext). A longer one is dropped as it streams
#: by (its lines are not kept) and reported by its first line; the games around it are read. The
#: longest annotated games are a few hundred kilobytes.
MAX_GAME_CHARACTERS = 4 << 20


_DROPPED = "dropped\n"  # what a game too large to keep holds in place of its lines (``split_segments``)


def split_segments(handle: Iterable[str]) -> Iterator[Segment | Finding]:
    """Cut a PGN stream into game segments without parsing moves.

    A segment ends where the next game's tags begin, or — for games without tags — after a
    result token (``1-0``, ``0-1``, ``1/2-1/2``, ``*``) outside comments and variations, so that
    a segment is one game and game numbers are known before any parsing. A game longer than
    ``MAX_GAME_CHARACTERS``, or with a line longer than ``MAX_LINE_BYTES`` (``OversizedLine``), is
    a ``Finding`` (``input-too-large``, its line, no game number yet) in its place.
    """
    header: list[str] = []
    moves: list[str] = []
    start_line = 0
    braces = parens = 0  # {…} comments may span lines and hold "[" at a line start
    ended = False
    size = 0  # characters of the game so far
    too_large: str | None = None  # why the current game is dropped

    previous_blank = False

    def flush(unclosed: bool = False) -> Segment | Finding | None:
        if too_large is not None:
            return Finding("error", TOO_LARGE, f"game dropped: {too_large}", line=start_line)
        if not header and not any(line.strip() for line in moves):
            return None
        text_header = "".join(header)
        text_moves = "".join(moves)
        return Segment(text_header + text_moves, text_header, text_moves, start_line, unclosed)

    for number, line in enumerate(handle, start=1):
        # an oversized line is text we did not keep: not blank, not a tag (it ends a finished game)
        stripped = line.lstrip() if not isinstance(line, OversizedLine) else "?"
        # A comment never closed would swallow every later game; a tag pair alone on its line after a
        # blank line is taken as the next game's start instead (the open comment is reported).
        runaway = braces > 0 and previous_blank and TAG_LINE.match(stripped) is not None
        previous_blank = not stripped
        if runaway:
            braces = 0
        starts_tags = braces == 0 and stripped.startswith("[")
        if (starts_tags and any(m.strip() for m in moves)) or (ended and stripped and not starts_tags):
            segment = flush(runaway)
            if segment is not None:
                yield segment
            header, moves, ended, parens, size, too_large = [], [], False, 0, 0, None
        size += len(line)
        if too_large is None and (isinstance(line, OversizedLine) or size > MAX_GAME_CHARACTERS):
            too_large = (
                line.message()
                if isinstance(line, OversizedLine)
                else f"longer than {MAX_GAME_CHARACTERS:,} characters (MAX_GAME_CHARACTERS)"
            )
            if not header and not moves:
                start_line = number
            # from here on the game keeps no text: one placeholder line where it had some, so that
            # where it ends is found as before
            header, moves = [_DROPPED] if header else [], [_DROPPED] if any(m.strip() for m in moves) else []
        if isinstance(line, OversizedLine):  # its text is gone: in the tags or in the movetext
            (header if not moves and braces == 0 else moves)[:] = [_DROPPED]
            continue
        if starts_tags:
            if not header and not moves:
                start_line = number
            _keep(header, line, too_large is not None)
            continue
        if stripped.startswith("%") and not braces:
            continue  # PGN escape line (inside a {…} comment a "%" line is the comment's text)
        if not header and not moves and not stripped:
            continue
        if not header and not moves:
            start_line = number
        _keep(moves, line, too_large is not None)
        braces, parens, ended = _scan_movetext_line(line, braces, parens)
    segment = flush()
    if segment is not None:
        yield segment


def _keep(lines: list[str], line: str, dropped: bool) -> None:
    """Append ``line``; for a game being dropped, hold one placeholder line instead (its text is not kept)."""
    if dropped:
        lines[:] = [_DROPPED]
    else:
        lines.append(line)


_RESULT_TOKENS = ("1-0", "0-1", "1/2-1/2", "*")


def _scan_movetext_line(line: str, braces: int, parens: int) -> tuple[int, int, bool]:
    """Comment and variation depth after ``line``, and whether it ends the game with a result.

    A ``;`` outside braces comments out the rest of the line; braces do not nest in PGN.
    """
    if not braces and not any(char in line for char in "{};()"):  # the common case, no scanning
        tokens = line.split()
        return 0, parens, parens == 0 and bool(tokens) and tokens[-1] in _RESULT_TOKENS
    last_token: list[str] = []
    token: list[str] = []
    for char in line:
        if braces:
            if char == "}":
                braces = 0
            continue
        if char == "{":
            braces = 1
        elif char == ";":
            break
        elif char == "(":
            parens += 1
        elif char == ")":
            parens = max(0, parens - 1)
        if char.isspace() or char in "{}();":
            if token:
                last_token = token
                token = []
        else:
            token.append(char)
    if token:
        last_token = token
    ended = braces == 0 and parens == 0 and "".join(last_token) in _RESULT_TOKENS
    return braces, parens, ended


#: Comments longer than this are cut: a 100 MB comment is an accident (or an attack), not a lesson,
#: and would otherwise become a 100 MB literal in the store. Only movetext longer than
#: ``LONG_MOVETEXT_CHARS`` is scanned, so ordinary games pay nothing.
MAX_COMMENT_CHARS = 10_000
LONG_MOVETEXT_CHARS = 200_000
_LONG_COMMENT = re.compile(r"\{([^}]{" + str(MAX_COMMENT_CHARS) + r"})[^}]+")


def _trim_long_comments(movetext: str) -> tuple[str, int]:
    """``movetext`` with every ``{…}`` comment cut to ``MAX_COMMENT_CHARS``, and how many were cut."""
    return _LONG_COMMENT.subn(lambda match: "{" + match.group(1) + " …", movetext)


class _ParsedGame(chess.pgn.Game):
    """python-chess's game with the first move the builder could not play, and its position (or None)."""

    failed_move: tuple[str, chess.Board] | None = None


class _QuietGameBuilder(chess.pgn.GameBuilder[_ParsedGame]):
    """python-chess's builder without its logging: errors stay data in ``game.errors``, tag values are
    read as PGN escapes them, and the first move it could not play is kept with its position
    (``failed_move``), to name it as ``validate`` does."""

    failed_move: tuple[str, chess.Board] | None = None

    def __init__(self) -> None:
        super().__init__(Game=_ParsedGame)

    def parse_san(self, board: chess.Board, san: str) -> chess.Move:
        try:
            return super().parse_san(board, san)
        except ValueError:
            if self.failed_move is None:
                self.failed_move = (san, board.copy())
            raise

    def handle_error(self, error: Exception) -> None:
        self.game.errors.append(error)

    def result(self) -> _ParsedGame:
        game = super().result()
        game.failed_move = self.failed_move
        return game

    def visit_header(self, tagname: str, tagvalue: str) -> None:
        super().visit_header(tagname, unescape_tag_value(tagvalue))  # ``\"`` is ``"`` (python-chess keeps it)


def parse_segment(
    segment: Segment, file_name: str, games_before: int, *, lang: str | None = None
) -> tuple[list[GameRecord | Finding], int]:
    """Parse one segment with python-chess; never raises.

    Returns the records and findings and how many games the segment held; game numbers continue
    from ``games_before``.
    """
    movetext = segment.movetext
    if segment.unclosed_comment:
        return [
            Finding(
                "error",
                "comment-unclosed",
                "a '{' comment is never closed (the next game's tags follow inside it); game skipped",
                file=file_name,
                game=games_before + 1,
                line=segment.line,
            )
        ], 1
    if lang and lang != "en":
        movetext = to_english_movetext(movetext, lang)
    elif _MAYBE_FOREIGN.search(movetext):
        foreign = guess_foreign_letters(movetext)
        if foreign:  # python-chess would read "Cf3" as "f3" without a word: never import a misreading
            token, english = foreign[0]
            return [
                Finding(
                    "error",
                    "foreign-piece-letter",
                    f"{token!r} uses a piece letter English does not ({len(foreign)} such move(s); "
                    f"{english!r} in English?): import with --lang es/it/fr/de …; game skipped",
                    file=file_name,
                    game=games_before + 1,
                    line=segment.line,
                )
            ], 1
    # Where the movetext starts in the file, for the tokens python-chess would skip (``_reader_skips``).
    movetext_line = segment.line + segment.header_text.count("\n") if segment.header_text else segment.line
    as_written = movetext
    if segment.header_text and "\n\n" in movetext.strip():
        # The segmenter decided this movetext belongs to these tags; python-chess would end the game at a
        # blank line between its moves (after a game comment, say), making a tagless second game of the
        # moves and giving two games one number. Without those blank lines the file's game is read whole;
        # a blank line inside a {…} comment is the comment's text (python-chess reads it so) and stays.
        movetext = without_blank_lines(movetext.strip()) + "\n"
    notes: list[GameRecord | Finding] = []
    if len(movetext) > LONG_MOVETEXT_CHARS:
        movetext, trimmed = _trim_long_comments(movetext)
        if trimmed:
            notes.append(
                Finding(
                    "warning",
                    "comment-trimmed",
                    f"{trimmed} comment(s) longer than {MAX_COMMENT_CHARS:,} characters cut to that length",
                    file=file_name,
                    game=games_before + 1,
                    line=segment.line,
                )
            )
    header = (
        segment.header_text
        if segment.header_text.endswith("\n") or not segment.header_text
        else segment.header_text + "\n"
    )
    stream = io.StringIO(header + movetext)
    out: list[GameRecord | Finding] = notes
    number = games_before
    while True:
        try:
            game = chess.pgn.read_game(stream, Visitor=_QuietGameBuilder)
        except Exception as exc:  # python-chess 1.11 raises on some broken inputs (§B1)
            number += 1
            out.append(
                Finding(
                    "error",
                    "pgn-unreadable",
                    f"python-chess could not read the game ({type(exc).__name__}: {exc})",
                    file=file_name,
                    game=number,
                    line=segment.line,
                )
            )
            break
        if game is None:
            break
        number += 1
        single = number == games_before + 1 and not stream.getvalue()[stream.tell() :].strip()
        skipped = skipped_tokens(as_written, movetext_line) if single else []
        out.extend(_record_or_finding(game, segment, movetext, file_name, number, single=single, skipped=skipped))
    return out, number - games_before


#: Termination values saying a game was decided without moves; such a game's garbage movetext is
#: passed over (with a warning) instead of costing the game.
_NO_MOVES_TERMINATION = re.compile(r"forfeit|abandon|no\s+show|not\s+played", re.IGNORECASE)


def _says_no_moves(headers: chess.pgn.Headers) -> bool:
    return headers.get("PlyCount", "").strip() == "0" or bool(
        _NO_MOVES_TERMINATION.search(headers.get("Termination", ""))
    )


def _skipped_findings(game: chess.pgn.Game, skipped: list[Token], file_name: str, number: int) -> list[Finding]:
    """Tokens python-chess passed over without a word (``kb.reading.pgn_tokens.reader_skips``).

    A game of which nothing could be read as a move (``1. ZZ9 @@@ %%% 2. ??? *``) would become an
    empty game: an error, the game is skipped — unless its tags say it has no moves (a forfeit,
    ``PlyCount "0"``). Tokens passed over between moves that were read (``±`` pasted from a book, the
    words after a nested ``}``) are a warning with the token and its line: a misplaced word usually
    makes the next move illegal, which is an error of its own.
    """
    if not skipped:
        return []
    first = skipped[0]
    more = f" and {len(skipped) - 1} more such token(s)" if len(skipped) > 1 else ""
    where = f"{first.text!r}{more}"
    if next(iter(game.mainline_moves()), None) is None and not _says_no_moves(game.headers):
        return [
            Finding(
                "error",
                "movetext-unreadable",
                f"{where}: not a move python-chess can read, and no move "
                "of the game could be read; game skipped (not imported as a game without moves)",
                file=file_name,
                game=number,
                line=first.line,
                column=first.column,
            )
        ]
    return [
        Finding(
            "warning",
            "token-skipped",
            f"{where}: not PGN, passed over by the reader",
            file=file_name,
            game=number,
            line=first.line,
            column=first.column,
        )
    ]


def _record_or_finding(
    game: chess.pgn.Game,
    segment: Segment,
    movetext: str,
    file_name: str,
    number: int,
    *,
    single: bool,
    skipped: list[Token] | None = None,
) -> list[GameRecord | Finding]:
    """The game as a record (after any warnings about it) or the finding that cost it."""
    notes = _skipped_findings(game, skipped or [], file_name, number) if not game.errors else []
    if notes and notes[0].level == "error":
        return [*notes]
    item = _game_record(game, segment, movetext, file_name, number, single=single)
    return [item] if isinstance(item, Finding) else [*notes, item]


def _game_record(
    game: chess.pgn.Game, segment: Segment, movetext: str, file_name: str, number: int, *, single: bool
) -> GameRecord | Finding:
    variant = game.headers.get("Variant", "").strip().lower()
    if variant not in SUPPORTED_VARIANTS:
        return Finding(
            "error",
            "variant-unsupported",
            f"variant {game.headers.get('Variant')!r} is not standard chess; game skipped",
            file=file_name,
            game=number,
            line=segment.line,
        )
    if game.errors:
        error = game.errors[0]
        failed = getattr(game, "failed_move", None)
        if isinstance(error, chess.IllegalMoveError) and failed is not None:
            san, board = failed
            token = _move_token(segment, san, len(board.move_stack))
            return Finding(
                "error",
                "illegal-move",
                f"{illegal_move_message(san, board)}; game skipped",
                file=file_name,
                game=number,
                line=token.line if token else segment.line,
                column=token.column if token else None,
            )
        line = _line_of_error(segment, error) or segment.line
        return Finding("error", _error_rule(error), _error_message(error), file=file_name, game=number, line=line)
    try:
        impossible, start_fen = _start_of(game.headers)
    except ValueError as exc:
        return Finding("error", "fen-invalid", f"invalid FEN: {exc}", file=file_name, game=number, line=segment.line)
    if impossible:
        return Finding(
            "error",
            "fen-invalid",
            f"the FEN is not a chess position ({_status_text(impossible)}); game skipped",
            file=file_name,
            game=number,
            line=segment.line,
        )
    solution = list(game.mainline_moves())
    comments = {node.ply(): node.comment for node in game.mainline() if node.comment}
    if game.comment:
        comments[0] = game.comment
    text = _RESULT_AT_END.sub("", movetext_layout_free(movetext)) if single else _exported_movetext(game)
    headers = {key: value for key, value in game.headers.items()}
    return GameRecord(
        location=SourceLocation(file_name, number, segment.line),
        headers=headers,
        start_fen=start_fen,
        solution=solution,
        movetext=text,
        comments=comments,
    )


#: Start positions remembered (``_start_of``): a collection's games share a few, its copies all of theirs.
STARTS_REMEMBERED = 1024


def _start_of(headers: chess.pgn.Headers) -> tuple[int, str]:
    """The defects (``_IMPOSSIBLE_POSITION``) and the FEN of a game's start board. python-chess sets the
    board up from the ``Variant`` and ``FEN`` tags alone (``Headers.board``), so the answer is kept by
    those: games from the standard start, and copies of a collection, set one board up again and again. Raises
    ``ValueError`` for a FEN python-chess does not accept (not remembered: asked again each time)."""
    return _start_from_tags(headers.get("Variant"), headers.get("FEN"))


@lru_cache(maxsize=STARTS_REMEMBERED)
def _start_from_tags(variant: str | None, fen: str | None) -> tuple[int, str]:
    tags = {name: value for name, value in (("Variant", variant), ("FEN", fen)) if value is not None}
    board = chess.pgn.Headers(tags).board()
    return board.status() & _IMPOSSIBLE_POSITION, board.fen()


#: Board defects that make a start position meaningless (python-chess reads such FENs without a
#: word). Doubtful castling or en-passant fields are not here: python-chess cleans them, and real
#: puzzle collections carry them.
_IMPOSSIBLE_POSITION = (
    chess.STATUS_EMPTY
    | chess.STATUS_NO_WHITE_KING
    | chess.STATUS_NO_BLACK_KING
    | chess.STATUS_TOO_MANY_KINGS
    | chess.STATUS_TOO_MANY_WHITE_PAWNS
    | chess.STATUS_TOO_MANY_BLACK_PAWNS
    | chess.STATUS_PAWNS_ON_BACKRANK
    | chess.STATUS_TOO_MANY_WHITE_PIECES
    | chess.STATUS_TOO_MANY_BLACK_PIECES
    | chess.STATUS_OPPOSITE_CHECK
)


def _status_text(status: int) -> str:
    names = [
        name[len("STATUS_") :].lower().replace("_", " ")
        for name in dir(chess)
        if name.startswith("STATUS_") and name != "STATUS_VALID" and status & getattr(chess, name)
    ]
    return ", ".join(sorted(names))


def _exported_movetext(game: chess.pgn.Game) -> str:
    exporter = chess.pgn.StringExporter(headers=False, columns=None, comments=True, variations=True)
    return _RESULT_AT_END.sub("", game.accept(exporter))


def _error_rule(error: Exception) -> str:
    if isinstance(error, chess.IllegalMoveError):
        return "illegal-move"
    if isinstance(error, chess.AmbiguousMoveError):
        return "ambiguous-move"
    if isinstance(error, chess.InvalidMoveError):
        return "invalid-move"
    if isinstance(error, ValueError) and "fen" in str(error).lower():
        return "fen-invalid"
    return "pgn-error"


def _error_message(error: Exception) -> str:
    message = str(error) or type(error).__name__
    if isinstance(error, chess.IllegalMoveError):
        return f"{message}; game skipped"
    if isinstance(error, ValueError) and "fen" in message.lower():
        return f"invalid FEN: {message}"
    return f"{message}; game skipped"


_SAN_IN_MESSAGE = re.compile(r"san: '([^']+)'|illegal san: '([^']+)'|(?:san|move)[^']*'([^']+)'")


def _move_token(segment: Segment, san: str, plies_before: int) -> Token | None:
    """Where the move python-chess could not play is written: the main line's move after
    ``plies_before`` others when it reads ``san``, else the first move token reading ``san``."""
    first_line = segment.line + segment.header_text.count("\n") if segment.header_text else segment.line
    depth, played, first = 0, 0, None
    for token in tokenize(segment.movetext.splitlines(), first_line):
        if token.kind == "open-rav":
            depth += 1
        elif token.kind == "close-rav":
            depth -= 1
        elif token.kind == "move":
            same = token.text.rstrip("!?+#") == san.rstrip("!?+#")
            first = first or (token if same else None)
            if depth == 0:
                if played == plies_before and same:
                    return token
                played += 1
    return first


def _line_of_error(segment: Segment, error: Exception) -> int | None:
    """Best effort: the movetext line holding the offending move token."""
    match = _SAN_IN_MESSAGE.search(str(error))
    if not match:
        return None
    token = next(group for group in match.groups() if group)
    header_lines = segment.header_text.count("\n") + (1 if segment.header_text else 0)
    for offset, line in enumerate(segment.movetext.splitlines()):
        if re.search(r"(?<![\w])" + re.escape(token) + r"(?![\w])", line):
            return segment.line + header_lines + offset - (1 if segment.header_text else 0)
    return None
