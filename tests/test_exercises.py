"""Issue 17, part B: exercises versus games, checked claims, per-line encodings, bad movetext, and the
canned queries that depended on them — on hand-made files (``tests/fixtures/issue17/``) mirroring the
issue's cases, through the real importer, a real store and the CLI.

Expected answers are worked out here from the files with python-chess (and a mate search written in
this file), never read back from what the importer stored.
"""

from __future__ import annotations

import io
import json
from pathlib import Path

import chess
import chess.pgn
import pytest

from tests.conftest import DATA, run_cli, web_app

HERE = Path(__file__).resolve().parent / "fixtures" / "issue17"
GAMES = HERE / "games-and-claims.pgn"
THEMES = HERE / "theme-claims.pgn"
GARBAGE = HERE / "garbage-movetext.pgn"
MIXED = HERE / "mixed-encoding.pgn"
ODDS = DATA / "pgn-extract" / "odds.pgn"
KASPAROV = DATA / "games" / "kasparov-deep-blue-1997.pgn"

MATE_CLASSES = ("MateInOne", "MateInTwo", "MateInThree", "MateInFour", "MateInFive", "OtherMate")


# --- independent readings ---------------------------------------------------------------------------


def read(path: Path, encoding: str = "utf-8") -> list[chess.pgn.Game]:
    games = []
    with open(path, encoding=encoding) as handle:
        while (game := chess.pgn.read_game(handle)) is not None:
            games.append(game)
    return games


def mates_within(board: chess.Board, moves: int) -> bool:
    """The side to move mates within ``moves`` moves against every defence (plain search)."""
    for move in list(board.legal_moves):
        board.push(move)
        try:
            if board.is_checkmate():
                return True
            if moves > 1 and not board.is_game_over():
                replies = list(board.legal_moves)
                if all(_after(board, reply, moves - 1) for reply in replies):
                    return True
        finally:
            board.pop()
    return False


def _after(board: chess.Board, reply: chess.Move, moves: int) -> bool:
    board.push(reply)
    try:
        return mates_within(board, moves)
    finally:
        board.pop()


# --- the store ------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def store(tmp_path_factory) -> dict:
    path = tmp_path_factory.mktemp("issue17") / "store"
    plain = run_cli("import", str(GAMES), str(GARBAGE), str(MIXED), str(KASPAROV), str(ODDS), store=path)
    themed = run_cli("import", "--theme", "MateInOne", str(THEMES), store=path)
    return {"path": path, "plain": plain, "themed": themed}


def query(store: dict, sparql: str) -> list[dict]:
    result = run_cli("query", sparql, "--format", "json", store=store["path"])
    assert result.exit_code == 0, result.output
    rows = json.loads(result.stdout)["results"]["bindings"]
    return [{k: v["value"] for k, v in row.items()} for row in rows]


def canned(store: dict, name: str, **params) -> list[dict]:
    args = ["query", "--name", name, "--format", "json", "--param", "limit=0"]
    for key, value in params.items():
        args += ["--param", f"{key}={value}"]
    result = run_cli(*args, store=store["path"])
    assert result.exit_code == 0, result.output
    return [{k: v["value"] for k, v in row.items()} for row in json.loads(result.stdout)["results"]["bindings"]]


def positions_of(store: dict, source: str) -> dict[int, dict]:
    """Game number -> the start position's types, facts and label in a source (ply 0)."""
    rows = query(
        store,
        f"""SELECT ?n ?p ?type ?label ?fen WHERE {{
        GRAPH <https://w3id.org/chesskb/id/graph/{source}> {{ ?rec a ?record }}  # the source's own records
        ?m dcterms:source ?rec . ?rec cp:gameNumber ?n .
        ?p cp:hasMatch ?m ; cp:plyInGame 0 ; cp:fen ?fen ; rdfs:label ?label .
        ?p a ?type }}""",
    )
    out: dict[int, dict] = {}
    for row in rows:
        entry = out.setdefault(
            int(row["n"]), {"iri": row["p"], "types": set(), "label": row["label"], "fen": row["fen"]}
        )
        entry["types"].add(row["type"].rsplit("#", 1)[-1])
    for entry in out.values():
        facts = query(store, f"SELECT ?k ?v WHERE {{ <{entry['iri']}> ?k ?v FILTER(isLiteral(?v)) }}")
        entry["facts"] = {row["k"].rsplit("#", 1)[-1]: row["v"] for row in facts}
    return out


# --- 2. exercises versus games ------------------------------------------------------------------------


def where(path: Path, token: str, encoding: str = "utf-8") -> str:
    """``(line L, column C)`` of the first occurrence of ``token`` in the file, counted here."""
    for number, line in enumerate(path.read_text(encoding=encoding).splitlines(), 1):
        if token in line:
            return f"(line {number}, column {line.index(token) + 1})"
    raise AssertionError(token)


def is_game_start(game: chess.pgn.Game) -> bool:
    """Independent of kb/analysis/exercises.py: no FEN, or an odds game's start (move 1, most men at home)."""
    board = game.board()
    home = chess.Board()
    moved = sum(1 for sq, piece in board.piece_map().items() if home.piece_at(sq) != piece)
    return board.fullmove_number <= 2 and len(board.piece_map()) >= 24 and moved <= 2


@pytest.mark.parametrize(
    "path, source", [(GAMES, "games-and-claims"), (KASPAROV, "kasparov-deep-blue-1997"), (ODDS, "odds")]
)
def test_ordinary_games_are_matches_whose_start_is_not_an_exercise(store, path, source):
    games = read(path, "latin-1" if path == ODDS else "utf-8")
    positions = positions_of(store, source)
    starts = {number for number, game in enumerate(games, 1) if is_game_start(game)}
    assert starts, "each file has ordinary games"
    if path != GAMES:
        assert starts == set(range(1, len(games) + 1))  # every game of Kasparov's match and of the odds file
    for number, game in enumerate(games, 1):
        if number not in positions:  # a duplicate game merged with another (pgn-extract's rule)
            continue
        entry = positions[number]
        if number in starts:
            assert entry["types"] == {"Position"}, (number, entry["types"])
            assert not {"mateIn", "mateVerification", "goal", "difficulty", "claimStatus", "solverMoves"} & set(
                entry["facts"]
            ), (number, entry["facts"])
            assert entry["label"].startswith("Start position — ")
            assert entry["facts"]["solutionSan"].split()[0] == game.board().san(game.next().move)
        else:
            assert "Exercise" in entry["types"], number


def test_the_scholars_mate_is_no_mate_in_four_from_the_initial_position(store):
    """The issue's "Mate in four" / "Other mate — mate in 37" from the initial position."""
    game = read(GAMES)[0]
    assert game.end().board().is_checkmate() and game.board().fen() == chess.STARTING_FEN
    initial = {
        row["position"] for row in query(store, f'SELECT ?position WHERE {{ ?position cp:fen "{chess.STARTING_FEN}" }}')
    }
    assert initial
    for name in ("mate-in-one", "winning-for-white", "tactics-in-first-round", "exercises-by-difficulty"):
        listed = {row.get("position") for row in canned(store, name)}
        assert not listed & initial, name
    for cls in (*MATE_CLASSES, "QuietMove", "Clearance", "Exercise"):
        assert not query(store, f'SELECT ?p WHERE {{ ?p a cp:{cls} ; cp:fen "{chess.STARTING_FEN}" }}'), cls


def test_class_pages_and_courses_leave_games_out(store, tmp_path):
    initial = {row["p"] for row in query(store, f'SELECT ?p WHERE {{ ?p cp:fen "{chess.STARTING_FEN}" }}')}
    head = "id: games\ntitle: {en: Games}\nchapters:\n  - title: {en: All}\n    level: beginner\n"
    course = tmp_path / "c.yaml"
    course.write_text(head + "    select: {source: kasparov-deep-blue-1997, limit: 10}\n", encoding="utf-8")
    result = run_cli("course", "import", str(course), store=store["path"])
    assert result.exit_code == 2 and "finds no exercise" in result.output  # a match is no exercise
    from chesskb.kb.courses.course_file import COURSE_MAX_EXERCISES

    course.write_text(head + f"    select: {{theme: Position, limit: {COURSE_MAX_EXERCISES}}}\n", encoding="utf-8")
    result = run_cli("course", "import", str(course), store=store["path"])
    assert result.exit_code == 0, result.output
    items = {row["x"] for row in query(store, "SELECT ?x WHERE { ?i cp:exercise ?x }")}
    assert items and not items & initial
    client = web_app(store["path"]).test_client()
    for cls in ("QuietMove", "CastlingMove", "MateInFour", "OtherMate"):
        page = client.get(f"/class/{cls}.json")
        assert page.status_code == 200
        listed = json.dumps(page.get_json())
        assert not any(iri in listed for iri in initial), cls


# --- 7. claims are checked ----------------------------------------------------------------------------


def test_a_false_theme_claim_is_not_asserted_and_is_reported(store):
    assert store["themed"].exit_code == 0, store["themed"].output
    games = read(THEMES)
    truly = {game.board().fen() for game in games if mates_within(game.board(), 1)}
    assert len(truly) == 1 and len(games) == 2
    listed = {row["fen"] for row in canned(store, "mate-in-one")}
    theirs = {game.board().fen() for game in games}
    assert listed & theirs == truly
    refuted = [game for game in games if game.board().fen() not in truly]
    assert "claim MateInOne (mate in 1) is false (refuted by proof)" in store["themed"].stderr
    assert "game 2" in store["themed"].stderr and "game 1 " not in store["themed"].stderr
    statuses = query(
        store,
        f"""SELECT DISTINCT ?s WHERE {{ GRAPH <https://w3id.org/chesskb/id/graph/theme-claims> {{
        ?p a ?type }} ?p cp:fen "{refuted[0].board().fen()}" ; cp:claimStatus ?s }}""",
    )
    assert [row["s"] for row in statuses] == ["MateInOne in 1 refuted"]


def test_a_false_termination_claim_is_not_asserted(store):
    games = read(GAMES)
    positions = positions_of(store, "games-and-claims")
    claimed = [n for n, g in enumerate(games, 1) if g.headers.get("Termination", "").startswith("mate in")]
    assert claimed == [3, 4]
    for number in claimed:
        moves = int(games[number - 1].headers["Termination"].split()[-1])
        true = mates_within(games[number - 1].board(), moves)
        assert true == (number == 4)
        entry = positions[number]
        assert ("MateInTwo" in entry["types"]) == true
        assert entry["facts"]["claimStatus"] == f"MateInTwo in 2 {'proven' if true else 'refuted'}"
    assert "game 3 (line" in store["plain"].stderr and "claim MateInTwo (mate in 2) is false" in store["plain"].stderr


# --- 6. encodings per game ----------------------------------------------------------------------------


def mixed_games() -> list[tuple[str, str]]:
    """The fixture's names, each game decoded on its own (the file is hand-made: the third game's UTF-8
    was encoded twice)."""
    out = []
    for number, chunk in enumerate(MIXED.read_bytes().split(b"\n\n[Event"), 1):
        raw = chunk if number == 1 else b"[Event" + chunk
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            text = raw.decode("latin-1")
        if number == 3:
            text = text.encode("latin-1").decode("utf-8")
        game = chess.pgn.read_game(io.StringIO(text))
        out.append((game.headers["White"], game.headers["Black"]))
    return out


#: The spellings of players one source gives: its own ones (another source spells them otherwise) and
#: those every source naming the player gives (in the merge only: kb/store/layout.py).
_SPELLINGS = """{{ GRAPH <https://w3id.org/chesskb/id/graph/{graph}> {{ ?p a cp:Player ; skos:altLabel ?n }} }} UNION
    {{ GRAPH <https://w3id.org/chesskb/id/graph/{graph}> {{ ?p a cp:Player }} ?p skos:altLabel ?n
       FILTER NOT EXISTS {{ GRAPH ?other {{ ?p skos:altLabel ?n }} }} }}"""


def test_a_utf8_and_a_latin1_game_in_one_file_keep_their_names(store):
    expected = mixed_games()
    assert expected == [
        ("Müller, Jürgen", "Weiß, Ernst"),
        ("François André", "Núñez, José"),
        ("Gonçalves, Zoë", "Lefèvre, Amélie"),
    ]
    names = {
        row["n"]
        for row in query(
            store,
            """SELECT ?n WHERE {
        """
            + _SPELLINGS.format(graph="mixed-encoding")
            + "}",
        )
    }
    assert names == {name for pair in expected for name in pair}
    stderr = store["plain"].stderr
    line = where(MIXED, '[White "Gon', "latin-1").split(",")[0] + ")"
    assert f"mixed-encoding.pgn: game 3 {line}: UTF-8 encoded twice, repaired: 'GonÃ§alves,' -> 'Gonçalves,'" in stderr


def test_odds_pgn_names_are_not_mojibake(store):
    names = {
        row["n"]
        for row in query(
            store,
            """SELECT ?n WHERE {
        """
            + _SPELLINGS.format(graph="odds")
            + "}",
        )
    }
    assert "François André Philidor" in names
    assert not [name for name in names if "Ã" in name]
    assert "odds.pgn: game 2 (line 30): U+FFFD" in store["plain"].stderr


# --- 10. bad movetext ----------------------------------------------------------------------------------


def test_garbage_movetext_is_reported_and_not_imported_as_an_empty_game(store):
    games = read(GARBAGE)
    assert len(games) == 5 and not any(game.errors for game in games)  # python-chess says nothing …
    assert list(games[1].mainline_moves()) == []  # … and reads the garbage game as a game without moves
    stderr = store["plain"].stderr
    assert f"garbage-movetext.pgn: game 2 {where(GARBAGE, 'ZZ9')}: 'ZZ9' and 6 more such token(s)" in stderr
    assert "game skipped" in stderr.split("garbage-movetext.pgn: game 2")[1].splitlines()[0]
    assert f"garbage-movetext.pgn: game 3 {where(GARBAGE, '±')}: '±'" in stderr
    assert f"garbage-movetext.pgn: game 4 {where(GARBAGE, 'xx')}: 'xx'" in stderr
    numbers = {
        int(row["n"])
        for row in query(
            store,
            """SELECT ?n WHERE {
        GRAPH <https://w3id.org/chesskb/id/graph/garbage-movetext> { ?rec a ?record } ?rec cp:gameNumber ?n }""",
        )
    }
    assert numbers == {1, 3, 4, 5}
    positions = positions_of(store, "garbage-movetext")
    assert positions[3]["facts"]["solutionSan"] == "d4 d5 c4 c6"
    # the forfeit (its tags say it has no moves) is imported without moves, its text kept as written
    assert "solutionSan" not in positions[4]["facts"]
    assert positions[4]["facts"]["move"] == "{ Black did not show up } xx"


# --- 11. canned queries ---------------------------------------------------------------------------------


def test_positions_in_country_knows_cities_and_takes_no_pattern(store):
    usa = {row["position"] for row in canned(store, "positions-in-country", country="USA")}
    starts = positions_of(store, "kasparov-deep-blue-1997")
    assert {entry["iri"] for entry in starts.values()} <= usa  # "IBM Man-Machine, New York USA", Site "01"
    assert positions_of(store, "games-and-claims")[1]["iri"] in usa  # Site "New York"
    germany = {row["position"] for row in canned(store, "positions-in-country", country="GER")}
    assert positions_of(store, "games-and-claims")[2]["iri"] in germany  # Site "Nuremberg"
    for pattern in (".*", "U.A", "(^|.)"):
        assert canned(store, "positions-in-country", country=pattern) == []


def test_ended_by_resignation_knows_abandoned(store):
    games = read(GAMES)
    abandoned = positions_of(store, "games-and-claims")[2]["iri"]
    assert games[1].headers["Termination"] == "abandoned"
    assert abandoned in {row["position"] for row in canned(store, "ended-by-resignation")}


def test_every_canned_query_can_be_benchmarked(store):
    result = run_cli("bench-queries", "--repeat", "1", "--format", "json", store=store["path"])
    assert result.exit_code == 0, result.output
    timed = {row["name"] for row in json.loads(result.stdout)}
    listed = {q["name"] for q in json.loads(run_cli("queries", "--format", "json").stdout)}
    assert timed == listed
