"""Strict FEN validation: seed 004's grammar and every semantic rule, all errors at once.

python-chess is both too lax (it accepts 4 or 5 fields, leading zeros, extra spaces, Shredder letters,
repeated castling letters) and too strict (it rejects castling letters in a non-canonical order) for a
teacher who wants to know exactly what is wrong with a FEN. So the grammar is checked here field by
field, and the board-level rules are checked on a board we build ourselves. A syntax error in one
field never hides the checks of the other fields that can still be evaluated.
"""

from __future__ import annotations

import re
from typing import Literal

import chess

from chesskb.kb.findings import Finding, fen_finding, fen_kind

#: A FEN problem is a ``Finding`` (``kb.findings``): its rule says the kind (``fen-syntax`` or
#: ``fen-semantic``, read back with ``fen_kind``), its ``field`` the FEN field (``fen`` for the whole string).
Kind = Literal["syntax", "semantic"]

FIELDS = ("placement", "side_to_move", "castling", "en_passant", "halfmove_clock", "fullmove_number")
PIECE_LETTERS = "KQRBNPkqrbnp"
CASTLING_ORDER = "KQkq"

# Letters other languages use for pieces (seed 000, Tabla VI); named in the hint for a wrong letter.
_FOREIGN_HINT = {
    "C": "N (knight: Spanish/Italian/French 'C')",
    "A": "B (bishop: Spanish/Italian 'A')",
    "T": "R (rook: Spanish/Italian/German 'T')",
    "D": "Q (queen: Spanish/Italian/German 'D')",
    "S": "N (knight: German 'S')",
    "L": "B (bishop: German 'L')",
    "F": "B (bishop: French 'F')",
}


def validate_fen(text: str) -> list[Finding]:
    """Every syntax and semantic error in ``text``; an empty list means the FEN is valid."""
    return _FenCheck(text).errors()


def fen_warnings(text: str) -> list[Finding]:
    """Doubts that do not make a FEN invalid: castling letters out of the canonical order, more
    promoted pieces than missing pawns allow, an impossible set of checkers, a half-move clock that
    contradicts the en-passant square."""
    return _FenCheck(text).warnings()


def fen_warning(field: str, message: str) -> Finding:
    return fen_finding("semantic", field, message, level="warning")


def board_from_fen(text: str) -> chess.Board | None:
    """The board for a FEN without syntax errors (castling letters in any order), else ``None``.

    Semantic errors do not prevent a board (a teacher's odd exercise can still be replayed); the
    caller decides whether to trust it after ``validate_fen``.
    """
    check = _FenCheck(text)
    if any(fen_kind(error) == "syntax" for error in check.errors()) or check.placement is None:
        return None
    board = chess.Board(None)
    for square, piece in check.placement.items():
        board.set_piece_at(square, piece)
    board.turn = check.side == "w"
    castling = "".join(letter for letter in CASTLING_ORDER if letter in (check.castling or ""))
    try:
        board.set_castling_fen(castling or "-")
    except ValueError:
        return None
    board.ep_square = chess.parse_square(check.ep) if check.ep not in (None, "-") else None
    board.halfmove_clock = int(check.halfmove or 0)
    board.fullmove_number = int(check.fullmove or 1)
    return board


_RANK_TOKEN = re.compile(r"[1-8]|[KQRBNPkqrbnp]|.", re.DOTALL)
_SQUARE = re.compile(r"[a-h][1-8]")
_HALFMOVE = re.compile(r"0|[1-9][0-9]*")
_FULLMOVE = re.compile(r"[1-9][0-9]*")


class _FenCheck:
    """Parses once, then answers ``errors()`` and ``warnings()``. Fields that failed their syntax
    check are ``None`` so the semantic checks that need them are skipped, not guessed."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._errors: list[Finding] = []
        self.placement: dict[int, chess.Piece] | None = None
        self.side: str | None = None
        self.castling: str | None = None
        self.ep: str | None = None
        self.halfmove: str | None = None
        self.fullmove: str | None = None
        self._parse()
        if self.placement is not None:
            self._check_board()

    # -- reporting -------------------------------------------------------------------------------
    def _syntax(self, field: str, message: str) -> None:
        self._errors.append(fen_finding("syntax", field, message))

    def _semantic(self, field: str, message: str) -> None:
        self._errors.append(fen_finding("semantic", field, message))

    def errors(self) -> list[Finding]:
        return list(self._errors)

    # -- syntax ----------------------------------------------------------------------------------
    def _parse(self) -> None:
        text = self.text
        if not isinstance(text, str) or text == "":
            self._syntax("fen", "the FEN is empty; six fields separated by single spaces are required")
            return
        if text != text.strip():
            self._syntax("fen", "leading or trailing whitespace; the FEN must start and end with a field")
        if re.search(r"[^\S ]", text):
            self._syntax("fen", "tabs or line breaks between fields; separate fields with one space")
        if "  " in text:
            self._syntax("fen", f"more than one space between fields (at column {text.index('  ') + 1})")
        fields = text.split()
        if len(fields) != 6:
            named = ", ".join(FIELDS[len(fields) :]) if len(fields) < 6 else ""
            detail = f"missing: {named}" if named else f"extra: {' '.join(fields[6:])[:60]!r}"
            self._syntax("fen", f"{len(fields)} field{'s' if len(fields) != 1 else ''} instead of 6 ({detail})")
        present: list[str | None] = [*fields, *[None] * (6 - len(fields))]  # None: a missing field
        placement, side, castling, ep, halfmove, fullmove = present[:6]
        if placement is not None:
            self._parse_placement(placement)
        if side is not None:
            self._parse_side(side)
        if castling is not None:
            self._parse_castling(castling)
        if ep is not None:
            self._parse_ep(ep)
        if halfmove is not None:
            if _HALFMOVE.fullmatch(halfmove):
                self.halfmove = halfmove
            else:
                self._syntax(
                    "halfmove_clock", f"half-move clock {halfmove!r} is not 0 or a number without leading zeros"
                )
        if fullmove is not None:
            if _FULLMOVE.fullmatch(fullmove):
                self.fullmove = fullmove
            elif fullmove.isascii() and fullmove.isdigit() and int(fullmove) == 0:
                self._syntax("fullmove_number", f"move number {fullmove!r} must be 1 or more")
            else:
                self._syntax("fullmove_number", f"move number {fullmove!r} is not a number ≥ 1 without leading zeros")

    def _parse_placement(self, placement: str) -> None:
        ranks = placement.split("/")
        if len(ranks) != 8:
            plural = "s" if len(ranks) != 1 else ""
            self._syntax("placement", f"{len(ranks)} rank{plural} instead of 8 (ranks are separated by '/')")
        squares: dict[int, chess.Piece] = {}
        board_ok = len(ranks) == 8
        for index, rank_text in enumerate(ranks):
            rank_number = 8 - index
            label = f"rank {rank_number}" if len(ranks) == 8 else f"rank field {index + 1}"
            if rank_text == "":
                self._syntax("placement", f"{label} is empty (write 8 for an empty rank)")
                board_ok = False
                continue
            width = 0
            previous_digit = False
            for token in _RANK_TOKEN.findall(rank_text):
                if token in "12345678":
                    if previous_digit:
                        self._syntax(
                            "placement",
                            f"{label} {rank_text!r}: two digits in a row; write the "
                            "sum of the empty squares as one digit",
                        )
                        board_ok = False
                    previous_digit = True
                    width += int(token)
                elif token in PIECE_LETTERS:
                    previous_digit = False
                    if board_ok and width < 8 and 0 <= rank_number - 1 < 8:
                        squares[chess.square(width, rank_number - 1)] = chess.Piece.from_symbol(token)
                    width += 1
                else:
                    digit = token in "09"  # 1-8 were handled above; other Unicode digits are just characters
                    previous_digit = digit
                    hint = _FOREIGN_HINT.get(token.upper())
                    what = f"digit {token!r} (empty squares are 1-8)" if digit else f"{token!r}"
                    extra = f"; FEN uses English letters: {hint}" if hint else ""
                    self._syntax(
                        "placement",
                        f"{label} {rank_text!r}: {what} is not a piece letter "
                        f"(KQRBNP, kqrbnp) or an empty-square digit{extra}",
                    )
                    board_ok = False
                    width += int(token) if digit else 1
            if width != 8:
                self._semantic("placement", f"{label} has {width} squares instead of 8 ({rank_text!r})")
                board_ok = False
        if board_ok:
            self.placement = squares

    def _parse_side(self, side: str) -> None:
        if side in ("w", "b"):
            self.side = side
        elif side.lower() in ("w", "b", "white", "black"):
            self._syntax("side_to_move", f"side to move {side!r} must be lowercase 'w' or 'b'")
        else:
            self._syntax("side_to_move", f"side to move {side!r} is not 'w' or 'b'")

    def _parse_castling(self, castling: str) -> None:
        if castling == "-":
            self.castling = ""
            return
        bad = sorted(set(castling) - set(CASTLING_ORDER), key=castling.index)
        if bad:
            if "-" in castling:
                self._syntax("castling", f"castling {castling!r}: '-' cannot be combined with letters")
            others = [c for c in bad if c != "-"]
            if others:
                shredder = all(c in "ABCDEFGHabcdefgh" for c in others)
                hint = " (Shredder-FEN/X-FEN file letters are not standard FEN)" if shredder else ""
                self._syntax(
                    "castling",
                    f"castling {castling!r}: {''.join(others)!r} not allowed; use '-' or letters from KQkq{hint}",
                )
        repeated = sorted({c for c in castling if c in CASTLING_ORDER and castling.count(c) > 1})
        if repeated:
            self._semantic("castling", f"castling {castling!r}: {''.join(repeated)!r} appears more than once")
        self.castling = "".join(c for c in CASTLING_ORDER if c in castling)

    def _parse_ep(self, ep: str) -> None:
        if ep == "-" or _SQUARE.fullmatch(ep):
            self.ep = ep
        elif _SQUARE.fullmatch(ep.lower()):
            self._syntax("en_passant", f"en-passant square {ep!r} must be lowercase ({ep.lower()})")
        else:
            self._syntax("en_passant", f"en-passant field {ep!r} is not '-' or a square a1-h8")

    # -- semantics -------------------------------------------------------------------------------
    def _check_board(self) -> None:
        assert self.placement is not None
        by_colour = {chess.WHITE: "White", chess.BLACK: "Black"}
        kings: dict[bool, list[int]] = {chess.WHITE: [], chess.BLACK: []}
        for colour, name in by_colour.items():
            men = [sq for sq, piece in self.placement.items() if piece.color == colour]
            kings[colour] = [sq for sq in men if self.placement[sq].piece_type == chess.KING]
            pawns = [sq for sq in men if self.placement[sq].piece_type == chess.PAWN]
            if not kings[colour]:
                self._semantic("placement", f"no {name.lower()} king")
            elif len(kings[colour]) > 1:
                where = ", ".join(chess.square_name(sq) for sq in kings[colour])
                self._semantic(
                    "placement", f"{len(kings[colour])} {name.lower()} kings ({where}); exactly one is required"
                )
            if len(pawns) > 8:
                self._semantic("placement", f"{len(pawns)} {name.lower()} pawns; at most 8")
            if len(men) > 16:
                self._semantic("placement", f"{len(men)} {name.lower()} pieces and pawns; at most 16")
        back = [
            sq
            for sq, piece in self.placement.items()
            if piece.piece_type == chess.PAWN and chess.square_rank(sq) in (0, 7)
        ]
        if back:
            where = ", ".join(chess.square_name(sq) for sq in sorted(back))
            self._semantic("placement", f"pawn on the first or last rank ({where})")
        if self.castling:
            self._check_castling()
        if self.side is not None and self.ep not in (None, "-"):
            self._check_en_passant()
        self._check_kings(kings)

    def _check_castling(self) -> None:
        assert self.placement is not None and self.castling is not None
        rules = {
            "K": (chess.WHITE, "e1", "h1", "White kingside"),
            "Q": (chess.WHITE, "e1", "a1", "White queenside"),
            "k": (chess.BLACK, "e8", "h8", "Black kingside"),
            "q": (chess.BLACK, "e8", "a8", "Black queenside"),
        }
        for letter in self.castling:
            colour, king_at, rook_at, what = rules[letter]
            name = "white" if colour else "black"
            king = self.placement.get(chess.parse_square(king_at))
            if king != chess.Piece(chess.KING, colour):
                self._semantic("castling", f"castling right {letter!r} ({what}) needs the {name} king on {king_at}")
            rook = self.placement.get(chess.parse_square(rook_at))
            if rook != chess.Piece(chess.ROOK, colour):
                self._semantic("castling", f"castling right {letter!r} ({what}) needs a {name} rook on {rook_at}")

    def _check_en_passant(self) -> None:
        assert self.placement is not None and self.ep is not None
        square = chess.parse_square(self.ep)
        file, rank = chess.square_file(square), chess.square_rank(square)
        white_to_move = self.side == "w"
        expected_rank = 5 if white_to_move else 2
        mover = "black" if white_to_move else "white"
        if rank != expected_rank:
            self._semantic(
                "en_passant",
                f"en-passant square {self.ep} must be on rank {expected_rank + 1} when "
                f"{'White' if white_to_move else 'Black'} is to move (the square a {mover} pawn "
                "just skipped)",
            )
            return
        step = -1 if white_to_move else 1
        pawn_square = chess.square(file, rank + step)
        origin = chess.square(file, rank - step)
        colour = not white_to_move
        if self.placement.get(pawn_square) != chess.Piece(chess.PAWN, colour):
            self._semantic(
                "en_passant",
                f"en-passant square {self.ep} needs a {mover} pawn on "
                f"{chess.square_name(pawn_square)} that has just moved two squares",
            )
        if square in self.placement:
            self._semantic("en_passant", f"en-passant square {self.ep} must be empty")
        if origin in self.placement:
            self._semantic(
                "en_passant",
                f"the {mover} pawn cannot have just left {chess.square_name(origin)}: that square is occupied",
            )

    def _board(self) -> chess.Board:
        assert self.placement is not None
        board = chess.Board(None)
        for square, piece in self.placement.items():
            board.set_piece_at(square, piece)
        board.turn = self.side != "b"
        return board

    def _check_kings(self, kings: dict[bool, list[int]]) -> None:
        if len(kings[chess.WHITE]) != 1 or len(kings[chess.BLACK]) != 1:
            return
        white_king, black_king = kings[chess.WHITE][0], kings[chess.BLACK][0]
        adjacent = chess.square_distance(white_king, black_king) == 1
        if adjacent:
            self._semantic(
                "placement",
                f"the kings on {chess.square_name(white_king)} and {chess.square_name(black_king)} are adjacent",
            )
        if self.side is None:
            return
        board = self._board()
        waiting = not board.turn
        king = kings[waiting][0]
        attackers = [
            sq for sq in board.attackers(board.turn, king) if not (adjacent and board.piece_type_at(sq) == chess.KING)
        ]
        if attackers:
            name = "White" if waiting else "Black"
            pieces = board.piece_map()  # an attacker's square holds a piece
            by = ", ".join(f"{chess.piece_name(pieces[sq].piece_type)} on {chess.square_name(sq)}" for sq in attackers)
            self._semantic(
                "side_to_move",
                f"{name} is not to move but its king on {chess.square_name(king)} is in check (from the {by})",
            )

    # -- warnings --------------------------------------------------------------------------------
    def warnings(self) -> list[Finding]:
        notes: list[Finding] = []
        fields = self.text.split() if isinstance(self.text, str) else []
        if (
            len(fields) > 2
            and fields[2] != "-"
            and self.castling is not None
            and fields[2] != self.castling
            and sorted(fields[2]) == sorted(self.castling)
        ):
            notes.append(
                fen_warning(
                    "castling", f"castling letters {fields[2]!r} are not in the usual order; write {self.castling!r}"
                )
            )
        if self.ep not in (None, "-") and self.halfmove not in (None, "0"):
            notes.append(
                fen_warning(
                    "halfmove_clock",
                    f"half-move clock {self.halfmove} but an "
                    "en-passant square: a pawn has just moved, so the clock should be 0",
                )
            )
        if self.placement is not None and not [e for e in self._errors if fen_kind(e) == "semantic"]:
            notes.extend(self._promotion_warnings())
            board = self._board()
            if self.side is not None and self.ep in (None, "-"):
                status = board.status()
                if status & chess.STATUS_TOO_MANY_CHECKERS:
                    notes.append(
                        fen_warning(
                            "placement",
                            "the side to move is in check from more than two pieces, which no legal move can produce",
                        )
                    )
                elif status & chess.STATUS_IMPOSSIBLE_CHECK:
                    notes.append(
                        fen_warning("placement", "the check on the side to move cannot result from any legal last move")
                    )
        return notes

    def _promotion_warnings(self) -> list[Finding]:
        assert self.placement is not None
        notes = []
        start = {chess.QUEEN: 1, chess.ROOK: 2, chess.BISHOP: 2, chess.KNIGHT: 2}
        for colour, name in ((chess.WHITE, "White"), (chess.BLACK, "Black")):
            count = {pt: 0 for pt in chess.PIECE_TYPES}
            for piece in self.placement.values():
                if piece.color == colour:
                    count[piece.piece_type] += 1
            extra = sum(max(0, count[pt] - n) for pt, n in start.items())
            if count[chess.PAWN] + extra > 8:
                notes.append(
                    fen_warning(
                        "placement",
                        f"{name} has {count[chess.PAWN]} pawns and {extra} "
                        "pieces beyond the initial set: more promotions than missing pawns",
                    )
                )
        return notes
