"""The trainer accepts any move that keeps the forced mate (issue 32): ``POST /judge`` over HTTP on a
real server, and the solving page in Debian's Chromium. Every expectation is computed here with
python-chess (brute force over every move and defence), never read back from the service.
"""

from __future__ import annotations

import json
import os
import urllib.error
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import chess
import pytest

from tests.conftest import CHROMIUM, run_cli
from tests.live_server import serve
from tests.test_pages_browser import click_move
from tests.test_proofs import brute_mates

FIXTURE = Path(__file__).parent / "fixtures" / "issue32" / "two-ways.pgn"
FEN = "k7/8/2K5/8/8/8/8/7Q w - - 0 1"


@pytest.fixture(scope="module")
def judge_url(tmp_path_factory) -> Iterator[str]:
    store = tmp_path_factory.mktemp("judge") / "store"
    result = run_cli("import", str(FIXTURE), store=store)
    assert result.exit_code == 0, result.output
    url, server = serve(store)
    yield url
    server.shutdown()


def ask(base: str, body: object) -> tuple[int, dict]:
    request = urllib.request.Request(
        base + "/judge", data=json.dumps(body).encode(), headers={"Content-Type": "application/json"}, method="POST"
    )
    try:
        with urllib.request.urlopen(request) as response:
            return response.status, json.load(response)
    except urllib.error.HTTPError as error:
        return error.code, {}


def least_mate(board: chess.Board, most: int) -> int | None:
    return next((n for n in range(1, most + 1) if brute_mates(board.copy(), n)), None)


def test_every_first_move_is_judged_as_the_brute_force_says(judge_url):
    board = chess.Board(FEN)
    right = set()
    for move in board.legal_moves:
        after = board.copy()
        after.push(move)
        if after.is_checkmate() or (
            any(after.legal_moves) and all(least_mate(_after(after, d), 1) for d in after.legal_moves)
        ):
            right.add(move.uci())
        status, answer = ask(judge_url, {"fen": FEN, "move": move.uci(), "left": 2})
        assert status == 200
        assert answer["verdict"] == ("proven" if move.uci() in right else "refuted"), move.uci()
    assert len(right) >= 2  # the line's 1. Qh7 is not the only way


def _after(board: chess.Board, move: chess.Move) -> chess.Board:
    out = board.copy()
    out.push(move)
    return out


def test_the_reply_is_the_most_resilient_defence(judge_url):
    """1. Rd1 in Mason–Taubenhaus (pychess mate_in_3 game 22): the answer is a defence that lasts longest."""
    fen = "1r4r1/5Q2/3q4/3pk3/4p1p1/6P1/PP4BP/4RR1K w - - 1 1"
    status, answer = ask(judge_url, {"fen": fen, "move": "e1d1", "left": 3})
    assert status == 200 and answer["verdict"] == "proven" and answer["left"] == 2
    board = chess.Board(fen)
    board.push_uci("e1d1")
    board.push_uci(answer["reply"]["uci"])
    assert board.fen() == answer["fen"]
    assert not brute_mates(board.copy(), 1) and brute_mates(board.copy(), 2)  # no defence lasts beyond two
    assert sorted(m["uci"] for m in answer["legal"]) == sorted(m.uci() for m in board.legal_moves)
    assert ask(judge_url, {"fen": fen, "move": "f1f5", "left": 3})[1]["verdict"] == "refuted"


def test_bad_questions_get_a_clear_400(judge_url):
    for body in (
        {"fen": FEN, "move": "h1h7"},
        {"fen": FEN, "move": "a1a2", "left": 2},
        {"fen": FEN, "move": "h1h7", "left": 9},
        {"fen": "not a fen", "move": "h1h7", "left": 2},
        [1],
    ):
        assert ask(judge_url, body)[0] == 400, body


@pytest.mark.skipif(not os.path.exists(CHROMIUM), reason=f"{CHROMIUM} is not installed")
def test_a_learner_solves_a_mate_in_two_off_the_stored_line(page, judge_url):
    page.goto(judge_url + "/class/MateInTwo")
    page.click("ul.cards a.position-link >> nth=0")
    page.wait_for_selector("#board.interactive svg")
    data = page.evaluate("JSON.parse(document.getElementById('solution-data').textContent)")
    assert data["fen"] == FEN and data["plies"][0]["uci"] == "h1h7"
    click_move(page, "c6b6")  # not the line's move, but the mate still holds
    page.wait_for_selector('#board[data-alternative="c6b6"]')
    board = chess.Board(FEN)
    board.push_uci("c6b6")
    defences = list(board.legal_moves)
    assert len(defences) == 1  # Kb8: the only (so the most resilient) reply
    page.wait_for_selector("#solve-moves li.reply")  # the server's reply, played on the board
    board.push(defences[0])
    assert page.get_attribute("#board", "data-fen").split()[0] == board.fen().split()[0]
    mate = next(m for m in board.legal_moves if _after(board, m).is_checkmate())
    click_move(page, mate.uci())
    page.wait_for_selector('#board[data-solved="true"]')
