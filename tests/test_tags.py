"""The tag table: every tag of the seed's tables lands in its property, typed; nothing is lost."""

from __future__ import annotations

import datetime as dt

import pytest

from chesskb.kb.reading import read_records
from chesskb.kb.reading.records import GameRecord
from chesskb.kb.reading.tags import TAG_TABLE, clean_date, map_tags, parse_time_control
from chesskb.kb.vocab import ORIGINAL_DATA_PROPERTIES

from .conftest import ROOT

SEED_TAGS = [
    "Event",
    "Site",
    "Date",
    "Round",
    "White",
    "Black",
    "Result",
    "WhiteTitle",
    "BlackTitle",
    "WhiteElo",
    "BlackElo",
    "WhiteUSCF",
    "BlackUSCF",
    "WhiteNA",
    "BlackNA",
    "WhiteType",
    "BlackType",
    "EventDate",
    "EventType",
    "EventCountry",
    "EventRounds",
    "EventSponsor",
    "Section",
    "Stage",
    "Board",
    "Opening",
    "Variation",
    "SubVariation",
    "ECO",
    "NIC",
    "Time",
    "UTCTime",
    "UTCDate",
    "TimeControl",
    "SetUp",
    "FEN",
    "Termination",
    "Annotator",
    "Mode",
    "PlyCount",
]


def test_every_seed_tag_has_a_property() -> None:
    assert set(SEED_TAGS) <= set(TAG_TABLE)
    props = {spec.prop for spec in TAG_TABLE.values()}
    # every original data property except the two derived ones is fed by a tag
    assert set(ORIGINAL_DATA_PROPERTIES) - props == {"move", "typePosition"}


def test_every_tag_of_a_real_game_maps_typed() -> None:
    (record,) = [r for r in read_records(ROOT / "tests" / "fixtures" / "every-tag.pgn") if isinstance(r, GameRecord)]
    tags = map_tags(record.headers)
    got = {(v.entity, v.prop): v.value for v in tags.values}
    assert got[("white", "elo")] == 2398 and got[("black", "uscf")] == 2350
    assert got[("board", "boardNum")] == 1 and got[("match", "plyCount")] == 1 and got[("match", "setup")] == 1
    assert got[("match", "round")] == "3.1" and got[("match", "roundNumber")] == 3
    assert got[("match", "gameDate")] == dt.date(2011, 4, 3) and got[("match", "year")] == 2011
    assert got[("event", "eventStartDate")] == dt.date(2011, 4, 1)
    assert got[("match", "startTime")] == dt.time(19, 30)
    assert got[("match", "utcDateTime")] == dt.datetime(2011, 4, 3, 13, 30, tzinfo=dt.timezone.utc)
    assert got[("match", "baseTimeSeconds")] == 300 and got[("match", "incrementSeconds")] == 2
    assert got[("event", "eventSponsor")] == "Universitat Oberta de Catalunya"
    assert got[("white", "na")] == "sahuquillo@example.org" and got[("black", "typePlayer")] == "program"
    for tag in SEED_TAGS:
        spec = TAG_TABLE[tag]
        assert (spec.entity, spec.prop) in got, tag
    assert ("EMAWHITE", "extra") in tags.extra and ("WhiteClock", "0:05:00") in tags.extra


@pytest.mark.parametrize(
    "raw, cleaned",
    [
        ("1994.??.??", "1994"),
        ("2011.04.??", "2011.04"),
        ("2011.04.03", "2011.04.03"),
        ("????.??.??", None),
        ("2013.24.7", "2013.24.7"),
    ],
)
def test_dates_are_cleaned_as_the_original_did(raw: str, cleaned: str | None) -> None:
    assert clean_date(raw) == cleaned


def test_unknown_values_are_absent_and_untyped_values_kept_verbatim() -> None:
    tags = map_tags({"Event": "?", "Date": "????.??.??", "WhiteElo": "-", "Round": "-", "Site": ""})
    props = {(v.entity, v.prop) for v in tags.values}
    assert ("event", "eventName") not in props and ("match", "date") not in props
    assert ("WhiteElo", "-") in tags.extra  # not an integer: kept as a pgnTag, not lost
    assert ("match", "round") in props and ("event", "site") in props  # "-" and "" are kept as v1 did
    assert ("match", "roundNumber") not in props


@pytest.mark.parametrize(
    "text, expected",
    [
        ("300", (300, 0)),
        ("4500+60", (4500, 60)),
        ("40/9000:3600", (9000, 0)),
        ("*180", (180, 0)),
        ("?", (None, None)),
        ("-", (None, None)),
    ],
)
def test_time_control_first_period_in_seconds(text: str, expected) -> None:
    assert parse_time_control(text) == expected
