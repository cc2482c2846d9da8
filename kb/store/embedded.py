"""The embedded store: Oxigraph on disk, with imports that land whole or not at all.

The store is laid out compactly (``kb.store.layout``, whose rules every write applies): the default
graph holds every statement once, the *merge* (set union) of what all graphs say, and queries run on
it: a triple that two sources both assert (the same game in two files) is one triple, as in Fuseki's
union graph, whereas Oxigraph's own union-of-graphs view is a multiset that would answer it twice. A
source's graphs keep, per subject, its ``rdf:type`` statements (its markers: ``GRAPH ?g { ?x a ?c }``
says who asserts ``?x``) and what not every source asserting the subject says; the bookkeeping graphs
(ontology, ``_meta``, ``_links``, ``_counts``) are kept whole. A subject only one source asserts costs
its markers beside the merge, not a second copy of all its statements.

Writes keep that cheap: a batch of subjects no other graph knows is bulk-loaded as the worker
serialised it, its markers into their graphs and every statement into the default graph, and the
run of such batches a write starts with (all of a first import's, as a rule) is one bulk load over
the whole stream (``_stream_load``: each separate load made RocksDB merge its files again); a subject
another source or a bookkeeping graph also describes is decoded and encoded again by the layout's
rules (``_load``); removing a source deletes its subjects in bulk when no one else asserts them and
re-encodes the shared ones, so what remains is what importing the others alone gives
(``_remove_from_merge``). Stores written before this layout (every statement in its graph too) need
no migration: they decode the same way, and a write re-encodes the subjects it touches.

A store directory holds immutable *generations* (``gen-000001`` …) and a ``CURRENT`` symlink naming
the live one. A write (import, remove-source) copies the live generation (a RocksDB checkpoint: hard
links, cheap) — or, when it would leave nothing of it (an import replacing every source the store
holds: ``_drops_everything``), starts from an empty one —, bulk-loads into the copy, applies the
write's ``derive`` steps to the copy (links between players, class counts: computed from the new
state, so they are never a generation behind the data), compacts a large copy when the write has at
least doubled it (``OPTIMIZE_WHEN_GROWN``), lists the copy's files in its manifest (``manifest.py``,
checked whenever a generation is opened), and only when the copy is complete and flushed swaps
``CURRENT`` with one atomic ``rename``. Killing the process at any moment, SIGKILL included, leaves
``CURRENT`` on the old, untouched generation; leftovers are removed on the next write. Because
published generations are never written again, readers (``chesskb serve``) open them read-only while
an import runs, and notice the swap on their next request.
"""

from __future__ import annotations

import gc
import io
import itertools
import os
import queue
import shutil
import threading
import traceback
from collections import OrderedDict, defaultdict
from collections.abc import Callable, Container, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any, cast

from pyoxigraph import DefaultGraph, NamedNode, Quad, RdfFormat, parse
from pyoxigraph import Store as OxStore

from chesskb.kb.store import layout
from chesskb.kb.store.base import (
    Derive,
    QueryResult,
    QuerySyntaxError,
    SerializedBatch,
    Statement,
    StoreBusy,
    StoreDamaged,
    StoreError,
    Term,
)
from chesskb.kb.store.bindings import with_values
from chesskb.kb.store.board_file import BOARDS, BoardIndex, read_board_index, write_board_index
from chesskb.kb.store.compaction import Compaction, bulk_copy_compacted
from chesskb.kb.store.generations import (
    CURRENT,
    PARTIAL,
    generation_name,
    live_generation,
    record_replaced,
    remove_leftovers,
)
from chesskb.kb.store.manifest import read_manifest, record_proofs, verify_generation, write_manifest
from chesskb.kb.vocab import PREFIXES

LOCK = "write.lock"
#: A write that leaves the generation at least this many times its size before (a first import, a
#: collection as large as the store) ends with a full RocksDB compaction (``Store.optimize``) of the
#: copy before it is published. Bulk loads leave many overlapping table files, uncompressed at the
#: top levels: at a million lichess puzzles the compaction took 3.2 minutes and made the store 34 %
#: smaller (13.3 -> 8.8 GB) and index look-ups 2-3x faster (drawn-rook-endgames 888 -> 367 ms),
#: bench/README.md. Its cost is the store's size, so compacting only when the size has doubled keeps
#: the total over any sequence of writes proportional to the final size.
OPTIMIZE_WHEN_GROWN = 2.0
#: ... and only a store whose table files hold at least this many bytes: below, a compaction buys
#: nothing measurable (a few files; on a store of a few megabytes it can even make the files larger,
#: the bottom levels being compressed differently).
OPTIMIZE_MIN_BYTES = 256 * 2**20


class EmbeddedStore:
    """An Oxigraph store directory with atomic, generation-swapping writes."""

    def __init__(self, location: str | os.PathLike[str]) -> None:
        self.path = Path(location)
        self.location = str(self.path)
        self._store: OxStore | None = None
        self._generation: str | None = None
        self._boards: tuple[str, BoardIndex | None] | None = None  # the board index of one generation
        self._lock = threading.Lock()
        self._write_mutex = threading.RLock()
        self._lock_depth = 0
        #: False sends every subject of a write through the per-subject path (``_load``): the same
        #: quads, slower; the tests compare the two
        self.fast_paths = True
        #: what the last write's loads were (``WriteReport``), for the tests and ``bench/``
        self.last_write: WriteReport | None = None

    # --- reading --------------------------------------------------------------------------

    def generation(self) -> str | None:
        """Which generation queries read now: answers computed for it stay right until it changes
        (the service caches them under this name)."""
        return self._live_generation()

    def _live_generation(self) -> str | None:
        return live_generation(self.path)

    def _reader(self) -> OxStore:
        """The live generation, opened read-only; reopened when a write has swapped it."""
        with self._lock:
            generation = self._live_generation()
            if generation is None:
                if self._store is None or self._generation is not None:
                    self._store = OxStore()  # empty, in memory: nothing imported yet
                    self._generation = None
                return self._store
            if self._store is None or generation != self._generation:
                self._store, self._generation = self._open_live(generation)
            return self._store

    def _open_live(self, generation: str) -> tuple[OxStore, str]:
        """Check and open ``generation``; if a write replaced (and removed) it meanwhile, the one
        that replaced it: a vanished generation is not a damaged store."""
        for _ in range(5):
            try:
                verify_generation(self.path / generation)
                return _open_read_only(self.path / generation), generation
            except StoreDamaged:
                newer = self._live_generation()
                if newer is None or newer == generation:
                    raise
                generation = newer
        raise StoreError(f"{self.path} changed generation five times while being opened; try again")

    def query(
        self,
        sparql: str,
        *,
        bindings: Mapping[str, Term] | None = None,
        timeout: float | None = None,
        default_graphs: list[str] | None = None,
        named_graphs: list[str] | None = None,
        base_iri: str | None = None,
    ) -> QueryResult:
        dataset: dict[str, Any] = {}  # pyoxigraph's default_graph and named_graphs, only when given
        if default_graphs is not None or named_graphs is not None:  # the Protocol's dataset replaces FROM
            dataset = {
                "default_graph": [NamedNode(g) for g in default_graphs or ()],
                "named_graphs": [NamedNode(g) for g in named_graphs or ()],
            }
        text = with_values(sparql, bindings or {})
        for attempt in (1, 2):
            reading = self._generation
            try:
                store = self._reader()
                reading = self._generation
                return store.query(text, prefixes=PREFIXES, base_iri=base_iri, **dataset)
            except SyntaxError as exc:
                raise QuerySyntaxError(str(exc)) from exc
            except (OSError, RuntimeError) as exc:  # pyoxigraph reports evaluation errors as RuntimeError
                if attempt == 1 and reading is not None and self._live_generation() != reading:
                    continue  # the generation was replaced under the query: ask the new one
                if "Corruption" in str(exc):
                    raise StoreDamaged(f"the store at {self.path} is damaged: {exc}") from exc
                raise StoreError(str(exc)) from exc
        raise AssertionError("unreachable")

    def quads(self, graphs: Iterable[NamedNode] | None = None) -> Iterator[Quad]:
        store = self._reader()
        if graphs is None:  # the named graphs (a source's statements are decoded by kb.store.layout)
            graphs = self.named_graphs()
        for graph in graphs:
            yield from store.quads_for_pattern(None, None, None, graph)

    def named_graphs(self) -> list[NamedNode]:
        return [g for g in self._reader().named_graphs() if isinstance(g, NamedNode)]

    def board_index(self) -> BoardIndex | None:
        """The live generation's board index (``board_file.py``), checked against its manifest (without
        opening the Oxigraph store: a server's main process may only scan); ``None`` for a generation
        written before the index existed, or no generation yet. Kept while the generation stays live."""
        generation = self._live_generation()
        if generation is None:
            return None
        with self._lock:
            if self._boards is not None and self._boards[0] == generation:
                return self._boards[1]
        folder = self.path / generation
        verify_generation(folder)
        index = read_board_index(folder, BOARDS in (read_manifest(folder) or {}))
        with self._lock:
            self._boards = (generation, index)
        return index

    def close(self) -> None:
        with self._lock:
            self._store = None
            self._generation = None
            self._boards = None

    # --- writing --------------------------------------------------------------------------

    def writing(self, wait: float = -1) -> AbstractContextManager[None]:
        """Hold the write lock (see ``Store.writing``); ``wait`` is how many seconds to wait for
        another thread of this process that holds it (-1: as long as it takes). Another *process*
        holding it is refused at once (``StoreBusy``)."""
        return self._writing(wait)

    @contextmanager
    def _writing(self, wait: float) -> Iterator[None]:
        if not self._write_mutex.acquire(timeout=wait):
            raise StoreBusy(f"another save is writing to {self.path}; nothing was changed, try again")
        try:
            if self._lock_depth == 0:
                self._take_file_lock()
            self._lock_depth += 1
            try:
                yield
            finally:
                self._lock_depth -= 1
                if self._lock_depth == 0:
                    (self.path / LOCK).unlink(missing_ok=True)
        finally:
            self._write_mutex.release()

    def _take_file_lock(self) -> None:
        self.path.mkdir(parents=True, exist_ok=True)
        lock_path = self.path / LOCK
        try:
            lock_fd = os.open(lock_path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        except FileExistsError:
            if not _lock_is_stale(lock_path):
                raise StoreBusy(
                    f"another import is writing to {self.path} (lock file {lock_path}); nothing was "
                    "changed: wait for it, or remove the lock if that process is gone"
                ) from None
            lock_path.unlink(missing_ok=True)
            lock_fd = os.open(lock_path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        os.write(lock_fd, str(os.getpid()).encode())
        os.close(lock_fd)

    def replace_graphs(
        self,
        remove: Iterable[NamedNode],
        quads: Iterable[Statement],
        *,
        remove_subjects: Iterable[tuple[NamedNode, NamedNode]] = (),
        derive: Sequence[Derive] = (),
    ) -> None:
        """Drop the graphs ``remove``, add ``quads``, apply ``derive`` to the result, and publish
        it all as one generation (see module doc)."""
        remove, remove_subjects = list(remove), list(remove_subjects)
        with self.writing(wait=-1):  # a thread of this process that writes finishes first
            live = self._live_generation()
            name, staging = self._next_generation(live)
            before = 0
            self.last_write = WriteReport()
            if live:
                verify_generation(self.path / live)  # a damaged store is not copied into a new generation
                current = _open_read_only(self.path / live)
                if _drops_everything(current, remove, remove_subjects):
                    self.last_write.from_empty = True  # what is left of the copy would be nothing
                else:
                    current.backup(str(staging))
                    before = table_bytes(staging)
                del current
            try:
                _build(
                    staging,
                    remove,
                    quads,
                    remove_subjects,
                    derive,
                    self.fast_paths,
                    optimize_above=compaction_threshold(before),
                    report=self.last_write,
                )
            except BaseException as failure:
                _discard(staging, failure)  # the live generation was never touched
                raise
            self._publish(staging, name, live)

    def compact(self) -> Compaction:
        """Rewrite the whole store in the compact layout (``kb/store/compaction.py``) and publish it
        as a new generation, like any write: for a store written before that layout, whose sources'
        graphs still repeat every statement (each write re-encodes only the subjects it touches).
        What every source says, and every query's answer, stay the same."""
        with self.writing(wait=-1):
            live = self._live_generation()
            if live is None:
                raise StoreError(f"{self.path} holds no knowledge base yet: nothing to compact")
            verify_generation(self.path / live)
            name, staging = self._next_generation(live)
            done = Compaction()
            try:
                bulk_copy_compacted(self.path / live, staging, done)
                if table_bytes(staging) >= compaction_threshold(0):  # a bulk load into an empty store
                    store = OxStore(str(staging))
                    compact_files(store)
                    del store
            except BaseException as failure:
                _discard(staging, failure)  # the live generation was never touched
                raise
            self._publish(staging, name, live)
            return done

    def _next_generation(self, live: str | None) -> tuple[str, Path]:
        """Remove what earlier writes left (``generations.remove_leftovers``) and name the new
        generation and its staging copy, numbered above every generation the directory holds."""
        name = generation_name(remove_leftovers(self.path, live) + 1)
        return name, self.path / (name + PARTIAL)

    def _publish(self, staging: Path, name: str, live: str | None) -> None:
        """List the finished ``staging`` copy's files in its manifest and make it the live generation
        with one atomic ``rename`` of the ``CURRENT`` link."""
        record_replaced(staging, live)
        write_board_index(staging)  # derived from this generation's boards: listed and switched with it
        read = write_manifest(staging, previous=self.path / live if live else None)
        os.rename(staging, self.path / name)
        link = self.path / (CURRENT + ".new")
        link.unlink(missing_ok=True)
        os.symlink(name, link)
        os.replace(link, self.path / CURRENT)  # the atomic switch
        _fsync_dir(self.path)
        # The generation just replaced stays: a reader may be in the middle of a query on it
        # (RocksDB opens table files lazily), and removing it now made that query fail; it is
        # also the way back. Readers move to the new one at their next request. The one before
        # it is no one's any more.
        remove_leftovers(self.path, name)
        record_proofs(self.path / name, read)  # after the removals: unlinking moves a shared file's ctime


def _drops_everything(
    live: OxStore, remove: Container[NamedNode], remove_subjects: Iterable[tuple[NamedNode, NamedNode]]
) -> bool:
    """Whether a write leaves nothing of ``live``: it removes every named graph, but for graphs whose every
    subject it removes (the meta graph when every source described there is imported again). The default
    graph holds only the merge of the named graphs (``kb.store.layout``), so nothing of it stays either,
    and the new generation is written from empty, as a first import is (one streamed bulk load, no
    deletions, no look-ups of what is stored) instead of from a copy whose every statement is deleted
    first. Decided on the live generation under the write lock; the atomic switch is the same."""
    listed: dict[NamedNode, set[object]] = defaultdict(set)
    for subject, graph in remove_subjects:
        listed[graph].add(subject)
    for named in live.named_graphs():
        if isinstance(named, NamedNode) and named in remove:
            continue
        if not isinstance(named, NamedNode) or named not in listed:
            return False
        if any(q.subject not in listed[named] for q in live.quads_for_pattern(None, None, None, named)):
            return False
    return True


def _discard(staging: Path, failure: BaseException) -> None:
    """Remove the staging copy of a write that failed. The failure's traceback keeps the frames that
    had the copy open, and an open copy's RocksDB jobs can still write into it (a compaction after a
    bulk load), so the folder could not be emptied: clearing those frames' locals closes the copy
    first. Whatever still stays is removed by the next write (``generations.remove_leftovers``)."""
    traceback.clear_frames(failure.__traceback__)
    gc.collect()  # the closures of a load's writer thread hold the copy in reference cycles
    shutil.rmtree(staging, ignore_errors=True)


def table_bytes(generation: Path) -> int:
    """The bytes of a generation's table files (one ``stat`` each: a few hundred at a million puzzles).
    Asked while the store is open, whose background compactions delete files at any moment: a file
    gone between the listing and its ``stat`` is not counted."""
    total = 0
    for entry in generation.glob("*.sst"):
        try:
            total += entry.stat().st_size
        except FileNotFoundError:
            continue
    return total


def compaction_threshold(before: int) -> float:
    """The table bytes from which a write's new generation is compacted, when the generation it was
    copied from had ``before`` (``OPTIMIZE_WHEN_GROWN``, ``OPTIMIZE_MIN_BYTES``): the one rule for
    imports and ``chesskb compact``."""
    return max(OPTIMIZE_MIN_BYTES, before * OPTIMIZE_WHEN_GROWN)


def compact_files(store: OxStore) -> None:
    """RocksDB's full compaction of ``store`` (``OPTIMIZE_WHEN_GROWN``): the same quads in fewer,
    compressed, non-overlapping table files."""
    store.optimize()
    store.flush()


def _build(
    staging: Path,
    remove: Iterable[NamedNode],
    quads: Iterable[Statement],
    remove_subjects: Iterable[tuple[NamedNode, NamedNode]],
    derive: Sequence[Derive],
    fast: bool = True,
    optimize_above: float = float("inf"),
    report: WriteReport | None = None,
) -> None:
    """Apply a write to the copy at ``staging``, then its ``derive`` steps to the result, and compact
    it when its table files have grown to ``optimize_above`` bytes (``OPTIMIZE_WHEN_GROWN``); flushed
    and closed when this returns."""
    target = OxStore(str(staging))
    _remove_from_merge(target, [g for g in remove if target.contains_named_graph(g)], remove_subjects, fast=fast)
    _load(target, quads, fast=fast, report=report)
    view = _StagingView(target, str(staging))
    for step in derive:  # links, counts …: computed from the new state, published with it
        change = step(view)
        if change is not None:
            _remove_from_merge(
                target, [g for g in change.remove if target.contains_named_graph(g)], change.remove_subjects, fast=fast
            )
            _load(target, change.quads, fast=fast)
    target.flush()
    if table_bytes(staging) >= optimize_above:
        compact_files(target)


class _StagingView:
    """The generation being written, as a read-only ``Store`` for the ``derive`` steps."""

    def __init__(self, store: OxStore, location: str) -> None:
        self._store = store
        self.location = location

    def query(
        self, sparql: str, *, bindings: Mapping[str, Term] | None = None, timeout: float | None = None
    ) -> QueryResult:
        return self._store.query(with_values(sparql, bindings or {}), prefixes=PREFIXES)

    def quads(self, graphs: Iterable[NamedNode] | None = None) -> Iterator[Quad]:
        if graphs is None:
            graphs = self.named_graphs()
        for graph in graphs:
            yield from self._store.quads_for_pattern(None, None, None, graph)

    def named_graphs(self) -> list[NamedNode]:
        return [g for g in self._store.named_graphs() if isinstance(g, NamedNode)]


def _remove_from_merge(
    target: OxStore, graphs: list[NamedNode], subjects: Iterable[tuple[NamedNode, NamedNode]], *, fast: bool = True
) -> None:
    """Drop ``graphs`` (a source's two graphs, a bookkeeping graph) and the (subject, graph)
    statements, re-encoding every subject they describe by ``layout.removed``: what the remaining
    graphs say stays, and deltas every remaining source shares become common again.

    The fast path: a subject whose markers are all in ``graphs`` (only the leaving sources assert it)
    and that no bookkeeping graph describes has nothing left once they go, and every quad about it
    is deleted, a few thousand subjects per SPARQL Update (no Python call per quad). Every other
    subject is decoded and encoded in Python (``_remove_subject``).

    Each leaving graph is walked by subject (its GSPO index keeps a subject's quads together), and
    the walk of the next one starts after the previous subjects are done: an Oxigraph iterator reads
    a snapshot, and a subject re-encoded already has nothing left in any leaving graph, so each
    subject is handled once and a million-subject source is never held in memory.
    """
    leaving = set(graphs)
    pairs: dict[object, set[NamedNode]] = defaultdict(set)
    for named, graph in subjects:
        pairs[named].add(graph)
    if not leaving and not pairs:
        return
    bookkeeping = _bookkeeping_subjects(target)
    # with no other source in the store, a subject no bookkeeping graph describes is the leaving
    # sources' alone: no need to ask for its markers
    staying = [
        g
        for g in target.named_graphs()
        if isinstance(g, NamedNode) and g not in leaving and layout.is_source(layout.owner_of(g))
    ]
    additions: list[Quad] = []
    for subject, described in pairs.items():
        _remove_subject(target, subject, leaving | described, additions)
    for graph in graphs:
        doomed: list[NamedNode] = []
        for subject in _subjects_of(target, graph):
            if (
                fast
                and subject not in bookkeeping
                and isinstance(subject, NamedNode)
                and (not staying or ((markers := _marker_graphs(target, subject)) and markers <= leaving))
            ):
                doomed.append(subject)
                if len(doomed) >= DELETE_SUBJECTS:
                    _delete_subjects(target, doomed)
                    doomed = []
            else:
                _remove_subject(target, subject, leaving, additions)
        _delete_subjects(target, doomed)
        _add(target, additions)
        additions = []
    _add(target, additions)
    for graph in graphs:
        target.remove_graph(graph)


#: Subjects deleted per SPARQL Update by the fast path of a removal.
DELETE_SUBJECTS = 2_000


def _subjects_of(target: OxStore, graph: NamedNode) -> Iterator[object]:
    """The distinct subjects of ``graph``, streamed (its quads come grouped by subject)."""
    last = None
    for quad in target.quads_for_pattern(None, None, None, graph):
        if quad.subject != last:
            last = quad.subject
            yield last


def _marker_graphs(target: OxStore, subject: NamedNode) -> set[NamedNode]:
    """The named graphs holding an ``rdf:type`` statement about ``subject`` (its markers; the knowledge base
    names every graph by an IRI)."""
    return {
        q.graph_name
        for q in target.quads_for_pattern(subject, layout.RDF_TYPE, None, None)
        if isinstance(q.graph_name, NamedNode)
    }


def _delete_subjects(target: OxStore, subjects: list[NamedNode]) -> None:
    """Every quad about ``subjects``, in every graph, deleted by one SPARQL Update (evaluated in
    Rust: no Python object per quad). IRIs are written as N-Triples terms (``str`` of a
    ``NamedNode``), which an IRI cannot break out of."""
    if not subjects:
        return
    values = " ".join(str(subject) for subject in subjects)
    target.update(
        f"DELETE {{ GRAPH ?g {{ ?s ?p ?o }} }} WHERE {{ VALUES ?s {{ {values} }} GRAPH ?g {{ ?s ?p ?o }} }} ;"
        f" DELETE {{ ?s ?p ?o }} WHERE {{ VALUES ?s {{ {values} }} ?s ?p ?o }}"
    )


def _remove_subject(target: OxStore, subject: object, graphs: set[NamedNode], additions: list[Quad]) -> None:
    """One subject after its statements in ``graphs`` are dropped (``layout.removed``); nothing to do
    when none of them holds a statement about it."""
    stored = set(target.quads_for_pattern(subject, None, None, None))  # type: ignore[arg-type]
    if any(not isinstance(q.graph_name, DefaultGraph) and q.graph_name in graphs for q in stored):
        _rewrite(target, stored, layout.removed(stored, graphs), additions)


def _add_subject(target: OxStore, subject: object, new: list[Quad], additions: list[Quad]) -> None:
    """One subject after ``new`` (quads in named graphs) is added (``layout.added``)."""
    stored = set(target.quads_for_pattern(subject, None, None, None))  # type: ignore[arg-type]
    _rewrite(target, stored, layout.added(stored, new), additions)


def _rewrite(target: OxStore, stored: set[Quad], wanted: set[Quad], additions: list[Quad]) -> None:
    """Make a subject's ``stored`` quads the ``wanted`` ones: stale quads are removed now, new ones
    appended to ``additions`` (the caller adds them together, in bulk)."""
    for quad in stored - wanted:
        target.remove(quad)
    additions.extend(wanted - stored)


def _add(target: OxStore, quads: list[Quad]) -> None:
    if len(quads) > 10_000:
        target.bulk_extend(quads)  # a bulk load: no transaction to hold in memory
    elif quads:
        target.extend(quads)


def _bookkeeping_subjects(target: OxStore) -> set[object]:
    """The subjects the bookkeeping graphs (ontology, ``_meta``, ``_links``, ``_counts``) describe.
    They are small; a statement one of them makes is never common (``kb.store.layout``), so a
    subject among these always takes the per-subject path."""
    subjects: set[object] = set()
    for graph in target.named_graphs():
        if isinstance(graph, NamedNode) and not layout.is_source(layout.owner_of(graph)):
            subjects.update(q.subject for q in target.quads_for_pattern(None, None, None, graph))
    return subjects


#: Serialised batches are joined up to this size before one bulk load. Larger means fewer RocksDB
#: files, smaller means a shorter tail: the last batch loads after the workers have finished, alone.
#: 16 MB (about 1,300 lichess puzzles) took a 10k-puzzle import with two jobs from 12.8 s (64 MB) to
#: 10.5 s; 8 MB was no faster.
LOAD_BYTES = 16 << 20


@dataclass
class _Joined:
    """Serialised batches joined for one load: every statement per graph, and (when every batch
    brought them) the markers per graph and the subjects per owner graph."""

    graphs: dict[str, list[bytes]] = field(default_factory=dict)
    markers: dict[str, list[bytes]] | None = field(default_factory=dict)
    subjects: dict[str, set[str]] | None = field(default_factory=dict)
    size: int = 0

    def add(self, batch: SerializedBatch) -> None:
        for graph, data in batch.graphs.items():
            self.graphs.setdefault(graph, []).append(data)
        self.size += batch.size
        if batch.markers is None or batch.subjects is None or self.markers is None or self.subjects is None:
            self.markers = self.subjects = None
            return
        for graph, data in batch.markers.items():
            self.markers.setdefault(graph, []).append(data)
        for owner, iris in batch.subjects.items():
            self.subjects.setdefault(owner, set()).update(iris)


def _load(
    target: OxStore, statements: Iterable[Statement], *, fast: bool = True, report: WriteReport | None = None
) -> None:
    """Store quads and serialised batches in the compact layout (``kb.store.layout``).

    Batches whose every subject takes the fast path go first into one bulk load over the whole stream
    (``_stream_load``), as long as they come; from the first batch that does not, batches are joined and
    loaded by a writer thread (Oxigraph releases the GIL while it loads), so the importer keeps
    collecting the workers' results meanwhile; at most one joined batch waits. Single quads
    (bookkeeping graphs, the source descriptions, ``derive`` steps' changes) are written after the
    batches, by the same rules. ``fast=False`` sends every subject through the per-subject path (the
    tests compare the two). ``report`` counts the loads.
    """
    report = report if report is not None else WriteReport()
    single: list[Quad] = []
    pending: queue.Queue[_Joined | None] = queue.Queue(maxsize=1)
    failure: list[BaseException] = []
    bookkeeping: list[set[object]] = []  # computed once, by the first load that needs it
    owners: set[NamedNode] = set()  # the sources the store holds: before the first load, and loaded since

    def known_bookkeeping() -> set[object]:
        if not bookkeeping:
            bookkeeping.append(_bookkeeping_subjects(target))
            named = (g for g in target.named_graphs() if isinstance(g, NamedNode))  # a blank one is no source's
            owners.update(o for o in map(layout.owner_of, named) if layout.is_source(o))
        return bookkeeping[0]

    items: Iterator[Statement] = iter(statements)
    if fast and STREAM_LOAD:
        items = _stream_load(target, items, single, known_bookkeeping, owners, report)

    def writer() -> None:
        while (joined := pending.get()) is not None:
            if failure:
                continue
            try:
                _load_joined(target, joined, known_bookkeeping(), fast, owners)
                report.joined_loads += 1
            except BaseException as exc:  # re-raised in the importer's thread below
                failure.append(exc)

    thread = threading.Thread(target=writer, name="chesskb-bulk-load", daemon=True)
    thread.start()
    joined = _Joined()
    try:
        for item in items:
            if isinstance(item, SerializedBatch):
                joined.add(item)
                if joined.size >= LOAD_BYTES:
                    pending.put(joined)
                    joined = _Joined()
            else:
                single.append(item)
            if failure:
                break
        if joined.graphs and not failure:
            pending.put(joined)
    finally:
        pending.put(None)
        thread.join()
    if failure:
        raise failure[0]
    if single:
        _write_quads(target, single, known_bookkeeping(), fast)


#: Whether a write's leading fast batches go to one streamed bulk load (``_stream_load``). False sends
#: every batch through the joined loads, as before issue 36: the same quads, 6-9 bytes written per byte
#: stored instead of about 2.3, an eighth of the memory (the loader buffers a million quads), the same CPU
#: and a shorter tail for a small import (bench/README.md, "One bulk load per generation").
STREAM_LOAD = True

#: Subjects the streamed load remembers as marked by its earlier batches (``_stream_load``): a batch
#: may repeat a subject without its type statement, which a worker sends once per ``RecentQuads``
#: window (100,000 statements per worker). A subject marked longer ago ends the stream (the rest of
#: the write takes the joined loads): a cost, never a wrong quad. About 200 bytes each.
STREAM_MARKED_SUBJECTS = 200_000


@dataclass
class WriteReport:
    """What a write's loads were (``EmbeddedStore.last_write``; the tests and ``bench/`` read it):
    batches that went into the one streamed bulk load, joined loads after it, and whether it started
    from an empty generation."""

    streamed_batches: int = 0
    joined_loads: int = 0
    #: the write replaced every graph, so its generation was written from empty (``_drops_everything``)
    from_empty: bool = False


def _stream_load(
    target: OxStore,
    items: Iterator[Statement],
    single: list[Quad],
    bookkeeping: Callable[[], set[object]],
    stored_owners: set[NamedNode],
    report: WriteReport,
) -> Iterator[Statement]:
    """Load the leading batches of ``items`` that one source sends and whose every subject takes the
    fast path (``_whole_batch_is_fast``) with *one* bulk load over the stream of them, as N-Quads (the
    markers in their graphs, every statement in the default graph); single quads met on the way are
    put in ``single``. Returns what is left: the first batch that does not qualify, then the rest.

    Why one load: each ``bulk_load`` writes its own set of table files over the whole key range
    (Oxigraph's keys are hashes), and RocksDB merges overlapping files again and again; a first import
    loaded as hundreds of 16 MB loads wrote each stored byte about eight times (bench/README.md,
    issue 36 item 2). One loader over the whole stream sorts its runs itself.

    Why the same quads as joined loads: a batch is streamed only when every subject of it takes the
    fast path against the store as it stood before the stream plus what the stream has loaded so
    far. Loaded or still in the loader's buffers, the earlier batches only add the same source's
    markers and default-graph statements, which cannot turn an ineligible subject eligible (no other
    owner's marker appears). A subject they made eligible (marked in an earlier batch only: a worker
    sends a repeated type statement once, ``RecentQuads``) is found among the subjects the stream
    marked last; one marked longer ago than that ends the stream, and the joined path, which sees
    everything loaded, takes over. Memory: one batch's bytes and ``STREAM_MARKED_SUBJECTS`` subjects
    in Python; the loader keeps its own bounded buffers.
    """
    left: list[Statement] = []
    owner: list[str] = []  # the one source the stream loads
    marked: OrderedDict[object, None] = OrderedDict()  # the subjects it marked last (``STREAM_MARKED_SUBJECTS``)

    def chunks() -> Iterator[bytes]:
        for item in items:
            if not isinstance(item, SerializedBatch):
                single.append(item)
                continue
            joined = _Joined()
            joined.add(item)
            batch_owners = list(joined.subjects or ())
            batch_marked = _marked_subjects(joined)  # parsed once: checked, then remembered
            if (
                len(batch_owners) != 1
                or owner[:1] not in ([], batch_owners)
                or not _whole_batch_is_fast(target, joined, bookkeeping(), stored_owners, marked, batch_marked)
            ):
                left.append(item)
                return
            owner[:1] = batch_owners
            for subject in batch_marked:
                marked[subject] = None
                marked.move_to_end(subject)
            while len(marked) > STREAM_MARKED_SUBJECTS:
                marked.popitem(last=False)
            report.streamed_batches += 1
            yield _as_nquads(joined)

    stream = chunks()
    first = next(stream, None)  # no bulk load (no table files) for a write that has no fast batch first
    if first is None:
        return itertools.chain(left, items)
    handed: queue.Queue[bytes | BaseException | None] = queue.Queue(maxsize=2)
    failure: list[BaseException] = []

    def received() -> Iterator[bytes]:
        while (chunk := handed.get()) is not None:
            if isinstance(chunk, BaseException):
                raise chunk  # the producer failed: the load stops, the caller discards the copy
            yield chunk

    def load() -> None:
        try:
            target.bulk_load(cast(IO[bytes], _ChunkReader(received())), format=RdfFormat.N_QUADS)
        except BaseException as exc:  # re-raised in the importer's thread below
            failure.append(exc)

    def hand(chunk: bytes | BaseException | None) -> None:
        while thread.is_alive():  # a loader that failed reads no more
            try:
                handed.put(chunk, timeout=0.2)
                return
            except queue.Full:
                continue

    # the loader parses and sorts in its own thread (Oxigraph releases the GIL), so the importer's
    # thread keeps collecting the workers' results meanwhile, as with the joined loads
    thread = threading.Thread(target=load, name="chesskb-stream-load", daemon=True)
    thread.start()
    try:
        for chunk in itertools.chain([first], stream):
            hand(chunk)
            if failure:
                break
    except BaseException as exc:
        hand(exc)
        thread.join()
        raise
    hand(None)
    thread.join()
    if failure:
        raise failure[0]
    return itertools.chain(left, items)


def _as_nquads(joined: _Joined) -> bytes:
    """A fast batch as N-Quads: its markers in their graphs, all its statements in the default graph.

    N-Triples lines end with `` .\n`` and nowhere else (a literal's line breaks are escaped, an IRI
    holds no space), so naming a line's graph is writing it before that end."""
    assert joined.markers is not None
    parts = [
        data.replace(b" .\n", b" " + str(NamedNode(graph)).encode() + b" .\n")
        for graph, datas in joined.markers.items()
        for data in datas
    ]
    parts.extend(data for datas in joined.graphs.values() for data in datas)
    return b"".join(parts)


class _ChunkReader(io.RawIOBase):
    """A binary file over an iterator of byte strings, read by the bulk loader."""

    def __init__(self, chunks: Iterator[bytes]) -> None:
        super().__init__()
        self._chunks = chunks
        self._current = memoryview(b"")

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: memoryview) -> int:  # type: ignore[override]
        while not self._current:
            try:
                self._current = memoryview(next(self._chunks))
            except StopIteration:
                return 0
        size = min(len(buffer), len(self._current))
        buffer[:size] = self._current[:size]
        self._current = self._current[size:]
        return size


def _load_joined(
    target: OxStore, joined: _Joined, bookkeeping: set[object], fast: bool, stored_owners: set[NamedNode]
) -> None:
    """One joined load. When every subject takes the fast path (``_fast_subjects``), its bytes are
    bulk-loaded as they came: the markers into their graphs, everything into the default graph.
    Otherwise the bytes are parsed and written subject by subject (``_write_quads``)."""
    eligible = _eligible_subjects(target, joined, bookkeeping, stored_owners) if fast else None
    if eligible is not None and len(eligible) == _subject_count(joined):
        assert joined.markers is not None
        for graph, parts in joined.markers.items():
            target.bulk_load(b"".join(parts), format=RdfFormat.N_TRIPLES, to_graph=NamedNode(graph))
        target.bulk_load(
            b"".join(part for parts in joined.graphs.values() for part in parts), format=RdfFormat.N_TRIPLES
        )  # the merge
        return
    quads = [
        Quad(t.subject, t.predicate, t.object, NamedNode(graph))
        for graph, parts in joined.graphs.items()
        for t in parse(b"".join(parts), format=RdfFormat.N_TRIPLES)
    ]
    _write_quads(target, quads, bookkeeping, fast, eligible)


def _whole_batch_is_fast(
    target: OxStore,
    joined: _Joined,
    bookkeeping: set[object],
    stored_owners: set[NamedNode],
    marked_before: Container[object],
    batch_marked: set[object],
) -> bool:
    eligible = _eligible_subjects(target, joined, bookkeeping, stored_owners, marked_before, batch_marked)
    return eligible is not None and len(eligible) == _subject_count(joined)


def _subject_count(joined: _Joined) -> int:
    return len({iri for iris in (joined.subjects or {}).values() for iri in iris})


def _eligible_subjects(
    target: OxStore,
    joined: _Joined,
    bookkeeping: set[object],
    stored_owners: set[NamedNode],
    marked_before: Container[object] = (),
    batch_marked: set[object] | None = None,
) -> set[object] | None:
    """The subjects of a joined batch that take the fast path (``_fast_subjects``), ``None`` when the
    batch did not bring its markers and subjects (then it is parsed). ``marked_before``: subjects the
    load's one source marked in its earlier batches (``_stream_load``), which may not be visible yet;
    ``batch_marked``: the batch's own ``_marked_subjects`` when the caller has parsed them already.

    ``stored_owners`` are the sources whose graphs the store may hold (updated here): when the load
    is one source's and no other source is stored, no subject can be marked by another, and the
    store is asked only about subjects the load does not mark."""
    load_owners = {NamedNode(owner) for owner in joined.subjects or ()}
    alone = next(iter(load_owners)) if len(load_owners) == 1 and stored_owners <= load_owners else None
    stored_owners |= {owner for owner in load_owners if layout.is_source(owner)}
    if joined.subjects is None:
        stored_owners |= {o for o in map(layout.owner_of, map(NamedNode, joined.graphs)) if layout.is_source(o)}
    if joined.subjects is None or joined.markers is None:
        return None
    marked = set(batch_marked) if batch_marked is not None else _marked_subjects(joined)
    owners: dict[NamedNode, NamedNode | None] = {}
    for owner, iris in joined.subjects.items():
        for iri in iris:
            subject = NamedNode(iri)
            owners[subject] = NamedNode(owner) if subject not in owners else None
    if marked_before:
        marked |= {subject for subject in owners if subject in marked_before}
    return _fast_subjects(target, owners, marked, bookkeeping, alone)


def _marked_subjects(joined: _Joined) -> set[object]:
    """The subjects a joined batch brings markers (``rdf:type`` statements) about."""
    return {
        t.subject
        for parts in (joined.markers or {}).values()
        for t in parse(b"".join(parts), format=RdfFormat.N_TRIPLES)
    }


def _fast_subjects(
    target: OxStore,
    owners: Mapping[NamedNode, NamedNode | None],
    marked: set[object],
    bookkeeping: set[object],
    alone: NamedNode | None = None,
) -> set[object]:
    """The subjects of a load that take the fast path: one owner in the load, a source (not a
    bookkeeping graph); no bookkeeping graph describes them; the store's markers about them are that
    owner's or there are none; and the owner has a marker about them (in the load or the store).
    ``alone``: the only source the store's graphs can belong to (``_load_joined``), so a subject of
    it that the load marks needs no look-up (each costs an index seek over every file a bulk load
    wrote: 0.06 to 1 ms on the shared machine).

    For such a subject S of source O, ``layout.added`` gives: O's markers in O's graphs, every
    statement in the default graph, and nothing else in the named graphs. Because only O marks S
    (the markers say who asserts S: every source types what it speaks of) and no bookkeeping graph
    describes it, O is the only owner of S after the load; O marks S, so all of O's non-type
    statements are common, and none is removed from the common set by a bookkeeping graph: encoded,
    S is O's markers plus the default graph. Loading the new markers into their graphs and all new
    statements into the default graph produces exactly that from what is stored: decoded, O's
    statements are the old ones plus the new ones. (A subject stored in the earlier layout keeps its
    full copy in O's graph, which decodes the same; one that lost its markers is not eligible.)
    """
    fast: set[object] = set()
    for subject, owner in owners.items():
        if owner is None or not layout.is_source(owner) or subject in bookkeeping:
            continue
        if owner == alone and subject in marked:
            fast.add(subject)
            continue
        held = {layout.owner_of(g) for g in _marker_graphs(target, subject)}
        if held <= {owner} and (held or subject in marked):
            fast.add(subject)
    return fast


def _write_quads(
    target: OxStore, quads: Iterable[Quad], bookkeeping: set[object], fast: bool, eligible: set[object] | None = None
) -> None:
    """Quads in named graphs, written by the layout's rules: the subjects ``_fast_subjects`` allows
    (``eligible``, when the caller knows them already) as their markers plus the default graph,
    every other one by ``layout.added`` against what the store holds about it."""
    grouped = layout.by_subject(quads)
    if not fast:
        eligible = set()
    elif eligible is None:
        owners: dict[NamedNode, NamedNode | None] = {}
        for subject, new in grouped.items():
            found = {layout.owner_of(q.graph_name) for q in new}  # type: ignore[arg-type]
            owners[subject] = found.pop() if len(found) == 1 and isinstance(subject, NamedNode) else None  # type: ignore[index]
        marked = {s for s, new in grouped.items() if any(layout.is_marker(q) for q in new)}
        eligible = _fast_subjects(target, owners, marked, bookkeeping)
    additions: list[Quad] = []
    for subject, new in grouped.items():
        if subject in eligible:
            additions.extend(q for q in new if layout.is_marker(q))
            additions.extend(Quad(q.subject, q.predicate, q.object, _DEFAULT) for q in new)
        else:
            _add_subject(target, subject, new, additions)
            if any(not layout.is_source(layout.owner_of(q.graph_name)) for q in new):  # type: ignore[arg-type]
                bookkeeping.add(subject)  # a later load of this write must see it
    _add(target, additions)


_DEFAULT = DefaultGraph()


def _lock_is_stale(lock_path: Path) -> bool:
    """A lock whose writer process no longer exists (killed import) can be taken over."""
    try:
        pid = int(lock_path.read_text().strip() or "0")
    except (OSError, ValueError):
        return True
    if pid <= 0:
        return True
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    except PermissionError:
        return False
    return False


def _open_read_only(generation: Path) -> OxStore:
    try:
        return OxStore.read_only(str(generation))
    except OSError as exc:
        raise StoreDamaged(f"the store generation {generation} cannot be opened (damaged?): {exc}") from exc


def _fsync_dir(path: Path) -> None:
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
