"""``POST /play`` against the real Stockfish: legal replies at a limited strength, bad input refused
with a clear message, and the named limits (rate per client, longest game) enforced."""

from __future__ import annotations

import io
from pathlib import Path

import chess
import chess.pgn
import pytest

from chesskb.kb.analysis.engine import engine_path
from tests.live_server import still_running

START = chess.STARTING_FEN


@pytest.fixture()
def client(tmp_path: Path):
    from chesskb.kb.store import open_store
    from chesskb.service.app import create_app

    app = create_app(
        {"STORE": str(tmp_path / "store"), "PLAY_RATE": 3, "PLAY_MAX_PLIES": 4, "QUERY_WORKERS": 0},
        store=open_store(str(tmp_path / "store")),
    )
    yield app.test_client()
    pool = app.extensions.get("chesskb.play_pool")
    if pool is not None:
        pool.close()


def _from(address: str) -> dict:
    return {"environ_base": {"REMOTE_ADDR": address}}


def test_bad_input_is_refused_with_a_reason(client):
    not_json = client.post("/play", data="not json", content_type="application/json", **_from("10.0.0.1"))
    assert not_json.status_code == 400
    answer = client.post("/play", json={"fen": START, "moves": ["e2e5"]}, **_from("10.0.0.2"))
    assert answer.status_code == 400 and "not legal" in answer.get_json()["error"]
    answer = client.post("/play", json={"fen": "8/8/8/8/8/8/8/8 w - - 0 1", "moves": []}, **_from("10.0.0.3"))
    assert answer.status_code == 400 and "not a legal position" in answer.get_json()["error"]
    answer = client.post(
        "/play", json={"fen": START, "moves": ["e2e4", "e7e5", "g1f3", "b8c6", "f1b5"]}, **_from("10.0.0.4")
    )
    assert answer.status_code == 400 and "PLAY_MAX_PLIES" in answer.get_json()["error"]


def test_bad_input_counts_against_the_rate_too(client):
    for _ in range(3):  # PLAY_RATE is 3 requests a minute for this client
        assert client.post("/play", json={"fen": START, "moves": ["e2e5"]}, **_from("10.0.1.1")).status_code == 400
    limited = client.post("/play", json={"fen": START, "moves": ["e2e5"]}, **_from("10.0.1.1"))
    assert limited.status_code == 429 and "PLAY_RATE" in limited.get_json()["error"]


def test_the_learners_turn_needs_no_engine_and_lists_legal_moves(client):
    answer = client.post("/play?lang=es", json={"fen": START, "moves": []}).get_json()
    board = chess.Board()
    assert {m["uci"] for m in answer["legal"]} == {m.uci() for m in board.legal_moves}
    assert {m["san"] for m in answer["legal"]} >= {"Cf3", "e4"} and answer["reply"] is None


@pytest.mark.skipif(engine_path() is None, reason="needs Debian's stockfish")
def test_the_engine_replies_legally_at_its_lowest_strength_and_the_rate_is_limited(client):
    moves = ["e2e4"]
    answer = client.post("/play", json={"fen": START, "moves": moves, "elo": 1200})
    assert answer.status_code == 200, answer.get_json()
    data = answer.get_json()
    board = chess.Board()
    board.push_uci("e2e4")
    assert chess.Move.from_uci(data["reply"]["uci"]) in board.legal_moves
    board.push_uci(data["reply"]["uci"])
    assert data["fen"] == board.fen() and data["elo"] >= 1200
    game = chess.pgn.read_game(io.StringIO(data["pgn"]))
    assert [m.uci() for m in game.mainline_moves()] == [m.uci() for m in board.move_stack]
    for _ in range(2):  # PLAY_RATE is 3 requests a minute for this client
        assert client.post("/play", json={"fen": START, "moves": moves}).status_code == 200
    limited = client.post("/play", json={"fen": START, "moves": moves})
    assert limited.status_code == 429 and "PLAY_RATE" in limited.get_json()["error"]


def test_an_engine_that_cannot_start_gives_503_with_the_reason(tmp_path: Path, monkeypatch):
    """An engine that does not answer its handshake within ``PLAY_ENGINE_START``, or cannot run at all,
    gives the learner a 503 saying so (it was a 500 after python-chess's own 10 s), stops the process it
    started, and frees the engine slot for the next request; a path on the server is not shown."""
    import time

    from chesskb.kb.store import open_store
    from chesskb.service.app import create_app

    pids = tmp_path / "pids.txt"
    silent = tmp_path / "silent-engine"
    silent.write_text(f"#!/bin/sh\necho $$ >> {pids}\nexec sleep 60\n", encoding="utf-8")
    silent.chmod(0o755)
    monkeypatch.setenv("CHESSKB_ENGINE", str(silent))
    app = create_app(
        {"STORE": str(tmp_path / "store"), "PLAY_ENGINE_START": 0.5, "PLAY_ENGINES": 1, "QUERY_WORKERS": 0},
        store=open_store(str(tmp_path / "store")),
    )
    client = app.test_client()
    for address in ("10.0.1.1", "10.0.1.2"):  # the second finds the one slot free again
        started = time.monotonic()
        answer = client.post("/play", json={"fen": START, "moves": ["e2e4"]}, **_from(address))
        assert answer.status_code == 503 and answer.headers["Retry-After"]
        assert "PLAY_ENGINE_START" in answer.get_json()["error"]
        assert time.monotonic() - started < 30  # the setting's wait, not python-chess's or the script's
    # each silent engine was stopped, not left running
    assert still_running([int(pid) for pid in pids.read_text().split()], within=10) == []
    silent.chmod(0o644)  # not runnable now
    answer = client.post("/play", json={"fen": START, "moves": ["e2e4"]}, **_from("10.0.1.3"))
    assert answer.status_code == 503 and "could not start" in answer.get_json()["error"]
    assert str(tmp_path) not in answer.get_data(as_text=True)
