"""Is a mate claim true? A line that ends in mate proves nothing if the defence had a better move.

Status values stored as ``cp:mateVerification``:

* ``verified-search`` / ``refuted-search`` — decided by the built-in exhaustive search (mates in
  one and two: every defence is tried, so the answer is a proof);
* ``verified-engine`` / ``refuted-engine`` — decided by the UCI engine (any length; as strong as the
  engine's search, which for short mates is exact in practice);
* ``unverified`` — neither could decide (no engine for a longer mate, or the engine gave no answer).
"""

from __future__ import annotations

import chess
import chess.engine

from .engine import EngineMissing, engine_path, shared_engine

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
        if moves == 1 and not board.gives_check(move):
            continue
        board.push(move)
        try:
            if board.is_checkmate():
                return True
            if moves > 1 and not board.is_game_over() and all(
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


def verify_mate(board: chess.Board, mate_in: int, first: chess.Move | None = None,
                use_engine: bool = True) -> str:
    """The verification status of the claim "the side to move mates in ``mate_in``"."""
    if mate_in <= SEARCH_LIMIT:
        found = forced_mate_within(board.copy(stack=False), mate_in, first)
        return "verified-search" if found else "refuted-search"
    if not use_engine or engine_path() is None:
        return "unverified"
    try:
        engine = shared_engine()
    except EngineMissing:
        return "unverified"
    try:
        # a new ``game`` per claim makes python-chess send ucinewgame: nothing carries over between claims
        info = engine.analyse(board.copy(stack=False), chess.engine.Limit(mate=mate_in, nodes=ENGINE_NODES),
                              game=object())
    except chess.engine.EngineError:
        return "unverified"
    mate = info["score"].pov(board.turn).mate()
    if mate is not None and 0 < mate <= mate_in:
        return "verified-engine"
    # no mate found: a refutation only if the engine searched well past the claimed length in time
    return "refuted-engine" if info.get("depth", 0) >= 2 * mate_in + 4 else "unverified"
