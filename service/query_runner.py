"""Running SPARQL queries for the web service: in worker processes that can be killed.

pyoxigraph cannot interrupt a query from another thread, so a runaway query (a cross product of
four triple patterns) would hold its thread and the store forever. Each query therefore runs in a
worker *process* with the embedded store opened read-only; the web thread waits at most
``timeout`` seconds and then kills the worker (and starts a fresh one), answering 503 while other
workers keep serving other clients. Results are serialised inside the worker, so only bytes cross
the pipe, and serialisation stops as soon as the result passes its size bound (``Limits``): the
query fails (507) rather than an oversized answer being built, or a cut one sent as if complete.
Workers cannot open a network socket (``service.worker_confinement``: a network namespace and a
socket filter), so the store's SERVICE client cannot reach another host whatever the query text;
the server refuses to start, and the pool to use a worker, without that confinement unless the
operator allowed it (ALLOW_UNISOLATED). Workers die with the server however it ends, are bounded in
address space (WORKER_MEMORY), and a query's own alarm ends its worker shortly after its time limit.

Remote stores (an http(s) endpoint) do not need this: the time limit is the HTTP client's timeout
of each query (``kb.store.remote``), so they run in the calling thread and a query that reaches it
fails with the same 503 as a killed worker.
"""

from __future__ import annotations

import contextlib
import io
import json
import multiprocessing
import os
import queue
import signal
import threading
import time
from collections.abc import Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from pyoxigraph import (
    BlankNode,
    Literal,
    NamedNode,
    QueryBoolean,
    QueryResultsFormat,
    QuerySolutions,
    QueryTriples,
    RdfFormat,
    parse_query_results,
    serialize,
)

from chesskb.kb.vocab import PREFIXES

from .negotiation import RDF_FORMATS, RESULT_FORMATS
from .worker_confinement import (
    Isolation,
    cap_memory,
    confine_network,
    die_with_parent,
    limit_malloc_arenas,
    lower_priority,
    query_alarm,
)

if TYPE_CHECKING:
    from _typeshed import ReadableBuffer


@dataclass
class Answer:
    """A finished query: the whole body in the chosen format and its media type. There is no
    partial answer: a query that hits a bound fails (``QueryFailed``) instead of being cut."""

    kind: str  # "solutions", "boolean" or "graph"
    media_type: str
    body: bytes
    rows: int | None = None


@dataclass(frozen=True)
class Limits:
    """The bounds of one query, each a named setting of the service (``service.settings``)."""

    timeout: float  # QUERY_TIMEOUT: seconds before the worker is killed
    max_bytes: int  # MAX_RESULT_BYTES: size of the serialised result
    row_limit: int = 0  # ROW_LIMIT: rows of a SELECT; 0 = no row cap
    row_setting: str = "ROW_LIMIT"  # the setting that set row_limit (CANNED_MAX_ROWS for a canned limit=0)


@dataclass(frozen=True)
class Dataset:
    """The RDF dataset of a query as the SPARQL Protocol gives it (``default-graph-uri``,
    ``named-graph-uri``), and the base IRI relative IRIs resolve against (the endpoint's URL).
    When neither graph list is given the query's own FROM / FROM NAMED, or the store's default
    (the merge of every graph), apply."""

    default_graphs: tuple[str, ...] = ()
    named_graphs: tuple[str, ...] = ()
    base_iri: str | None = None

    @property
    def given(self) -> bool:
        return bool(self.default_graphs or self.named_graphs)


class QueryFailed(Exception):
    """The query did not run; ``status`` is the HTTP status (400 syntax, 503 timeout, 500 else)."""

    def __init__(
        self,
        status: int,
        message: str,
        retry_after: int | None = None,
        *,
        costly: bool = False,
        remembered: bool = False,
    ) -> None:
        super().__init__(message)
        self.status = status
        self.message = message
        self.retry_after = retry_after
        self.costly = costly  # it held a worker to a bound or killed it: the client backs off
        self.remembered = remembered  # answered from FAILED_QUERY_TTL's memory: the same query again


class _ResultTooLarge(Exception):
    pass


class _CappedBuffer(io.BytesIO):
    """A write target that refuses to grow past ``cap`` bytes: the serialiser stops as soon as
    the bound is passed instead of building the whole oversized answer first. A ``BytesIO``, so it
    is the binary file pyoxigraph's ``serialize`` is typed to take."""

    def __init__(self, cap: int) -> None:
        super().__init__()
        self.cap = cap

    def write(self, chunk: ReadableBuffer, /) -> int:
        written = super().write(chunk)
        if self.tell() > self.cap:
            raise _ResultTooLarge()
        return written


def too_large(limits: Limits) -> QueryFailed:
    return QueryFailed(
        507,
        f"the result is larger than {limits.max_bytes} bytes (setting MAX_RESULT_BYTES); "
        "ask for fewer rows (LIMIT/OFFSET) or a narrower pattern",
    )


# --- terms across the process boundary ------------------------------------------------------


#: A bound term as plain data for the pipe: ("iri", IRI), ("bnode", id) or ("literal", value, language, datatype IRI).
WireTerm = tuple[str, str] | tuple[str, str, str | None, str]


def term_to_wire(term: Any) -> WireTerm:
    if isinstance(term, NamedNode):
        return ("iri", term.value)
    if isinstance(term, BlankNode):
        return ("bnode", term.value)
    if isinstance(term, Literal):
        return ("literal", term.value, term.language, term.datatype.value)
    raise TypeError(f"cannot bind {term!r}")


def term_from_wire(wire: WireTerm) -> NamedNode | BlankNode | Literal:
    if len(wire) == 2:
        kind, name = wire
        return NamedNode(name) if kind == "iri" else BlankNode(name)
    _, value, language, datatype = wire
    if language:
        return Literal(value, language=language)
    return Literal(value, datatype=NamedNode(datatype))


# --- the work itself (the same code in a worker and in-thread) -----------------------------


@dataclass(frozen=True)
class Request:
    """Everything a worker needs to answer one query (plain data: it crosses a pipe)."""

    sparql: str
    bindings: tuple[tuple[str, WireTerm], ...]
    select_type: str
    graph_type: str
    limits: Limits
    dataset: Dataset = Dataset()


def make_request(
    sparql: str,
    bindings: Mapping[str, Any] | None,
    select_type: str,
    graph_type: str,
    limits: Limits,
    dataset: Dataset | None = None,
) -> Request:
    wire = tuple(sorted((name, term_to_wire(term)) for name, term in (bindings or {}).items()))
    return Request(sparql, wire, select_type, graph_type, limits, dataset or Dataset())


def execute(store: Any, request: Request) -> Answer:
    """Run the request's query and serialise the result within its byte and row bounds."""
    from chesskb.kb.store.base import QuerySyntaxError, QueryTimedOut

    bindings = {name: term_from_wire(wire) for name, wire in request.bindings}
    dataset = request.dataset
    options: dict[str, Any] = {"timeout": request.limits.timeout}  # a remote store's HTTP timeout
    if dataset.given:
        options["default_graphs"] = list(dataset.default_graphs)
        options["named_graphs"] = list(dataset.named_graphs)
    if dataset.base_iri:
        options["base_iri"] = dataset.base_iri
    try:
        result = store.query(request.sparql, bindings=bindings or None, **options)
    except QuerySyntaxError as exc:
        raise QueryFailed(400, f"SPARQL syntax error: {exc}") from None
    except QueryTimedOut:  # a remote store: the HTTP client stopped at QUERY_TIMEOUT, as a worker is killed
        raise QueryFailed(
            503,
            f"query stopped: it ran longer than the {request.limits.timeout:g} s limit (setting QUERY_TIMEOUT)",
            costly=True,
        ) from None
    limits = request.limits
    buffer = _CappedBuffer(limits.max_bytes)
    try:
        if isinstance(result, QueryBoolean):
            result.serialize(buffer, format=RESULT_FORMATS[request.select_type])
            return Answer("boolean", request.select_type, buffer.getvalue())
        if isinstance(result, QueryTriples):
            fmt = RDF_FORMATS[request.graph_type]
            serialize(result, buffer, format=fmt, prefixes=PREFIXES if fmt == RdfFormat.TURTLE else None)
            return Answer("graph", request.graph_type, buffer.getvalue())
        assert isinstance(result, QuerySolutions)
        if limits.row_limit > 0:
            return _capped_rows(result, request.select_type, limits, buffer)
        result.serialize(buffer, format=RESULT_FORMATS[request.select_type])
        return Answer("solutions", request.select_type, buffer.getvalue())
    except _ResultTooLarge:
        raise too_large(limits) from None


def _capped_rows(result: QuerySolutions, media_type: str, limits: Limits, buffer: _CappedBuffer) -> Answer:
    """With a row cap configured: a SELECT over the cap fails (413-like 507) instead of being cut."""
    names = [v.value for v in result.variables]
    rows: list[dict[str, dict[str, str]]] = []
    for solution in result:
        if len(rows) == limits.row_limit:
            raise QueryFailed(
                507,
                f"the result has more than {limits.row_limit} rows (setting {limits.row_setting}); "
                "ask for fewer rows (LIMIT/OFFSET) or a narrower pattern",
            )
        rows.append({name: _json_term(solution[name]) for name in names if solution[name] is not None})
    as_json = json.dumps({"head": {"vars": names}, "results": {"bindings": rows}}).encode()
    parse_query_results(as_json, format=QueryResultsFormat.JSON).serialize(buffer, format=RESULT_FORMATS[media_type])
    return Answer("solutions", media_type, buffer.getvalue(), rows=len(rows))


def _json_term(term: Any) -> dict[str, str]:
    if isinstance(term, NamedNode):
        return {"type": "uri", "value": term.value}
    if isinstance(term, BlankNode):
        return {"type": "bnode", "value": term.value}
    if isinstance(term, Literal):
        found = {"type": "literal", "value": term.value}
        if term.language:
            found["xml:lang"] = term.language
        elif term.datatype.value != XSD_STRING:
            found["datatype"] = term.datatype.value
        return found
    raise TypeError(f"cannot write {term!r} in a result row")


XSD_STRING = "http://www.w3.org/2001/XMLSchema#string"

#: Seconds a worker's own alarm allows past the query's time limit: the server kills the worker at
#: the limit; the alarm ends it a little later if the server could not (it was killed itself).
ALARM_GRACE = 2.0


@dataclass(frozen=True)
class WorkerSettings:
    """What a worker process is told at its start (plain data: it crosses to the new interpreter)."""

    location: str
    offline: bool = True  # no network (SERVICE not allowed): see service.worker_confinement
    memory_limit: int = 0  # WORKER_MEMORY: the address-space cap in bytes; 0 = none
    parent: int = 0  # the server's process id: the worker dies with it
    nice: int = 0  # WORKER_NICE: how much lower this worker's CPU priority is than the server's


def _worker_main(settings: WorkerSettings, conn: Any) -> None:
    """A worker process: confine itself, open the store read-only once, then answer requests until
    told to stop.

    Ctrl-C is the server's to handle: the worker ignores SIGINT (it was started with SIGINT blocked,
    see ``_Worker``, so a Ctrl-C during its start-up is dropped here too), and it ends quietly when
    the server has gone, whichever way the server stopped (a closed pipe, or the kernel's
    parent-death signal when the server was killed)."""
    die_with_parent(settings.parent)
    lower_priority(settings.nice)
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGINT})
    try:
        _answer_requests(settings, conn)
    except (EOFError, ConnectionError):
        return  # the server closed the pipe or died: nobody is left to answer


def _answer_requests(settings: WorkerSettings, conn: Any) -> None:
    from chesskb.kb.store import StoreError, open_store
    from chesskb.kb.store.base import StoreDamaged

    os.environ["RUST_BACKTRACE"] = "0"  # a query stopped by WORKER_MEMORY: one line, not a Rust backtrace
    isolation = confine_network() if settings.offline else Isolation(False, False)
    if settings.memory_limit:
        limit_malloc_arenas()  # before the store's threads: their arenas' reservations count against the cap
    store = open_store(settings.location)
    cap_memory(settings.memory_limit)
    conn.send(("ready", isolation))
    while (request := conn.recv()) is not None:
        query_alarm(request.limits.timeout + ALARM_GRACE)
        try:
            conn.send(("ok", execute(store, request)))
        except QueryFailed as exc:
            conn.send(("error", exc.status, exc.message, exc.costly))
        except StoreDamaged as exc:  # the operator must restore or re-import: a clear refusal, not a 500
            conn.send(("error", 503, f"the knowledge base cannot be read: {exc}"))
        except MemoryError:
            conn.send(("error", 507, out_of_memory(settings.memory_limit), True))
        except (StoreError, RuntimeError, ValueError, TypeError, OSError, AttributeError) as exc:
            conn.send(("error", 400 if isinstance(exc, (RuntimeError, ValueError)) else 500, str(exc)))
        finally:
            query_alarm(0)


def out_of_memory(limit: int) -> str:
    return (
        f"query stopped: it needed more memory than a query worker may use ({limit >> 20} MiB, setting WORKER_MEMORY)"
    )


def _death(exitcode: int | None, limits: Limits, memory_limit: int) -> QueryFailed:
    """Why a worker ended in the middle of a query, from how it ended."""
    if exitcode == -signal.SIGALRM:
        return QueryFailed(
            503,
            f"query stopped: it ran longer than the {limits.timeout:g} s limit (setting QUERY_TIMEOUT)",
            costly=True,
        )
    if exitcode == -signal.SIGABRT and memory_limit:  # the store aborts when an allocation fails
        return QueryFailed(507, out_of_memory(memory_limit), costly=True)
    return QueryFailed(500, "the query worker died; the query was not answered", costly=True)


class _Spawner:
    """One long-lived thread that starts every worker process.

    The kernel's parent-death signal (``die_with_parent``) fires when the *thread* that started a
    process ends, not its process: a worker started from a request thread (werkzeug starts one per
    request) would be killed as that request ends. Workers are therefore started from this thread,
    which lives as long as the server."""

    def __init__(self) -> None:
        self.pid = os.getpid()  # a forked child needs its own thread
        self._jobs: queue.Queue[tuple[Any, queue.Queue[Any]]] = queue.Queue()
        self._thread = threading.Thread(target=self._serve, name="worker-spawner", daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while True:
            job, done = self._jobs.get()
            try:
                done.put((True, job()))
            except BaseException as exc:
                done.put((False, exc))

    def call(self, job: Any) -> Any:
        if threading.current_thread() is self._thread:
            return job()
        done: queue.Queue[Any] = queue.Queue(maxsize=1)
        self._jobs.put((job, done))
        succeeded, value = done.get()
        if not succeeded:
            raise value
        return value


_SPAWNER: _Spawner | None = None
_SPAWNER_LOCK = threading.Lock()


def _start_in_spawner(job: Any) -> Any:
    global _SPAWNER
    with _SPAWNER_LOCK:
        if _SPAWNER is None or _SPAWNER.pid != os.getpid():
            _SPAWNER = _Spawner()
        spawner = _SPAWNER
    return spawner.call(job)


class _Worker:
    def __init__(self, context: Any, settings: WorkerSettings) -> None:
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_worker_main, args=(settings, child), daemon=True)
        _start_in_spawner(self._start)
        child.close()
        self.isolation: Isolation | None = None

    def _start(self) -> None:
        """The new interpreter inherits this thread's signal mask: with SIGINT blocked it cannot be
        interrupted (and print a traceback) by a Ctrl-C that arrives while it is still importing."""
        blocked = signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGINT})
        try:
            self.process.start()
        finally:
            signal.pthread_sigmask(signal.SIG_SETMASK, blocked)

    def kill(self) -> None:
        self.process.kill()
        self.process.join(5)
        self.conn.close()


class WorkersNotIsolated(QueryFailed):
    """A worker that must not reach the network could not be confined (see ``worker_confinement``)."""

    def __init__(self) -> None:
        super().__init__(
            503,
            "query workers cannot be cut off from the network on this system (neither a "
            "network namespace nor a socket filter is allowed), so no query runs; the "
            "operator may accept the risk with setting ALLOW_UNISOLATED",
        )


@dataclass(frozen=True)
class PoolSettings:
    """How many processes a lane has and how long a query may wait for one (named settings)."""

    size: int  # QUERY_WORKERS / PAGE_WORKERS
    queue_limit: int  # QUERY_QUEUE: queries waiting for a worker before 503
    queue_wait: float  # QUERY_QUEUE_WAIT: seconds a query waits for a worker before 503
    offline: bool = True  # workers without network (SERVICE not allowed)
    name: str = "query"
    memory_limit: int = 0  # WORKER_MEMORY: each worker's address-space cap in bytes; 0 = none
    nice: int = 0  # WORKER_NICE: how much lower the workers' CPU priority is than the server's
    demote_after: float = 0.0  # WORKER_DEMOTE_AFTER: seconds before a running query drops to LOWEST_PRIORITY
    allow_unisolated: bool = False  # ALLOW_UNISOLATED: run queries even where workers keep the network


#: The nice value a query that has run past WORKER_DEMOTE_AFTER computes at: the lowest there is.
LOWEST_PRIORITY = 19


def _demote(worker: _Worker) -> int | None:
    """Drop ``worker`` to ``LOWEST_PRIORITY`` while its query runs on; returns the nice value to give
    back afterwards, or None where the system refused (the query then runs on as it was).

    Why: cost-aware scheduling without knowing a query's cost in advance. A visitor's query is short;
    one that is still computing after a second is probably a runaway, and on a two-core machine two
    of them at the workers' usual priority halve everyone else's CPU for the whole QUERY_TIMEOUT
    (issue 35 measured a visitor at 2.4x its idle latency). Demoted, they take what the others leave."""
    pid = worker.process.pid
    if pid is None:
        return None
    try:
        before = os.getpriority(os.PRIO_PROCESS, pid)
        os.setpriority(os.PRIO_PROCESS, pid, LOWEST_PRIORITY)
    except OSError:
        return None
    return before


def _restore(worker: _Worker, nice: int) -> bool:
    """Give a demoted worker its priority back for the next query; False when the system refuses
    (raising a priority may need privilege): the caller then replaces the worker."""
    pid = worker.process.pid
    if pid is None:
        return False
    try:
        os.setpriority(os.PRIO_PROCESS, pid, nice)
    except OSError:
        return False
    return True


class WorkerPool:
    """``size`` worker processes over one store; a timed-out worker is killed and replaced.

    A query waits for a free worker at most ``queue_wait`` seconds, and at most ``queue_limit``
    queries wait at once: beyond either, it is answered 503 with Retry-After at once instead of
    piling up behind runaway queries."""

    def __init__(self, location: str, settings: PoolSettings) -> None:
        self.location = location
        self.settings = settings
        self.size = settings.size
        self.context = multiprocessing.get_context("spawn")
        self.idle: queue.Queue[_Worker] = queue.Queue()
        self._lock = threading.Lock()
        self._waiting = 0
        self._closed = False
        for _ in range(settings.size):
            self.idle.put(self._spawn())

    def _spawn(self) -> _Worker:
        settings = self.settings
        return _Worker(
            self.context,
            WorkerSettings(self.location, settings.offline, settings.memory_limit, os.getpid(), settings.nice),
        )

    def _ready(self, worker: _Worker, deadline: float) -> None:
        """Wait for a new worker's first message, which says how it is confined; a worker that
        should be offline and is not is never given a query (fail closed)."""
        if worker.isolation is None:
            if not worker.conn.poll(max(deadline - time.monotonic(), 0.01)):
                raise EOFError
            worker.isolation = worker.conn.recv()[1]
        if self.settings.offline and not worker.isolation.on and not self.settings.allow_unisolated:
            raise WorkersNotIsolated()

    def isolation(self, wait: float = 60.0) -> Isolation:
        """How this pool's workers are confined, from one of them (started if need be)."""
        worker = self.idle.get(timeout=wait)
        try:
            if worker.isolation is None:
                if not worker.conn.poll(wait):
                    raise QueryFailed(500, "a query worker did not start")
                worker.isolation = worker.conn.recv()[1]
            return worker.isolation
        finally:
            self.idle.put(worker)

    def wait_ready(self, timeout: float) -> int:
        """Wait (at most ``timeout`` seconds in all) until every idle worker has started and opened the
        store, so that the first query does not pay for a process start (``service.warm``). Returns
        how many are ready; a worker still starting is left to be waited for by its first query."""
        deadline = time.monotonic() + timeout
        workers: list[_Worker] = []
        while True:
            try:
                workers.append(self.idle.get_nowait())
            except queue.Empty:
                break
        ready = 0
        for worker in workers:
            if worker.isolation is None and worker.conn.poll(max(deadline - time.monotonic(), 0)):
                with contextlib.suppress(EOFError, OSError):  # it died: run() replaces it
                    worker.isolation = worker.conn.recv()[1]  # its first message: started, store open
            ready += worker.isolation is not None
            self.idle.put(worker)
        return ready

    def _take(self) -> _Worker:
        settings = self.settings
        with self._lock:
            if self._waiting >= settings.queue_limit and self.idle.empty():
                raise QueryFailed(
                    503,
                    f"{self._waiting} queries already wait for the {settings.size} "
                    f"{settings.name} workers (setting QUERY_QUEUE); try again shortly",
                    retry_after=max(1, int(settings.queue_wait)),
                )
            self._waiting += 1
        try:
            return self.idle.get(timeout=settings.queue_wait)
        except queue.Empty:
            raise QueryFailed(
                503,
                f"all {settings.size} {settings.name} workers stayed busy for "
                f"{settings.queue_wait:g} s (setting QUERY_QUEUE_WAIT); try again shortly",
                retry_after=max(1, int(settings.queue_wait)),
            ) from None
        finally:
            with self._lock:
                self._waiting -= 1

    def run(self, request: Request) -> Answer:
        timeout = request.limits.timeout
        demoted: int | None = None  # the nice value to give back to ``slow``, the worker that was demoted
        slow: _Worker | None = None
        worker = self._take()
        deadline = time.monotonic() + timeout
        try:
            if not worker.process.is_alive():
                worker = self._spawn()
            self._ready(worker, deadline)
            worker.conn.send(request)
            demote_after = self.settings.demote_after
            if demote_after > 0 and not worker.conn.poll(min(demote_after, max(deadline - time.monotonic(), 0.01))):
                demoted, slow = _demote(worker), worker
            if not worker.conn.poll(max(deadline - time.monotonic(), 0.01)):
                worker.kill()
                worker = self._spawn()
                raise QueryFailed(
                    503,
                    f"query stopped: it ran longer than the {timeout:g} s limit (setting QUERY_TIMEOUT)",
                    costly=True,
                )
            reply = worker.conn.recv()
        except (EOFError, OSError, BrokenPipeError):
            worker.kill()
            failure = _death(worker.process.exitcode, request.limits, self.settings.memory_limit)
            worker = self._spawn()
            raise failure from None
        finally:
            if demoted is not None and worker is slow and worker.process.is_alive() and not _restore(worker, demoted):
                worker.kill()
                worker = self._spawn()
            if not self._closed:
                self.idle.put(worker)
            else:
                worker.kill()
        if reply[0] == "ok":
            answer: Answer = reply[1]  # what ``_answer_requests`` sends after "ok" (a pipe's message is untyped)
            return answer
        raise QueryFailed(reply[1], reply[2], costly=reply[3:] == (True,))

    def close(self) -> None:
        self._closed = True
        while True:
            try:
                worker = self.idle.get_nowait()
            except queue.Empty:
                return
            with contextlib.suppress(OSError):
                worker.conn.send(None)
            worker.kill()
