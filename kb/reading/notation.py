"""Piece letters per language (seed 000, Tabla VI) and SAN translation to and from English.

PGN is English by standard, but teachers write ``1. e4 e5 2. Cf3 Cc6`` in Spanish. python-chess 1.11.2
does not reject such text: its PGN tokenizer skips the unknown capital, so ``Cf3`` is read as the
pawn move ``f3`` and ``Ac5`` as ``c5`` without any error (``Board.parse_san("Cf3")`` alone does raise
``InvalidMoveError``). So foreign movetext must be translated before python-chess sees it, and the
validator flags foreign letters instead of trusting a silent misreading.
"""

from __future__ import annotations

import re
from collections.abc import Iterator

# Order of every tuple and of the letters below: Pawn, Knight, Bishop, Rook, Queen, King (Tabla VI).
ENGLISH = "PNBRQK"
PIECE_LETTERS: dict[str, str] = {
    "cs": "PJSVDK",  # Czech
    "da": "BSLTDK",  # Danish
    "nl": "OPLTDK",  # Dutch
    "en": "PNBRQK",  # English
    "et": "PROVLK",  # Estonian
    "fi": "PRLTDK",  # Finnish
    "fr": "PCFTDR",  # French
    "de": "BSLTDK",  # German
    "hu": "GHFBVK",  # Hungarian
    "is": "PRBHDK",  # Icelandic
    "it": "PCATDR",  # Italian
    "no": "BSLTDK",  # Norwegian
    "pl": "PSGWHK",  # Polish
    "pt": "PCBTDR",  # Portuguese
    "ro": "PCNTDR",  # Romanian
    "es": "PCATDR",  # Spanish
    "sv": "BSLTDK",  # Swedish
}

# Languages tried first when guessing what a foreign letter means: the seeds are Spanish and
# Italian, French and German are the next most common in teaching material.
GUESS_ORDER = ("es", "it", "fr", "de", "pt", "nl", "ro", "pl", "cs", "hu", "da", "no", "sv", "fi", "et", "is")

# A SAN-like token in any language: optional piece letter, optional disambiguation, capture,
# destination, optional promotion (with or without '='), check/mate and annotation suffixes.
SAN_LIKE = re.compile(
    r"(?<![\w-])(?P<piece>[A-Z])?(?P<from>[a-h]?[1-8]?)(?P<capture>[x:]?)(?P<to>[a-h][1-8])"
    r"(?P<promo>=?[A-Z])?(?P<suffix>[+#]{0,2}[!?]{0,2})(?![\w])"
)
# Comments and escapes are copied untouched; everything else is translated.
_UNTOUCHED = re.compile(r"\{[^}]*\}?|;[^\n]*|^%[^\n]*|^\s*\[[^\n]*", re.MULTILINE)


def _language(lang: str) -> str:
    key = lang.lower()
    if key not in PIECE_LETTERS:
        raise ValueError(f"unknown notation language {lang!r}; known: {', '.join(sorted(PIECE_LETTERS))}")
    return key


def to_english_map(lang: str) -> dict[str, str]:
    """Foreign piece letter → English letter (pawn letter → empty: SAN writes no pawn letter)."""
    letters = PIECE_LETTERS[_language(lang)]
    return {foreign: ("" if english == "P" else english) for foreign, english in zip(letters, ENGLISH, strict=True)}


def san_to_english(lang: str, san: str) -> str:
    """One SAN token from ``lang``'s letters to English; tokens that are not SAN come back unchanged."""
    match = SAN_LIKE.fullmatch(san)
    return _translate(match, to_english_map(lang)) if match else san


def english_san_to(lang: str, san: str) -> str:
    """An English SAN move shown with ``lang``'s letters, e.g. ``english_san_to("es", "Nf3") == "Cf3"``."""
    letters = PIECE_LETTERS[_language(lang)]
    mapping = dict(zip(ENGLISH, letters, strict=True))
    match = SAN_LIKE.fullmatch(san)
    if not match:
        return san
    piece = mapping.get(match["piece"], match["piece"]) if match["piece"] else ""
    promo = match["promo"] or ""
    if promo:
        promo = promo[:-1] + mapping.get(promo[-1], promo[-1])
    return f"{piece}{match['from']}{match['capture']}{match['to']}{promo}{match['suffix']}"


def to_english_movetext(movetext: str, lang: str) -> str:
    """``movetext`` with every SAN token rewritten from ``lang``'s piece letters to English.

    Comments (``{…}``, ``; …``), ``%`` escape lines and tag lines are copied unchanged; moves inside
    variations are translated like the main line. Castling ``O-O`` and results are not SAN-like and
    stay as they are (Dutch writes its pawn as ``O``, so castling is protected by the token pattern).
    """
    mapping = to_english_map(lang)
    if lang.lower() == "en":
        return movetext
    return "".join(
        text if untouched else SAN_LIKE.sub(lambda m: _translate(m, mapping), text)
        for text, untouched in _segments(movetext)
    )


def guess_foreign_letters(movetext: str) -> list[tuple[str, str]]:
    """SAN-like tokens whose piece letter is not English, each with the most likely English move.

    Only letters that English never uses are flagged (``Cf3``, ``Ac4``, ``Dd1``, ``Te1``, ``e8=D``);
    a Spanish ``Re2`` (king) looks like an English rook move and needs a board to be caught — the
    linter does that by replaying.
    """
    found = []
    for text, untouched in _segments(movetext):
        if untouched:
            continue
        for match in SAN_LIKE.finditer(text):
            if _is_foreign(match):
                candidates = english_candidates(match.group(0))
                found.append((match.group(0), candidates[0] if candidates else match.group(0)))
    return found


def english_candidates(token: str) -> list[str]:
    """Every distinct English reading of a foreign SAN token, most common languages first."""
    readings: list[str] = []
    for lang in GUESS_ORDER:
        match = SAN_LIKE.fullmatch(token)
        if not match:
            return []
        mapping = to_english_map(lang)
        letters = [match["piece"], (match["promo"] or "")[-1:]]
        if all(letter in mapping or letter in ("", None) for letter in letters):
            english = _translate(match, mapping)
            if english not in readings:
                readings.append(english)
    return readings


def _is_foreign(match: re.Match[str]) -> bool:
    piece, promo = match["piece"], (match["promo"] or "")[-1:]
    return bool(piece and piece not in ENGLISH) or bool(promo and promo not in "NBRQ")


def _translate(match: re.Match[str], mapping: dict[str, str]) -> str:
    piece = match["piece"] or ""
    if piece:
        piece = mapping.get(piece, piece)
    promo = match["promo"] or ""
    if promo:
        letter = mapping.get(promo[-1], promo[-1]) or promo[-1]
        promo = "=" + letter
    return f"{piece}{match['from']}{match['capture'].replace(':', 'x')}{match['to']}{promo}{match['suffix']}"


def _segments(movetext: str) -> Iterator[tuple[str, bool]]:
    """Split into (text, untouched) pieces: comments, escapes and tag lines are untouched."""
    position = 0
    for match in _UNTOUCHED.finditer(movetext):
        if match.start() > position:
            yield movetext[position : match.start()], False
        yield match.group(0), True
        position = match.end()
    if position < len(movetext):
        yield movetext[position:], False
