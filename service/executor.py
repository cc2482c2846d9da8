"""The one place the web service runs queries: every SPARQL request, canned question and page.

Each query runs in a killable worker process (``service.query_runner``) under the same bounds: the
time limit (QUERY_TIMEOUT), the size of the serialised result (MAX_RESULT_BYTES) and, when set, a row
cap (ROW_LIMIT, off by default). A bound that is hit fails the query with an error status; no answer
is ever cut short and sent as if complete.

Two lanes of workers keep the site up while someone runs expensive queries: ``sparql`` (QUERY_WORKERS)
for the free-form endpoint and ``pages`` (PAGE_WORKERS) for the site's own pages and canned questions,
so a runaway query at ``/sparql`` never makes the home page wait. Within a lane, one client (by
address) may run CLIENT_QUERIES queries at once (more get 429 with Retry-After), fewer than there are
workers, and a query waits for a worker at most QUERY_QUEUE_WAIT seconds in a queue of at most
QUERY_QUEUE. Answers are cached per store generation (``service.result_cache``), so a page asked for
again needs no worker at all.

Remote stores (an http(s) endpoint) run in the request thread with QUERY_TIMEOUT as the HTTP
client's timeout of each query (``kb.store.remote``), under the same caps and cache.

Named queries (``run_named``, ``PooledReader.named``) are bound by ``queries.executor.prepare``,
the path ``chesskb`` and ``kb/`` use, then run here like any other query.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from typing import Any

from flask import current_app, request
from pyoxigraph import QueryResultsFormat, RdfFormat, Triple, parse, parse_query_results
from pyoxigraph import Store as MemoryStore

from chesskb.kb.store import EmbeddedStore, Store
from chesskb.kb.store.base import QueryResult, Term
from chesskb.queries import CannedQuery, QueryError, load_query
from chesskb.queries.executor import prepare
from chesskb.queries.find import has_piece_index, pattern_scan

from .admission import LaneAdmission, Shares
from .errors import ServiceError
from .query_guard import TooDeep, check_nesting, federation_keyword
from .query_runner import Answer, Dataset, Limits, PoolSettings, QueryFailed, WorkerPool, execute, make_request
from .result_cache import cache_key
from .worker_confinement import Isolation

LANES = ("sparql", "pages")
_LOCK = threading.Lock()


class ClientLimiter:
    """How many queries (or engine replies: ``service.play``) each client address runs at once.
    Beyond ``limit`` a free-form query is told to come back (429 with Retry-After); a page's query
    waits up to ``wait`` seconds for the client's own earlier queries instead (a browser opening a
    few tabs must not see 429s), then gets 429 too. ``setting`` and ``what`` name the bound in
    the message."""

    def __init__(
        self, limit: int, *, setting: str = "CLIENT_QUERIES", what: str = "queries", retry_after: int = 2
    ) -> None:
        self.limit = limit
        self.setting, self.what, self.retry_after = setting, what, retry_after
        self._running: dict[str, int] = {}
        self._freed = threading.Condition()

    @contextmanager
    def slot(self, client: str, wait: float = 0.0) -> Iterator[None]:
        deadline = time.monotonic() + wait
        with self._freed:
            while self._running.get(client, 0) >= self.limit:
                left = deadline - time.monotonic()
                if left <= 0:
                    raise ServiceError(
                        429,
                        f"you already run {self._running[client]} {self.what} at once "
                        f"(setting {self.setting}); wait for them to finish",
                        headers={"Retry-After": str(self.retry_after)},
                    )
                self._freed.wait(left)
            self._running[client] = self._running.get(client, 0) + 1
        try:
            yield
        finally:
            with self._freed:
                left = self._running[client] - 1
                if left:
                    self._running[client] = left
                else:
                    del self._running[client]
                self._freed.notify_all()


def limits(row_cap: int = 0) -> Limits:
    """The service's bounds; ``row_cap`` (CANNED_MAX_ROWS) when a canned question asks for every row."""
    config = current_app.config
    row_limit = int(config["ROW_LIMIT"] or 0)
    if row_cap and (row_limit == 0 or row_cap < row_limit):
        return Limits(
            timeout=float(config["QUERY_TIMEOUT"]),
            max_bytes=int(config["MAX_RESULT_BYTES"]),
            row_limit=row_cap,
            row_setting="CANNED_MAX_ROWS",
        )
    return Limits(
        timeout=float(config["QUERY_TIMEOUT"]), max_bytes=int(config["MAX_RESULT_BYTES"]), row_limit=row_limit
    )


def _pool(lane: str) -> WorkerPool | None:
    """The lane's workers, started on first use (one pool per lane per app)."""
    store = get_store()
    if not isinstance(store, EmbeddedStore) or int(current_app.config["QUERY_WORKERS"]) == 0:
        return None  # a remote store, or an offline build (`chesskb site`): in the calling thread
    key = f"chesskb.pool.{lane}"
    with _LOCK:
        pool = current_app.extensions.get(key)
        if pool is None:
            config = current_app.config
            size = int(config["QUERY_WORKERS"] if lane == "sparql" else config["PAGE_WORKERS"])
            pool = WorkerPool(
                store.location,
                PoolSettings(
                    size=max(size, 1),
                    queue_limit=int(config["QUERY_QUEUE"]),
                    queue_wait=float(config["QUERY_QUEUE_WAIT"]),
                    offline=not config.get("ALLOW_SERVICE"),
                    name=lane,
                    memory_limit=int(config["WORKER_MEMORY"]),
                    nice=int(config["WORKER_NICE"]),
                    demote_after=float(config["WORKER_DEMOTE_AFTER"]),
                    allow_unisolated=bool(config["ALLOW_UNISOLATED"]),
                ),
            )
            current_app.extensions[key] = pool
    return pool


def _admission(lane: str) -> LaneAdmission:
    """The lane's fair shares (``service.admission``), one per lane per app."""
    key = f"chesskb.admission.{lane}"
    with _LOCK:
        admission = current_app.extensions.get(key)
        if admission is None:
            config = current_app.config
            size = int(config["QUERY_WORKERS"] if lane == "sparql" else config["PAGE_WORKERS"])
            admission = current_app.extensions[key] = LaneAdmission(
                lane,
                Shares(
                    size=max(size, 1),
                    client_queries=int(config["CLIENT_QUERIES"]),
                    reserve=int(config["LANE_RESERVE"]),
                    backoff_first=float(config["QUERY_BACKOFF"]),
                    costly_seconds=float(config["CLIENT_COST"]),
                ),
            )
    return admission


def start_pools(app: Any, lanes: tuple[str, ...] = LANES) -> None:
    """Start the lanes' workers now (``chesskb serve``, ``service.warm``), so the first visitors do not
    wait for a process to start behind someone else's query."""
    with app.app_context():
        for lane in lanes:
            _pool(lane)


def worker_isolation(app: Any) -> Isolation | None:
    """How the query workers are cut off from the network (asked of a started worker), or None when
    queries run without workers (a remote store) or may federate (ALLOW_SERVICE)."""
    if app.config.get("ALLOW_SERVICE"):
        return None
    with app.app_context():
        pool = _pool("sparql")
    return None if pool is None else pool.isolation()


def close_pools(app: Any) -> None:
    for lane in LANES:
        pool = app.extensions.pop(f"chesskb.pool.{lane}", None)
        if pool is not None:
            pool.close()


def check_federation(sparql: str) -> None:
    """Refuse SERVICE unless the operator allowed federation (ALLOW_SERVICE)."""
    if not current_app.config.get("ALLOW_SERVICE") and federation_keyword(sparql):
        raise ServiceError(403, "federated queries (SERVICE) are not allowed on this endpoint (setting ALLOW_SERVICE)")


def check_depth(sparql: str) -> None:
    """Refuse (400) a query nested deeper than QUERY_MAX_NESTING before a worker's parser sees it."""
    try:
        check_nesting(sparql, int(current_app.config["QUERY_MAX_NESTING"]))
    except TooDeep as exc:
        raise ServiceError(400, str(exc)) from None


def run(
    sparql: str,
    bindings: Mapping[str, Any] | None = None,
    *,
    lane: str = "pages",
    select_type: str = "application/sparql-results+json",
    graph_type: str = "text/turtle",
    dataset: Dataset | None = None,
    row_cap: int = 0,
) -> Answer:
    """Run a query under the service's bounds; errors become ``ServiceError`` with their status."""
    check_depth(sparql)
    check_federation(sparql)
    bounds = limits(row_cap)
    query_request = make_request(sparql, bindings, select_type, graph_type, bounds, dataset)
    store = get_store()
    pool = _pool(lane)

    admission = _admission(lane)
    client = request.remote_addr or "local"
    refuse = current_app.extensions.get("chesskb.refuse_connections")  # set by `chesskb serve` (CLIENT_REFUSAL)

    def compute() -> Answer:
        wait = 0.0 if lane == "sparql" else float(current_app.config["QUERY_QUEUE_WAIT"])
        with admission.slot(client, wait, on_refused=refuse):
            try:
                answer = execute(store, query_request) if pool is None else pool.run(query_request)
            except QueryFailed as exc:
                if exc.costly:  # it held a worker to its limit or killed it: this client waits a while
                    admission.backoff.failed(client)
                raise
        admission.backoff.succeeded(client)
        return answer

    try:
        cache = current_app.extensions.get("chesskb.results")
        key = cache_key(store, sparql, bindings, select_type, graph_type, bounds, query_request.dataset)
        return compute() if cache is None else cache.get_or_run(key, compute)
    except QueryFailed as exc:
        if exc.remembered and refuse is not None:  # asking again for a query known to run to the limit,
            refuse(client)  # as an attacker does a thousand times a second: its next connections wait
        headers = {"Retry-After": str(exc.retry_after)} if exc.retry_after else None
        raise ServiceError(exc.status, exc.message, headers=headers) from None


def run_named(
    name: str,
    params: Mapping[str, Any] | None = None,
    *,
    lane: str = "pages",
    public: bool = False,
    select_type: str = "application/sparql-results+json",
    graph_type: str = "text/turtle",
) -> Answer:
    """Run a named query (``queries/internal/NAME.rq``, or a canned one with ``public``) under the
    service's bounds: the same bound text ``chesskb`` and ``kb/`` run (``queries.executor.prepare``),
    with the index lookups of a ``pattern`` parameter on the indexes the store has."""
    row_cap = 0
    if public:
        params, row_cap = bounded_page(params)
    try:
        query = load_query(name) if public else None
        indexes = pattern_indexes(query) if query is not None else frozenset()
        scan = pattern_scan(get_store()) if query and query.has_pattern else None
        sparql = prepare(name, params, public=public, indexes=indexes, scan=scan)
    except QueryError as exc:
        raise ServiceError(400, str(exc)) from None
    return run(sparql, None, lane=lane, select_type=select_type, graph_type=graph_type, row_cap=row_cap)


def bounded_page(params: Mapping[str, Any] | None) -> tuple[dict[str, Any], int]:
    """A canned question's page on the web: ``limit=0`` (every row) or a limit above CANNED_MAX_ROWS
    asks for one row more than the cap, and the answer fails (507) if that row exists, so the cost of
    one request is bounded and an answer is still never cut. (The CLI's ``limit=0`` stays unbounded.)"""
    given = dict(params or {})
    cap = int(current_app.config["CANNED_MAX_ROWS"])
    try:
        limit = int(given.get("limit", 1))
    except (TypeError, ValueError):
        return given, 0  # prepare() refuses it with the reason
    if cap <= 0 or not (limit == 0 or limit > cap):
        return given, 0
    given["limit"] = str(cap + 1)
    return given, cap


def pattern_indexes(query: CannedQuery) -> frozenset[str]:
    """The pattern indexes the served store has, for a query with a ``pattern`` parameter (asked
    through the pages lane, so the answers are cached per store generation); none otherwise."""
    return has_piece_index(PooledReader()) if query.has_pattern else frozenset()


class PooledReader:
    """What the pages read the knowledge base through: ``query`` answers as the store's does
    (solutions, a boolean or triples), but runs in the pages lane under the service's bounds, so a
    ``kb/`` function given the reader instead of the store (``queries.executor.run``) runs there
    too; ``named`` runs a named query."""

    location = "pages"

    def query(self, sparql: str, *, bindings: Mapping[str, Term] | None = None, **_: Any) -> QueryResult:
        return _parsed(run(sparql, bindings, lane="pages", graph_type="application/n-triples"))

    def named(self, name: str, params: Mapping[str, Any] | None = None) -> QueryResult:
        """The answer of a named query, as ``query`` gives it."""
        return _parsed(run_named(name, params, graph_type="application/n-triples"))

    def triples(self, name: str, params: Mapping[str, Any] | None = None) -> list[Triple]:
        """The triples of a named CONSTRUCT as a list, parsed once from the worker's N-Triples (what a
        page is built from: ``service.resources``), without the in-memory store ``named`` loads them into."""
        answer = run_named(name, params, graph_type="application/n-triples")
        if answer.kind != "graph":
            raise TypeError(f"query {name!r} is not a CONSTRUCT")
        return [quad.triple for quad in parse(answer.body, format=RdfFormat.N_TRIPLES)]


def _parsed(answer: Answer) -> QueryResult:
    if answer.kind == "graph":
        graph = MemoryStore()
        graph.load(answer.body, format=RdfFormat.N_TRIPLES)
        return graph.query(ALL_TRIPLES)
    return parse_query_results(answer.body, format=QueryResultsFormat.JSON)


#: Reads back the triples of a CONSTRUCT answer from the in-memory graph they were loaded into
#: (pyoxigraph's way to hand a graph over as query triples, as the stores return them).
ALL_TRIPLES = "CONSTRUCT WHERE { ?s ?p ?o }"


def get_store() -> Store:
    """The app's store itself (``service.app.create_app``): for writes and for what only the store has (its
    location, generation, board index); queries go through the lanes (``run``, ``PooledReader``)."""
    store: Store = current_app.extensions["chesskb.store"]  # Flask's extensions are untyped
    return store
