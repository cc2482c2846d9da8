"""The PGN tag table: which tag feeds which property of which individual, and how it is typed.

One data-driven table (``TAG_TABLE``) covers every tag of the seed's tag tables (seed-000 §4.3:
the Seven Tag Roster, players, event, opening, dates and times, time control, alternative start,
board, mode, annotator, ply count). Each tag keeps its verbatim value in the original v1 property
(cleaned the way the original did: ``"?"`` is unknown, unknown date parts are stripped) and, where
the value parses, adds typed values (``xsd:integer``, ``xsd:date``, seconds) in the v2 properties.
Tags outside the table are kept verbatim as ``pgnTag`` annotations on the match, never dropped.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Literal

Entity = Literal["event", "white", "black", "board", "match", "position"]
#: The players' entities, by the colour each plays.
Colour = Literal["white", "black"]
Value = str | int | bool | dt.date | dt.datetime | dt.time


@dataclass(frozen=True)
class TagSpec:
    """Where a tag goes: the individual, the v1 property, its type, and derived typed values."""

    entity: Entity
    prop: str
    kind: Literal["string", "integer"] = "string"
    derive: Callable[[str], Iterator[tuple[str, Value]]] | None = None


# --- parsers for the derived, typed values --------------------------------------------------

_DATE = re.compile(r"^(\d{4}|\?{4})\.(\d{2}|\?{2}|\?)\.(\d{2}|\?{2}|\?)$")


def clean_date(value: str) -> str | None:
    """The original's clean-up: ``????.??.??`` is unknown, unknown parts are stripped.

    ``1994.??.??`` -> ``1994``, ``2011.04.??`` -> ``2011.04``; anything not in PGN date form is
    kept verbatim (it is what the file says; ``validate`` reports it).
    """
    match = _DATE.match(value.strip())
    if not match:
        return value
    parts = []
    for part in match.groups():
        if "?" in part:
            break
        parts.append(part)
    return ".".join(parts) or None


def parse_date(value: str) -> tuple[int | None, dt.date | None]:
    """Year and complete date of a PGN date, each ``None`` when unknown or invalid."""
    match = re.match(r"^(\d{4})(?:\.(\d{1,2})(?:\.(\d{1,2}))?)?", value.strip())
    if not match:
        return None, None
    year = int(match.group(1))
    if match.group(2) and match.group(3):
        try:
            return year, dt.date(year, int(match.group(2)), int(match.group(3)))
        except ValueError:
            return year, None
    return year, None


def _derive_game_date(value: str) -> Iterator[tuple[str, Value]]:
    year, date = parse_date(value)
    if year is not None:
        yield "year", year
    if date is not None:
        yield "gameDate", date


def _derive_event_date(value: str) -> Iterator[tuple[str, Value]]:
    year, date = parse_date(value)
    if year is not None:
        yield "eventYear", year
    if date is not None:
        yield "eventStartDate", date


_TIME = re.compile(r"^(\d{1,2}):(\d{2})(?::(\d{2}))?$")


def parse_time(value: str) -> dt.time | None:
    match = _TIME.match(value.strip())
    if not match:
        return None
    try:
        return dt.time(int(match.group(1)), int(match.group(2)), int(match.group(3) or 0))
    except ValueError:
        return None


def _derive_start_time(value: str) -> Iterator[tuple[str, Value]]:
    parsed = parse_time(value)
    if parsed is not None:
        yield "startTime", parsed


_ROUND_AND_BOARD = re.compile(r"^\s*(\d+)(?:\.(\d+))?(?:\.\d+)*\s*$")


def round_and_board(value: str) -> tuple[int | None, int | None]:
    """The round and the board a Round tag gives: "3" is round 3; "3.1" is round 3, board 1 (the form
    of Swiss and round-robin files: one game per board each round); ``None`` where not given."""
    match = _ROUND_AND_BOARD.match(value)
    if not match:
        return None, None
    board = int(match.group(2)) if match.group(2) and int(match.group(2)) > 0 else None
    return int(match.group(1)), board


def _derive_round(value: str) -> Iterator[tuple[str, Value]]:
    round_number, _ = round_and_board(value)
    if round_number is not None:
        yield "roundNumber", round_number


def parse_time_control(value: str) -> tuple[int | None, int | None]:
    """Base time and increment in seconds of the *first* period (seed-000 Tabla XI).

    ``300`` -> (300, 0); ``4500+60`` -> (4500, 60); ``40/9000`` -> (9000, 0); ``*180`` -> (180, 0);
    ``?`` and ``-`` -> (None, None).
    """
    first = value.strip().split(":")[0]
    match = re.match(r"^(?:\d+/)?\*?(\d+)(?:\+(\d+))?$", first)
    if not match:
        return None, None
    return int(match.group(1)), int(match.group(2) or 0)


def _derive_time_control(value: str) -> Iterator[tuple[str, Value]]:
    base, increment = parse_time_control(value)
    if base is not None:
        yield "baseTimeSeconds", base
        yield "incrementSeconds", increment or 0


# --- the table ------------------------------------------------------------------------------

TAG_TABLE: dict[str, TagSpec] = {
    # Seven Tag Roster (Tabla V)
    "Event": TagSpec("event", "eventName"),
    "Site": TagSpec("event", "site"),
    "Date": TagSpec("match", "date", derive=_derive_game_date),
    "Round": TagSpec("match", "round", derive=_derive_round),
    "White": TagSpec("white", "name"),
    "Black": TagSpec("black", "name"),
    "Result": TagSpec("match", "result"),
    # players (Tabla VII)
    "WhiteTitle": TagSpec("white", "title"),
    "BlackTitle": TagSpec("black", "title"),
    "WhiteElo": TagSpec("white", "elo", "integer"),
    "BlackElo": TagSpec("black", "elo", "integer"),
    "WhiteUSCF": TagSpec("white", "uscf", "integer"),
    "BlackUSCF": TagSpec("black", "uscf", "integer"),
    "WhiteNA": TagSpec("white", "na"),
    "BlackNA": TagSpec("black", "na"),
    "WhiteType": TagSpec("white", "typePlayer"),
    "BlackType": TagSpec("black", "typePlayer"),
    "WhiteFideId": TagSpec("white", "fideId"),
    "BlackFideId": TagSpec("black", "fideId"),
    # event (Tabla VIII)
    "EventDate": TagSpec("event", "eventDate", derive=_derive_event_date),
    "EventType": TagSpec("event", "eventType"),
    "EventCountry": TagSpec("event", "eventCountry"),
    "EventRounds": TagSpec("event", "eventRounds"),
    "EventSponsor": TagSpec("event", "eventSponsor"),
    "Section": TagSpec("event", "section"),
    "Stage": TagSpec("event", "stage"),
    "Board": TagSpec("board", "boardNum", "integer"),
    "Mode": TagSpec("board", "mode"),
    # opening (Tabla IX)
    "Opening": TagSpec("match", "opening"),
    "Variation": TagSpec("match", "variation"),
    "SubVariation": TagSpec("match", "subVariation"),
    "ECO": TagSpec("match", "eco"),
    "NIC": TagSpec("match", "nic"),
    # dates and times (Tabla X, XI)
    "Time": TagSpec("match", "time", derive=_derive_start_time),
    "UTCTime": TagSpec("match", "utcTime"),
    "UTCDate": TagSpec("match", "utcDate"),
    "TimeControl": TagSpec("match", "timeControl", derive=_derive_time_control),
    # alternative start (Tabla XII) and the rest
    "SetUp": TagSpec("match", "setup", "integer"),
    "FEN": TagSpec("position", "fen"),
    "Termination": TagSpec("match", "termination"),
    "Annotator": TagSpec("match", "annotator"),
    "PlyCount": TagSpec("match", "plyCount", "integer"),
    "Variant": TagSpec("match", "variant"),
}

#: Tags whose value is a date in PGN form (unknown parts stripped the way the original did).
DATE_TAGS = frozenset({"Date", "EventDate", "UTCDate"})


@dataclass(frozen=True)
class TagValue:
    entity: Entity
    prop: str
    value: Value


@dataclass
class MappedTags:
    """A game's tags sorted into typed values per individual and verbatim leftovers."""

    values: list[TagValue]
    extra: list[tuple[str, str]]  # (tag, verbatim value) for pgnTag

    def for_entity(self, entity: Entity) -> list[TagValue]:
        return [value for value in self.values if value.entity == entity]

    def get(self, entity: Entity, prop: str) -> Value | None:
        return next((v.value for v in self.values if v.entity == entity and v.prop == prop), None)


def is_unknown(value: str) -> bool:
    """``"?"`` (and an empty Seven-Tag-Roster default) means unknown: no property at all."""
    return value.strip() in ("?", "????.??.??")


def map_tags(headers: dict[str, str]) -> MappedTags:
    """Sort ``headers`` by ``TAG_TABLE``; values that do not fit their type go to ``extra``."""
    values: list[TagValue] = []
    extra: list[tuple[str, str]] = []
    for tag, raw in headers.items():
        spec = TAG_TABLE.get(tag)
        if spec is None:
            extra.append((tag, raw))
            continue
        if is_unknown(raw):
            continue
        text = clean_date(raw) if tag in DATE_TAGS else raw
        if text is None:
            continue
        if spec.kind == "integer":
            try:
                values.append(TagValue(spec.entity, spec.prop, int(text.strip())))
            except ValueError:
                extra.append((tag, raw))  # "-" for "no Elo", "001"… kept verbatim, not lost
                continue
        else:
            values.append(TagValue(spec.entity, spec.prop, text))
        if spec.derive is not None:
            values.extend(TagValue(spec.entity, prop, value) for prop, value in spec.derive(raw))
    utc = _utc_datetime(headers.get("UTCDate"), headers.get("UTCTime"))
    if utc is not None:
        values.append(TagValue("match", "utcDateTime", utc))
    return MappedTags(values, extra)


def _utc_datetime(date_text: str | None, time_text: str | None) -> dt.datetime | None:
    if not date_text or not time_text:
        return None
    _, date = parse_date(date_text)
    parsed_time = parse_time(time_text)
    if date is None or parsed_time is None:
        return None
    return dt.datetime.combine(date, parsed_time, tzinfo=dt.timezone.utc)
