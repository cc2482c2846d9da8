"""``POST /play`` under its named limits, as real HTTP against a live ``chesskb serve`` with the real
Stockfish: one client's share (PLAY_CLIENT_MOVES, 429 with Retry-After), the engine cap and its queue
(PLAY_ENGINES, PLAY_QUEUE, PLAY_WAIT: 503 with Retry-After, at once when the queue is full), the rate
per client over every request (PLAY_RATE: 429 with the seconds left) and the move time; other
visitors' pages keep answering while the engine is busy; a learner already playing keeps a seat
(PLAY_SEATS) while newcomers hammer the engine."""

from __future__ import annotations

import json
import time
from concurrent.futures import ThreadPoolExecutor

import chess
import pytest

from chesskb.kb.analysis.engine import engine_path
from tests.live_server import http, live_server

pytestmark = pytest.mark.skipif(engine_path() is None, reason="needs Debian's stockfish")

MOVETIME = 1.5
WAIT = 0.5
#: White has played e4: every request asks the engine for Black's reply.
BODY = json.dumps({"fen": chess.STARTING_FEN, "moves": ["e2e4"], "elo": 1500}).encode()


@pytest.fixture(scope="module")
def server(tmp_path_factory):
    store = tmp_path_factory.mktemp("play-limits") / "store"
    with live_server(
        store,
        "--play-engines",
        "1",
        "--play-movetime",
        str(MOVETIME),
        "--play-queue",
        "1",
        "--play-wait",
        str(WAIT),
        "--play-client-moves",
        "1",
        "--play-rate",
        "2",
        "--play-seats",
        "8",
    ) as base:
        yield base


def ask(base: str, source: str) -> tuple[int, dict[str, str], dict, float]:
    started = time.monotonic()
    status, headers, body = http(
        "POST",
        base + "/play",
        body=BODY,
        source=source,
        timeout=30,
        headers={"Content-Type": "application/json", "Accept": "application/json"},
    )
    return status, headers, json.loads(body), time.monotonic() - started


def test_one_engine_one_share_per_client_a_short_queue_and_the_site_keeps_answering(server):
    warm = ask(server, "127.0.0.9")  # starts the engine process, so the timings below are the engine's
    assert warm[0] == 200, warm

    with ThreadPoolExecutor(4) as pool:
        first = pool.submit(ask, server, "127.0.0.1")
        time.sleep(0.4)  # the engine is now thinking for client .1 (MOVETIME seconds)
        same_client = pool.submit(ask, server, "127.0.0.1")
        others = [pool.submit(ask, server, address) for address in ("127.0.0.2", "127.0.0.3")]
        time.sleep(0.1)
        started = time.monotonic()
        page = http("GET", server + "/", headers={"Accept": "text/html"}, source="127.0.0.5")
        page_seconds = time.monotonic() - started
        status, headers, answer, seconds = same_client.result()
        assert status == 429 and "PLAY_CLIENT_MOVES" in answer["error"] and headers["retry-after"] == "1"
        assert seconds < 1
        refused = sorted((r.result() for r in others), key=lambda r: r[3])
        result = first.result()

    # The engine answered its one client with a legal move after thinking about MOVETIME seconds.
    assert result[0] == 200, result
    board = chess.Board()
    board.push_uci("e2e4")
    assert chess.Move.from_uci(result[2]["reply"]["uci"]) in board.legal_moves
    assert MOVETIME * 0.8 <= result[3] < MOVETIME + 5
    # Of the two other clients, one found the queue (PLAY_QUEUE = 1) full and was told so at once; the
    # other waited PLAY_WAIT seconds for the engine, which was still busy; both may retry.
    (fast, fast_headers, fast_answer, fast_seconds), (slow, slow_headers, slow_answer, slow_seconds) = [
        (r[0], r[1], r[2], r[3]) for r in refused
    ]
    assert fast == 503 and "PLAY_QUEUE" in fast_answer["error"] and fast_seconds < WAIT, refused
    assert slow == 503 and "PLAY_WAIT" in slow_answer["error"] and slow_seconds >= WAIT * 0.9, refused
    assert fast_headers["retry-after"] and slow_headers["retry-after"]
    # A visitor's page needs no engine and did not wait for it.
    assert page[0] == 200 and page_seconds < MOVETIME, page_seconds


def test_the_rate_per_client_says_when_to_come_back(server):
    for _ in range(2):  # PLAY_RATE is 2 engine replies a minute
        status, _, answer, _ = ask(server, "127.0.0.6")
        assert status == 200, answer
    status, headers, answer, seconds = ask(server, "127.0.0.6")
    assert status == 429 and "PLAY_RATE" in answer["error"] and seconds < 1
    assert 1 <= int(headers["retry-after"]) <= 60
    # the learner's own turn needs no engine, but counts all the same (issue 35: such requests bypassed
    # every limit, 38 a second from one address)
    status, headers, answer, _ = http_learner_turn(server, "127.0.0.6")
    assert status == 429 and "PLAY_RATE" in answer["error"] and int(headers["retry-after"]) >= 1
    status, _, answer, _ = http_learner_turn(server, "127.0.0.16")  # a fresh address: its turn, no engine
    assert status == 200 and answer["reply"] is None and answer["legal"]


def http_learner_turn(base: str, source: str) -> tuple[int, dict[str, str], dict, float]:
    body = json.dumps({"fen": chess.STARTING_FEN, "moves": []}).encode()
    status, headers, data = http(
        "POST", base + "/play", body=body, source=source, headers={"Content-Type": "application/json"}
    )
    return status, headers, json.loads(data), 0.0


def _game_move(base: str, source: str, moves: list[str]) -> tuple[int, dict]:
    body = json.dumps({"fen": chess.STARTING_FEN, "moves": moves, "elo": 1500}).encode()
    status, _, data = http(
        "POST", base + "/play", body=body, source=source, timeout=30, headers={"Content-Type": "application/json"}
    )
    return status, json.loads(data)


def test_a_learner_already_playing_keeps_a_seat_against_newcomers(small_store):
    """A learner plays a whole game of ten moves while five other addresses, each within its rate,
    ask the engine as fast as it lets them: every move of the learner is answered; newcomers beyond
    the seats are told at once (503, PLAY_SEATS, Retry-After)."""
    import threading

    with live_server(
        small_store,
        "--play-engines",
        "1",
        "--play-movetime",
        "0.1",
        "--play-seats",
        "2",
        "--play-rate",
        "60",
        "--play-queue",
        "4",
        "--play-wait",
        "5",
    ) as base:
        first, _ = _game_move(base, "127.0.2.1", ["e2e4"])
        assert first == 200
        stop = threading.Event()
        newcomers: list[tuple[int, str]] = []

        def hammer(source: str) -> None:
            while not stop.is_set():
                started = time.monotonic()
                status, _headers, data = http(
                    "POST",
                    base + "/play",
                    body=BODY,
                    source=source,
                    timeout=30,
                    headers={"Content-Type": "application/json"},
                )
                newcomers.append((status, json.loads(data).get("error", "") if status != 200 else ""))
                time.sleep(max(0.0, 1.0 - (time.monotonic() - started)))  # within PLAY_RATE (60 a minute)

        threads = [threading.Thread(target=hammer, args=(f"127.0.3.{n}",)) for n in range(1, 6)]
        for thread in threads:
            thread.start()
        time.sleep(1)
        board = chess.Board()
        moves: list[str] = []
        statuses = []
        try:
            for _ in range(10):
                move = next(iter(board.legal_moves))
                board.push(move)
                moves.append(move.uci())
                status, answer = _game_move(base, "127.0.2.1", moves)
                statuses.append(status)
                if status != 200 or answer["over"]:
                    break
                board.push_uci(answer["reply"]["uci"])
                moves.append(answer["reply"]["uci"])
        finally:
            stop.set()
            for thread in threads:
                thread.join(30)
        assert statuses and set(statuses) == {200}, statuses
        refused = [error for status, error in newcomers if status == 503]
        assert refused and all("PLAY_SEATS" in error for error in refused), newcomers[:10]
