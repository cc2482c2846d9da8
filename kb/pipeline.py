"""The import pipeline in batches: read → analyse → map, in this process or in workers.

A file is cut into *work units* (``kb.reading.units``: a few dozen PGN game segments or CSV rows,
with the game numbers they start at), cheap to make because nothing is parsed yet. ``process_unit``
turns a unit into N-Quads bytes plus findings; it is pure, so units run in ``jobs`` worker processes
(one for ``jobs`` 1, so its address-space cap applies too) while the importer's process only loads
the results. Results come back in file order, and at most a few units per worker are in flight, so
memory stays flat however large the file. With ``PipelineSettings.parts`` (``convert --parts``) a unit's
statements do not come back at all: the worker writes them to a part file named by the unit's content
(``part_name``), its only side effect, the same whenever and wherever the unit runs again.
"""

from __future__ import annotations

import hashlib
import multiprocessing
import multiprocessing.util
import os
from collections import OrderedDict, deque
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from multiprocessing.pool import AsyncResult, Pool
from pathlib import Path

import chess
from pyoxigraph import NamedNode, Quad, RdfFormat, Triple

from chesskb.kb.analysis import PositionAnalysis, analyse
from chesskb.kb.analysis.engine import MISSING_MESSAGE, Engine, EngineMissing, die_with_parent
from chesskb.kb.analysis.exercises import ThemeAssessment, assess_themes, is_exercise
from chesskb.kb.analysis.mining import mine_game
from chesskb.kb.analysis.verify import MateVerifier, VerifyCounts
from chesskb.kb.analysis.verify_cache import VerificationCache
from chesskb.kb.findings import Finding
from chesskb.kb.mapping.game import MappingContext, MinedPosition, record_quads
from chesskb.kb.mapping.iris import IriMinter
from chesskb.kb.merge.freshness import code_fingerprint
from chesskb.kb.reading.memory import READER_MEMORY_BYTES, cap_address_space
from chesskb.kb.reading.records import GameRecord
from chesskb.kb.reading.units import WorkUnit, unit_records
from chesskb.kb.store import layout
from chesskb.kb.store.base import SerializedBatch, Term, rdf_bytes
from chesskb.kb.store.nquads_parts import WrittenPart, graph_names, part_bytes, write_part
from chesskb.kb.vocab import CP, RDF, RDFS, text_of
from chesskb.queries.class_counts import COUNTED_CLASSES

#: Units in flight per worker before the reader waits (bounds memory).
IN_FLIGHT_PER_JOB = 4


@dataclass(frozen=True)
class PipelineSettings:
    """What every worker needs to map games the same way as the importer's process."""

    base_iri: str
    user_themes: tuple[str, ...] = ()
    lang: str | None = None
    mine: bool = False
    #: the verification cache's file (``kb.analysis.verify_cache``), None for one in memory only
    verify_cache: str | None = None
    #: also send back what links and class counts are computed from (``kb.export.convert``: no store to ask)
    collect: bool = False
    #: the UCI engine's path (``kb.analysis.engine``), None for none: the importer's process and each
    #: worker open their own from it, start it on first use and stop it when they end
    engine: str | None = None
    #: the address space each worker may add after it starts (``kb.reading.memory``); 0 for no cap
    reader_memory: int = READER_MEMORY_BYTES
    #: a folder every worker can write (``convert --parts``): each unit's statements go into a part
    #: file there (``kb.store.nquads_parts``) instead of back to the importer's process; None: sent back
    parts: str | None = None


@dataclass
class UnitResult:
    batch: SerializedBatch | None = None
    findings: list[Finding] = field(default_factory=list)
    games: int = 0
    quads: int = 0
    #: Who the unit's statements describe, for the per-source counts the importer writes into the
    #: meta graph (so ``chesskb sources`` and the ``sources`` query read three numbers instead of
    #: scanning the store): 64-bit digests of match and position IRIs, player IRIs as text.
    matches: set[int] = field(default_factory=set)
    positions: set[int] = field(default_factory=set)
    players: set[str] = field(default_factory=set)
    #: mate claims decided while processing the unit, for the importer's cache, and what it cost
    verified: list[tuple[str, str]] = field(default_factory=list)
    verify_counts: VerifyCounts = field(default_factory=VerifyCounts)
    #: with ``collect``: members (64-bit digests) of each counted class, and the statements about
    #: players and events the links are decided from (N-Triples)
    members: dict[str, set[int]] = field(default_factory=dict)
    evidence: bytes = b""
    #: with ``parts``: the part file the unit's statements were written to (None: the unit had none)
    part: WrittenPart | None = None


def _digest64(text: str) -> int:
    return int.from_bytes(hashlib.blake2b(text.encode(), digest_size=8).digest(), "big")


def _count_individuals(quads: Iterable[Quad], result: UnitResult, minter: IriMinter) -> None:
    for quad in quads:
        if quad.predicate != _RDF_TYPE:
            continue
        if quad.object == _MATCH:
            result.matches.add(_digest64(text_of(quad.subject)))
        elif quad.object == _POSITION:
            result.positions.add(_digest64(text_of(quad.subject)))
        elif quad.object == _PLAYER and not minter.is_placeholder(quad.subject):
            result.players.add(text_of(quad.subject))


_RDF_TYPE, _MATCH, _POSITION, _PLAYER = RDF.type, CP.Match, CP.Position, CP.Player
_COUNTED: dict[Term, str] = {CP.term(name): name for name in COUNTED_CLASSES}  # looked up by any object
_NAMING = frozenset(CP.term(name) for name in ("nameKey", "fideId", "eventName", "site", "eventYear")) | {
    RDFS.label,
    RDF.type,
}
_GAME_EVENT = frozenset((CP.hasEvent, CP.year))
_NAMED = ("player", "event")  # the individuals whose naming statements linking reads


def collect_evidence(quads: Iterable[Quad], result: UnitResult, base: str) -> None:
    """What ``kb.merge.linking`` and ``queries.class_counts`` read from a store, for ``convert`` to compute them
    without one: class members as digests, and the naming statements of players and events."""
    minter = IriMinter(base)
    evidence = []
    for quad in quads:
        if quad.predicate == _RDF_TYPE and quad.object in _COUNTED:
            result.members.setdefault(_COUNTED[quad.object], set()).add(_digest64(text_of(quad.subject)))
        if quad.predicate in _GAME_EVENT or (quad.predicate in _NAMING and minter.kind_of(quad.subject) in _NAMED):
            evidence.append(quad.triple)
    result.evidence = rdf_bytes(evidence, RdfFormat.N_TRIPLES) if evidence else b""


def default_jobs() -> int:
    return max(1, os.cpu_count() or 1)


def process_unit(unit: WorkUnit, settings: PipelineSettings, verifier: MateVerifier | None = None) -> UnitResult:
    """Read, analyse and map one unit. Never raises: every problem is a finding.

    ``verifier`` decides mate claims (``UnitProcessor``'s or a worker's, with their engine; by default
    one in memory without an engine: the same verdicts, found without its proposals); the claims it
    decided come back in ``verified`` for the importer to keep. With ``settings.parts`` the statements
    are written to the unit's part file (``part_name``; ``PartNotWritten`` when that fails) instead of
    coming back in ``batch``.
    """
    verifier = verifier if verifier is not None else MateVerifier()
    result = UnitResult()
    ctx = MappingContext(IriMinter(settings.base_iri), unit.source, settings.user_themes)
    quads = []
    for item in unit_records(unit, settings.lang):
        if isinstance(item, Finding):
            result.findings.append(item)
            continue
        try:
            exercise = is_exercise(item, settings.user_themes)
            analysis = _MEMO.analyse_record(item, verifier, exercise=exercise)
            themes = assess_themes(item, analysis, settings.user_themes, verifier=verifier, exercise=exercise)
            mined = _mine(item, verifier) if settings.mine and item.puzzle is None else ()
            record = record_quads(item, analysis, ctx, mined, themes)
        except Exception as exc:  # a detector or mapping bug, or a game too large, costs this game only
            why = (
                f"{type(exc).__name__}: {exc}"
                if not isinstance(exc, MemoryError)
                else "it needs more memory than an import worker may take, READER_MEMORY_BYTES"
            )
            result.findings.append(
                Finding(
                    "error",
                    "analysis-failed",
                    f"analysis failed ({why}); game skipped",
                    file=item.location.file,
                    game=item.location.game_number,
                    line=item.location.line,
                )
            )
            continue
        quads.extend(record)
        result.findings.extend(_refuted_claims(item, themes))
        result.games += 1
    result.quads = len(quads)
    result.verified = verifier.cache.take_new()
    result.verify_counts = verifier.take_counts()
    if settings.collect:
        collect_evidence(quads, result, settings.base_iri)
    if settings.parts is not None:
        _count_individuals(quads, result, ctx.minter)
        # a function of the unit alone (not of what this process sent before): a rerun writes the same part
        if quads:
            result.part = write_part(
                Path(settings.parts), part_name(unit, settings), part_bytes(quads), graph_names(quads)
            )
        return result
    fresh = _SENT.fresh(quads)
    # a statement dropped as sent before was counted with the earlier unit that sent it: the same
    # graph, so the same source, whose counts are the union of its units' (a copied game costs nothing)
    _count_individuals(fresh, result, ctx.minter)
    if fresh:
        result.batch = serialized_batch(fresh)
    return result


def part_name(unit: WorkUnit, settings: PipelineSettings) -> str:
    """The name of a unit's part (``--parts``): its source, its first record's number (so a listing
    sorts in file order) and a digest of everything its statements are made from — the unit's text as
    read, where it stands in its source, the mapping settings and the code (``code_fingerprint``).
    The same unit converted again, by any worker, gets the same name; a changed one a new name."""
    identity = hashlib.sha256()
    for part in (
        code_fingerprint(),
        settings.base_iri,
        ",".join(settings.user_themes),
        settings.lang or "",
        str(settings.mine),
        str(settings.engine is not None),
        repr(unit),  # a frozen dataclass of text, numbers and findings: the same unit, the same text
    ):
        identity.update(part.encode("utf-8", "surrogatepass"))
        identity.update(b"\0")
    return f"{unit.source}.{unit.record_offset + unit.first_game + 1:010d}.{identity.hexdigest()[:20]}.nq.gz"


def serialized_batch(quads: list[Quad]) -> SerializedBatch:
    """``quads`` as N-Triples per graph, with what the embedded store's compact layout needs to load
    them without parsing: per graph the ``rdf:type`` statements alone, per owner graph the subjects
    (``SerializedBatch``). A blank-node subject (the mapping mints none) leaves ``subjects`` unknown."""
    by_graph: dict[str, list[Triple]] = {}
    types: dict[str, list[Triple]] = {}
    subjects: dict[str, set[str]] = {}
    owners: dict[str, str] = {}
    named = True
    for quad in quads:
        graph_name = quad.graph_name
        if not isinstance(graph_name, NamedNode):  # the mapping puts every statement in a graph named by an IRI
            raise TypeError(f"a statement outside a named graph: {quad}")
        graph = graph_name.value
        by_graph.setdefault(graph, []).append(quad.triple)
        if quad.predicate == _RDF_TYPE:
            types.setdefault(graph, []).append(quad.triple)
        owner = owners.get(graph)
        if owner is None:
            owner = owners[graph] = layout.owner_of(graph_name).value
        named = named and isinstance(quad.subject, NamedNode)
        subjects.setdefault(owner, set()).add(text_of(quad.subject))

    def ntriples(triples_by_graph: dict[str, list[Triple]]) -> dict[str, bytes]:
        return {graph: rdf_bytes(triples, RdfFormat.N_TRIPLES) for graph, triples in triples_by_graph.items()}

    return SerializedBatch(
        ntriples(by_graph),
        markers=ntriples(types),
        subjects={owner: frozenset(iris) for owner, iris in subjects.items()} if named else None,
    )


def _refuted_claims(record: GameRecord, themes: ThemeAssessment) -> list[Finding]:
    """A warning per refuted or undecided mate claim: the class is not asserted, the claim stays as
    cp:claimStatus. Refuted means proven false; undecided means the proof did not fit the budget."""
    where = record.location
    refuted = [
        Finding(
            "warning",
            "claim-refuted",
            f"the claim {claim.theme} (mate in {claim.moves}) is false (refuted by proof): not asserted "
            f"as {claim.theme}, kept as cp:claimStatus",
            file=where.file,
            game=where.game_number,
            line=where.line,
        )
        for claim in themes.refuted
    ]
    return refuted + [
        Finding(
            "warning",
            "claim-undecided",
            f"the claim {claim.theme} (mate in {claim.moves}) is undecided (no proof either way "
            f"within the budget): not asserted as {claim.theme}, kept as cp:claimStatus",
            file=where.file,
            game=where.game_number,
            line=where.line,
        )
        for claim in themes.undecided
    ]


#: Statements remembered per process (a few hundred bytes each) to drop repeats within an import.
RECENT_QUADS = 100_000


class RecentQuads:
    """The statements this process sent for the current import, the last ``size`` of them: a copy of
    a game (the same problem in two files, a collection copied with new tags) repeats most of its
    statements in the same graph, and the store would only find them there already. Dropping them
    before they are serialised changes nothing the store holds (one import is one write) and spares
    their serialising, transfer and loading."""

    def __init__(self, size: int = RECENT_QUADS) -> None:
        self.size = size
        # an OrderedDict, not a dict: dropping the oldest of a dict (``pop(next(iter(d)))``) walks
        # past every slot emptied before it, so once full it cost more than the whole mapping
        self._seen: OrderedDict[Quad, None] = OrderedDict()

    def clear(self) -> None:
        self._seen.clear()

    def fresh(self, quads: list[Quad]) -> list[Quad]:
        seen = self._seen
        out = []
        for quad in quads:
            if quad in seen:
                continue
            seen[quad] = None
            out.append(quad)
        for _ in range(len(seen) - self.size):
            seen.popitem(last=False)
        return out


#: Analyses remembered per process (a few KB each): the copies of a collection must fall within it.
MEMO_SIZE = 4096


#: What an analysis is remembered under: the record's start, its solution (UCI), the engine's path, exercise or not.
_MemoKey = tuple[tuple[str, ...], tuple[str, ...], str | None, bool]


class AnalysisMemo:
    """The analyses of the last positions seen, so a copy of a position and line (the same problem in
    two collections, or a collection imported twice in one run) is analysed once.

    ``analyse`` is a function of the board (its move stack included: detectors look at the setup
    move), the solution and the verifier's settings, so an equal key gives an equal answer; each
    caller gets its own copy to map. A mate claim answered here counts as answered by the cache.
    ``analyse_record`` finds a record's analysis by what the record says of its start
    (``GameRecord.start_key``) and sets up the board only to analyse it: writing the board's FEN
    (and its root's, for a puzzle's setup move) to make the key took 0.1–0.3 ms per record.
    """

    def __init__(self, size: int = MEMO_SIZE) -> None:
        self.size = size
        self._entries: OrderedDict[_MemoKey, PositionAnalysis] = OrderedDict()  # see RecentQuads on why not a dict

    def clear(self) -> None:
        self._entries.clear()

    def analyse(
        self, board: chess.Board, solution: list[chess.Move], verifier: MateVerifier, *, exercise: bool = True
    ) -> PositionAnalysis:
        root = board.root().fen() if board.move_stack else ""
        start = (root, *(m.uci() for m in board.move_stack), board.fen())
        return self._answer(start, lambda: board, solution, verifier, exercise)

    def analyse_record(self, record: GameRecord, verifier: MateVerifier, *, exercise: bool = True) -> PositionAnalysis:
        """``analyse`` of the record's start board and solution."""
        return self._answer(record.start_key(), record.start_board, record.solution, verifier, exercise)

    def _answer(
        self,
        start: tuple[str, ...],
        board: Callable[[], chess.Board],
        solution: list[chess.Move],
        verifier: MateVerifier,
        exercise: bool,
    ) -> PositionAnalysis:
        """The remembered analysis under ``start`` (which identifies the board ``board()`` sets up), or a new one."""
        key = (
            start,
            tuple(m.uci() for m in solution),
            verifier.engine.path if verifier.engine is not None else None,
            exercise,
        )
        found = self._entries.get(key)
        if found is None:
            found = analyse(board(), solution, verifier=verifier, exercise=exercise)
            if len(self._entries) >= self.size:
                self._entries.popitem(last=False)
            self._entries[key] = found
        elif "mateVerification" in found.facts:  # a mate claim (proven or not) answered again
            verifier.counts.cached += 1
        return PositionAnalysis(facts=dict(found.facts), classes=list(found.classes))


_MEMO = AnalysisMemo()
_SENT = RecentQuads()


def forget_earlier_runs() -> None:
    """Clear what ``process_unit`` remembers between units (a process serving a new run: a statement
    sent to an earlier run must be sent again, a claim decided there is read from the cache)."""
    _MEMO.clear()
    _SENT.clear()


def _mine(record: GameRecord, verifier: MateVerifier) -> list[MinedPosition]:
    """Exercises the engine finds in the game, each with its own analysis (the verifier's engine)."""
    if verifier.engine is None:
        raise EngineMissing(MISSING_MESSAGE)
    # the record's start position (ply 0) is stated by the record itself, exercise or not: a mate found
    # there is that position again, not a second exercise with a second label and move text (issue 32)
    return [
        (exercise, analyse(chess.Board(exercise.fen), list(exercise.solution), verifier=verifier))
        for exercise in mine_game(verifier.engine.uci(), record.start_board(), record.solution)
        if exercise.ply > 0
    ]


_WORKER_SETTINGS: PipelineSettings | None = None
_WORKER_VERIFIER: MateVerifier | None = None
_UNIT_THREAD: ThreadPoolExecutor | None = None  # at_thread_base's thread


def _init_worker(settings: PipelineSettings, parent: int) -> None:
    """A worker's start: it dies with the importer's process (``parent``), and gets its own verifier
    (its own memory of claims in front of the importer's cache file, which it only reads: the
    importer's process writes what the workers send back) and its own engine, stopped when it leaves."""
    global _WORKER_SETTINGS, _WORKER_VERIFIER, _UNIT_THREAD
    die_with_parent(parent)
    _UNIT_THREAD = None  # a forked copy of the parent's executor has no thread: it would never run a unit
    cap_address_space(settings.reader_memory)
    _WORKER_SETTINGS = settings
    _MEMO.clear()
    _SENT.clear()
    engine = Engine(settings.engine) if settings.engine else None
    if engine is not None:
        # a worker that leaves normally quits its engine (and waits for it) instead of orphaning it
        multiprocessing.util.Finalize(None, engine.close, exitpriority=10)
    path = Path(settings.verify_cache) if settings.verify_cache else None
    _WORKER_VERIFIER = MateVerifier(VerificationCache(path, writer=False), engine=engine)


def at_thread_base(call: Callable[..., UnitResult], *args: object) -> UnitResult:
    """``call(*args)`` at the bottom of a thread's own stack: this process's one unit thread.

    CPython 3.11 keeps frames on a data stack of 16 KiB chunks; a frame pushed past a chunk's end maps a
    new chunk and popping back unmaps it. The proof search recurses back and forth over a few frames
    thousands of times, so when its hot depth sits on a chunk boundary every call pays two system calls:
    the same search cost up to 4x the CPU depending on the caller's depth (``bench/stack_depth.py``),
    and a worker forked from a deep caller (pytest, a service) starts at that depth. A thread starts its
    own stack at depth zero, so every import analyses at the same depth, the one measured cheap.
    """
    global _UNIT_THREAD
    if _UNIT_THREAD is None:
        _UNIT_THREAD = ThreadPoolExecutor(max_workers=1, thread_name_prefix="chesskb-unit")
    return _UNIT_THREAD.submit(call, *args).result()


def _work(unit: WorkUnit) -> UnitResult:
    assert _WORKER_SETTINGS is not None
    return at_thread_base(process_unit, unit, _WORKER_SETTINGS, _WORKER_VERIFIER)


class UnitProcessor:
    """Runs units in order in a pool of ``jobs`` worker processes, each capped in address space
    (``reader_memory``, ``kb.reading.memory``); in this process only when there is no cap to set
    (``reader_memory`` 0) and ``jobs`` is 1. ``--jobs 1`` is one worker, not this process: the cap
    cannot be set here, where the store and its caches live (they would fail, not the game).

    It owns the verification cache: the claims each unit decided are saved as its result arrives,
    so later units (in any worker), later sources and later imports find them; ``counts`` adds up
    what deciding them cost. It owns the engines too: its own (``jobs`` = 1) and, through the
    workers, theirs; all are stopped when it exits, and a killed importer takes its workers and
    their engines with it (``kb.analysis.engine.die_with_parent``).
    """

    def __init__(self, settings: PipelineSettings, jobs: int = 1) -> None:
        self.settings = settings
        self.jobs = max(1, jobs)
        self.in_process = self.jobs == 1 and settings.reader_memory <= 0
        self._pool: Pool | None = None
        path = Path(settings.verify_cache) if settings.verify_cache else None
        self.cache = VerificationCache(path, writer=True)
        self.counts = VerifyCounts()
        self._engine = Engine(settings.engine) if settings.engine else None
        self._verifier = MateVerifier(self.cache, engine=self._engine)

    def __enter__(self) -> UnitProcessor:
        _MEMO.clear()  # each import decides its own claims (its cache file may be another)
        _SENT.clear()  # and sends all of its own statements
        if not self.in_process:
            context = multiprocessing.get_context("fork" if os.name == "posix" else "spawn")
            self._pool = context.Pool(self.jobs, initializer=_init_worker, initargs=(self.settings, os.getpid()))
        return self

    def __exit__(self, exc_type: type[BaseException] | None, *exc_info: object) -> None:
        if self._engine is not None:
            self._engine.close()  # in-process engine (jobs = 1 without a memory cap)
        self.cache.close()
        if self._pool is not None:
            if exc_type is None:
                self._pool.close()  # idle workers leave, each stopping its engine first
            else:
                self._pool.terminate()  # a failure or an abandoned import: stop now
            self._pool.join()
            self._pool = None

    def run(self, units: Iterable[WorkUnit]) -> Iterator[UnitResult]:
        if self._pool is None:
            for unit in units:
                yield self._kept(at_thread_base(process_unit, unit, self.settings, self._verifier))
            return
        pending: deque[AsyncResult[UnitResult]] = deque()
        limit = self.jobs * IN_FLIGHT_PER_JOB
        for unit in units:
            pending.append(self._pool.apply_async(_work, (unit,)))
            if len(pending) >= limit:
                yield self._kept(pending.popleft().get())
        while pending:
            yield self._kept(pending.popleft().get())

    def _kept(self, result: UnitResult) -> UnitResult:
        self.cache.save(result.verified)
        self.counts.add(result.verify_counts)
        return result
