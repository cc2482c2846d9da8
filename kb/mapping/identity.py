"""When two game records are the same game: the one identity rule of the knowledge base.

Two records are one ``cp:Match`` only when the evidence says so (issue 17):

* **Distinctive moves** — at least ``MIN_DISTINCT_PLIES`` plies from the standard start, or at
  least one ply from a set-up position (the position itself is distinctive): the same moves from
  the same start **and** the same players (family names as ``kb.reading.names.read_name`` reads
  them, the reading player linking uses too, folded and transliterated: "Tal, Mikhail N.", "Mikhail
  Tal", "Tal, M." and "Tal M" meet, and "Ding Liren" meets "Ding, Liren") **and**, where the record
  gives them, the same year and the same round number (the round part: "1" and "1.2" are round 1).
  pgn-extract's duplicate rule (same moves, same start) plus the players. The moves are compared as
  moves, so the piece letters a file used (``--lang de``) do not matter.
* **Few or no moves** (a short draw, a forfeit, a bare header) — the moves prove nothing, so the
  whole roster must agree as well: event name, complete date as written, round, and both players'
  order-free name keys.

A record that omits the year or round another record gives is kept apart (a deterministic IRI
cannot wait for the other record); ``chesskb merge-report`` lists such pairs as near-misses with
the reason, next to pairs with the same moves and different players. Values that differ between
merged records (a partial date and a complete one, a result "*" and "1-0") are compared by
``compatible``: the merge report and the conflict annotations (``kb.merge.conflicts``) use it.

The key is a digest, so IRIs stay deterministic: importing a file twice, or the same game from two
files, yields the same ``match/…`` IRI in any order (``kb.mapping.iris``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Literal

from chesskb.kb.mapping.iris import digest
from chesskb.kb.reading.names import fold, name_key, surname_key
from chesskb.kb.reading.tags import clean_date, is_unknown

#: Plies from the standard start below which the moves alone say nothing about identity (short
#: draws and miniatures recur between different players and in different events).
MIN_DISTINCT_PLIES = 10

_ROUND = re.compile(r"^\s*(\d+)")


@dataclass(frozen=True)
class GameIdentity:
    """The key of a game record and what it was built from (kept for the merge report)."""

    key: str
    moves_key: str
    rule: Literal["moves", "roster"]
    white: str
    black: str
    year: str
    round: str


def _known(headers: dict[str, str], tag: str) -> str:
    value = headers.get(tag, "")
    return "" if is_unknown(value) or not value.strip() else value.strip()


def year_of(headers: dict[str, str]) -> str:
    match = re.match(r"^(\d{4})", _known(headers, "Date"))
    return match.group(1) if match else ""


def round_of(headers: dict[str, str]) -> str:
    """The round number the Round tag gives ("3", "03", "3.1" -> "3"); empty when unknown."""
    match = _ROUND.match(_known(headers, "Round"))
    return str(int(match.group(1))) if match else ""


def distinctive(start_is_standard: bool, plies: int) -> bool:
    return plies >= MIN_DISTINCT_PLIES if start_is_standard else plies > 0


def game_identity(
    start_key: str, start_is_standard: bool, moves_uci: list[str], headers: dict[str, str]
) -> GameIdentity:
    """The identity of one PGN game record (see the module docstring for the rule)."""
    moves = " ".join(moves_uci)
    moves_key = digest(start_key, moves)
    white, black = surname_key(_known(headers, "White")), surname_key(_known(headers, "Black"))
    year, round_ = year_of(headers), round_of(headers)
    if distinctive(start_is_standard, len(moves_uci)):
        key = digest("moves", start_key, moves, white, black, year, round_)
        return GameIdentity(key, moves_key, "moves", white, black, year, round_)
    roster = (
        fold(_known(headers, "Event")),
        clean_date(_known(headers, "Date")) or "",
        round_,
        name_key(_known(headers, "White")),
        name_key(_known(headers, "Black")),
    )
    key = digest("roster", start_key, moves, *roster)
    return GameIdentity(key, moves_key, "roster", white, black, year, round_)


# --- comparing values of merged records -------------------------------------------------------

_UNKNOWN_RESULT = {"*", ""}


def compatible(prop: str, one: str, other: str) -> bool:
    """Whether two values one property takes in two records can both be true of one game or event.

    Dates: one a prefix of the other once unknown parts are stripped ("1788" / "1788.03.30").
    Results: "*" (unknown, unfinished in this copy) fits any result. Names of events and sites:
    one's words within the other's ("Thessaloniki" / "Thessaloniki GRE"). Anything else: equal.
    """
    if one == other:
        return True
    if prop in ("date", "eventDate", "utcDate"):
        a, b = clean_date(one) or "", clean_date(other) or ""
        return a.startswith(b) or b.startswith(a)
    if prop == "result":
        return one in _UNKNOWN_RESULT or other in _UNKNOWN_RESULT
    if prop in ("eventName", "site"):
        words, other_words = set(fold(one).split()), set(fold(other).split())
        return words <= other_words or other_words <= words
    return False
