"""Playing on against the engine from any position (seed 001): ``POST /play``.

The browser sends the start FEN, the moves played so far (UCI) and the strength it wants; the
server checks every move with python-chess and, when it is the engine's turn, asks Stockfish for
one move at a limited strength (``UCI_LimitStrength``/``UCI_Elo``). The answer carries the new
position, the learner's legal moves (UCI, SAN in English and the page's language) and the game as
PGN, so the script needs no chess library.

The cost a stranger can cause is bounded by named settings, under the same rules as the query
executor (``service.executor``): ``PLAY_MOVETIME`` (seconds of engine time per move),
``PLAY_ENGINES`` (engine processes, each used by one request at a time: the total worker cap),
``PLAY_CLIENT_MOVES`` (requests one client address has in progress at once; more get 429 with
Retry-After), ``PLAY_SEATS`` and ``PLAY_SEAT_IDLE`` (games played on at once: a learner already
playing keeps a seat against newcomers, ``Seats``), ``PLAY_QUEUE`` (requests waiting for a free
engine at once; more get 503 with Retry-After, so engine requests never hold all of the server's
request threads), ``PLAY_WAIT`` (seconds a request waits in that queue, then 503 with Retry-After),
``PLAY_RATE`` (requests per client address per minute, with or without an engine reply; more get
429 with Retry-After), ``PLAY_ENGINE_START`` (seconds an engine may take to start; one that does not,
or cannot run, gives 503 with the reason) and ``PLAY_MAX_PLIES`` (longest game accepted).
Debian's Stockfish 15.1 accepts ``UCI_Elo`` from 1350 only: a lower wish plays at the engine's
minimum, and the answer says which strength was used.
"""

from __future__ import annotations

import atexit
import contextlib
import datetime
import io
import logging
import math
import os
import threading
import time
from collections import deque
from typing import Any

import chess
import chess.engine
import chess.pgn
from flask import Blueprint, Response, current_app, jsonify, request

from chesskb.kb.analysis.engine import ENGINE_FAILURES, engine_path

from .boards import legal_moves
from .errors import ServiceError
from .executor import ClientLimiter
from .i18n import current_lang, localise_san

bp = Blueprint("play", __name__)
blueprint = bp
_log = logging.getLogger(__name__)

#: Strengths offered on the pages (the engine's own range clamps them).
ELO_CHOICES = (1350, 1500, 1800, 2100, 2400, 2800)  # 1350: the lowest Debian's Stockfish 15.1 plays


class EnginePool:
    """``size`` Stockfish processes, started on first use; one request uses one at a time.

    A request that finds every engine busy waits at most ``wait`` seconds, and at most ``queue``
    requests wait at once (PLAY_QUEUE): the others are told to come back at once (503 with
    Retry-After) instead of holding a server thread each."""

    def __init__(self, size: int, queue: int = 4, start: float = 10.0) -> None:
        self.free: deque[chess.engine.SimpleEngine] = deque()
        self.start = start  # seconds an engine may take to start and answer its handshake (PLAY_ENGINE_START)
        self.started = 0
        self.size = max(1, size)
        self.queue = max(0, queue)
        self.waiting = 0
        self.lock = threading.Lock()
        self.available = threading.Semaphore(self.size)
        self.owner = os.getpid()  # engines belong to this process, not to children forked from it

    def _wait_for_engine(self, wait: float) -> None:
        if self.available.acquire(blocking=False):
            return
        with self.lock:
            if self.waiting >= self.queue:
                raise ServiceError(
                    503,
                    f"every engine is busy and {self.waiting} requests already wait "
                    "(setting PLAY_QUEUE): try again in a moment",
                    headers={"Retry-After": "2"},
                )
            self.waiting += 1
        try:
            got = self.available.acquire(timeout=wait)
        finally:
            with self.lock:
                self.waiting -= 1
        if not got:
            raise ServiceError(
                503,
                f"the engine stayed busy for {wait:g} s (setting PLAY_WAIT): try again in a moment",
                headers={"Retry-After": "2"},
            )

    def acquire(self, wait: float) -> chess.engine.SimpleEngine:
        self._wait_for_engine(wait)
        try:
            with self.lock:
                if self.free:
                    return self.free.popleft()
                self.started += 1
            path = engine_path()
            if path is None:
                raise ServiceError(503, "playing on needs a UCI engine on the server (Debian's 'stockfish')")
            return self._start(path)
        except BaseException:
            with self.lock:
                self.started -= 1
            self.available.release()
            raise

    def _start(self, path: str) -> chess.engine.SimpleEngine:
        """A new engine, or 503 saying why it is not there (the learner's request is not a server fault)."""
        engine = None
        try:
            engine = chess.engine.SimpleEngine.popen_uci(path, timeout=self.start)
            engine.configure({"Threads": 1, "Hash": 16})
            return engine
        except ENGINE_FAILURES as exc:
            if engine is not None:
                engine.close()
            if isinstance(exc, TimeoutError):
                reason = f"did not answer within {self.start:g} s (setting PLAY_ENGINE_START)"
            else:  # the details (a path on the server, an OS error) are for its log, not for a visitor
                _log.error("the 'Play on' engine %s could not start: %s", path, exc)
                reason = "could not start (the server's log says why)"
            raise ServiceError(503, f"the engine {reason}", headers={"Retry-After": "5"}) from None

    def release(self, engine: chess.engine.SimpleEngine, broken: bool = False) -> None:
        with self.lock:
            if broken:
                self.started -= 1
            else:
                self.free.append(engine)
        if broken:
            with contextlib.suppress(Exception):
                engine.quit()
        self.available.release()

    def close(self) -> None:
        if os.getpid() != self.owner:
            # A process forked from the server (an import's worker pool) inherits this shutdown hook
            # but not the engines' I/O threads: quitting them there would wait for ever.
            return
        with self.lock:
            while self.free:
                with contextlib.suppress(Exception):
                    self.free.popleft().quit()


class RateLimit:
    """At most ``per_minute`` events per key in any 60 s (a sliding window of timestamps)."""

    def __init__(self, per_minute: int) -> None:
        self.per_minute = per_minute
        self.seen: dict[str, deque[float]] = {}
        self.lock = threading.Lock()

    def retry_after(self, key: str) -> int:
        """0 when ``key`` may have one more event now (and it is counted), else the whole seconds
        until the oldest event in its window expires (the Retry-After of a 429)."""
        now = time.monotonic()
        with self.lock:
            if len(self.seen) > 10000:  # forget idle clients rather than grow without end
                self.seen = {k: v for k, v in self.seen.items() if v and now - v[-1] < 60}
            times = self.seen.setdefault(key, deque())
            while times and now - times[0] >= 60:
                times.popleft()
            if len(times) >= self.per_minute:
                return max(1, math.ceil(60 - (now - times[0])))
            times.append(now)
            return 0


class Seats:
    """The games being played on: at most ``count`` addresses at once (PLAY_SEATS), each keeping its
    seat while it sends a request at least every ``idle`` seconds (PLAY_SEAT_IDLE).

    The engine is shared by everyone who plays; without seats, newcomers within their own rate take
    turns from a learner in the middle of a game until most of the learner's moves are refused. With
    seats, a learner already playing keeps a place, and a newcomer is told at once that every seat is
    taken (503 with Retry-After) instead of competing for the engine. Choose PLAY_SEATS so that
    PLAY_SEATS x PLAY_MOVETIME x PLAY_RATE / 60 stays below PLAY_ENGINES: then every seated learner's
    reply finds an engine even when all play at their full rate."""

    def __init__(self, count: int, idle: float) -> None:
        self.count = max(1, count)
        self.idle = idle
        self.last_seen: dict[str, float] = {}
        self.lock = threading.Lock()

    def take(self, client: str) -> int:
        """0 when ``client`` has (or now gets) a seat, else the whole seconds until one may free."""
        now = time.monotonic()
        with self.lock:
            for other, seen in list(self.last_seen.items()):
                if now - seen >= self.idle:
                    del self.last_seen[other]
            if client in self.last_seen or len(self.last_seen) < self.count:
                self.last_seen[client] = now
                return 0
            return max(1, math.ceil(min(self.last_seen.values()) + self.idle - now))


def _pool() -> EnginePool:
    ext = current_app.extensions
    with _SETUP:
        if "chesskb.play_pool" not in ext:
            config = current_app.config
            started = ext["chesskb.play_pool"] = EnginePool(
                int(config["PLAY_ENGINES"]), int(config["PLAY_QUEUE"]), float(config["PLAY_ENGINE_START"])
            )
            # python-chess talks to each engine from a non-daemon thread, which the interpreter joins
            # *before* ordinary atexit hooks: stop the engines at threading's own shutdown hook.
            register = getattr(threading, "_register_atexit", None)
            (register or atexit.register)(started.close)
            ext["chesskb.play_rate"] = RateLimit(int(config["PLAY_RATE"]))
            ext["chesskb.play_clients"] = ClientLimiter(
                max(1, int(config["PLAY_CLIENT_MOVES"])),
                setting="PLAY_CLIENT_MOVES",
                what="'Play on' requests",
                retry_after=1,
            )
            ext["chesskb.play_seats"] = Seats(int(config["PLAY_SEATS"]), float(config["PLAY_SEAT_IDLE"]))
    pool: EnginePool = ext["chesskb.play_pool"]  # Flask's extensions are untyped
    return pool


_SETUP = threading.Lock()


def _elo_range(engine: chess.engine.SimpleEngine) -> tuple[int, int] | None:
    option = engine.options.get("UCI_Elo")
    if option is None or option.min is None or option.max is None:
        return None
    return int(option.min), int(option.max)


def _board(fen: str, moves: list[str], max_plies: int) -> tuple[chess.Board, chess.pgn.Game]:
    if len(moves) > max_plies:
        raise ServiceError(400, f"a game of more than {max_plies} plies is not accepted (PLAY_MAX_PLIES)")
    try:
        board = chess.Board(fen)
    except ValueError as exc:
        raise ServiceError(400, f"invalid FEN {fen!r}: {exc}") from None
    if not board.is_valid():
        raise ServiceError(400, f"not a legal position: {fen!r}")
    game = chess.pgn.Game()
    game.setup(board)
    node: chess.pgn.GameNode = game
    for index, text in enumerate(moves):
        try:
            move = chess.Move.from_uci(str(text))
        except ValueError:
            raise ServiceError(400, f"move {index + 1} is not a UCI move: {text!r}") from None
        if move not in board.legal_moves:
            raise ServiceError(400, f"move {index + 1} ({text}) is not legal in {board.fen()}")
        board.push(move)
        node = node.add_variation(move)
    return board, game


def _pgn(game: chess.pgn.Game, board: chess.Board, elo: int | None, learner: chess.Color) -> str:
    game.headers["Event"] = "Played on against the engine"
    game.headers["Site"] = request.host_url.rstrip("/")
    game.headers["Date"] = datetime.date.today().strftime("%Y.%m.%d")
    engine_name = f"Stockfish ({elo} Elo)" if elo else "Stockfish"
    game.headers["White"] = "Learner" if learner == chess.WHITE else engine_name
    game.headers["Black"] = engine_name if learner == chess.WHITE else "Learner"
    game.headers["Result"] = board.result(claim_draw=True) if board.is_game_over(claim_draw=True) else "*"
    out = io.StringIO()
    game.accept(chess.pgn.FileExporter(out, headers=True, comments=False, variations=False))
    return out.getvalue().strip() + "\n"


def _over(board: chess.Board) -> str | None:
    outcome = board.outcome(claim_draw=True)
    return outcome.termination.name.lower() if outcome else None


def _counted(client: str) -> None:
    """Every ``/play`` request, with or without an engine reply, counts against the client's rate."""
    config = current_app.config
    wait = current_app.extensions["chesskb.play_rate"].retry_after(client)
    if wait:
        raise ServiceError(
            429,
            f"too many 'Play on' requests from this address (PLAY_RATE: {config['PLAY_RATE']} a minute)",
            headers={"Retry-After": str(wait)},
        )


def _engine_move(board: chess.Board, wanted: int, client: str) -> tuple[chess.Move, int | None]:
    """The engine's reply at the strength wanted (clamped to the engine's range, which is returned),
    under the play limits: a seat among the games being played, then a free engine."""
    config = current_app.config
    pool = _pool()
    wait = current_app.extensions["chesskb.play_seats"].take(client)
    if wait:
        raise ServiceError(
            503,
            f"every seat for playing on is taken ({config['PLAY_SEATS']} games at once, "
            "setting PLAY_SEATS): try again later",
            headers={"Retry-After": str(wait)},
        )
    engine = pool.acquire(float(config["PLAY_WAIT"]))
    broken = False
    used: int | None = None
    try:
        span = _elo_range(engine)
        options: dict[str, Any] = {}
        if span is not None:
            used = min(max(wanted, span[0]), span[1])
            options = {"UCI_LimitStrength": True, "UCI_Elo": used}
        result = engine.play(board, chess.engine.Limit(time=float(config["PLAY_MOVETIME"])), options=options)
    except chess.engine.EngineError as exc:
        broken = True
        raise ServiceError(503, f"the engine failed: {exc}", headers={"Retry-After": "2"}) from None
    except chess.engine.EngineTerminatedError:
        broken = True
        raise ServiceError(503, "the engine stopped unexpectedly", headers={"Retry-After": "2"}) from None
    finally:
        pool.release(engine, broken)
    if result.move is None:
        raise ServiceError(503, "the engine gave no move")
    return result.move, used


@bp.route("/play", methods=["POST"])
def play() -> Response:
    """One step of a game against the engine (see the module docstring for the JSON shapes); every
    request, whatever it asks, runs under the client's share and rate."""
    _pool()
    client = request.remote_addr or "?"
    with current_app.extensions["chesskb.play_clients"].slot(client):
        _counted(client)
        return _step(client)


def _step(client: str) -> Response:
    body = request.get_json(silent=True)
    if (
        not isinstance(body, dict)
        or not isinstance(body.get("fen"), str)
        or not isinstance(body.get("moves", []), list)
    ):
        raise ServiceError(400, 'send JSON {"fen": "…", "moves": ["e2e4", …], "elo": 1350}')
    config = current_app.config
    lang = current_lang()
    board, game = _board(body["fen"], body.get("moves", []), int(config["PLAY_MAX_PLIES"]))
    learner = chess.Board(body["fen"]).turn
    try:
        wanted = int(body.get("elo") or config["PLAY_ELO"])
    except (TypeError, ValueError, OverflowError):  # OverflowError: "elo": Infinity (Python's JSON reads it)
        raise ServiceError(400, f"elo must be a number, not {body.get('elo')!r}") from None
    reply: dict[str, Any] | None = None
    used: int | None = None
    if board.turn != learner and not board.is_game_over(claim_draw=True):
        move, used = _engine_move(board, wanted, client)
        san = board.san(move)
        reply = {
            "uci": move.uci(),
            "san": localise_san(san, lang),
            "san_en": san,
            "number": f"{board.fullmove_number}{'.' if board.turn == chess.WHITE else '...'}",
        }
        board.push(move)
        node: chess.pgn.GameNode = game
        while node.variations:
            node = node.variations[0]
        node.add_variation(move)
    over = _over(board)
    return jsonify(
        {
            "fen": board.fen(),
            "reply": reply,
            "elo": used,
            "over": over,
            "result": board.result(claim_draw=True) if over else None,
            "legal": [] if over or board.turn != learner else legal_moves(board, lang),
            "pgn": _pgn(game, board, used, learner),
        }
    )


@bp.route("/play/options")
def play_options() -> Response:
    """Strengths offered and the default (the engine's own minimum is only known once it runs)."""
    return jsonify(
        {
            "choices": list(ELO_CHOICES),
            "default": int(current_app.config["PLAY_ELO"]),
            "movetime": float(current_app.config["PLAY_MOVETIME"]),
            "engine": engine_path() is not None,
        }
    )
