"""``chesskb export --format pgn``: sources back as PGN that re-imports to the same knowledge base."""

from __future__ import annotations

from pathlib import Path

import chess.pgn
import pytest

from chesskb.kb.store import open_store
from tests.conftest import DATA, run_cli
from tests.shared_proofs import shared_proofs  # noqa: F401 (autouse: the run's verification cache)

MERGE = Path(__file__).parent / "fixtures" / "merge"


def _exercises(store: Path) -> set[tuple[str, str, str]]:
    """(position IRI, FEN, movetext) of every position: what an exercise is."""
    rows = open_store(str(store)).query("SELECT ?p ?fen ?m WHERE { ?p cp:fen ?fen OPTIONAL { ?p cp:move ?m } }")
    return {(row["p"].value, row["fen"].value, row["m"].value if row["m"] else "") for row in rows}


def _matches(store: Path) -> set[tuple[str, str, str]]:
    rows = open_store(str(store)).query(
        "SELECT ?m ?r ?e WHERE { ?m a cp:Match OPTIONAL { ?m cp:result ?r } "
        "OPTIONAL { ?m cp:hasEvent/cp:eventName ?e } }"
    )
    return {(row["m"].value, row["r"].value if row["r"] else "", row["e"].value if row["e"] else "") for row in rows}


@pytest.mark.slow  # imports, exports and imports again four collections
def test_pgn_export_reimports_to_the_same_exercises_and_games(tmp_path: Path) -> None:
    original, again = tmp_path / "original", tmp_path / "again"
    files = [
        DATA / "pychess" / "mate_in_2.pgn",
        DATA / "games" / "kasparov-deep-blue-1997.pgn",
        MERGE / "club-bulletin.pgn",
        DATA / "seed" / "seed-000-sample.pgn",
    ]
    for path in files:
        assert run_cli("import", "--jobs", "1", str(path), store=original).exit_code == 0
    exported = tmp_path / "all.pgn"
    result = run_cli("export", "--format", "pgn", "-o", str(exported), store=original)
    assert result.exit_code == 0, result.output
    assert run_cli("import", "--jobs", "1", str(exported), store=again).exit_code == 0
    assert _exercises(again) == _exercises(original)
    assert _matches(again) == _matches(original)
    assert run_cli("validate", str(exported)).exit_code in (0, 1)  # readable by the strict validator


def test_one_source_exports_its_own_tags_and_comments(tmp_path: Path) -> None:
    store = tmp_path / "store"
    deep_blue = DATA / "games" / "kasparov-deep-blue-1997.pgn"
    assert run_cli("import", "--jobs", "1", str(deep_blue), store=store).exit_code == 0
    assert run_cli("import", "--jobs", "1", str(MERGE / "club-bulletin.pgn"), store=store).exit_code == 0
    text = run_cli("export", "--format", "pgn", "--source", "club-bulletin", store=store).output
    games = []
    stream = __import__("io").StringIO(text)
    while (game := chess.pgn.read_game(stream)) is not None:
        games.append(game)
    assert len(games) == 8
    tal = next(g for g in games if g.headers["White"] == "Tal, M.")
    assert tal.headers["Site"] == "Bled" and tal.headers["Date"] == "1959.??.??" and tal.headers["Result"] == "1-0"
    assert tal.headers["SetUp"] == "1" and tal.headers["FEN"].startswith("1r3k2/2n1p1b1/3p2QR")
    assert [m.uci() for m in tal.mainline_moves()] == ["h6h8", "g7h8", "g5h7"]
    assert not any("Deep Blue" in g.headers.get("Black", "") for g in games)  # another source's games stay out
    assert "WhiteFideId" in text and '"4100018"' in text


def test_comments_survive_the_round_trip(tmp_path: Path) -> None:
    source = tmp_path / "lesson.pgn"
    source.write_text(
        '[Event "Lesson"]\n[White "Teacher"]\n[Black "Student"]\n[Result "1-0"]\n\n'
        "1. e4 {the centre} e5 2. Bc4 Nc6 3. Qh5 {threatens f7} Nf6 4. Qxf7# {mate} 1-0\n",
        encoding="utf-8",
    )
    store = tmp_path / "store"
    assert run_cli("import", str(source), store=store).exit_code == 0
    text = run_cli("export", "--format", "pgn", store=store).output
    game = chess.pgn.read_game(__import__("io").StringIO(text))
    comments = [node.comment for node in game.mainline() if node.comment]
    assert comments == ["the centre", "threatens f7", "mate"]
