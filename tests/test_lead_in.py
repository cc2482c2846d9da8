"""The opponent's move into an exercise, as the exercise page's data gives it to the trainer: for every
lichess puzzle of the fixture it is the CSV's first move from the CSV's FEN (read here with python-chess,
not from the store), and an exercise's title names none of its theme classes."""

from __future__ import annotations

import csv
from pathlib import Path

import chess
import pytest

from tests.conftest import BASE, ROOT, web_app

PUZZLES = ROOT / "tests" / "fixtures" / "puzzles-30.csv"


@pytest.fixture(scope="module")
def client(small_store: Path):
    app = web_app(small_store, QUERY_WORKERS=0)
    return app.test_client()


def _rows() -> list[dict[str, str]]:
    with open(PUZZLES, encoding="utf-8", newline="") as handle:
        return list(csv.DictReader(handle))


def test_every_puzzle_plays_the_csvs_first_move_first(client) -> None:
    for row in _rows():
        before = chess.Board(row["FEN"])
        setup = chess.Move.from_uci(row["Moves"].split()[0])
        number = f"{before.fullmove_number}." if before.turn == chess.WHITE else f"{before.fullmove_number}..."
        san = before.san(setup)
        data = client.get("/page.json", query_string={"iri": f"{BASE}position/lichess-{row['PuzzleId']}"}).get_json()
        assert data["solution"]["lead_in"] == {"fen": row["FEN"], "uci": setup.uci(), "san": san, "number": number}, (
            row["PuzzleId"]
        )
        assert data["solution"]["difficulty"] == int(row["Rating"])
        assert data["solution"]["deviation"] == int(row["RatingDeviation"])
        labels = [c["label"].lower() for c in data["classes"]]
        assert labels and not any(label in data["title"].lower() for label in labels), (data["title"], labels)
        assert row["PuzzleId"] in data["title"]


def test_a_stored_move_that_does_not_lead_to_the_exercise_is_not_shown() -> None:
    from chesskb.service.boards import lead_in

    start = chess.STARTING_FEN
    after_e4 = "rnbqkbnr/pppppppp/8/8/4P3/8/PPPP1PPP/RNBQKBNR b KQkq - 0 1"
    assert lead_in(start, "e2e4", after_e4) == {"fen": start, "uci": "e2e4", "san": "e4", "number": "1."}
    assert lead_in(start, "d2d4", after_e4) is None  # legal, but another position
    assert lead_in(start, "e2e5", after_e4) is None  # not legal there
    assert lead_in("not a fen", "e2e4", after_e4) is None
    assert lead_in(start, "zz", after_e4) is None
