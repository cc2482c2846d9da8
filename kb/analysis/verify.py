"""Is a mate claim true? A line that ends in mate proves nothing if the defence had a better move.

Status values stored as ``cp:mateVerification``:

* ``verified-search`` / ``refuted-search`` — decided by the built-in exhaustive search (mates in
  one and two: every defence is tried, so the answer is a proof);
* ``verified-engine`` / ``refuted-engine`` — decided by the UCI engine (any length; as strong as the
  engine's search, which for short mates is exact in practice);
* ``unverified`` — neither could decide (no engine for a longer mate, or the engine gave no answer).

Each claim is decided once (``MateVerifier`` and ``kb.analysis.verify_cache``): copies of a
position, in one import or the next, are answered from the cache. The engine gets ``go mate N`` with
a node budget: a true claim ends the search at the first proven mate (on pychess's 367 true mates in
three, a median of 1,366 nodes and 3 ms), so the budget is spent only where no mate is found, which
is what a refutation needs anyway (a search well past the claimed length).
"""

from __future__ import annotations

import os
from dataclasses import dataclass

import chess
import chess.engine

from chesskb.kb.analysis.engine import Engine
from chesskb.kb.analysis.verify_cache import VerificationCache, claim_key

SEARCH_LIMIT = 2
#: The engine's budget per claim, in nodes, not seconds: with one thread and a cleared hash table a
#: node-limited search gives the same answer on a busy machine as on an idle one, so re-importing a
#: file yields the same statements. Short forced mates are found long before the budget is spent.
ENGINE_NODES = 300_000


def forced_mate_within(board: chess.Board, moves: int, first: chess.Move | None = None) -> bool:
    """The side to move mates within ``moves`` moves whatever the defence (``first`` is tried first)."""
    candidates = list(board.legal_moves)
    if first is not None and first in candidates:
        candidates.remove(first)
        candidates.insert(0, first)
    for move in candidates:
        board.push(move)
        try:
            # One push per move: python-chess's is_checkmate tests check first (cheap), where a
            # gives_check filter would push every checking move twice.
            if board.is_checkmate():
                return True
            if moves == 1:
                continue
            if not board.is_game_over() and all(
                    _defence_loses(board, defence, moves - 1) for defence in list(board.legal_moves)):
                return True
        finally:
            board.pop()
    return False


def _defence_loses(board: chess.Board, defence: chess.Move, moves: int) -> bool:
    board.push(defence)
    try:
        return forced_mate_within(board, moves)
    finally:
        board.pop()


def engine_decider(path: str) -> str:
    """Who decides long claims, as the cache keys them: the engine file (path, size, modification
    time: a new build decides again) and the node budget. Read without starting the engine."""
    try:
        stat = os.stat(path)
        return f"engine:{os.path.realpath(path)}:{stat.st_size}:{stat.st_mtime_ns}:{ENGINE_NODES}"
    except OSError:
        return f"engine:{path}:{ENGINE_NODES}"


@dataclass
class VerifyCounts:
    """What deciding the claims cost: proofs by the built-in search, engine searches, cache answers."""

    searched: int = 0
    engine: int = 0
    cached: int = 0

    def add(self, other: VerifyCounts) -> None:
        self.searched += other.searched
        self.engine += other.engine
        self.cached += other.cached


class MateVerifier:
    """Decides mate claims, each once: the cache first, then the search or the engine.

    ``engine``: who decides claims longer than ``SEARCH_LIMIT`` (``kb.analysis.engine.open_engine``;
    the caller owns it and stops it). Without one such claims stay ``unverified``.

    >>> import chess
    >>> board = chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")   # Ra8 is mate
    >>> MateVerifier().verify(board, 1)
    'verified-search'
    >>> MateVerifier().verify(board, 3)   # longer than the search proves, and no engine
    'unverified'
    """

    def __init__(self, cache: VerificationCache | None = None, *, engine: Engine | None = None) -> None:
        self.cache = cache if cache is not None else VerificationCache(None)
        self.engine = engine
        self.counts = VerifyCounts()

    def take_counts(self) -> VerifyCounts:
        """The counts since the last call (each work unit reports its own)."""
        counts, self.counts = self.counts, VerifyCounts()
        return counts

    def verify(self, board: chess.Board, mate_in: int, first: chess.Move | None = None) -> str:
        """The verification status of the claim "the side to move mates in ``mate_in``"."""
        if mate_in <= SEARCH_LIMIT:
            decider = "search"
        else:
            if self.engine is None:
                return "unverified"
            decider = engine_decider(self.engine.path)
        key = claim_key(board, mate_in, decider)
        status = self.cache.get(key)
        if status is not None:
            self.counts.cached += 1
            return status
        if decider == "search":
            self.counts.searched += 1
            found = forced_mate_within(board.copy(stack=False), mate_in, first)
            status = "verified-search" if found else "refuted-search"
        else:
            self.counts.engine += 1
            status = _engine_status(self.engine, board, mate_in)
        if status != "unverified":
            self.cache.put(key, status)
        return status


def _engine_status(engine: Engine, board: chess.Board, mate_in: int) -> str:
    """The engine's answer: ``go mate N`` with a node budget, which only runs out when no mate is
    found (a true claim stops the search at the first proven mate, typically after a few thousand
    nodes); a refutation needs the search to have gone well past the claimed length."""
    uci = engine.uci()
    try:
        # a new ``game`` per claim makes python-chess send ucinewgame: nothing carries over between claims
        info = uci.analyse(board.copy(stack=False), chess.engine.Limit(mate=mate_in, nodes=ENGINE_NODES),
                           game=object())
    except chess.engine.EngineError:
        return "unverified"
    mate = info["score"].pov(board.turn).mate()
    if mate is not None and 0 < mate <= mate_in:
        return "verified-engine"
    # no mate found: a refutation only if the engine searched well past the claimed length in time
    return "refuted-engine" if info.get("depth", 0) >= 2 * mate_in + 4 else "unverified"


def verify_mate(board: chess.Board, mate_in: int, first: chess.Move | None = None,
                engine: Engine | None = None) -> str:
    """The verification status of the claim "the side to move mates in ``mate_in``" (``engine``:
    see ``MateVerifier``; nothing is cached between calls)."""
    return MateVerifier(engine=engine).verify(board, mate_in, first)
