"""The embedded store: Oxigraph on disk, with imports that land whole or not at all.

Every statement lives in its source's named graph (provenance) and once more in the default graph,
which is kept equal to the *merge* (set union) of all named graphs. Queries run on that default
graph: a triple that two sources both assert (the same game in two files) is one triple, as in
Fuseki's union graph, whereas Oxigraph's own union-of-graphs view is a multiset that would answer it
twice. ``GRAPH ?g`` still reaches each source's copy.

A store directory holds immutable *generations* (``gen-000001`` …) and a ``CURRENT`` symlink
naming the live one. A write (import, remove-source) copies the live generation (a RocksDB
checkpoint: hard links, cheap), bulk-loads into the copy, applies the write's ``derive`` steps to
the copy (links between players, class counts: computed from the new state, so they are never a
generation behind the data), lists the copy's files in its manifest (``manifest.py``, checked
whenever a generation is opened), and only when the copy is complete and flushed swaps ``CURRENT``
with one atomic ``rename``. Killing the process at any moment, SIGKILL
included, leaves ``CURRENT`` on the old, untouched generation; leftovers are removed on the next
write. Because published generations are never written again, readers (``chesskb serve``) open
them read-only while an import runs, and notice the swap on their next request.
"""

from __future__ import annotations

import os
import queue
import shutil
import threading
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from pathlib import Path

from pyoxigraph import DefaultGraph, NamedNode, Quad, RdfFormat
from pyoxigraph import Store as OxStore

from chesskb.kb.vocab import PREFIXES
from chesskb.kb.store.base import (
    Derive, QueryResult, QuerySyntaxError, SerializedBatch, Statement, StoreBusy, StoreDamaged, StoreError, Term,
)
from chesskb.kb.store.bindings import with_values
from chesskb.kb.store.manifest import verify_generation, write_manifest

CURRENT = "CURRENT"
LOCK = "write.lock"


class EmbeddedStore:
    """An Oxigraph store directory with atomic, generation-swapping writes."""

    def __init__(self, location: str | os.PathLike[str]) -> None:
        self.path = Path(location)
        self.location = str(self.path)
        self._store: OxStore | None = None
        self._generation: str | None = None
        self._lock = threading.Lock()
        self._write_mutex = threading.RLock()
        self._lock_depth = 0

    # --- reading --------------------------------------------------------------------------

    def generation(self) -> str | None:
        """Which generation queries read now: answers computed for it stay right until it changes
        (the service caches them under this name)."""
        return self._live_generation()

    def _live_generation(self) -> str | None:
        try:
            return os.readlink(self.path / CURRENT)
        except FileNotFoundError:
            return None
        except OSError as exc:
            raise StoreError(f"{self.path} is not a chesskb store ({exc})") from exc

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

    def query(self, sparql: str, *, bindings: Mapping[str, Term] | None = None,
              timeout: float | None = None, default_graphs: list[str] | None = None,
              named_graphs: list[str] | None = None, base_iri: str | None = None) -> QueryResult:
        dataset: dict = {}
        if default_graphs is not None or named_graphs is not None:  # the Protocol's dataset replaces FROM
            dataset = {"default_graph": [NamedNode(g) for g in default_graphs or ()],
                       "named_graphs": [NamedNode(g) for g in named_graphs or ()]}
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
        if graphs is None:  # the named graphs: the default graph only repeats them
            graphs = self.named_graphs()
        for graph in graphs:
            yield from store.quads_for_pattern(None, None, None, graph)

    def named_graphs(self) -> list[NamedNode]:
        return [g for g in self._reader().named_graphs() if isinstance(g, NamedNode)]

    def close(self) -> None:
        with self._lock:
            self._store = None
            self._generation = None

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
                raise StoreBusy(f"another import is writing to {self.path} (lock file {lock_path}); nothing was "
                                "changed: wait for it, or remove the lock if that process is gone") from None
            lock_path.unlink(missing_ok=True)
            lock_fd = os.open(lock_path, os.O_CREAT | os.O_EXCL | os.O_WRONLY)
        os.write(lock_fd, str(os.getpid()).encode())
        os.close(lock_fd)

    def replace_graphs(self, remove: Iterable[NamedNode], quads: Iterable[Statement],
                       *, remove_subjects: Iterable[tuple[NamedNode, NamedNode]] = (),
                       derive: Sequence[Derive] = ()) -> None:
        """Drop the graphs ``remove``, add ``quads``, apply ``derive`` to the result, and publish
        it all as one generation (see module doc)."""
        with self.writing(wait=-1):  # a thread of this process that writes finishes first
            self._remove_leftovers()
            live = self._live_generation()
            number = int(live.split("-")[1]) + 1 if live else 1
            name = f"gen-{number:06d}"
            staging = self.path / (name + ".partial")
            if live:
                verify_generation(self.path / live)  # a damaged store is not copied into a new generation
                _open_read_only(self.path / live).backup(str(staging))
            try:
                _build(staging, remove, quads, remove_subjects, derive)
            except BaseException:
                shutil.rmtree(staging, ignore_errors=True)  # the live generation was never touched
                raise
            write_manifest(staging, previous=self.path / live if live else None)
            os.rename(staging, self.path / name)
            link = self.path / (CURRENT + ".new")
            link.unlink(missing_ok=True)
            os.symlink(name, link)
            os.replace(link, self.path / CURRENT)  # the atomic switch
            _fsync_dir(self.path)
            # The generation just replaced stays until the next write: a reader may be in the
            # middle of a query on it (RocksDB opens table files lazily), and removing it now
            # made that query fail. Readers move to the new one at their next request.

    def _remove_leftovers(self) -> None:
        """Remove what earlier writes left: killed writes' staging copies, and generations older
        than the live one (the one replaced last is kept for readers still querying it until now)."""
        live = self._live_generation()
        for entry in self.path.iterdir():
            if entry.name.startswith("gen-") and entry.name != live:
                shutil.rmtree(entry, ignore_errors=True)
        (self.path / (CURRENT + ".new")).unlink(missing_ok=True)


def _build(staging: Path, remove: Iterable[NamedNode], quads: Iterable[Statement],
           remove_subjects: Iterable[tuple[NamedNode, NamedNode]], derive: Sequence[Derive]) -> None:
    """Apply a write to the copy at ``staging``, then its ``derive`` steps to the result; flushed
    and closed when this returns."""
    target = OxStore(str(staging))
    _remove_from_merge(target, [g for g in remove if target.contains_named_graph(g)], remove_subjects)
    _load(target, quads)
    view = _StagingView(target, str(staging))
    for step in derive:  # links, counts …: computed from the new state, published with it
        change = step(view)
        if change is not None:
            _remove_from_merge(target, [g for g in change.remove if target.contains_named_graph(g)],
                               change.remove_subjects)
            _load(target, change.quads)
    target.flush()


class _StagingView:
    """The generation being written, as a read-only ``Store`` for the ``derive`` steps."""

    def __init__(self, store: OxStore, location: str) -> None:
        self._store = store
        self.location = location

    def query(self, sparql: str, *, bindings: Mapping[str, Term] | None = None,
              timeout: float | None = None) -> QueryResult:
        return self._store.query(with_values(sparql, bindings or {}), prefixes=PREFIXES)

    def quads(self, graphs: Iterable[NamedNode] | None = None) -> Iterator[Quad]:
        if graphs is None:
            graphs = self.named_graphs()
        for graph in graphs:
            yield from self._store.quads_for_pattern(None, None, None, graph)

    def named_graphs(self) -> list[NamedNode]:
        return [g for g in self._store.named_graphs() if isinstance(g, NamedNode)]


def _remove_from_merge(target: OxStore, graphs: list[NamedNode],
                       subjects: Iterable[tuple[NamedNode, NamedNode]]) -> None:
    """Drop ``graphs`` and the (subject, graph) statements, and from the default graph every triple
    that no remaining named graph still asserts.

    Iterators of an Oxigraph store read a snapshot, so the default graph can be edited while a
    named graph is walked (a million-quad source is never held in memory).
    """
    leaving = set(graphs)
    default = DefaultGraph()

    def forget_if_unasserted(quad: Quad) -> None:
        for other in target.quads_for_pattern(quad.subject, quad.predicate, quad.object, None):
            if other.graph_name not in leaving and not isinstance(other.graph_name, DefaultGraph):
                return
        target.remove(Quad(quad.subject, quad.predicate, quad.object, default))

    for subject, graph in subjects:
        for quad in list(target.quads_for_pattern(subject, None, None, graph)):
            target.remove(quad)
            forget_if_unasserted(quad)
    for graph in graphs:
        for quad in target.quads_for_pattern(None, None, None, graph):
            forget_if_unasserted(quad)
    for graph in graphs:
        target.remove_graph(graph)


#: Serialised batches are joined up to this size before one bulk load. Larger means fewer RocksDB
#: files, smaller means a shorter tail: the last batch loads after the workers have finished, alone.
#: 16 MB (about 1,300 lichess puzzles) took a 10k-puzzle import with two jobs from 12.8 s (64 MB) to
#: 10.5 s; 8 MB was no faster.
LOAD_BYTES = 16 << 20


def _load(target: OxStore, statements: Iterable[Statement]) -> None:
    """Bulk-load quads and serialised batches into their named graphs and into the default graph.

    Batches are loaded by a writer thread (Oxigraph releases the GIL while it loads), so the
    importer keeps collecting the workers' results meanwhile; at most one joined batch waits.
    """
    single: list[Quad] = []
    pending: queue.Queue[dict[str, list[bytes]] | None] = queue.Queue(maxsize=1)
    failure: list[BaseException] = []

    def writer() -> None:
        while (joined := pending.get()) is not None:
            if failure:
                continue
            try:
                for graph, parts in joined.items():
                    target.bulk_load(b"".join(parts), format=RdfFormat.N_TRIPLES, to_graph=NamedNode(graph))
                target.bulk_load(b"".join(part for parts in joined.values() for part in parts),
                                 format=RdfFormat.N_TRIPLES)  # the merge
            except BaseException as exc:  # re-raised in the importer's thread below
                failure.append(exc)

    thread = threading.Thread(target=writer, name="chesskb-bulk-load", daemon=True)
    thread.start()
    joined: dict[str, list[bytes]] = {}
    size = 0
    try:
        for item in statements:
            if isinstance(item, SerializedBatch):
                for graph, data in item.graphs.items():
                    joined.setdefault(graph, []).append(data)
                size += item.size
                if size >= LOAD_BYTES:
                    pending.put(joined)
                    joined, size = {}, 0
            else:
                single.append(item)
            if failure:
                break
        if joined and not failure:
            pending.put(joined)
    finally:
        pending.put(None)
        thread.join()
    if failure:
        raise failure[0]
    target.bulk_extend(_with_merge_copies(single))


def _with_merge_copies(quads: Iterable[Quad]) -> Iterator[Quad]:
    """Each quad, then its triple in the default graph (the merge of all sources)."""
    default = DefaultGraph()
    for quad in quads:
        yield quad
        yield Quad(quad.subject, quad.predicate, quad.object, default)


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
