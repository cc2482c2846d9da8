"""Strict PGN validation: every finding in a file, with file, game, line and column.

The importer reads PGN the way python-chess does — leniently, skipping what it cannot use. A teacher
preparing material needs the opposite: to learn *everything* that is wrong, in one run. This module
walks the tokens of ``pgn_tokens`` game by game and replays every move (main line and variations)
on a python-chess board, reporting:

* lexical problems: malformed tags, unbalanced ``{}`` and ``()``, tokens that are not PGN;
* move numbering, seed 002's rules in standard-PGN terms: the first number is 1 or the FEN's move
  number, numbers are consecutive, Black's move after an interruption (comment, variation, NAG)
  carries ``N...`` with White's number;
* illegal and ambiguous moves, and foreign piece letters (``Cf3``) with the English move suggested —
  python-chess would silently read ``Cf3`` as ``f3``;
* the Result tag against the termination marker and the final position (checkmate, stalemate),
  PlyCount against the main line, the FEN/SetUp tags against the strict FEN rules;
* as information, seed 002's metric: the deepest nesting of a comment or variation whose own text
  holds no capture.

After a move that cannot be played, the rest of that line (main line or variation) is not replayed:
one bad move must not bury the real findings under a cascade of false ones.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

import chess

from chesskb.kb.checks.fen import board_from_fen, validate_fen
from chesskb.kb.findings import Finding, Level
from chesskb.kb.reading.move_errors import illegal_move_message
from chesskb.kb.reading.notation import GUESS_ORDER, PIECE_LETTERS, english_candidates, san_to_english
from chesskb.kb.reading.pgn_tokens import Token, tag_name_value, tokenize
from chesskb.kb.reading.text import TOO_LARGE, looks_binary, open_text

RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
_NUMBER = re.compile(r"(\d+)\s*(\.*)")
_SUFFIX = re.compile(r"[!?]+$")
_SAN_SHAPE = re.compile(r"(?:[NBRQK]?[a-h]?[1-8]?[x:]?[a-h][1-8](?:=?[NBRQ])?|O-O(?:-O)?|--|Z0)[+#]{0,2}")
# Languages whose letters explain a foreign move, for the message ("Spanish/Italian …").
_LANGUAGE_NAMES = {
    "es": "Spanish",
    "it": "Italian",
    "fr": "French",
    "de": "German",
    "pt": "Portuguese",
    "nl": "Dutch",
    "pl": "Polish",
    "cs": "Czech",
    "hu": "Hungarian",
    "ro": "Romanian",
}


@dataclass
class _Line:
    """One line being replayed (the main line or a variation).

    ``before_last`` is the position before the last move played, where a variation that starts
    here branches from; ``broken`` is set after a move that could not be played.
    """

    board: chess.Board | None
    before_last: chess.Board | None = None
    # Move counter kept apart from the board, so numbering is still checked after a bad move.
    fullmove: int = 1
    white: bool = True
    counter_before_last: tuple[int, bool] | None = None
    depth: int = 0
    interrupted: bool = False
    number_seen: int | None = None  # the move number written just before the next move
    number_dots: str = ""
    own_capture: bool = False
    first_move: bool = True
    plies: int = 0


@dataclass
class _Game:
    number: int
    line: int
    tags: dict[str, tuple[str, Token]] = field(default_factory=dict)
    termination: Token | None = None
    moves_seen: bool = False
    deepest_quiet: int = 0
    foreign_letters: set[str] = field(default_factory=set)


class PgnLinter:
    """Validates one file; ``findings`` collects everything found. ``lang`` reads foreign piece
    letters as that language's (like ``import --lang``)."""

    def __init__(self, file: str, lang: str | None = None) -> None:
        self.file = file
        self.lang = lang if lang and lang != "en" else None
        self.findings: list[Finding] = []
        self.games = 0
        self.deepest_quiet = 0  # seed 002's metric over the whole file, as the seed printed it

    # -- reporting ---------------------------------------------------------------------------------
    def _add(
        self,
        level: Level,
        rule: str,
        message: str,
        game: _Game | None,
        token: Token | None = None,
        line: int | None = None,
    ) -> None:
        self.findings.append(
            Finding(
                level,
                rule,
                message,
                file=self.file,
                game=game.number if game else None,
                line=token.line if token else line,
                column=token.column if token else None,
            )
        )

    # -- driving -----------------------------------------------------------------------------------
    def run(self, lines: Iterable[str]) -> list[Finding]:
        game: _Game | None = None
        stack: list[_Line] = []
        for token in tokenize(lines):
            starts_new = (
                game is None
                or (token.kind in ("tag", "bad-tag") and (game.moves_seen or game.termination is not None))
                or (game.termination is not None and token.kind not in ("tag", "bad-tag"))
            )
            if starts_new:
                if game is not None:
                    self._finish(game, stack)
                self.games += 1
                game = _Game(self.games, token.line)
                stack = []
            assert game is not None
            self._token(game, stack, token)
        if game is not None:
            self._finish(game, stack)
        if self.deepest_quiet:
            self.findings.append(
                Finding(
                    "info",
                    "comment-nesting-file",
                    f"deepest comment or variation without a capture in the file: level {self.deepest_quiet}",
                    file=self.file,
                )
            )
        return self.findings

    def _token(self, game: _Game, stack: list[_Line], token: Token) -> None:
        kind = token.kind
        if kind == "tag":
            name, value = tag_name_value(token)
            if name in game.tags:
                self._add("warning", "tag-repeated", f"tag {name} appears twice; the last value counts", game, token)
            game.tags[name] = (value, token)
            return
        if kind == "bad-tag":
            self._add(
                "error",
                "tag-syntax",
                f'malformed tag pair {token.text!r}: write [Name "value"] '
                "(letters, digits and _ in the name, the value in double quotes)",
                game,
                token,
            )
            return
        if not stack:
            stack.append(self._main_line(game))
        current = stack[-1]
        if kind == "move":
            game.moves_seen = True
            self._move(game, current, token)
        elif kind == "number":
            game.moves_seen = True
            match = _NUMBER.match(token.text)
            assert match is not None
            current.number_seen = int(match.group(1))
            current.number_dots = match.group(2)
            if not current.number_dots:
                self._add("warning", "move-number-format", f"move number {token.text!r} without a dot", game, token)
        elif kind == "comment":
            current.interrupted = True
            if token.quiet_depth:
                self._note_nesting(game, current.depth + token.quiet_depth, False)
        elif kind == "unclosed-comment":
            self._add("error", "brace-unclosed", "comment opened here is never closed with '}'", game, token)
        elif kind == "stray-brace":
            self._add("error", "brace-unmatched", "'}' without an opening '{'", game, token)
        elif kind == "nag":
            current.interrupted = True
        elif kind == "annotation":
            pass  # "!?" written apart from its move: tolerated like python-chess does
        elif kind == "open-rav":
            game.moves_seen = True
            current.interrupted = True
            start = current.before_last.copy(stack=False) if current.before_last is not None else None
            fullmove, white = current.counter_before_last or (current.fullmove, current.white)
            variation = _Line(
                board=start, fullmove=fullmove, white=white, depth=current.depth + 1, interrupted=True, first_move=False
            )
            if current.counter_before_last is None:
                self._add("error", "variation-misplaced", "a variation before any move of its line", game, token)
            stack.append(variation)
        elif kind == "close-rav":
            if len(stack) == 1:
                self._add("error", "paren-unmatched", "')' without an opening '('", game, token)
                return
            finished = stack.pop()
            if not finished.own_capture:
                self._note_nesting(game, finished.depth, False)
            stack[-1].interrupted = True
        elif kind == "result":
            if len(stack) > 1:
                self._add(
                    "error",
                    "paren-unclosed",
                    f"the game ends ({token.text}) inside {len(stack) - 1} unclosed variation(s)",
                    game,
                    token,
                )
                del stack[1:]
            game.termination = token
        elif kind == "unknown":
            self._add("error", "token-unknown", f"{token.text!r} is not PGN", game, token)

    def _main_line(self, game: _Game) -> _Line:
        """The main line's start: the FEN tag's position (checked strictly) or the initial one."""
        fen_tag = game.tags.get("FEN")
        setup = game.tags.get("SetUp")
        if setup and setup[0] not in ("0", "1"):
            self._add("error", "setup-invalid", f'SetUp must be "0" or "1", not {setup[0]!r}', game, setup[1])
        if fen_tag is None:
            if setup and setup[0] == "1":
                self._add("error", "setup-without-fen", 'SetUp "1" but no FEN tag', game, setup[1])
            return _Line(board=chess.Board())
        fen, token = fen_tag
        if setup is None or setup[0] != "1":
            self._add(
                "warning", "fen-without-setup", 'FEN tag without SetUp "1" (the standard asks for both)', game, token
            )
        errors = validate_fen(fen)
        for error in errors:
            self._add("error", "fen-invalid", f"FEN {error.field}: {error.message}", game, token)
        board = board_from_fen(fen) if not errors else _lenient_board(fen)
        if board is None:
            self._add(
                "warning", "moves-unchecked", "the moves are not checked: the game has no valid start", game, token
            )
            return _Line(board=None)
        return _Line(board=board, fullmove=board.fullmove_number, white=board.turn == chess.WHITE)

    # -- moves -------------------------------------------------------------------------------------
    def _move(self, game: _Game, line: _Line, token: Token) -> None:
        text = _SUFFIX.sub("", token.text)
        self._check_number(game, line, token)
        counter = (line.fullmove, line.white)
        line.counter_before_last = counter
        line.fullmove += 0 if line.white else 1
        line.white = not line.white
        line.first_move = False
        line.interrupted = False
        san = text
        if san.startswith("0-0"):
            self._add(
                "warning",
                "castling-zeros",
                f"castling written with zeros {token.text!r}; PGN writes {san.replace('0', 'O')}",
                game,
                token,
            )
            san = san.replace("0", "O")
        if self.lang:
            san = san_to_english(self.lang, san)
        if line.board is None:
            self._check_token_shape(game, token, san)
            return
        board = line.board
        try:
            move = board.parse_san(san)
        except chess.AmbiguousMoveError:
            self._add(
                "error",
                "ambiguous-move",
                f"{token.text!r} is ambiguous here: {self._disambiguations(board, san)}",
                game,
                token,
            )
            self._break(line)
            return
        except chess.IllegalMoveError:
            self._add(
                "error", "illegal-move", illegal_move_message(token.text, board) + self._hint(board, text), game, token
            )
            self._break(line)
            return
        except chess.InvalidMoveError:
            foreign = self._foreign_move(game, board, token, text)
            if foreign is None:
                self._break(line)
                return
            move = foreign
        if "x" in san or ":" in san:
            line.own_capture = True
        line.before_last = board.copy(stack=False)
        board.push(move)
        line.plies += 1

    def _check_number(self, game: _Game, line: _Line, token: Token) -> None:
        """Seed 002's numbering rules R1–R3, read for standard PGN."""
        seen, dots = line.number_seen, line.number_dots
        line.number_seen, line.number_dots = None, ""
        expected, white = line.fullmove, line.white
        if seen is None:
            if white:
                self._add(
                    "warning",
                    "move-number-missing",
                    f"White's move {token.text!r} has no move number ({expected}.)",
                    game,
                    token,
                )
            elif not white and (line.interrupted or line.first_move):
                self._add(
                    "warning",
                    "move-number-missing",
                    f"Black's move {token.text!r} after a comment, "
                    f"variation or the start needs its number ({expected}...)",
                    game,
                    token,
                )
            return
        if seen != expected:
            if line.first_move and line.depth == 0:
                rule, why = "numbering-start", f"the game starts at move {expected}"
            else:
                rule, why = "numbering", f"this is move {expected}"
            self._add("error", rule, f"move number {seen} before {token.text!r}, but {why}", game, token)
        elif not white and dots == ".":
            self._add(
                "warning",
                "move-number-format",
                f"Black's move {token.text!r} numbered '{seen}.'; write '{seen}...'",
                game,
                token,
            )
        elif white and dots not in (".",) and dots:
            self._add(
                "error",
                "numbering",
                f"'{seen}{dots}' announces Black's move, but White is to move ({token.text!r})",
                game,
                token,
            )

    def _foreign_move(self, game: _Game, board: chess.Board, token: Token, text: str) -> chess.Move | None:
        """A token python-chess cannot read at all: a foreign piece letter if some language's letters
        make it a legal move here (the move is then played, so the game goes on being checked)."""
        readings = []
        for candidate in english_candidates(text):
            try:
                readings.append((candidate, board.parse_san(candidate)))
            except ValueError:
                continue
        if not readings:
            self._add(
                "error", "invalid-move", f"{token.text!r} is not a move in standard algebraic notation", game, token
            )
            return None
        english, move = readings[0]
        letter = next((c for c in text if c.isupper()), "?")
        languages = [name for code, name in _LANGUAGE_NAMES.items() if letter in PIECE_LETTERS[code][1:]]
        game.foreign_letters.add(letter)
        self._add(
            "error",
            "foreign-piece-letter",
            f"{token.text!r} uses the piece letter {letter!r} ({'/'.join(languages[:3]) or 'not English'}); "
            f"in English notation: {english!r} (python-chess would misread it as a pawn move)",
            game,
            token,
        )
        return move

    def _check_token_shape(self, game: _Game, token: Token, san: str) -> None:
        """Without a board (an invalid start, or after a move that could not be played) only the
        token's shape can be checked."""
        if _SAN_SHAPE.fullmatch(san):
            return
        candidates = [c for c in english_candidates(san) if _SAN_SHAPE.fullmatch(c)]
        if candidates:
            letter = next((c for c in san if c.isupper()), "?")
            game.foreign_letters.add(letter)
            self._add(
                "error",
                "foreign-piece-letter",
                f"{token.text!r} uses the piece letter {letter!r}; in English notation: {candidates[0]!r}",
                game,
                token,
            )
        else:
            self._add(
                "error", "invalid-move", f"{token.text!r} is not a move in standard algebraic notation", game, token
            )

    def _hint(self, board: chess.Board, text: str) -> str:
        """For a move illegal in English: the Spanish/Italian/French reading where ``R`` is the king."""
        if text[:1] == "R":
            try:
                board.parse_san("K" + text[1:])
                return f"; if the file uses Spanish, Italian or French letters, R is the king: {'K' + text[1:]!r}"
            except ValueError:
                return ""
        return ""

    @staticmethod
    def _disambiguations(board: chess.Board, san: str) -> str:
        target = re.search(r"[a-h][1-8]", san[1:] if san[:1].isupper() else san)
        moves = (
            [
                board.san(move)
                for move in board.legal_moves
                if target
                and chess.square_name(move.to_square) == target.group()
                and board.piece_type_at(move.from_square) == chess.PIECE_SYMBOLS.index(san[0].lower())
            ]
            if san[:1] in "NBRQK"
            else []
        )
        return "write " + " or ".join(repr(m) for m in moves) if moves else "say which piece moves"

    @staticmethod
    def _side(board: chess.Board) -> str:
        return "White" if board.turn == chess.WHITE else "Black"

    @staticmethod
    def _break(line: _Line) -> None:
        line.board = None
        line.before_last = None

    def _note_nesting(self, game: _Game, depth: int, capture: bool) -> None:
        if not capture:
            game.deepest_quiet = max(game.deepest_quiet, depth)

    # -- end of a game -------------------------------------------------------------------------------
    def _finish(self, game: _Game, stack: list[_Line]) -> None:
        if not game.moves_seen and game.termination is None:
            if game.tags:
                self._add("warning", "game-empty", "tags without any moves or result", game, line=game.line)
            return
        if len(stack) > 1:
            self._add(
                "error",
                "paren-unclosed",
                f"{len(stack) - 1} variation(s) opened with '(' never closed",
                game,
                line=game.line,
            )
        main = stack[0] if stack else _Line(board=None)
        result_tag = game.tags.get("Result")
        marker = game.termination.text if game.termination else None
        if marker is None:
            self._add(
                "warning",
                "result-missing",
                "the movetext does not end with a result (1-0, 0-1, 1/2-1/2 or *)",
                game,
                line=game.line,
            )
        if result_tag is not None:
            value, token = result_tag
            if value not in RESULTS:
                self._add("error", "result-invalid", f"Result tag {value!r} is not 1-0, 0-1, 1/2-1/2 or *", game, token)
            elif marker is not None and marker != value:
                self._add(
                    "error",
                    "result-contradiction",
                    f"Result tag {value!r} but the movetext ends with {marker!r}",
                    game,
                    token,
                )
        final = result_tag[0] if result_tag else marker
        if main.board is not None and final in RESULTS:
            self._check_final_position(game, main.board, final, result_tag[1] if result_tag else game.termination)
        plycount = game.tags.get("PlyCount")
        if plycount is not None and main.board is not None:
            value, token = plycount
            if not (value.isascii() and value.isdigit()):
                self._add("error", "plycount-invalid", f"PlyCount {value!r} is not a number", game, token)
            elif int(value) != main.plies:
                self._add(
                    "warning",
                    "plycount-mismatch",
                    f"PlyCount {value} but the main line has {main.plies} half-moves",
                    game,
                    token,
                )
        if game.foreign_letters:
            codes = [
                code
                for code in GUESS_ORDER
                if all(letter in PIECE_LETTERS[code][1:] for letter in game.foreign_letters)
            ]
            if codes:
                names = "/".join(_LANGUAGE_NAMES.get(code, code) for code in codes[:3])
                self._add(
                    "info",
                    "foreign-notation",
                    f"the moves look written in {names} notation: validate and import with --lang {codes[0]}",
                    game,
                    line=game.line,
                )
        self.deepest_quiet = max(self.deepest_quiet, game.deepest_quiet)
        if game.deepest_quiet:
            self._add(
                "info",
                "comment-nesting",
                f"deepest comment or variation without a capture: level {game.deepest_quiet} (seed 002's metric)",
                game,
                line=game.line,
            )

    def _check_final_position(self, game: _Game, board: chess.Board, result: str, where: Token | None) -> None:
        if board.is_checkmate():
            winner = "0-1" if board.turn == chess.WHITE else "1-0"
            if result not in (winner, "*"):
                self._add(
                    "error",
                    "result-contradiction",
                    f"the game ends in checkmate ({winner}) but the result is {result}",
                    game,
                    where,
                )
        elif board.is_stalemate() and result not in ("1/2-1/2", "*"):
            self._add(
                "error",
                "result-contradiction",
                f"the game ends in stalemate (1/2-1/2) but the result is {result}",
                game,
                where,
            )


def _lenient_board(fen: str) -> chess.Board | None:
    """The start python-chess (and so the importer) would use for an invalid FEN, if it reads it at
    all: the moves can still be checked from there, so one bad counter does not hide them."""
    try:
        return board_from_fen(fen) or chess.Board(fen)
    except ValueError:
        return None


def lint_lines(lines: Iterable[str], file: str, lang: str | None = None) -> list[Finding]:
    """All findings for PGN text given as lines."""
    return PgnLinter(file, lang).run(lines)


def lint_text(text: str, file: str = "<text>", lang: str | None = None) -> list[Finding]:
    return lint_lines(text.splitlines(), file, lang)


def lint_file(path: str | Path, display_name: str | None = None, lang: str | None = None) -> Iterator[Finding]:
    """All findings for a PGN file (plain, ``.gz``, ``.zst``; UTF-8 or Latin-1); never raises."""
    name = display_name or str(path)
    try:
        binary = looks_binary(path)
    except (OSError, EOFError, ValueError) as exc:
        yield Finding("error", "file-unreadable", f"cannot read the file: {exc}", file=name)
        return
    if binary:
        yield Finding("error", "file-binary", "the file is not text (NUL or control bytes): not a PGN file", file=name)
        return
    linter = PgnLinter(name, lang)
    try:
        with open_text(path) as handle:
            linter.run(handle)
            linter.findings.extend(
                Finding("error", TOO_LARGE, marker.message(), file=name, line=marker.line)
                for marker in getattr(handle, "oversized", ())
            )
    except (OSError, EOFError, ValueError) as exc:  # truncated gzip, corrupt zstd frame, vanished file
        linter.findings.append(
            Finding("error", "file-unreadable", f"reading stopped: {exc}", file=name, game=linter.games or None)
        )
    yield from linter.findings
