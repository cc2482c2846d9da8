"""Position patterns: "a white knight on f5 and the black king on g8", compiled to standard SPARQL.

A position's board is stored as one 71-character string (``cp:boardSquares``): the 64 squares
rank 8 to rank 1, files a to h, ``/`` between ranks, ``.`` for an empty square::

    rnbqkbnr/pppppppp/......../......../....P.../......../PPPP.PPP/RNBQKBNR

A pattern compiles to regular expressions over that string, so any SPARQL 1.1 store answers it
with ``REGEX`` (the embedded Oxigraph and a remote server alike), and this module never lets a
user's character reach a regular expression: the parser turns the text into sets of square
contents drawn from a fixed alphabet, and the regular expressions are written from those sets.

The language (README, "Finding positions by pattern") describes the board in one of two forms:

* FEN form, as pgn-extract's FEN patterns: eight ranks separated by ``/``, each a sequence of
  a piece letter (``KQRBNP`` white, ``kqrbnp`` black), a digit (that many empty squares), ``?``
  (any one square, empty or not), ``*`` (any run of squares within the rank, none included),
  ``A``/``a`` (any white/black piece), ``[…]`` (one square holding any of the designators
  inside: piece letters, ``A``, ``a``, ``1`` for empty) and ``!X`` (one square holding anything
  but the single-square designator ``X``).
* List form: ``Nf5 kg8 R*7``: a designator (piece letter, ``A``, ``a`` or ``[…]``) and a square
  whose file or rank may be ``*`` (any); ``!`` before an item says that no such piece stands
  there (``!P*7``: no white pawn on the seventh rank).

After the board may come the side to move (``w`` or ``b``) and a material signature
(``KRP-KR``: White's pieces, then Black's; each letter counts one piece, the king may be left
out, and ``+`` after a side means "at least these"). Matching "for either colour" also accepts
the colour-flipped pattern: ranks mirrored, colours swapped, side and material swapped.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass

import chess

from chesskb.kb.analysis.board_index import ALPHABET, BLACK_PIECES, COUNTED_ON_RANK, EMPTY, WHITE_PIECES

#: The most ``cp:pieceOn`` values one lookup of a list item's file may list (``Ae*`` would be 48, each
#: a join per candidate: it is tested on the board instead).
MAX_ANCHOR_VALUES = 16
#: Piece letters from the rarest on a board to the commonest (the order of values in a lookup).
_RARITY = "QqNnBbRrKkPp"
#: Share of positions where a piece of this kind stands on each rank counted from its own side
#: (1st .. 8th), rounded from 20,000 boards of the bench corpus (lichess puzzles, bench/patterns.py).
#: Only the choice and order of the index lookups depends on these, never a result.
_ON_RANK = {
    "K": (0.68, 0.17, 0.06, 0.04, 0.02, 0.02, 0.01, 0.01),
    "Q": (0.09, 0.09, 0.12, 0.09, 0.08, 0.07, 0.05, 0.03),
    "R": (0.56, 0.1, 0.08, 0.06, 0.06, 0.06, 0.09, 0.05),
    "B": (0.1, 0.12, 0.14, 0.1, 0.09, 0.06, 0.03, 0.02),
    "N": (0.08, 0.06, 0.14, 0.07, 0.11, 0.06, 0.03, 0.02),
    "P": (0.0, 0.83, 0.73, 0.63, 0.3, 0.09, 0.03, 0.0),
}
#: A FEN-form board that leaves at most this many squares for pieces is looked up by ``cp:pieceCount``.
MAX_COUNT_ANCHOR = 12
#: The longest pattern text accepted (a full board with a material signature fits many times).
MAX_PATTERN_LENGTH = 400
_MATERIAL_ORDER = "KQRBNP"
_SIDES = {"w": "white", "b": "black", "white": "white", "black": "black"}
_FILES = "abcdefgh"


class PatternError(ValueError):
    """The pattern text does not parse; the message says where and why."""


# --- the parsed pattern ---------------------------------------------------------------------------

Squares = frozenset[str]  # the contents one square may have (a subset of ALPHABET)
STAR = "*"  # a run of any squares within a rank
Rank = tuple[Squares | str, ...]


def _swap(contents: Squares) -> Squares:
    return frozenset(c.swapcase() for c in contents)


@dataclass(frozen=True)
class Item:
    """A list-form item: some square of ``squares`` holds one of ``contents`` (or none does, when
    ``absent``). Squares are python-chess square numbers."""

    contents: Squares
    squares: frozenset[int]
    absent: bool = False

    def flipped(self) -> Item:
        return Item(_swap(self.contents), frozenset(chess.square_mirror(s) for s in self.squares), self.absent)


@dataclass(frozen=True)
class Material:
    """Each side's piece counts; ``at_least`` per side allows more pieces than those listed."""

    white: tuple[tuple[str, int], ...]
    black: tuple[tuple[str, int], ...]
    white_at_least: bool = False
    black_at_least: bool = False

    def flipped(self) -> Material:
        return Material(self.black, self.white, self.black_at_least, self.white_at_least)

    def counts(self, colour: str) -> dict[str, int]:
        return dict(self.white if colour == "white" else self.black)


@dataclass(frozen=True)
class Anchor:
    """Values of one index property (``cp:pieceOn``, ``cp:pieceIn`` or ``cp:pieceCount``) of which a
    matching position holds at least one; ``share`` estimates the fraction of positions that do, so
    the most selective lookup runs first."""

    property: str
    values: tuple[str | int, ...]
    share: float


@dataclass(frozen=True)
class Pattern:
    """A parsed pattern: a board description (FEN form ``ranks`` or list form ``items``), the side to
    move and the material, each optional, and whether the colour-flipped pattern also counts."""

    text: str
    ranks: tuple[Rank, ...] | None = None
    items: tuple[Item, ...] = ()
    side: str | None = None
    material: Material | None = None
    either_colour: bool = False

    def flipped(self) -> Pattern:
        """The same pattern for the other colour (mirrored ranks, swapped colours, side and material)."""
        ranks = (
            None
            if self.ranks is None
            else tuple(tuple(t if isinstance(t, str) else _swap(t) for t in rank) for rank in reversed(self.ranks))
        )  # str: STAR
        return Pattern(
            self.text,
            ranks,
            tuple(i.flipped() for i in self.items),
            None if self.side is None else ("black" if self.side == "white" else "white"),
            None if self.material is None else self.material.flipped(),
            False,
        )

    def variants(self) -> list[Pattern]:
        """The patterns a position may match: this one, and its flip for ``either_colour``
        (once when the flip is the same pattern)."""
        mine = Pattern(self.text, self.ranks, self.items, self.side, self.material, False)
        if not self.either_colour:
            return [mine]
        other = mine.flipped()
        return [mine] if _same(mine, other) else [mine, other]

    def board_clauses(self) -> list[tuple[str, bool]]:
        """Regular expressions over ``cp:boardSquares`` that must all match (``False``) or must
        not match (``True``), for this pattern's own colour."""
        clauses: list[tuple[str, bool]] = []
        if self.ranks is not None:
            clauses.append(("^" + "/".join(_rank_regex(rank) for rank in self.ranks) + "$", False))
        clauses += [(_item_regex(item), item.absent) for item in self.items]
        return clauses

    def signature_regex(self) -> str | None:
        """A regular expression over ``cp:materialSignature`` (``KRP vs KR``), when material is given."""
        if self.material is None:
            return None
        m = self.material
        return (
            f"^{_side_regex(m.counts('white'), m.white_at_least)} vs "
            f"{_side_regex(m.counts('black'), m.black_at_least)}$"
        )

    def exact_signature(self) -> str | None:
        """The one ``cp:materialSignature`` value the material admits (no ``+``), else None."""
        m = self.material
        if m is None or m.white_at_least or m.black_at_least:
            return None
        return " vs ".join(
            "".join(letter * m.counts(colour).get(letter, 0) for letter in _MATERIAL_ORDER)
            for colour in ("white", "black")
        )

    def anchors(self) -> list[Anchor]:
        """Every index lookup this pattern (its own colour) implies, the most selective first.

        Each :class:`Anchor` is a necessary condition (a matching position holds one of its values),
        never a sufficient one: the REGEX tests still decide. A list item on one square or a few gives
        ``cp:pieceOn`` values (``Nf5``; ``Qh*``: ``Qh1`` … ``Qh8``), one on a whole rank the rank's
        ``cp:pieceIn`` values (``[QR]*8``: ``Q*8`` or ``R*8``); a FEN-form square before a rank's first
        ``*`` or after its last gives ``cp:pieceOn`` values, a piece between two ``*`` the rank's
        ``cp:pieceIn`` values; a FEN-form board with few squares that may hold a piece bounds
        ``cp:pieceCount``. Items anywhere on the board (``Q**``), material, absences (``!``) and
        squares that may be empty give none (:meth:`pieces_regexes` pre-tests the first three).
        """
        found = [anchor for item in self.items if not item.absent and (anchor := _item_anchor(item)) is not None]
        for number, rank in zip(range(7, -1, -1), self.ranks or (), strict=False):
            found += _rank_anchors(rank, number)
        most = self.most_pieces()
        if most is not None and most <= MAX_COUNT_ANCHOR:
            found.append(Anchor("pieceCount", tuple(range(most + 1)), (most / 28) ** 2))
        unique = {anchor.values: anchor for anchor in found}
        return sorted(unique.values(), key=lambda a: (a.share, len(a.values), a.values))

    def pieces_regexes(self) -> dict[str, str]:
        """Regular expressions over ``cp:whitePieces``/``cp:blackPieces`` (``KRRP``: king, pieces,
        one ``P`` for any pawns) that every match of this pattern (its own colour) satisfies, for the
        colours the pattern says something about: its material, the pieces it places (``Nf5``: at
        least a knight; ``*R*R*``: two rooks) and the pieces it rules out everywhere (``!P**``).

        These short values are kept inline by Oxigraph, so testing them on every position costs a
        fraction of testing the 71-character board (which is read from a separate table): a pattern
        with nothing to look up is scanned through them first.
        """
        # per colour and letter, [at least, at most (None: no bound)]
        bounds: dict[str, dict[str, tuple[int, int | None]]] = {
            colour: {letter: (0, None) for letter in _SIGNATURE_LETTERS} for colour in ("white", "black")
        }

        def at_least(letter: str, count: int) -> None:
            if letter.upper() in _SIGNATURE_LETTERS:
                per_letter = bounds["white" if letter.isupper() else "black"]
                low, high = per_letter[letter.upper()]
                per_letter[letter.upper()] = (max(low, min(count, 1) if letter in "Pp" else count), high)

        def at_most(letter: str, count: int) -> None:
            if letter.upper() in _SIGNATURE_LETTERS:
                per_letter = bounds["white" if letter.isupper() else "black"]
                low, high = per_letter[letter.upper()]
                limit = min(count, 1) if letter in "Pp" else count
                per_letter[letter.upper()] = (low, limit if high is None else min(high, limit))

        if self.material is not None:
            for colour, exact, case in (
                ("white", not self.material.white_at_least, str.upper),
                ("black", not self.material.black_at_least, str.lower),
            ):
                counts = self.material.counts(colour)
                for letter in _SIGNATURE_LETTERS:
                    at_least(case(letter), counts.get(letter, 0))
                    if exact:
                        at_most(case(letter), counts.get(letter, 0))
        placed: Counter[str] = Counter()
        for item in self.items:
            if len(item.contents) == 1:
                (letter,) = item.contents
                if not item.absent:
                    placed[letter] = max(placed[letter], 1)
                elif len(item.squares) == 64:
                    at_most(letter, 0)
        for rank in self.ranks or ():
            placed.update(next(iter(t)) for t in rank if t != STAR and len(t) == 1 and EMPTY not in t)
        for letter, count in placed.items():
            at_least(letter, count)
        regexes = {}
        for colour, letters in bounds.items():
            if any(lo or hi is not None for lo, hi in letters.values()):
                regexes[colour] = "^K?" + "".join(_repeat(letter, lo, hi) for letter, (lo, hi) in letters.items()) + "$"
        return regexes

    def most_pieces(self) -> int | None:
        """The most pieces a board matching the FEN form can hold (None for the list form)."""
        if self.ranks is None:
            return None
        total = 0
        for rank in self.ranks:
            empty = sum(1 for t in rank if t != STAR and t == frozenset(EMPTY))
            total += 8 - empty if STAR in rank else sum(1 for t in rank if t != frozenset(EMPTY))
        return total

    def is_empty(self) -> bool:
        return self.ranks is None and not self.items and self.side is None and self.material is None


def _same(a: Pattern, b: Pattern) -> bool:
    return (a.board_clauses(), a.side, a.signature_regex()) == (b.board_clauses(), b.side, b.signature_regex())


# --- index lookups -----------------------------------------------------------------------------------


def _share(value: str) -> float:
    """The estimated fraction of positions holding one index value (``Nf5``, ``R*7``)."""
    letter, where = value[0], value[1:]
    rank = int(where[-1]) - 1
    own = rank if letter.isupper() else 7 - rank  # counted from the piece's own side
    on_rank = _ON_RANK[letter.upper()][own]
    return on_rank if where[0] == "*" else on_rank / 4  # a square: a quarter of its rank's share (rough)


def _anchor(prop: str, values: list[str]) -> Anchor:
    values = sorted(set(values), key=lambda v: (_RARITY.index(v[0]), v))
    return Anchor(prop, tuple(values), min(1.0, sum(_share(v) for v in values)))


def _item_anchor(item: Item) -> Anchor | None:
    """The lookup a present list item implies: its squares themselves when they are one square or a
    file with few letters (``Qh*``: eight ``cp:pieceOn`` values), its rank's ``cp:pieceIn`` values
    when it spans a rank; None for the whole board (no index holds "anywhere")."""
    letters = sorted(item.contents, key=_RARITY.index)
    ranks = {chess.square_rank(s) for s in item.squares}
    if len(item.squares) == 1 or (len(ranks) == 8 and len(item.squares) == 8 and len(letters) * 8 <= MAX_ANCHOR_VALUES):
        return _anchor("pieceOn", [f"{c}{chess.square_name(s)}" for c in letters for s in sorted(item.squares)])
    if len(ranks) == 1:
        (rank,) = ranks
        return _anchor("pieceIn", [f"{c}*{rank + 1}" for c in letters])
    return None


def placed_squares(rank: Rank, number: int) -> list[tuple[int, Squares]]:
    """The squares of FEN-form rank ``number`` (0: the first) whose place in the rank is known (before its
    first ``*``, after its last, or all eight when it has none), each with the contents it may hold."""
    stars = [i for i, token in enumerate(rank) if token == STAR]
    head = rank if not stars else rank[: stars[0]]
    tail = () if not stars else rank[stars[-1] + 1 :]
    placed = list(enumerate(head)) + [(8 - len(tail) + i, t) for i, t in enumerate(tail)]
    squares: list[tuple[int, Squares]] = []
    for file, token in placed:
        if not isinstance(token, str):  # str: STAR, which a rank without one never holds here
            squares.append((chess.square(file, number), token))
    return squares


def _rank_anchors(rank: Rank, number: int) -> list[Anchor]:
    """A FEN-form rank's lookups: each piece at a known file (before the first ``*``, after the last,
    or anywhere in a rank without ``*``) is a ``cp:pieceOn`` value, each between two ``*`` a value of
    the rank's ``cp:pieceIn``. A square that may be empty gives none."""
    stars = [i for i, token in enumerate(rank) if token == STAR]
    middle = () if not stars else rank[stars[0] : stars[-1]]
    found = []
    for square, contents in placed_squares(rank, number):
        if EMPTY not in contents:
            found.append(_anchor("pieceOn", [f"{c}{chess.square_name(square)}" for c in contents]))
    for token in middle:
        if token != STAR and EMPTY not in token:
            found.append(_anchor("pieceIn", [f"{c}*{number + 1}" for c in token]))
    # n squares of the rank that must each hold one same piece: at least n of it on the rank
    same = Counter(next(iter(t)) for t in rank if t != STAR and len(t) == 1 and EMPTY not in t)
    for letter, count in same.items():
        if count > 1 and letter in COUNTED_ON_RANK:
            value = f"{count}{letter}*{number + 1}"
            found.append(Anchor("pieceIn", (value,), _share(f"{letter}*{number + 1}") ** count))
    return found


def _repeat(letter: str, lo: int, hi: int | None) -> str:
    """``letter`` lo to hi times (hi None: no upper bound), in XPath regular-expression syntax."""
    if hi is None:
        return f"{letter}*" if lo == 0 else f"{letter}{{{lo},}}"
    if hi <= lo:
        return "" if hi == 0 else (letter if hi == 1 else f"{letter}{{{hi}}}")
    return f"{letter}{{{lo},{hi}}}"


# --- parsing ----------------------------------------------------------------------------------------

_SINGLE = {"A": WHITE_PIECES, "a": BLACK_PIECES, "?": ALPHABET}
_MATERIAL = re.compile(r"^([KQRBNPkqrbnp]*)(\+?)-([KQRBNPkqrbnp]*)(\+?)$")


def parse(text: str, *, side: str | None = None, material: str | None = None, either_colour: bool = False) -> Pattern:
    """Parse a pattern; ``side``/``material`` (command options, form fields) add to what the text says.

    Raises :class:`PatternError` with the offending part when the text is not a pattern.
    """
    if len(text) > MAX_PATTERN_LENGTH:
        raise PatternError(f"the pattern is longer than {MAX_PATTERN_LENGTH} characters")
    ranks: tuple[Rank, ...] | None = None
    items: list[Item] = []
    found_side: str | None = None
    found_material: Material | None = None
    for token in text.split():
        if token in ("w", "b"):
            if found_side is not None:
                raise PatternError(f"the side to move is given twice ({token!r})")
            found_side = _SIDES[token]
        elif _MATERIAL.match(token):
            if found_material is not None:
                raise PatternError(f"the material is given twice ({token!r})")
            found_material = parse_material(token)
        elif "/" in token:
            if ranks is not None:
                raise PatternError("only one FEN-form board may be given")
            ranks = _parse_ranks(token)
        else:
            items.append(_parse_item(token))
    if ranks is not None and items:
        raise PatternError("use either the FEN form (ranks with '/') or the list form (Nf5 kg8), not both")
    if side:
        given = _SIDES.get(side.strip().lower())
        if given is None:
            raise PatternError(f"side {side!r}: use w or b")
        if found_side is not None and found_side != given:
            raise PatternError("the side to move in the pattern differs from the side option")
        found_side = given
    if material:
        if found_material is not None:
            raise PatternError("the material is given both in the pattern and as an option")
        found_material = parse_material(material.strip())
    return Pattern(" ".join(text.split()), ranks, tuple(items), found_side, found_material, either_colour)


def parse_material(token: str) -> Material:
    """``KRP-KR`` (exact), ``KR+-K`` (White has at least a rook): per side a count of each letter."""
    match = _MATERIAL.match(token)
    if not match:
        raise PatternError(
            f"material {token!r}: write White's pieces, '-', Black's pieces, e.g. KRP-KR "
            "('+' after a side: at least these)"
        )
    sides = []
    for letters in (match.group(1), match.group(3)):
        counts = Counter(letters.upper())
        if counts.get("K", 0) > 1:
            raise PatternError(f"material {token!r}: a side has one king")
        counts["K"] = 1
        sides.append(tuple((letter, counts[letter]) for letter in _MATERIAL_ORDER if counts.get(letter)))
    return Material(sides[0], sides[1], bool(match.group(2)), bool(match.group(4)))


def _parse_ranks(token: str) -> tuple[Rank, ...]:
    texts = token.split("/")
    if len(texts) != 8:
        raise PatternError(f"a FEN-form pattern has 8 ranks separated by '/', {token!r} has {len(texts)}")
    ranks = []
    for number, rank_text in zip(range(8, 0, -1), texts, strict=True):
        rank = tuple(_rank_tokens(rank_text, number))
        width = sum(1 for t in rank if t != STAR)
        if STAR not in rank and width != 8:
            raise PatternError(
                f"rank {number} ({rank_text!r}) describes {width} squares; a rank has 8 (use * for any run of squares)"
            )
        if width > 8:
            raise PatternError(f"rank {number} ({rank_text!r}) describes {width} squares; a rank has 8")
        ranks.append(rank)
    return tuple(ranks)


def _rank_tokens(text: str, number: int) -> Iterator[Squares | str]:
    index = 0
    while index < len(text):
        char = text[index]
        if char == "*":
            yield STAR
            index += 1
        elif char.isdigit():
            if char in "09":
                raise PatternError(f"rank {number} ({text!r}): a digit counts 1 to 8 empty squares")
            yield from [frozenset(EMPTY)] * int(char)
            index += 1
        elif char == "!":
            contents, index = _designator(text, index + 1, number, allow_empty=True)
            rest = ALPHABET - contents
            if not rest:
                raise PatternError(f"rank {number} ({text!r}): '!' before something every square matches")
            yield frozenset(rest)
        else:
            contents, index = _designator(text, index, number, allow_empty=True)
            yield contents


def _designator(text: str, index: int, where: int | str, *, allow_empty: bool) -> tuple[Squares, int]:
    """One square's designator at ``text[index]``: a piece letter, A, a, ?, 1 (when ``allow_empty``)
    or ``[…]``; returns its contents and the index after it."""
    if index >= len(text):
        raise PatternError(f"{_where(where)} ({text!r}) ends where a piece or square was expected")
    char = text[index]
    if char in WHITE_PIECES | BLACK_PIECES:
        return frozenset(char), index + 1
    if char in _SINGLE and (allow_empty or char != "?"):  # a list-form item names a piece, not "anything"
        return _SINGLE[char], index + 1
    if char == "1" and allow_empty:
        return frozenset(EMPTY), index + 1
    if char == "[":
        end = text.find("]", index)
        if end < 0:
            raise PatternError(f"{_where(where)} ({text!r}): '[' without ']'")
        inside = text[index + 1 : end]
        if not inside:
            raise PatternError(f"{_where(where)} ({text!r}): '[]' is empty")
        contents: set[str] = set()
        for member in inside:
            if member in WHITE_PIECES | BLACK_PIECES:
                contents.add(member)
            elif member in "Aa":
                contents |= _SINGLE[member]
            elif member == "1" and allow_empty:
                contents.add(EMPTY)
            else:
                raise PatternError(
                    f"{_where(where)} ({text!r}): {member!r} cannot be inside [...]; "
                    "use piece letters, A, a" + (" or 1 (empty)" if allow_empty else "")
                )
        return frozenset(contents), end + 1
    raise PatternError(f"{_where(where)} ({text!r}): {char!r} is not a piece letter, digit, ?, *, A, a, [ or !")


def _where(where: int | str) -> str:
    return f"rank {where}" if isinstance(where, int) else where


_SQUARE = re.compile(r"^([a-h*])([1-8*])$")


def _parse_item(token: str) -> Item:
    absent = token.startswith("!")
    body = token[1:] if absent else token
    try:
        contents, index = _designator(body, 0, f"item {token!r}", allow_empty=False)
    except PatternError:
        raise PatternError(
            f"{token!r} is not a list-form item: write a piece and a square, e.g. Nf5, kg8, "
            "R*7 (* any file or rank), !Pe4 (no white pawn on e4), or ranks with '/'"
        ) from None
    square = _SQUARE.match(body[index:])
    if not square:
        raise PatternError(f"{token!r}: after the piece comes a square such as f5, *7 or e* ")
    file_text, rank_text = square.groups()
    files = range(8) if file_text == "*" else [_FILES.index(file_text)]
    ranks = range(8) if rank_text == "*" else [int(rank_text) - 1]
    return Item(contents, frozenset(chess.square(f, r) for f in files for r in ranks), absent)


# --- regular expressions (XPath/SPARQL syntax: only ^ $ ( ) | * {n} [..] [^..] and \.) -----------

_ANY = "[^/]"


def _class(contents: Squares) -> str:
    """A regex for one square holding one of ``contents`` (never ``/``)."""
    if contents == ALPHABET:
        return _ANY
    if len(contents) == 1:
        (char,) = contents
        return r"\." if char == EMPTY else char
    members = "".join(sorted(contents))  # letters and '.', literal inside a class
    rest = "".join(sorted(ALPHABET - contents))
    return f"[{members}]" if len(members) <= len(rest) + 2 else f"[^/{rest}]"


def _rank_regex(rank: Rank) -> str:
    parts: list[str] = []
    for token in rank:
        parts.append(_ANY + "*" if isinstance(token, str) else _class(token))  # the one text a rank holds: STAR
    return _collapse("".join(parts))


def _collapse(regex: str) -> str:
    """``[^/][^/][^/]`` -> ``[^/]{3}`` and ``\\.\\.`` -> ``\\.{2}`` (shorter, same language)."""
    regex = re.sub(r"(?:\[\^/\]){2,}(?![*{])", lambda m: f"[^/]{{{len(m.group()) // 4}}}", regex)
    return re.sub(r"(?:\\\.){2,}(?![*{])", lambda m: f"\\.{{{len(m.group()) // 2}}}", regex)


def _item_regex(item: Item) -> str:
    """Some square of ``item.squares`` holds one of ``item.contents``."""
    files = {chess.square_file(s) for s in item.squares}
    ranks = {chess.square_rank(s) for s in item.squares}
    piece = _class(item.contents)
    if len(files) == 8 and len(ranks) == 8:
        return piece
    if len(ranks) == 8:  # one file, any rank
        (file,) = files
        return f"^([^/]{{8}}/)*{_skip(file)}{piece}"
    (rank,) = ranks
    before = f"([^/]{{8}}/){{{7 - rank}}}" if rank < 7 else ""
    if len(files) == 8:
        return f"^{before}[^/]*{piece}"
    (file,) = files
    return f"^{before}{_skip(file)}{piece}"


def _skip(files: int) -> str:
    return "" if files == 0 else (_ANY if files == 1 else f"[^/]{{{files}}}")


_SIGNATURE_LETTERS = "QRBNP"


def _side_regex(counts: dict[str, int], at_least: bool) -> str:
    out = "K"
    for letter in _SIGNATURE_LETTERS:
        need = counts.get(letter, 0)
        if at_least:
            out += f"{letter}*" if need == 0 else (letter if need == 1 else letter * need) + f"{letter}*"
        else:
            out += letter * need
    return out


# --- SPARQL -------------------------------------------------------------------------------------------


def sparql_string(value: str) -> str:
    """A SPARQL string literal of ``value`` (quotes, backslashes and line breaks escaped)."""
    escaped = value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n").replace("\r", "\\r")
    return f'"{escaped}"'


def sparql_condition(
    pattern: Pattern, *, board: str = "?board", side: str = "?side", signature: str = "?signature"
) -> str:
    """A SPARQL expression that is true for a position whose ``cp:boardSquares``, ``cp:sideToMove``
    and ``cp:materialSignature`` are bound to ``board``, ``side`` and ``signature``.

    Every regular expression is a constant in the query text: Oxigraph compiles a constant pattern
    once, whereas a pattern in a variable is compiled again for every row (measured at 1M
    positions: 3.4 s against 170 s).
    """
    alternatives = []
    for variant in pattern.variants():
        parts = [
            ("!" if negated else "") + f"REGEX({board}, {sparql_string(regex)})"
            for regex, negated in variant.board_clauses()
        ]
        if variant.side is not None:
            parts.append(f"{side} = {sparql_string(variant.side)}")
        exact = variant.exact_signature()
        if exact is not None:
            parts.append(f"{signature} = {sparql_string(exact)}")
        elif variant.material is not None:
            parts.append(f"REGEX({signature}, {sparql_string(variant.signature_regex() or '')})")
        alternatives.append("(" + (" && ".join(parts) or "true") + ")")
    return alternatives[0] if len(alternatives) == 1 else "(" + " || ".join(alternatives) + ")"


def list_form(board: chess.Board) -> str:
    """Every piece of ``board`` as a list-form pattern (``Ke1 Qd1 … ke8``): "find similar" starts here."""
    return " ".join(
        f"{piece.symbol()}{chess.square_name(square)}"
        for square, piece in sorted(
            board.piece_map().items(), key=lambda kv: (-chess.square_rank(kv[0]), chess.square_file(kv[0]))
        )
    )
