"""The 48 canned competency queries, each with its default and a non-default parameter.

Expected answers come from reading the fixture files independently (``tests/competency.py``:
python-chess over the PGN, the csv module over the lichess sample), never from the queries' output.
Rows are identified by where they came from: (file, game number) for PGN games, ("puzzle", id).
"""

from __future__ import annotations

import csv
import json
import re
import shutil
from pathlib import Path

import chess
import pytest

from chesskb.kb.analysis.board_facts import game_phase
from chesskb.kb.analysis.themes import ancestors
from chesskb.kb.reading.names import name_key
from chesskb.queries import QueryError, list_queries, load_query
from tests.competency import COMPETENCY, TRAPS, Game, Puzzle, read_games, read_puzzles, signature
from tests.competency import PUZZLES as PUZZLES_CSV
from tests.conftest import run_cli

MATE_THEMES = {"mate", "mateIn1", "mateIn2", "mateIn3", "mateIn4", "mateIn5"}
WIN_THEMES = MATE_THEMES | {"crushing", "advantage"}


@pytest.fixture(scope="module")
def store_path(competency_store) -> Path:
    return competency_store


@pytest.fixture(scope="module")
def kb(store_path):
    from chesskb.kb.store import open_store

    return open_store(str(store_path))


# The expected answers, read (and analysed) when this module's first test runs, not when it is
# collected: ``pytest --collect-only`` analyses nothing and starts no engine.
GAMES: list[Game] = []
TRAP_GAMES: list[Game] = []
PUZZLES: list[Puzzle] = []


@pytest.fixture(scope="module", autouse=True)
def _expected_answers(engine) -> None:
    """Fill the lists above with the files as python-chess reads them, analysed with the engine the
    importer uses (``conftest.engine``)."""
    GAMES[:] = read_games(engine=engine)
    TRAP_GAMES[:] = read_games(TRAPS, themes=("Trap",), engine=engine)
    PUZZLES[:] = read_puzzles(engine=engine)


def G(*numbers: int) -> set:
    return {(COMPETENCY.name, n) for n in numbers}


def games_where(pred) -> set:
    return {g.ident for g in GAMES if pred(g)}


def puzzles_where(pred) -> set:
    return {p.ident for p in PUZZLES if pred(p)}


def run(kb, name: str, **params) -> list[dict]:
    query = load_query(name)
    given = {k: str(v) for k, v in params.items()}
    result = kb.query(query.paged_text({**given, "limit": "0"}), bindings=query.bind(given))
    names = [v.value for v in result.variables]
    return [{n: (row[n].value if row[n] is not None else None) for n in names} for row in result]


def idents(kb, rows: list[dict], column: str = "position") -> set:
    iris = {row[column] for row in rows if row[column]}
    if not iris:
        return set()
    values = " ".join(f"<{iri}>" for iri in iris)
    found = kb.query(f"""SELECT ?x ?file ?n ?pid WHERE {{ VALUES ?x {{ {values} }}
        OPTIONAL {{ ?x cp:puzzleId ?pid }}
        OPTIONAL {{ {{ ?x cp:hasMatch ?m }} UNION {{ ?x a cp:Match BIND(?x AS ?m) }}
                   ?m dcterms:source ?rec . ?rec cp:sourceFile ?file ; cp:gameNumber ?n }} }}""")
    out = set()
    for row in found:
        if row["pid"] is not None:
            out.add(("puzzle", row["pid"].value))
        else:
            out.add((row["file"].value, int(row["n"].value)))
    return out


MATE_CLASSES = {"MateInOne", "MateInTwo", "MateInThree", "MateInFour", "MateInFive", "OtherMate"}


def is_exercise(item) -> bool:
    """A won exercise for the side to move: a mate class, a mating solution or a win/mate goal."""
    return bool(item.asserted & MATE_CLASSES or "mateIn" in item.facts or item.facts.get("goal") in ("win", "mate"))


def winner(game: Game) -> str | None:
    """Who is winning a fixture game's position: the exercise's side, else the game's winner."""
    if is_exercise(game):
        return "white" if game.start.turn == chess.WHITE else "black"
    return {"1-0": "white", "0-1": "black"}.get(game.h("Result"))


def puzzle_winner(p) -> str | None:
    winning = p.themes & WIN_THEMES or is_exercise(p)
    return ("white" if p.board.turn == chess.WHITE else "black") if winning else None


# --- the catalogue ----------------------------------------------------------------------------


def test_all_48_questions_have_a_query():
    names = {q.name for q in list_queries()}
    assert len(names) >= 48  # the 48 competency questions, and queries added since
    for query in list_queries():
        assert query.title and query.description, query.name


def test_descriptions_name_no_code_nor_seed():
    """A question's description is read on the questions page by learners too (issue 34: "query descriptions
    cite code paths and seed numbers"): in either language it names no file of the code, no seed and no
    SPARQL variable (a column is named in words)."""
    # a variable is "?name" after a space or bracket (the pattern language's "???PP???" is no variable)
    developer = re.compile(r"\b[\w/.-]+\.(py|rq|js|html)\b|\bseed\b|(?<![?\w/*])\?[A-Za-z_]\w*")
    said = [
        (query.name, lang, found.group(0))
        for query in list_queries()
        for lang in ("en", "es")
        for found in developer.finditer(query.in_language(lang).description)
    ]
    assert not said, said


# Every query's defaults are chosen from the demo data and answered there: tests/test_demo_queries.py.


# --- 1-11 ------------------------------------------------------------------------------------


def test_mate_in_one(kb):
    expected = games_where(lambda g: "MateInOne" in g.classes) | puzzles_where(lambda p: "MateInOne" in p.classes)
    assert idents(kb, run(kb, "mate-in-one")) == expected
    assert G(1, 2, 3, 5) <= expected


def test_opening_traps(kb):
    assert idents(kb, run(kb, "opening-traps")) == {(TRAPS.name, 1)}


@pytest.mark.parametrize(
    "player, numbers",
    [
        ("Sahuquillo, Alejandro", (1,)),
        ("alejandro SAHUQUILLO", (1,)),  # order and case ignored
        ("Judit Polgar", (2,)),  # accent ignored ("Polgár, Judit" in the file)
        ("Polgar", (2, 5)),  # a surname matches both sisters
        ("Kasparov, Garry", (2, 6, 7, 8, 9, 10, 11)),  # both spellings in the file
    ],
)
def test_positions_of_player(kb, player, numbers):
    assert idents(kb, run(kb, "positions-of-player", player=player)) == G(*numbers)


def test_positions_of_player_default(kb):
    # The default comes from the demo data (a Polgár): here it finds the fixture's Judit Polgár.
    assert idents(kb, run(kb, "positions-of-player")) == G(2)


def any_game_where(pred) -> set:
    """Games of both fixture files (the trap game too: detectors see its moves like any other's)."""
    return {g.ident for g in GAMES + TRAP_GAMES if pred(g)}


def test_positions_by_tactic_includes_subclasses(kb):
    forks = puzzles_where(lambda p: "DoubleAttack" in p.classes) | any_game_where(lambda g: "DoubleAttack" in g.classes)
    assert forks >= puzzles_where(lambda p: "fork" in p.themes) and forks
    assert idents(kb, run(kb, "positions-by-tactic")) == forks
    promotions = puzzles_where(lambda p: "Promotion" in p.classes) | any_game_where(lambda g: "Promotion" in g.classes)
    assert promotions >= puzzles_where(lambda p: p.themes & {"promotion", "underPromotion"})
    assert idents(kb, run(kb, "positions-by-tactic", tactic="Promotion")) == promotions
    middle = puzzles_where(lambda p: "PositionMiddle" in p.classes) | any_game_where(
        lambda g: "PositionMiddle" in g.classes
    )
    assert idents(kb, run(kb, "positions-by-tactic", tactic="PositionMiddle")) == middle


def test_drawn_rook_endgames(kb):
    def rook_only(board):
        return all(signature(board, c).replace("P", "") in ("KR", "KRR") for c in chess.COLORS)

    expected = games_where(
        lambda g: (
            (g.h("Result") == "1/2-1/2" or g.facts.get("goal") == "draw")
            and ("RookEndgame" in g.classes or rook_only(g.start))
        )
    ) | puzzles_where(
        lambda p: (
            ("equality" in p.themes or p.facts.get("goal") == "draw")
            and ("RookEndgame" in p.classes or rook_only(p.board))
        )
    )
    assert G(4) <= expected
    assert idents(kb, run(kb, "drawn-rook-endgames")) == expected


def test_tactics_present(kb):
    rows = {r["tactic"].split("#")[1]: int(r["positions"]) for r in run(kb, "tactics-present")}
    everything = PUZZLES + GAMES + TRAP_GAMES
    assert rows["DoubleAttack"] == sum(1 for p in everything if "DoubleAttack" in p.classes)
    assert rows["Promotion"] == sum(1 for p in everything if "Promotion" in p.classes)
    assert all("MiddlegameTheme" in ancestors(name) for name in rows)


@pytest.mark.parametrize(
    "params, numbers",
    [
        ({}, (2,)),
        ({"player": "kasparov"}, (7, 9, 11)),
    ],
)
def test_positions_of_player_as_black(kb, params, numbers):
    assert idents(kb, run(kb, "positions-of-player-as-black", **params)) == G(*numbers)


@pytest.mark.parametrize(
    "params, numbers",
    [
        ({}, (2,)),
        ({"event": "ibm man-machine"}, (6, 7, 8, 9, 10, 11)),
    ],
)
def test_positions_of_event(kb, params, numbers):
    assert idents(kb, run(kb, "positions-of-event", **params)) == G(*numbers)


@pytest.mark.parametrize("country", ["USA", "ESP", "ned"])
def test_positions_in_country(kb, country):
    wanted = country.upper()
    expected = games_where(
        lambda g: g.h("EventCountry") == wanted or wanted in g.h("Site").split() or wanted in g.h("Event").split()
    )
    assert expected
    assert idents(kb, run(kb, "positions-in-country", country=country)) == expected
    if country == "USA":
        assert idents(kb, run(kb, "positions-in-country")) == expected


@pytest.mark.parametrize("pattern", [".*", "US.", "(U|E)SA", "[A-Z]+", "^", "$", "\\w+"])
def test_country_parameter_is_matched_literally_never_as_a_pattern(kb, pattern):
    """The user's text is compared as text: a regular expression matches only itself (nothing here)."""
    wanted = pattern.upper()
    expected = games_where(
        lambda g: g.h("EventCountry") == wanted or wanted in g.h("Site").split() or wanted in g.h("Event").split()
    )
    assert idents(kb, run(kb, "positions-in-country", country=pattern)) == expected == G()


@pytest.mark.parametrize("year", [None, 2010, 1997, 1995])
def test_positions_in_year(kb, year):
    params = {} if year is None else {"year": year}
    wanted = str(year or load_query("positions-in-year").params[0].default)
    assert idents(kb, run(kb, "positions-in-year", **params)) == games_where(lambda g: g.h("Date").startswith(wanted))


def _round(g: Game) -> str:
    """The round number: the Round tag's first number, else (issue 17) the game number a match
    writes at the end of its Site ("01" … "06" in the Kasparov–Deep Blue games)."""
    if g.h("Round") not in ("", "?"):
        return g.h("Round").split(".")[0]
    site = re.search(r"(?:^|\s)(\d{1,2})\s*$", g.h("Site"))
    return str(int(site.group(1))) if site else ""


@pytest.mark.parametrize("round_, numbers", [(None, (1, 2)), (2, (3,)), (7, (5,))])
def test_tactics_in_first_round(kb, round_, numbers):
    params = {} if round_ is None else {"round": round_}
    expected = games_where(lambda g: _round(g) == str(round_ or 1) and g.type_position in ("tactic", "final"))
    assert G(*numbers) <= expected  # the games ending in mate; detectors may find tactics in others
    assert idents(kb, run(kb, "tactics-in-first-round", **params)) == expected


# --- 12-23 -----------------------------------------------------------------------------------


def test_winning_for_white(kb):
    # exercises only: the Kasparov games (6-11) start from the initial position and are games
    expected = (
        games_where(lambda g: g.exercise and winner(g) == "white")
        | {(TRAPS.name, 1)}
        | puzzles_where(lambda p: puzzle_winner(p) == "white")
    )
    assert G(1, 3, 5) <= expected and not expected & G(6, 7, 8, 9, 10, 11)
    assert idents(kb, run(kb, "winning-for-white")) == expected


def test_winning_then_lost(kb):
    expected = games_where(lambda g: is_exercise(g) and g.h("Result") == {"white": "0-1", "black": "1-0"}[winner(g)])
    assert expected == G(3)
    assert idents(kb, run(kb, "winning-then-lost")) == expected


@pytest.mark.parametrize("title", [None, "GM", "wgm"])
def test_winning_with_titled_player(kb, title):
    params = {} if title is None else {"title": title}
    wanted = (title or "IM").upper()
    expected = games_where(lambda g: winner(g) and wanted in (g.h("WhiteTitle"), g.h("BlackTitle")))
    assert idents(kb, run(kb, "winning-with-titled-player", **params)) == expected


def test_no_castling_either_side(kb):
    expected = games_where(lambda g: not g.start.castling_rights) | puzzles_where(lambda p: not p.board.castling_rights)
    assert G(1, 2, 3, 4, 5) <= expected
    assert idents(kb, run(kb, "no-castling-either-side")) == expected


@pytest.mark.parametrize("elo", [None, 2790, 2200])
def test_players_rated_above(kb, elo):
    params = {} if elo is None else {"elo": elo}
    limit = elo or 2300
    expected = games_where(lambda g: any(g.h(t).isdigit() and int(g.h(t)) > limit for t in ("WhiteElo", "BlackElo")))
    assert idents(kb, run(kb, "players-rated-above", **params)) == expected


def test_player_emails(kb):
    expected = {(name_key(g.h(c)), g.h(c + "NA")) for g in GAMES for c in ("White", "Black") if g.h(c + "NA")}
    rows = run(kb, "player-emails")
    assert {(name_key(r["name"]), r["email"]) for r in rows} == expected


def test_positions_with_program(kb):
    expected = games_where(
        lambda g: "program" in (g.h("WhiteType"), g.h("BlackType")) or "(Computer)" in g.h("White") + g.h("Black")
    )
    assert expected == G(3, 6, 7, 8, 9, 10, 11)
    assert idents(kb, run(kb, "positions-with-program")) == expected


@pytest.mark.parametrize("day", [None, 1])
def test_positions_on_event_day(kb, day):
    import datetime as dt

    def event_day(g: Game) -> int | None:
        try:
            game = dt.date(*map(int, g.h("Date").split(".")))
            start = dt.date(*map(int, g.h("EventDate").split(".")))
        except ValueError:
            return None
        return (game - start).days + 1

    params = {} if day is None else {"day": day}
    expected = games_where(lambda g: event_day(g) == (day or 3))
    assert expected
    assert idents(kb, run(kb, "positions-on-event-day", **params)) == expected


def test_sponsored_by(kb):
    assert idents(kb, run(kb, "sponsored-by", sponsor="Universitat Oberta de Catalunya"), "match") == G(1)
    assert run(kb, "sponsored-by") == []  # the default names the demo's sample sponsor
    assert run(kb, "sponsored-by", sponsor="Banco Santander") == []


@pytest.mark.parametrize(
    "query, prop, value, default",
    [
        ("winning-in-section", "section", "OPEN", "Open"),
        ("winning-in-stage", "stage", "semifinal", "Final"),
    ],
)
def test_winning_in_section_and_stage(kb, query, prop, value, default):
    tag = prop.capitalize()
    for params, wanted in (({}, default), ({prop: value}, value)):
        expected = games_where(lambda g, w=wanted: winner(g) and g.h(tag).lower() == w.lower())
        assert expected
        assert idents(kb, run(kb, query, **params)) == expected


@pytest.mark.parametrize("board, numbers", [(None, (1, 4)), (2, (2,))])
def test_positions_on_board(kb, board, numbers):
    params = {} if board is None else {"board": board}
    assert games_where(lambda g: g.h("Board") == str(board or 1)) == G(*numbers)
    assert idents(kb, run(kb, "positions-on-board", **params)) == G(*numbers)


# --- 24-36 -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "query, tag, param, value",
    [
        ("positions-by-variation", "Variation", "variation", "Queen's Gambit Accepted"),
        ("positions-by-variation", "Variation", "variation", "Mieses"),
        ("positions-by-subvariation", "SubVariation", "subvariation", "Petrov Defence"),
        ("positions-by-subvariation", "SubVariation", "subvariation", "classical"),
    ],
)
def test_positions_by_opening_tags(kb, query, tag, param, value):
    wanted = value or load_query(query).params[0].default
    expected = games_where(lambda g: wanted.lower() in g.h(tag).lower())
    assert len(expected) == 1
    params = {} if value is None else {param: value}
    assert idents(kb, run(kb, query, **params)) == expected


def _opening_text(text: str) -> str:
    return text.lower().replace("_", " ").replace("defence", "defense").replace("'", "")


@pytest.mark.parametrize("value", [None, "scandinavian", "Sicilian Defence", "c93", "Queen's Pawn Game"])
def test_positions_by_opening(kb, value):
    """Opening and Variation tags contain it, the ECO code is it, or a lichess opening tag contains it."""
    wanted = value or load_query("positions-by-opening").params[0].default
    expected = games_where(
        lambda g: (
            _opening_text(wanted) in _opening_text(g.h("Opening") + " | " + g.h("Variation"))
            or g.h("ECO").lower() == wanted.lower()
        )
    )
    with open(PUZZLES_CSV, encoding="utf-8") as handle:
        expected |= {
            ("puzzle", row["PuzzleId"])
            for row in csv.DictReader(handle)
            if any(_opening_text(wanted) in _opening_text(tag) for tag in row["OpeningTags"].split())
        }
    assert expected, wanted
    assert idents(kb, run(kb, "positions-by-opening", **({} if value is None else {"opening": value}))) == expected


@pytest.mark.parametrize("eco", [None, "B00-B99", "A00-A09", "c93"])
def test_positions_by_eco(kb, eco):
    wanted = (eco or "B01").upper()
    low, _, high = wanted.partition("-")
    expected = games_where(lambda g: g.h("ECO") and low <= g.h("ECO") <= (high or low))
    assert expected
    assert idents(kb, run(kb, "positions-by-eco", **({} if eco is None else {"eco": eco}))) == expected


@pytest.mark.parametrize("nic, numbers", [("SI 3.5", (2,)), ("qg5.1", (1,))])
def test_positions_by_nic(kb, nic, numbers):
    assert idents(kb, run(kb, "positions-by-nic", **({} if nic is None else {"nic": nic}))) == G(*numbers)


@pytest.mark.parametrize("time, numbers", [(None, (1,)), ("13:00", (1, 2))])
def test_started_after(kb, time, numbers):
    limit = time or "19:00"
    expected = games_where(lambda g: g.h("Time") and g.h("Time")[:5] > limit)
    assert expected == G(*numbers)
    assert idents(kb, run(kb, "started-after", **({} if time is None else {"time": time}))) == expected


@pytest.mark.parametrize("date", [None, "2010-01-01"])
def test_played_before_utc(kb, date):
    limit = (date or "2010-12-31").replace("-", ".")
    expected = games_where(lambda g: g.h("UTCDate") and g.h("UTCDate") < limit)
    assert expected
    assert idents(kb, run(kb, "played-before-utc", **({} if date is None else {"date": date})), "match") == expected


@pytest.mark.parametrize("params", [{}, {"from": "19:00", "to": "21:00:00"}])
def test_played_between_utc(kb, params):
    low, high = params.get("from", "13:00"), params.get("to", "14:00")
    expected = games_where(lambda g: g.h("UTCTime") and low <= g.h("UTCTime")[:5] <= high[:5])
    assert expected
    assert idents(kb, run(kb, "played-between-utc", **params), "match") == expected


@pytest.mark.parametrize("minutes", [None, 15])
def test_fast_time_control(kb, minutes):
    def base(g: Game) -> int | None:
        first = g.h("TimeControl").split(":")[0].split("/")[-1].split("+")[0]
        return int(first) if first.isdigit() else None

    limit = (minutes or 5) * 60
    expected = games_where(lambda g: base(g) is not None and base(g) <= limit)
    assert expected
    assert idents(kb, run(kb, "fast-time-control", **({} if minutes is None else {"minutes": minutes}))) == expected


def test_ended_by_resignation(kb):
    expected = games_where(
        lambda g: (
            g.h("Result") in ("1-0", "0-1")
            and not g.end.is_checkmate()
            and g.h("Termination").lower() in ("", "normal")
        )
    )
    assert expected == G(6, 7, 11)
    assert idents(kb, run(kb, "ended-by-resignation")) == expected


# "Anna Rudolf" finds "Rudolf, Anna" too: names in any order (issue 17)
@pytest.mark.parametrize("annotator, numbers", [("Anna Rudolf", (1, 5)), ("rudolf", (1, 5)), ("Rudolf, Anna", (1, 5))])
def test_annotated_by(kb, annotator, numbers):
    assert idents(kb, run(kb, "annotated-by", **({} if annotator is None else {"annotator": annotator}))) == G(*numbers)


@pytest.mark.parametrize("mode, numbers", [(None, (1,)), ("ics", (2,))])
def test_over_the_board(kb, mode, numbers):
    assert games_where(lambda g: g.h("Mode").upper() == (mode or "OTB").upper()) == G(*numbers)
    assert idents(kb, run(kb, "over-the-board", **({} if mode is None else {"mode": mode})), "match") == G(*numbers)


@pytest.mark.parametrize("moves", [None, 40])
def test_winning_in_long_games(kb, moves):
    def length(g: Game) -> int:
        played = (g.plies + 1) // 2 if g.start.turn == chess.WHITE else g.plies // 2 + (1 if g.plies else 0)
        tagged = (int(g.h("PlyCount")) + 1) // 2 if g.h("PlyCount").isdigit() else 0
        return max(played, tagged)

    expected = games_where(lambda g: winner(g) and length(g) > (moves or 70))
    assert expected
    assert idents(kb, run(kb, "winning-in-long-games", **({} if moves is None else {"moves": moves}))) == expected


@pytest.mark.parametrize("moves", [None, 7, 6])
def test_miniatures(kb, moves):
    """Decisive games from the initial position of at most N moves, with the length and result each row shows."""
    most = moves or int(load_query("miniatures").params[0].default)

    def full_moves(g: Game) -> int:  # the initial position has White to move
        return (g.plies + 1) // 2

    played = {
        g.ident: (full_moves(g), g.h("Result"))
        for g in GAMES + TRAP_GAMES
        if g.start == chess.Board() and g.h("Result") in ("1-0", "0-1") and full_moves(g) <= most
    }
    rows = run(kb, "miniatures", **({} if moves is None else {"moves": moves}))
    assert {next(iter(idents(kb, [row], "match"))): (int(row["length"]), row["result"]) for row in rows} == played
    assert len(rows) == len(played)  # one row per game
    # the default finds Légal's trap (7 moves) and Deep Blue's 19-move win; 6 moves is one too few for the trap
    assert bool(played) == (moves != 6)


# --- 37-48 -----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "params, numbers",
    [
        ({"n": 1, "player": "Polgar"}, (2, 5)),
        ({"n": 1, "player": "Sahuquillo"}, (1,)),
        ({"n": 2, "player": "Polgar"}, ()),
    ],
)
def test_mate_in_n_by_player(kb, params, numbers):
    assert idents(kb, run(kb, "mate-in-n-by-player", **params)) == G(*numbers)


@pytest.mark.parametrize("phase", [None, "middlegame"])
def test_positions_by_theme_and_phase(kb, phase):
    expected = puzzles_where(lambda p: "DoubleAttack" in p.classes and game_phase(p.board) == (phase or "endgame"))
    assert expected
    params = {} if phase is None else {"phase": phase}
    assert idents(kb, run(kb, "positions-by-theme-and-phase", **params)) == expected


def _position_of(kb, number: int) -> str:
    rows = kb.query(f"""SELECT ?p WHERE {{ ?p cp:hasMatch/dcterms:source ?r .
        ?r cp:gameNumber {number} ; cp:sourceFile "{COMPETENCY.name}" }}""")
    return next(iter(rows))["p"].value


def test_same_position_elsewhere(kb):
    assert idents(kb, run(kb, "same-position-elsewhere", position=_position_of(kb, 1)), "other") == G(3)
    start = chess.Board().fen()
    expected = {g.ident for g in GAMES + TRAP_GAMES if g.start.fen() == start} - G(6)
    assert idents(kb, run(kb, "same-position-elsewhere", position=_position_of(kb, 6)), "other") == expected
    # a default (issue 17: every canned query can be benchmarked): the first shipped lichess puzzle
    default = load_query("same-position-elsewhere").bind({})["position"].value
    assert default.endswith("/position/lichess-" + PUZZLES[0].puzzle_id)
    assert run(kb, "same-position-elsewhere") == []  # no other position of the fixture has its key


@pytest.mark.parametrize("player", [None, "deep blue"])
def test_player_games(kb, player):
    # Every word of the name among the player's (issue 17: "deep blue" finds "Deep Blue (Computer)";
    # the old expectation wanted the words adjacent in the sorted key, which found nothing).
    wanted = set(name_key(player or "Kasparov").split())
    expected = games_where(lambda g: any(wanted <= set(name_key(g.h(c)).split()) for c in ("White", "Black")))
    rows = run(kb, "player-games", **({} if player is None else {"player": player}))
    assert idents(kb, rows, "match") == expected
    for row in rows:
        game = next(g for g in GAMES if g.ident in idents(kb, [row], "match"))
        assert row["result"] == game.h("Result")
        other = "Black" if row["colour"] == "white" else "White"
        assert name_key(row["opponent"]) == name_key(game.h(other))


def _scores(games: list[Game]) -> dict[str, float]:
    points: dict[str, float] = {}
    for g in games:
        white, black = {"1-0": (1, 0), "0-1": (0, 1), "1/2-1/2": (0.5, 0.5)}.get(g.h("Result"), (0, 0))
        points[name_key(g.h("White"))] = points.get(name_key(g.h("White")), 0) + white
        points[name_key(g.h("Black"))] = points.get(name_key(g.h("Black")), 0) + black
    return points


@pytest.mark.parametrize("event", [None, "Campeonato UOC"])
def test_event_standings(kb, event):
    wanted = (event or "IBM Man-Machine").lower()
    expected = _scores([g for g in GAMES if wanted in g.h("Event").lower()])
    rows = run(kb, "event-standings", **({} if event is None else {"event": event}))
    assert {name_key(r["name"]): float(r["score"]) for r in rows} == expected
    assert [float(r["score"]) for r in rows] == sorted((float(r["score"]) for r in rows), reverse=True)


@pytest.mark.parametrize("event", [None, "Candidates"])
def test_event_crosstable(kb, event):
    wanted = (event or "IBM Man-Machine").lower()
    games = [g for g in GAMES if wanted in g.h("Event").lower()]
    rows = run(kb, "event-crosstable", **({} if event is None else {"event": event}))
    assert len(rows) == 2 * len(games)
    totals: dict[str, float] = {}
    for r in rows:
        totals[name_key(r["name"])] = totals.get(name_key(r["name"]), 0) + float(r["points"])
    assert totals == _scores(games)


@pytest.mark.parametrize("side, goal", [(None, None), ("black", "mate"), ("White", "draw"), ("black", " WIN ")])
def test_positions_by_side_and_goal(kb, side, goal):
    side_, goal_ = (side or "white").strip().lower(), (goal or "mate").strip().lower()  # keyword parameters
    labels = {"mate": {"mate"}, "win": {"mate", "crushing", "advantage"}, "draw": {"equality"}}[goal_]
    colour = chess.WHITE if side_ == "white" else chess.BLACK

    def mate(item) -> bool:
        return bool(item.asserted & MATE_CLASSES or "mateIn" in item.facts or item.facts.get("goal") == "mate")

    def wanted(item, themes: set[str]) -> bool:
        if themes & labels or item.facts.get("goal") == goal_:
            return True
        return goal_ in ("mate", "win") and mate(item)

    expected = puzzles_where(lambda p: p.board.turn == colour and wanted(p, p.themes))
    expected |= {g.ident for g in GAMES + TRAP_GAMES if g.start.turn == colour and wanted(g, set())}
    assert expected
    params = {k: v for k, v in (("side", side), ("goal", goal)) if v}
    assert idents(kb, run(kb, "positions-by-side-and-goal", **params)) == expected


@pytest.mark.parametrize("tactic, name", [(None, "DoubleAttack"), ("Pinning", "Pinning")])
def test_exercises_by_difficulty(kb, tactic, name):
    expected = puzzles_where(lambda p: name in p.classes) | any_game_where(lambda g: name in g.classes)
    rows = run(kb, "exercises-by-difficulty", **({} if tactic is None else {"tactic": tactic}))
    got = [next(iter(idents(kb, [r]))) for r in rows]
    assert set(got) == expected
    keys = [int(r["difficulty"]) for r in rows]  # one scale for rated and unrated exercises
    assert keys == sorted(keys) and all(r["solverMoves"] for r in rows)
    assert all(int(r["difficulty"]) == int(r["rating"]) for r in rows if r["rating"])  # the rating where known
    # pages: the paging goes into the sorted subquery (#PAGE); pages add up to the whole answer, none twice
    query = load_query("exercises-by-difficulty")
    assert "LIMIT 5\n" in query.paged_text({"limit": "5"}).split("ORDER BY ?difficulty")[1]
    pages = []
    for page in ({"limit": "5"}, {"limit": "5", "offset": "5"}):
        result = kb.query(query.paged_text(page), bindings=query.bind({} if tactic is None else {"tactic": tactic}))
        pages += [row["position"].value for row in result]
    assert pages == [r["position"] for r in rows[:10]]


@pytest.mark.parametrize("white, black", [(None, None), ("Q", "KR"), ("kp", "kp")])
def test_positions_with_material(kb, white, black):
    def fits(board: chess.Board, color: chess.Color, spec: str) -> bool:
        spec = spec.upper() if spec.upper().startswith("K") else "K" + spec.upper()
        have = signature(board, color)
        return have.replace("P", "") == spec.replace("P", "") and ("P" in have) == ("P" in spec)

    w, b = white or "KRP", black or "KR"
    expected = games_where(lambda g: fits(g.start, chess.WHITE, w) and fits(g.start, chess.BLACK, b)) | puzzles_where(
        lambda p: fits(p.board, chess.WHITE, w) and fits(p.board, chess.BLACK, b)
    )
    assert expected
    params = {k: v for k, v in (("white", white), ("black", black)) if v}
    assert idents(kb, run(kb, "positions-with-material", **params)) == expected


def test_sources(kb):
    rows = {r["name"]: r for r in run(kb, "sources")}
    assert set(rows) == {"competency", "competency-traps", "puzzles"}
    assert int(rows["competency"]["games"]) == len(GAMES) == int(rows["competency"]["positions"])
    players = {name_key(g.h(c)) for g in GAMES for c in ("White", "Black")}
    assert int(rows["competency"]["players"]) == len(players)
    assert int(rows["puzzles"]["positions"]) == len(PUZZLES)


@pytest.mark.parametrize(
    "player, variants",
    [
        (None, {"Garry Kasparov", "Kasparov, Garry"}),
        ("POLGAR", {"Polgár, Judit", "Polgar, Susan"}),
    ],
)
def test_players_by_name_variant(kb, player, variants):
    rows = run(kb, "players-by-name-variant", **({} if player is None else {"player": player}))
    assert {r["variant"] for r in rows} == variants
    assert {r["source"] for r in rows} == {"competency"}


def test_class_hierarchy_counts(kb):
    rows = {r["class"].split("#")[1]: r for r in run(kb, "class-hierarchy-counts")}
    everything = PUZZLES + GAMES + TRAP_GAMES
    assert int(rows["DoubleAttack"]["positions"]) == sum(1 for p in everything if "DoubleAttack" in p.classes)
    assert rows["DoubleAttack"]["parent"].endswith("#MiddlegameTheme")
    assert int(rows["Trap"]["positions"]) == 1
    middle = sum(1 for p in everything if "PositionMiddle" in p.classes)
    assert int(rows["PositionMiddle"]["positions"]) == middle
    assert int(rows["Lock"]["positions"]) == 0


# --- parameters are terms, never text --------------------------------------------------------


@pytest.mark.parametrize(
    "hostile", ['"} DROP ALL #', "') } ; DELETE WHERE { ?s ?p ?o } #", '" . } UNION { ?position ?p ?o } #', '\\" } #']
)
def test_injection_stays_a_literal(kb, hostile):
    for name, param in (("positions-of-event", "event"), ("annotated-by", "annotator"), ("positions-by-eco", "eco")):
        if name == "annotated-by" and not name_key(hostile):  # a name without letters: a clear error
            with pytest.raises(QueryError, match="no letters"):
                run(kb, name, **{param: hostile})
            continue
        rows = run(kb, name, **{param: hostile})
        assert rows == []
    bound = load_query("positions-of-event").bind({"event": hostile})["event"]
    assert bound.value == hostile
    assert idents(kb, run(kb, "positions-of-event")) == G(2)  # the store still holds everything


def test_bad_parameters_are_clear_errors():
    with pytest.raises(QueryError, match="expects integer"):
        load_query("positions-in-year").bind({"year": "1997 } DROP"})
    with pytest.raises(QueryError, match="not a class name"):
        load_query("positions-by-tactic").bind({"tactic": "Fork> . ?x ?y <z"})
    with pytest.raises(QueryError, match="not an absolute IRI"):
        load_query("same-position-elsewhere").bind({"position": "x> } DROP ALL #"})
    with pytest.raises(QueryError, match="has no parameter"):
        load_query("mate-in-one").bind({"player": "x"})
    with pytest.raises(QueryError, match="not a set of pieces"):
        load_query("positions-with-material").bind({"white": "KRX"})
    with pytest.raises(QueryError, match="more than one king"):
        load_query("positions-with-material").bind({"white": "KKR"})


@pytest.mark.parametrize(
    "raw, key", [("KRP", "KRP"), ("rp", "KRP"), ("K R P P", "KRP"), ("NBQ", "KQBN"), ("RRp", "KRRP"), ("k", "K")]
)
def test_pieces_parameters_take_the_stored_form(raw, key):
    assert load_query("positions-with-material").bind({"white": raw})["white"].value == key


# --- the command line ------------------------------------------------------------------------


def test_cli_query_name_with_params(store_path):
    result = run_cli(
        "query", "--name", "positions-of-player", "--param", "player=judit polgár", "--format", "json", store=store_path
    )
    assert result.exit_code == 0, result.output
    rows = json.loads(result.output)["results"]["bindings"]
    assert [r["who"]["value"].split("/")[-1].startswith("judit-polgar") for r in rows] == [True]
    default = run_cli("query", "--name", "positions-in-year", "--format", "csv", store=store_path)
    assert default.exit_code == 0 and default.output.count("\n") == 1 + len(
        games_where(lambda g: g.h("Date").startswith(load_query("positions-in-year").params[0].default))
    )


def test_cli_queries_lists_all():
    result = run_cli("queries", "--format", "json")
    listed = json.loads(result.output)
    assert len(listed) == len(list_queries())
    assert {
        "name": "player",
        "type": "name",
        "default": "Polgar, Judit",
        "help": "player's name (any order, accents optional)",
    } in next(q for q in listed if q["name"] == "positions-of-player")["params"]
    text = run_cli("queries").output
    assert "same-position-elsewhere" in text and "[position=https://w3id.org/chesskb/id/position/lichess-" in text


def test_a_game_in_two_sources_is_counted_once(tmp_path, competency_store):
    """Oxigraph's union default graph repeats a statement once per graph holding it; the queries
    must still count a game imported from two sources once."""
    from chesskb.kb.store import open_store

    store_path = shutil.copytree(competency_store, tmp_path / "store", symlinks=True)  # the shared one stays
    again = run_cli("import", "--source", "competency-again", str(COMPETENCY), store=store_path)
    assert again.exit_code == 0, again.output
    twice = open_store(str(store_path))
    expected = _scores([g for g in GAMES if "ibm man-machine" in g.h("Event").lower()])
    rows = run(twice, "event-standings")
    assert {name_key(r["name"]): float(r["score"]) for r in rows} == expected
    assert {int(r["games"]) for r in rows} == {6}
    assert len(run(twice, "positions-of-event")) == 1
    assert len(run(twice, "player-games")) == len(run(twice, "player-games", player="garry kasparov")) == 7
    assert len(run(twice, "winning-then-lost")) == 1
    assert len(run(twice, "miniatures")) == len(run(open_store(str(competency_store)), "miniatures")) > 0


def test_source_counts_kept_on_import_equal_what_the_graphs_hold(data_store: Path) -> None:
    """``sources`` reads counts the importer wrote; they must be what a full count finds."""
    from chesskb.kb.store import open_store

    store = open_store(str(data_store))
    listed = {
        row["name"].value: (int(row["games"].value), int(row["positions"].value), int(row["players"].value))
        for row in store.query(load_query("sources").text)
    }
    assert len(listed) >= 5
    for name, counts in listed.items():
        graph = f"<https://w3id.org/chesskb/id/graph/{name}>"
        row = next(
            iter(
                store.query(f"""
            SELECT (COUNT(DISTINCT ?m) AS ?g) (COUNT(DISTINCT ?p) AS ?n) (COUNT(DISTINCT ?pl) AS ?k) WHERE {{
              {{ GRAPH {graph} {{ ?m a cp:Match }} }}
              UNION {{ GRAPH ?own {{ ?p a ?type }} FILTER(?own IN ({graph}, {graph[:-1]}/inferred>)) ?p cp:fen ?fen }}
              UNION {{ GRAPH {graph} {{ ?pl a cp:Player }} ?pl cp:nameKey ?key }} }}""")
            )
        )
        assert counts == (int(row["g"].value), int(row["n"].value), int(row["k"].value)), name
