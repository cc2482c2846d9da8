"""Is a mate claim true? A line that ends in mate proves nothing if the defence had a better move.

Every claim gets one of three answers, stored as ``cp:mateVerification`` (``kb.analysis.proof``):

* ``proven`` — a solution tree (every legal defence answered, each branch mated within the count),
  found by an exhaustive search over python-chess's moves and checked move by move;
* ``refuted`` — a defence tree: every attacking move has a defence that survives the count;
* ``undecided`` — the node budget ran out first. Never stored as false, never asserted as a mate.

Until issue 32 the values were ``verified-search``/``verified-engine``, ``refuted-search``/``refuted-engine``
and ``unverified``; an engine search that found no mate within its budget was taken as a refutation,
which called true mates false (CHANGELOG.md). The engine (``kb.analysis.engine``) now only proposes
moves to try first; the answer is the same with it, without it, on a busy machine or an idle one.

Each claim is decided once (``MateVerifier`` and ``kb.analysis.verify_cache``): copies of a
position, in one import or the next, are answered from the cache, keyed by ``PROOF_RULE``. An undecided
claim is searched once per ``undecided_rule``, too: the same search (code, budget, the move tried first,
the engine that proposed moves) runs out of budget the same way, so it is not run again; any other search
(a larger budget, another engine, no engine) reads nothing of it and may decide the claim.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
from dataclasses import dataclass
from pathlib import Path

import chess
import chess.engine

from chesskb.kb.analysis import proof as proof_search
from chesskb.kb.analysis.engine import ENGINE_FAILURES, Engine
from chesskb.kb.analysis.proof import (
    NODE_BUDGET,
    PROVEN,
    REFUTED,
    TREE_MAX_NODES,
    UNDECIDED,
    VERDICTS,
    MateProof,
    Verdict,
    prove_mate,
)
from chesskb.kb.analysis.verify_cache import VerificationCache, claim_key

__all__ = ["PROOF_RULE", "PROVEN", "REFUTED", "UNDECIDED", "VERDICTS", "MateVerifier", "VerifyCounts", "verify_mate"]


def proof_rule(budget: int) -> str:
    """The cache's name for the proof rule run with ``budget`` nodes (a larger budget may decide what a
    smaller one left undecided, so each budget has its own answers)."""
    return f"proof-3:{budget}:{TREE_MAX_NODES}"


#: The cache's name for the rule that decides claims (a new rule or budget decides again: answers of an
#: earlier rule, such as the engine's "refuted-engine", are never reused).
PROOF_RULE = proof_rule(NODE_BUDGET)
#: Nodes the engine may search to propose one attacking move (only for three moves or more to go: shorter
#: mates are found faster by python-chess alone than by a round trip to the engine).
PROPOSAL_NODES = 20_000


def _search_sources() -> list[Path] | None:
    """The files whose code decides how a search spends its budget: the search (``kb.analysis.proof``) and
    this module, where the engine's proposals are asked (``EngineProposer``, ``PROPOSAL_NODES``); ``None``
    for a module loaded without a file."""
    if proof_search.__file__ is None:
        return None
    return [Path(proof_search.__file__), Path(__file__)]


@functools.cache
def _search_fingerprint() -> str | None:
    """A digest of the search's code (``_search_sources``): a changed search, or a change in what the engine
    is asked, orders and counts the nodes differently, so it may decide what the old one left undecided.
    ``None`` where a source cannot be read (then undecided verdicts are not cached at all)."""
    sources = _search_sources()
    if sources is None:
        return None
    digest = hashlib.sha256()
    try:
        for source in sources:
            digest.update(source.read_bytes())
    except OSError:
        return None
    return digest.hexdigest()[:16]


def engine_identity(engine: Engine) -> str | None:
    """Which engine proposes moves, as a cache key part: its file (path, size, modification time: an upgraded
    stockfish proposes other moves) and ``PROPOSAL_NODES``; ``None`` when the file cannot be read."""
    try:
        path = os.path.realpath(engine.path)
        stat = os.stat(path)
    except OSError:
        return None
    return f"{path}:{stat.st_size}:{stat.st_mtime_ns}:{PROPOSAL_NODES}"


def undecided_rule(budget: int, first: chess.Move | None, proposer: str | None) -> str | None:
    """The cache's name for the search that left a claim undecided: everything that decides whether the
    budget suffices (the search's code, ``budget``, the move ``first`` tried first, and ``proposer``: the
    engine's ``engine_identity``, or ``None`` for none). ``None`` when the search's code is unknown."""
    fingerprint = _search_fingerprint()
    if fingerprint is None:
        return None
    return f"undecided-1:{fingerprint}:{budget}:{first.uci() if first else '-'}:{proposer or 'no-engine'}"


@dataclass
class VerifyCounts:
    """What deciding the claims cost: proofs searched, of which with the engine's proposals, cache answers."""

    searched: int = 0
    engine: int = 0
    cached: int = 0

    def add(self, other: VerifyCounts) -> None:
        self.searched += other.searched
        self.engine += other.engine
        self.cached += other.cached


class EngineProposer:
    """The engine's first move of a mate in ``k`` or fewer (nothing when it finds none in ``PROPOSAL_NODES``).

    ``failed``: some proposal was not made because the engine failed (or never started): the search then
    ordered its moves partly without the engine, so an undecided answer is not the engine's to cache."""

    def __init__(self, engine: Engine) -> None:
        self.engine = engine
        self.failed = False

    def __call__(self, board: chess.Board, k: int) -> list[chess.Move]:
        if k < 3:
            return []
        if self.engine.failed_to_start:  # one failed start per process, not one per proposal
            self.failed = True
            return []
        try:
            info = self.engine.uci().analyse(
                board.copy(stack=False), chess.engine.Limit(mate=k, nodes=PROPOSAL_NODES), game=object()
            )
        except ENGINE_FAILURES:
            # an engine that failed, or did not start within ``ENGINE_START_SECONDS`` (a loaded
            # machine), proposes nothing: the proof is searched without it, and the game is kept
            self.failed = True
            return []
        pv = info.get("pv") or []
        return pv[:1]


def _encode(proof: MateProof) -> str:
    return json.dumps(
        {
            "verdict": proof.verdict,
            "claimed": proof.claimed,
            "shortest": proof.shortest,
            "minimal": proof.minimal,
            "first": list(proof.first_moves),
            "tree": proof.tree,
        },
        separators=(",", ":"),
    )


def _decode(text: str) -> MateProof | None:
    try:
        data = json.loads(text)
        return MateProof(
            data["verdict"], data["claimed"], data["shortest"], data["minimal"], tuple(data["first"]), data["tree"]
        )
    except (ValueError, KeyError, TypeError):
        return None  # an entry of an earlier rule or a damaged one: decide again


class MateVerifier:
    """Decides mate claims, each once: the cache first, then the proof search (``kb.analysis.proof``).

    ``engine``: proposes attacking moves to the search (``kb.analysis.engine.open_engine``; the caller
    owns it and stops it). It changes how fast a proof is found, never the verdict.

    >>> import chess
    >>> board = chess.Board("6k1/5ppp/8/8/8/8/8/R5K1 w - - 0 1")   # Ra8 is mate
    >>> MateVerifier().verify(board, 1)
    'proven'
    >>> MateVerifier().decide(board, 3).shortest   # true as "within three"; its exact length is one
    1
    """

    def __init__(
        self, cache: VerificationCache | None = None, *, engine: Engine | None = None, budget: int = NODE_BUDGET
    ) -> None:
        self.cache = cache if cache is not None else VerificationCache(None)
        self.engine = engine
        self.budget = budget
        self.counts = VerifyCounts()

    def take_counts(self) -> VerifyCounts:
        """The counts since the last call (each work unit reports its own)."""
        counts, self.counts = self.counts, VerifyCounts()
        return counts

    def decide(self, board: chess.Board, mate_in: int, first: chess.Move | None = None) -> MateProof:
        """What is proven about "the side to move mates within ``mate_in``" (``first``: tried first).

        A decided answer is read under the proof rule of this budget (``proof_rule``); an undecided one only
        under the name of the very search this call would run (``undecided_rule``)."""
        key = claim_key(board, mate_in, proof_rule(self.budget))
        uses_engine = self.engine is not None and mate_in >= 3
        undecided_key = None
        proof = self._cached(key)
        if proof is None:
            undecided_key = self._undecided_key(board, mate_in, first, uses_engine)
            if undecided_key is not None:
                proof = self._cached(undecided_key, UNDECIDED)
        if proof is not None:
            self.counts.cached += 1
            return proof
        self.counts.searched += 1
        proposer = None
        if uses_engine:
            assert self.engine is not None
            proposer = EngineProposer(self.engine)
        proof = prove_mate(board, mate_in, first, budget=self.budget, proposer=proposer)
        engine_failed = proposer is not None and proposer.failed
        if proposer is not None and not engine_failed:  # an engine that never answered did not help
            self.counts.engine += 1
        if proof.verdict != UNDECIDED:
            self.cache.put(key, _encode(proof))
        elif undecided_key is not None and not engine_failed:
            self.cache.put(undecided_key, _encode(proof))
        return proof

    def _cached(self, key: str, verdict: Verdict | None = None) -> MateProof | None:
        """The proof the cache holds under ``key`` (only one with ``verdict``, when given)."""
        cached = self.cache.get(key)
        proof = _decode(cached) if cached is not None else None
        return proof if proof is not None and verdict in (None, proof.verdict) else None

    def _undecided_key(
        self, board: chess.Board, mate_in: int, first: chess.Move | None, uses_engine: bool
    ) -> str | None:
        """The key of this search's undecided answer, or ``None`` when what decides it cannot be named."""
        proposer = None
        if uses_engine:
            assert self.engine is not None
            proposer = engine_identity(self.engine)
            if proposer is None:
                return None
        rule = undecided_rule(self.budget, first, proposer)
        return claim_key(board, mate_in, rule) if rule is not None else None

    def verify(self, board: chess.Board, mate_in: int, first: chess.Move | None = None) -> Verdict:
        """The verdict alone: ``proven``, ``refuted`` or ``undecided``."""
        return self.decide(board, mate_in, first).verdict


def verify_mate(
    board: chess.Board, mate_in: int, first: chess.Move | None = None, engine: Engine | None = None
) -> Verdict:
    """The verdict on "the side to move mates within ``mate_in``" (``engine``: see ``MateVerifier``;
    nothing is cached between calls)."""
    return MateVerifier(engine=engine).verify(board, mate_in, first)
