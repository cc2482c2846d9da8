"""Position patterns: ``chesskb find`` against python-chess checking every position of the data files.

The expected positions are computed here from the files in ``data/`` (each game's start position,
each lichess puzzle's position after the opponent's setup move) with python-chess predicates written
square by square, never with ``kb.search.patterns``; the colour flip is python-chess's ``Board.mirror()``.
"""

from __future__ import annotations

import csv
import io
import json
import re
from collections import Counter
from collections.abc import Callable

import chess
import chess.pgn
import pytest

from chesskb.kb.analysis.board_index import board_squares
from chesskb.kb.search.patterns import PatternError, parse, sparql_condition
from tests.conftest import DATA, run_cli
from tests.shared_proofs import shared_proofs  # noqa: F401 (autouse: the run's verification cache)

Predicate = Callable[[chess.Board], bool]


def _pgn_text(path) -> str:
    raw = path.read_bytes()
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError:
        return raw.decode("latin-1")


def file_positions() -> dict[str, chess.Board]:
    """Every position the data files hold, keyed by placement and side to move."""
    boards: list[chess.Board] = []
    for path in sorted(DATA.rglob("*.pgn")):
        if "tools" in path.parts:
            continue
        handle = io.StringIO(_pgn_text(path))
        while True:
            try:
                game = chess.pgn.read_game(handle)
            except (ValueError, IndexError):
                continue
            if game is None:
                break
            try:
                boards.append(game.board())
            except ValueError:
                continue
    for path in sorted(DATA.rglob("*.csv")):
        with path.open(encoding="utf-8", newline="") as handle:
            for row in csv.DictReader(handle):
                board = chess.Board(row["FEN"])
                board.push_uci(row["Moves"].split()[0])
                boards.append(board)
    return {_key(board): board for board in boards}


def _key(board: chess.Board) -> str:
    return f"{board.board_fen()} {'w' if board.turn else 'b'}"


def at(board: chess.Board, square: str, symbol: str | None) -> bool:
    piece = board.piece_at(chess.parse_square(square))
    return (piece.symbol() if piece else None) == symbol


def on_rank(board: chess.Board, rank: int, symbols: str) -> bool:
    return any((p := board.piece_at(chess.square(f, rank - 1))) and p.symbol() in symbols for f in range(8))


def on_rank_file(board: chess.Board, rank: int, file: int, symbols: str) -> bool:
    return bool((p := board.piece_at(chess.square(file, rank - 1))) and p.symbol() in symbols)


def count_on_rank(board: chess.Board, rank: int, symbol: str) -> int:
    return sum(on_rank_file(board, rank, f, symbol) for f in range(8))


def counts(board: chess.Board, colour: chess.Color) -> Counter[str]:
    return Counter(p.symbol().upper() for p in board.piece_map().values() if p.color == colour)


#: (pattern, python-chess predicate written independently)
PATTERNS: list[tuple[str, Predicate]] = [
    ("Nf5 kg8", lambda b: at(b, "f5", "N") and at(b, "g8", "k")),
    ("R*7", lambda b: on_rank(b, 7, "R")),
    ("R*7 kg8", lambda b: on_rank(b, 7, "R") and at(b, "g8", "k")),
    ("Qh* !ph7", lambda b: any(at(b, f"h{r}", "Q") for r in range(1, 9)) and not at(b, "h7", "p")),
    ("[QR]** kh8", lambda b: any(p.symbol() in "QR" for p in b.piece_map().values()) and at(b, "h8", "k")),
    ("A*7 a*2", lambda b: on_rank(b, 7, "KQRBNP") and on_rank(b, 2, "kqrbnp")),
    ("*/*/*/*/???PP???/*/*/*", lambda b: at(b, "d4", "P") and at(b, "e4", "P")),
    ("*k?/*ppp/*/*/*/*/*/*", lambda b: at(b, "g8", "k") and all(at(b, s, "p") for s in ("f7", "g7", "h7"))),
    ("r*/*/*/*/*/*/*/*", lambda b: at(b, "a8", "r")),
    ("*/*/*/*/*/*/*/?1?1*", lambda b: at(b, "b1", None) and at(b, "d1", None)),
    ("*/*/*/*/*/*/!P!P!P!P!P!P!P!P/*", lambda b: not on_rank(b, 2, "P")),
    ("*/*/*/*/*/*/*/*[Kk]", lambda b: at(b, "h1", "K") or at(b, "h1", "k")),
    ("*/*/*/*/*/*/*/*!A", lambda b: not ((p := b.piece_at(chess.H1)) and p.color == chess.WHITE)),
    # fixing no square (issue 24, item 5): looked up by cp:pieceIn, cp:pieceCount or pre-tested on the pieces
    ("*/*R*/*/*/*/*/*/*", lambda b: on_rank(b, 7, "R")),
    ("*/*/*/*/*/*/*[Pp]*[Pp]*/*", lambda b: sum(on_rank_file(b, 2, f, "Pp") for f in range(8)) >= 2),
    ("Q** q**", lambda b: bool(b.pieces(chess.QUEEN, chess.WHITE)) and bool(b.pieces(chess.QUEEN, chess.BLACK))),
    (
        "[Qq]** !P** !p**",
        lambda b: (
            bool(b.pieces(chess.QUEEN, chess.WHITE) | b.pieces(chess.QUEEN, chess.BLACK))
            and not b.pieces(chess.PAWN, chess.WHITE)
            and not b.pieces(chess.PAWN, chess.BLACK)
        ),
    ),
    ("!P** !p**", lambda b: not b.pieces(chess.PAWN, chess.WHITE) and not b.pieces(chess.PAWN, chess.BLACK)),
    ("N** !B**", lambda b: bool(b.pieces(chess.KNIGHT, chess.WHITE)) and not b.pieces(chess.BISHOP, chess.WHITE)),
    (
        "6??/8/???5/????4/8/8/8/8",
        lambda b: all(
            chess.square_name(s) in ("g8", "h8", "a6", "b6", "c6", "a5", "b5", "c5", "d5") for s in b.piece_map()
        ),
    ),
    # the same piece more than once on a rank: looked up by the counted cp:pieceIn values (2R*1 …)
    ("*/*/*/*/*/*/*/*R*R*", lambda b: count_on_rank(b, 1, "R") >= 2),
    ("*r*r*/*/*/*/*/*/*/*", lambda b: count_on_rank(b, 8, "r") >= 2),
    ("*/*/*/*/*/*/*P*P*P*/*", lambda b: count_on_rank(b, 2, "P") >= 3),
    ("8/8/8/8/8/8/8/8", lambda b: not b.piece_map()),
]

#: (side, material, predicate) constraints combined with some of the patterns.
CONSTRAINTS: list[tuple[str | None, str | None, Predicate]] = [
    (None, None, lambda b: True),
    ("w", None, lambda b: b.turn == chess.WHITE),
    ("b", None, lambda b: b.turn == chess.BLACK),
    (None, "KQ+-KQ+", lambda b: counts(b, chess.WHITE)["Q"] >= 1 and counts(b, chess.BLACK)["Q"] >= 1),
    ("w", "KR+-K+", lambda b: b.turn == chess.WHITE and counts(b, chess.WHITE)["R"] >= 1),
]


def expected(positions: dict[str, chess.Board], predicate: Predicate, either: bool) -> set[str]:
    return {key for key, board in positions.items() if predicate(board) or (either and predicate(board.mirror()))}


def found(store, pattern: str, *options: str) -> set[str]:
    result = run_cli("find", pattern, "--limit", "0", "--format", "json", *options, store=store)
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["head"]["vars"][0] == "position"
    return {_key(chess.Board(row["fen"]["value"])) for row in data["results"]["bindings"]}


@pytest.fixture(scope="module")
def positions() -> dict[str, chess.Board]:
    return file_positions()


def test_the_store_holds_the_files_positions(data_store, positions):
    assert found(data_store, "", "--material", "K+-K+") == set(positions)


@pytest.mark.parametrize("pattern,predicate", PATTERNS, ids=[p for p, _ in PATTERNS])
@pytest.mark.parametrize("either", [False, True], ids=["as-given", "either-colour"])
def test_patterns_find_what_python_chess_finds(data_store, positions, pattern, predicate, either):
    options = ("--either-colour",) if either else ()
    assert found(data_store, pattern, *options) == expected(positions, predicate, either)


@pytest.mark.parametrize("side,material,constraint", CONSTRAINTS[1:], ids=["w", "b", "queens", "w-rook"])
@pytest.mark.parametrize("either", [False, True], ids=["as-given", "either-colour"])
@pytest.mark.parametrize("pattern,predicate", [PATTERNS[1], PATTERNS[6], PATTERNS[7]], ids=["R*7", "d4e4", "back-rank"])
def test_side_and_material_constraints(data_store, positions, pattern, predicate, side, material, constraint, either):
    options = (
        (("--side", side) if side else ())
        + (("--material", material) if material else ())
        + (("--either-colour",) if either else ())
    )
    want = expected(positions, lambda b: predicate(b) and constraint(b), either)
    assert found(data_store, pattern, *options) == want


def test_the_patterns_are_not_vacuous(positions):
    """Each pattern selects some positions but not all, so the comparisons above can fail."""
    for pattern, predicate in PATTERNS[:-1]:
        hits = expected(positions, predicate, False)
        assert 0 < len(hits) < len(positions), pattern
    assert not expected(positions, PATTERNS[-1][1], False)


#: Material alone (no board): the at-least and exact sides are pre-tested on cp:whitePieces/cp:blackPieces.
MATERIALS = ["KQ+-KQ+", "KRR+-K+", "KR+-KR", "K+-KRP", "KRP+-KR+", "KP-K+", "KQRRBBNNP+-K+", "K+-KQ"]


def material_predicate(signature: str) -> Predicate:
    """python-chess's piece counts against ``KRP+-KR`` (each side: these pieces, or at least these with +)."""
    sides = []
    for side in signature.split("-"):
        wanted = Counter(side.rstrip("+").upper().replace("K", "")) + Counter("K")
        sides.append((wanted, side.endswith("+")))

    def predicate(board: chess.Board) -> bool:
        for colour, (wanted, at_least) in zip((chess.WHITE, chess.BLACK), sides, strict=True):
            have = counts(board, colour)
            if at_least and any(have[letter] < n for letter, n in wanted.items()):
                return False
            if not at_least and have != wanted:
                return False
        return True

    return predicate


@pytest.mark.parametrize("material", MATERIALS)
@pytest.mark.parametrize("either", [False, True], ids=["as-given", "either-colour"])
def test_material_alone(data_store, positions, material, either):
    options = ("--material", material) + (("--either-colour",) if either else ())
    assert found(data_store, "", *options) == expected(positions, material_predicate(material), either)


def test_the_materials_are_not_vacuous(positions):
    for material in MATERIALS[:-1]:
        assert 0 < len(expected(positions, material_predicate(material), False)) < len(positions), material


def test_exact_material(data_store, positions):
    sig = Counter({"K": 1, "R": 1, "P": 1}), Counter({"K": 1, "R": 1})
    want = {k for k, b in positions.items() if (counts(b, chess.WHITE), counts(b, chess.BLACK)) == sig}
    assert found(data_store, "", "--material", "KRP-KR") == want
    flipped = {k for k, b in positions.items() if (counts(b, chess.BLACK), counts(b, chess.WHITE)) == sig}
    assert found(data_store, "", "--material", "krp-kr", "--either-colour") == want | flipped


def test_source_and_paging(data_store, positions):
    rows = json.loads(
        run_cli("find", "kg8", "--limit", "0", "--format", "json", "--source", "puzzles", store=data_store).output
    )["results"]["bindings"]
    assert rows and all("/lichess-" in row["position"]["value"] for row in rows)
    first = run_cli("find", "kg8", "--limit", "3", "--format", "csv", store=data_store).output.splitlines()
    second = run_cli(
        "find", "kg8", "--limit", "3", "--offset", "3", "--format", "csv", store=data_store
    ).output.splitlines()
    assert first[0] == "position,label,fen" and len(first) == 4 and len(second) == 4
    assert not set(first[1:]) & set(second[1:])


def test_canned_query_matches_find(data_store):
    canned = run_cli(
        "query",
        "--name",
        "positions-matching-pattern",
        "--param",
        "pattern=R*7 kg8 w",
        "--param",
        "limit=0",
        "--format",
        "json",
        store=data_store,
    )
    rows = json.loads(canned.output)["results"]["bindings"]
    assert {r["position"]["value"] for r in rows} == {
        r["position"]["value"]
        for r in json.loads(
            run_cli("find", "R*7 kg8", "--side", "w", "--limit", "0", "--format", "json", store=data_store).output
        )["results"]["bindings"]
    }
    assert rows and {r["pattern"]["value"] for r in rows} == {"R*7 kg8 w"}


@pytest.mark.parametrize(
    "pattern,predicate",
    [
        p
        for p in PATTERNS
        if p[0] in ("R*7 kg8", "[QR]** kh8", "*/*R*/*/*/*/*/*/*", "*/*/*/*/*/*/*/*R*R*", "Q** q**", "!P** !p**")
    ],
)
def test_the_canned_query_looks_patterns_up_and_finds_what_python_chess_finds(
    data_store, positions, pattern, predicate
):
    """``positions-matching-pattern`` starts from the same index lookups as ``find`` when the store has
    the indexes (the text says so) and answers what python-chess finds on every position."""
    from chesskb.queries.executor import prepare
    from chesskb.queries.find import INDEXES

    text = prepare("positions-matching-pattern", {"pattern": pattern, "limit": "0"}, public=True, indexes=INDEXES)
    assert "#LOOKUPS" not in text and ("cp:piece" in text or "cp:whitePieces" in text)
    canned = run_cli(
        "query",
        "--name",
        "positions-matching-pattern",
        "--param",
        f"pattern={pattern}",
        "--param",
        "limit=0",
        "--format",
        "json",
        store=data_store,
    )
    assert canned.exit_code == 0, canned.output
    rows = json.loads(canned.output)["results"]["bindings"]
    assert {_key(chess.Board(r["fen"]["value"])) for r in rows} == expected(positions, predicate, False)


# --- the language ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text,message",
    [
        ("Nz5", "square"),
        ("*/*/8", "8 ranks"),
        ("7/8/8/8/8/8/8/8", "7 squares"),
        ("Xf5", "not a list-form"),
        ("*/*/*/*/*/*/*/*[Q", "without ']'"),
        ("*/*/*/*/*/*/*/*!?", "every square"),
        ("w w", "twice"),
        ("KRP-KR KR-K", "twice"),
        ("KK-K", "one king"),
        ("Nf5 */*/*/*/*/*/*/*", "either"),
        ('"} DROP ALL #', "not a list-form"),
        ("x" * 500, "longer"),
        ("?f5", "not a list-form"),
    ],
)
def test_bad_patterns_say_why(text, message):
    with pytest.raises(PatternError, match=re.escape(message)):
        parse(text)


def test_bad_pattern_is_a_usage_error(data_store):
    result = run_cli("find", 'Nf5 "} DROP ALL #', store=data_store)
    assert result.exit_code == 2 and "not a list-form item" in result.output


def test_regexes_stay_in_standard_syntax():
    """Only XPath regular-expression syntax (no (?:, lookarounds or \\d), and no user character."""
    for pattern, _ in PATTERNS:
        condition = sparql_condition(parse(pattern, either_colour=True, material="KR+-K"))
        for regex in re.findall(r'REGEX\(\?\w+, "((?:[^"\\]|\\.)*)"\)', condition):
            assert "(?" not in regex and "\\d" not in regex
            assert set(regex) <= set("^$()[]{}|*/.\\,0123456789 KQRBNPkqrbnpvs-")


def test_board_squares_round_trip():
    board = chess.Board("r1bqkb1r/pppp1ppp/2n2n2/4p2Q/2B1P3/8/PPPP1PPP/RNB1K1NR w KQkq - 4 4")
    squares = board_squares(board)
    assert len(squares) == 71 and squares.count("/") == 7
    assert (
        chess.Board(re.sub(r"\.+", lambda m: str(len(m.group())), squares) + " w - - 0 1").board_fen()
        == board.board_fen()
    )


# --- on a remote SPARQL server ---------------------------------------------------------------------

from tests.test_remote_store import server  # noqa: E402,F401  (the oxigraph server fixture)


def test_the_same_answers_from_a_remote_sparql_server(server, tmp_path):  # noqa: F811
    """The compiled REGEX tests are standard SPARQL: an Oxigraph server answers them as the embedded store."""
    path = DATA / "pychess" / "mate_in_2.pgn"
    embedded = tmp_path / "embedded"
    assert run_cli("import", "--jobs", "1", str(path), store=embedded).exit_code == 0
    remote = ("--store", server["query"], "--update-endpoint", server["update"])
    assert run_cli(*remote, "import", "--jobs", "1", str(path)).exit_code == 0
    for pattern, options in (
        ("R*7 kg8", ()),
        ("*k?/*ppp/*/*/*/*/*/*", ("--either-colour", "--side", "w")),
        ("", ("--material", "KQ+-KQ+")),
        ("!Pe* Q**", ()),
        ("*/*R*/*/*/*/*/*/*", ()),
        ("!N** !b**", ("--either-colour",)),
    ):
        here = found(embedded, pattern, *options)
        there = run_cli(*remote, "find", pattern, "--limit", "0", "--format", "json", *options)
        assert there.exit_code == 0, there.output
        rows = json.loads(there.output)["results"]["bindings"]
        assert {_key(chess.Board(r["fen"]["value"])) for r in rows} == here and here, pattern


# --- the web page's data (the editor itself: tests/test_find_browser.py) -------------------------------


@pytest.fixture(scope="module")
def client(data_store):
    from chesskb.kb.store import open_store
    from chesskb.service.app import create_app

    return create_app({"STORE": str(data_store), "QUERY_WORKERS": 0}, store=open_store(str(data_store))).test_client()


def test_find_json_pages_through_what_the_cli_finds(client, data_store, positions):
    want = expected(positions, lambda b: at(b, "g8", "k") and b.turn == chess.WHITE, True)
    got, iris, url = [], [], "/find.json?pattern=kg8&side=w&either=1"
    while url:
        data = client.get(url).get_json()
        assert len(data["results"]) <= 24
        got += [_key(chess.Board(r["fen"])) for r in data["results"]]
        iris += [r["iri"] for r in data["results"]]
        url = data["next"]
    # no position twice across the pages; two positions may share a board (data/tags/pgn-tag-sample.pgn
    # sets lichess puzzles' boards in games of its own), so boards are compared as a set
    assert len(iris) == len(set(iris)) and set(got) == want and len(want) > 24


def test_find_errors(client, tmp_path):
    bad = client.get("/find.json?pattern=Nf5&material=KRX-K")
    assert bad.status_code == 400 and "material" in bad.get_json()["error"]
    page = client.get("/find?pattern=%3Cb%3Ebold")
    assert page.status_code == 400 and "<b>bold" not in page.get_data(as_text=True)
    assert client.get("/find?page=x&pattern=kg8").status_code == 400


def test_the_piece_index_changes_nothing_but_speed(data_store):
    """The lookups (cp:pieceCount) and the pre-tests on cp:whitePieces/cp:blackPieces only narrow the
    boards tested: with all of them, with some (a store imported before one existed) and with none, the
    rows are the same. cp:pieceOn and cp:pieceIn are no longer written (issue 36: the board index beside
    the store, tests/test_board_index.py)."""
    from chesskb.kb.store import open_store
    from chesskb.queries.find import WRITTEN, find_query, has_piece_index

    store = open_store(str(data_store))
    assert has_piece_index(store) == set(WRITTEN)
    used: Counter[str] = Counter()
    cases = [parse(text, either_colour=either) for text, _ in PATTERNS for either in (False, True)] + [
        parse("", material=m, either_colour=either) for m in MATERIALS for either in (False, True)
    ]
    for pattern in cases:
        fast = find_query(pattern, limit=0)
        used.update(prop for prop in ("pieceOn", "pieceIn", "pieceCount", "whitePieces") if f"cp:{prop} " in fast)
        rows = {r["position"].value for r in store.query(fast)}
        assert rows == {r["position"].value for r in store.query(find_query(pattern, limit=0, piece_index=False))}
        assert rows == {
            r["position"].value for r in store.query(find_query(pattern, limit=0, piece_index={"pieceCount"}))
        }
    # a nearly empty board looks up cp:pieceCount; material and pieces ruled out, cp:whitePieces/cp:blackPieces;
    # nothing asks for the index values no import writes any more
    assert used["pieceCount"] >= 2 and used["whitePieces"] >= 10 and not used["pieceOn"] and not used["pieceIn"]


def test_paging_is_stable_when_nothing_is_looked_up(data_store):
    """Pages of a scanned (pre-tested) search and of a looked-up one join up to the whole answer."""
    for args in (("N** !B** !b**",), ("*/*/*/*/*/*/*[Pp]*[Pp]*/*",), ("", "--material", "KR+-K+")):
        whole = run_cli("find", *args, "--limit", "0", "--format", "csv", store=data_store).output.splitlines()[1:]
        pages = []
        for offset in range(0, len(whole) + 7, 7):
            pages += run_cli(
                "find", *args, "--limit", "7", "--offset", str(offset), "--format", "csv", store=data_store
            ).output.splitlines()[1:]
        assert len(whole) > 14 and pages == whole, args
