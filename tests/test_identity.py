"""Issue 17, part A: distinct games stay distinct, facts sit on the right individual, events are one
per name and year, players meet across spellings, and disagreeing sources stay consistent.

Fixtures: tests/fixtures/identity/ (hand-made, see its README) and pgn-extract's fischer.pgn and
petrosian.pgn (tests/fixtures/pgn-extract/). Expected answers are computed here with python-chess
over the same files, never read back from what the importer wrote.
"""

from __future__ import annotations

import json
from collections import defaultdict
from pathlib import Path

import chess.pgn
import pytest

from chesskb.kb.reading.names import name_key
from chesskb.kb.store import open_store
from chesskb.queries import load_query
from tests.conftest import DATA, run_cli, web_app

FIXTURES = Path(__file__).parent / "fixtures"
IDENTITY = FIXTURES / "identity"
SCORE = {"1-0": (1.0, 0.0), "0-1": (0.0, 1.0), "1/2-1/2": (0.5, 0.5)}


def read_headers(path: Path) -> list[tuple[chess.pgn.Headers, list[str]]]:
    games = []
    with open(path, encoding="utf-8") as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            games.append((game.headers, [move.uci() for move in game.mainline_moves()]))
    return games


def build(tmp_path: Path, *paths: Path) -> Path:
    store = tmp_path / "store"
    for path in paths:
        result = run_cli("import", "--jobs", "1", str(path), store=store)
        assert result.exit_code == 0, result.output
    return store


def select(store: Path, sparql: str) -> list[dict[str, str]]:
    solutions = open_store(str(store)).query(sparql)
    names = [variable.value for variable in solutions.variables]
    return [{name: row[name].value for name in names if row[name] is not None} for row in solutions]


def canned(store: Path, name: str, **params) -> list[dict[str, str]]:
    query = load_query(name)
    result = open_store(str(store)).query(query.text, bindings=query.bind({k: str(v) for k, v in params.items()}))
    names = [v.value for v in result.variables]
    return [{n: row[n].value for n in names if row[n] is not None} for row in result]


def report(store: Path) -> dict:
    result = run_cli("merge-report", "--format", "json", store=store)
    assert result.exit_code == 0, result.output
    return json.loads(result.output)


def match_count(store: Path) -> int:
    return int(select(store, "SELECT (COUNT(DISTINCT ?m) AS ?n) WHERE { ?m a cp:Match }")[0]["n"])


# --- 1. Game identity ---------------------------------------------------------------------------


def test_double_round_robin_keeps_every_game_and_its_standings(tmp_path: Path) -> None:
    """Three identical short draws and a miniature copied by two other pairs: 12 games, 12 Matches."""
    path = IDENTITY / "double-round-robin.pgn"
    games = read_headers(path)
    moves = [tuple(m) for _, m in games]
    assert len(games) == 12 and len(set(moves)) < 12  # the fixture really shares moves
    store = build(tmp_path, path)
    assert match_count(store) == len(games)
    same = select(store, "SELECT ?m WHERE { ?m cp:hasPlayerWhite ?p ; cp:hasPlayerBlack ?p }")
    assert same == []  # no "Kramnik vs Kramnik"
    points: dict[str, float] = defaultdict(float)
    for headers, _ in games:
        white, black = SCORE[headers["Result"]]
        points[name_key(headers["White"])] += white
        points[name_key(headers["Black"])] += black
    rows = canned(store, "event-standings", event="Double Round Robin")
    assert {name_key(r["name"]): float(r["score"]) for r in rows} == points
    assert {int(r["games"]) for r in rows} == {6}
    crosstable = canned(store, "event-crosstable", event="Double Round Robin")
    assert len(crosstable) == 2 * len(games)
    # merge-report names the games kept apart although their moves are the same
    misses = report(store)["near_misses"]
    shared = defaultdict(int)
    for one in moves:
        shared[one] += 1
    assert len(misses) == sum(n * (n - 1) // 2 for n in shared.values())
    assert all("kept apart" in miss["reason"] for miss in misses)
    assert any("fewer than 10" in miss["reason"] for miss in misses)
    assert any("different white player" in miss["reason"] for miss in misses)
    assert report(store)["games"] == []


def test_fischer_and_petrosian_keep_pgn_extracts_66_games(tmp_path: Path) -> None:
    fischer, petrosian = FIXTURES / "pgn-extract" / "fischer.pgn", FIXTURES / "pgn-extract" / "petrosian.pgn"
    records = read_headers(fischer) + read_headers(petrosian)
    distinct = {(tuple(m), h["White"], h["Black"], h["Date"][:4], h["Round"]) for h, m in records}
    assert len(records) == 69 and len(distinct) == 66  # pgn-extract -d: 3 duplicates
    store = build(tmp_path, fischer, petrosian)
    assert match_count(store) == len(distinct)
    merged = report(store)["games"]
    assert len(merged) == 3 and all({e["source"] for e in g["found_in"]} == {"fischer", "petrosian"} for g in merged)
    assert all("same players (fischer vs petrosian)" in g["reason"] for g in merged)


def test_the_same_game_with_the_name_written_two_ways_is_one_match(tmp_path: Path) -> None:
    text = (DATA / "games" / "kasparov-deep-blue-1997.pgn").read_text(encoding="utf-8").split("\n\n[")[0]
    one, two = tmp_path / "one.pgn", tmp_path / "two.pgn"
    one.write_text(text.replace("Garry Kasparov", "Mikhail Tal") + "\n", encoding="utf-8")
    two.write_text(text.replace("Garry Kasparov", "Tal, Mikhail N.") + "\n", encoding="utf-8")
    store = build(tmp_path, one, two)
    assert match_count(store) == 1
    [game] = report(store)["games"]
    assert {e["source"] for e in game["found_in"]} == {"one", "two"}
    # the player is one cluster: "Tal, Mikhail" finds the game through either spelling
    links = [link for link in report(store)["links"] if link["kind"] == "sameAs"]
    assert len(links) == 1 and "mikhail" in links[0]["a"] + links[0]["b"]
    assert len({r["position"] for r in canned(store, "positions-of-player", player="Tal, Mikhail")}) == 1


# --- 3. Facts on the right individual -------------------------------------------------------------


def test_ratings_and_titles_are_the_games(tmp_path: Path) -> None:
    path = IDENTITY / "two-ratings.pgn"
    games = read_headers(path)
    store = build(tmp_path, path)
    assert select(store, "SELECT ?p WHERE { ?p a cp:Player ; cp:elo ?e }") == []  # not on the person
    for limit in (2300, 2200, 2400):
        expected = {
            (h["White"], h["Black"])
            for h, _ in games
            if any(h.get(t, "?").isdigit() and int(h[t]) > limit for t in ("WhiteElo", "BlackElo"))
        }
        rows = canned(store, "players-rated-above", elo=limit)
        found = {r["position"] for r in rows}
        labels = {r["label"] for r in rows}
        assert len(found) == len(expected)
        for white, black in expected:
            assert any(white.split(",")[0] in label and black.split(",")[0] in label for label in labels)
    # the export writes exactly the player tags each game had
    exported = tmp_path / "out.pgn"
    assert run_cli("export", "--format", "pgn", "-o", str(exported), store=store).exit_code == 0
    again = {(h["White"], h["Black"]): h for h, _ in read_headers(exported)}
    for headers, _ in games:
        out = again[(headers["White"], headers["Black"])]
        for tag in ("WhiteElo", "BlackElo", "WhiteTitle", "BlackTitle"):
            assert out.get(tag) == headers.get(tag), tag


def test_player_page_shows_the_rating_of_each_game(tmp_path: Path) -> None:
    path = IDENTITY / "two-ratings.pgn"
    store = build(tmp_path, path)
    client = web_app(store).test_client()
    [erin] = [r["p"] for r in select(store, "SELECT ?p WHERE { ?p cp:nameKey 'erin example' }")]
    page = client.get("/page.json", query_string={"iri": erin}).get_json()
    expected = {}
    for headers, _ in read_headers(path):
        colour = "White" if headers["White"] == "Example, Erin" else "Black"
        expected[headers["Date"].replace(".", "-")[:4]] = headers.get(colour + "Elo")
    assert {g["date"][:4]: g["elo"] for g in page["games"]} == expected
    assert page["ratings"] == sorted(v for v in expected.values() if v)


# --- 4. Events -------------------------------------------------------------------------------------


@pytest.mark.parametrize("path", [IDENTITY / "numbered-sites.pgn", DATA / "games" / "kasparov-deep-blue-1997.pgn"])
def test_a_match_with_numbered_sites_is_one_event_with_its_games_by_round(tmp_path: Path, path: Path) -> None:
    games = read_headers(path)
    store = build(tmp_path, path)
    events = select(store, "SELECT DISTINCT ?e WHERE { ?m a cp:Match ; cp:hasEvent ?e }")
    assert len(events) == 1
    client = web_app(store).test_client()
    page = client.get("/page.json", query_string={"iri": events[0]["e"]}).get_json()
    assert [r["round"] for r in page["rounds"]] == [str(n) for n in range(1, len(games) + 1)]
    points: dict[str, float] = defaultdict(float)
    for headers, _ in games:
        white, black = SCORE[headers["Result"]]
        points[name_key(headers["White"])] += white
        points[name_key(headers["Black"])] += black
    assert {name_key(row["name"]): row["points"] for row in page["standings"]} == points
    assert {row["played"] for row in page["standings"]} == {len(games)}


def test_event_page_and_queries_use_one_rule_for_unfinished_games(tmp_path: Path) -> None:
    path = FIXTURES / "round-robin.pgn"
    games = read_headers(path)
    assert any(h["Result"] == "*" for h, _ in games)
    store = build(tmp_path, path)
    client = web_app(store).test_client()
    [event] = select(store, "SELECT DISTINCT ?e WHERE { ?m cp:hasEvent ?e }")
    page = client.get("/page.json", query_string={"iri": event["e"]}).get_json()
    rows = canned(store, "event-standings", event=games[0][0]["Event"])
    by_query = {name_key(r["name"]): (float(r["score"]), int(r["games"]), int(r["unfinished"])) for r in rows}
    by_page = {name_key(r["name"]): (r["points"], r["played"], r["unfinished"]) for r in page["standings"]}
    assert by_query == by_page
    played: dict[str, int] = defaultdict(int)
    for headers, _ in games:
        if headers["Result"] in SCORE:
            played[name_key(headers["White"])] += 1
            played[name_key(headers["Black"])] += 1
    assert {k: v[1] for k, v in by_query.items()} == {k: played.get(k, 0) for k in by_query}
    cells = canned(store, "event-crosstable", event=games[0][0]["Event"])
    assert len(cells) == 2 * len(games)
    assert sum(1 for c in cells if c["result"] == "*") == 2 * sum(1 for h, _ in games if h["Result"] == "*")


# --- 5. Players ------------------------------------------------------------------------------------


def test_name_forms_link_and_a_surname_alone_stays_a_candidate() -> None:
    from chesskb.kb.merge.linking import PlayerNames, compute_links

    names = {
        "a": "Tal, Mikhail N.",
        "b": "Mikhail Tal",
        "c": "Tal,M",
        "d": "Polgár, Judit",
        "e": "Polgar, Susan",
        "f": "Polgar, Sofia",
        "g": "POLGAR",
        "h": "Nepomniachtchi, Ian",
        "i": "Ian Nepomnyashchy",
        "j": "Kasparov, G",
        "k": "Kasparov, Garry",
    }
    links = {
        (link.a, link.b): link.kind
        for link in compute_links(PlayerNames(iri, {name_key(name)}, {name}) for iri, name in names.items())
    }
    for pair in (("a", "b"), ("a", "c"), ("b", "c"), ("h", "i"), ("j", "k")):
        assert links[pair] == "sameAs", pair
    assert links[("d", "g")] == links[("e", "g")] == links[("f", "g")] == "candidate"
    assert not {("d", "e"), ("d", "f"), ("e", "f")} & set(links)  # three Polgárs stay three


# --- 9. Disagreement without inconsistency ---------------------------------------------------------


def test_compatible_values_merge_and_conflicts_are_recorded_not_inconsistent(tmp_path: Path) -> None:
    a, b = IDENTITY / "dates-source-a.pgn", IDENTITY / "dates-source-b.pgn"
    store = build(tmp_path, a, b)
    assert match_count(store) == len(read_headers(a))  # each game of A is found again in B
    games = report(store)["games"]
    assert len(games) == 2
    dated = next(g for g in games if "date" in g["compatible"])
    assert set(dated["compatible"]["date"]) == {"1788", "1788.03.30"} and dated["conflicts"] == {}
    results = {h["Result"] for h, _ in read_headers(a) + read_headers(b) if h["Date"] == "1788.03.31"}
    conflict = next(g for g in games if "result" in g["conflicts"])
    assert set(conflict["conflicts"]["result"]) == results == {"1-0", "0-1"}
    annotated = select(store, "SELECT ?m ?p WHERE { ?m cp:sourcesDisagreeOn ?p }")
    assert {(r["m"], r["p"].rsplit("#", 1)[-1]) for r in annotated} == {(conflict["iri"], "result")}
    check = run_cli("check", "--no-shacl", "--format", "json", store=store)
    assert check.exit_code == 0, check.output


def test_the_demo_knowledge_base_is_consistent_under_hermit(tmp_path: Path) -> None:
    """The files scripts/demo.sh imports from data/ (the README's demo), checked with HermiT."""
    root = DATA
    files = [
        root / "lichess" / "puzzles.csv",
        *sorted((root / "pychess").glob("*.pgn")),
        *sorted((root / "seed").glob("*.pgn")),
        *sorted((root / "games").glob("*.pgn")),
        *sorted((root / "pgn-extract").glob("*.pgn")),
        *sorted((root / "openings").glob("*.pgn")),
    ]
    store = tmp_path / "store"
    result = run_cli("import", *map(str, files), store=store)
    assert result.exit_code in (0, 1), result.output  # seed-000 holds one invalid FEN, reported
    check = run_cli("check", "--no-shacl", store=store)
    assert check.exit_code == 0, check.output
    assert "INCONSISTENT" not in check.output


def test_export_writes_each_games_own_event_tags(tmp_path: Path) -> None:
    """One event gathers the six games whatever their sites; each exported game keeps its own Site."""
    path = IDENTITY / "numbered-sites.pgn"
    store = build(tmp_path, path)
    exported = tmp_path / "out.pgn"
    assert run_cli("export", "--format", "pgn", "-o", str(exported), store=store).exit_code == 0
    original = sorted((h["Site"], h["Event"], h["Result"]) for h, _ in read_headers(path))
    again = sorted((h["Site"], h["Event"], h["Result"]) for h, _ in read_headers(exported))
    assert again == original


def test_every_by_player_answer_follows_the_players_cluster(tmp_path: Path) -> None:
    """Eight games of Tal written eight ways: "Tal, Mikhail" finds all of them, and every member's
    page shows the same cluster once."""

    path = IDENTITY / "tal-spellings.pgn"
    games = read_headers(path)
    tal = [h for h, _ in games if "tal" in (name_key(h["White"]) + " " + name_key(h["Black"])).split()]
    store = build(tmp_path, path)
    for query in ("positions-of-player", "player-games"):
        rows = canned(store, query, player="Tal, Mikhail")
        assert len({r.get("position") or r["match"] for r in rows}) == len(tal) == 8, query
    black = [h for h in tal if "tal" in name_key(h["Black"]).split()]
    assert len({r["position"] for r in canned(store, "positions-of-player-as-black", player="Tal, Mikhail")}) == len(
        black
    )
    client = web_app(store).test_client()
    members = [r["p"] for r in select(store, "SELECT ?p WHERE { ?p cp:nameKey ?k FILTER(CONTAINS(?k, 'tal')) }")]
    assert len(members) == 4  # "m tal", "mikhail tal", "mikhail n tal", "mihail tal"
    written = {h[c] for h in tal for c in ("White", "Black") if "tal" in name_key(h[c]).split()}
    for member in members:
        page = client.get("/page.json", query_string={"iri": member}).get_json()
        assert len(page["games"]) == len(tal)
        assert set(page["name_variants"]) == written
