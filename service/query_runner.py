"""Running SPARQL queries for the web service: in worker processes that can be killed.

pyoxigraph cannot interrupt a query from another thread, so a runaway query (a cross product of
four triple patterns) would hold its thread and the store forever. Each query therefore runs in a
worker *process* with the embedded store opened read-only; the web thread waits at most
``timeout`` seconds and then kills the worker (and starts a fresh one), answering 503 while other
workers keep serving other clients. Results are serialised inside the worker, so only bytes cross
the pipe.

Remote stores (an http(s) endpoint) do not need this: the HTTP client's timeout stops them, so
they run in the calling thread.
"""

from __future__ import annotations

import json
import multiprocessing
import queue
import threading
import time
from dataclasses import dataclass
from typing import Any

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

from kb.vocab import PREFIXES

SELECT_FORMATS: dict[str, QueryResultsFormat] = {
    "application/sparql-results+json": QueryResultsFormat.JSON,
    "application/sparql-results+xml": QueryResultsFormat.XML,
    "text/csv": QueryResultsFormat.CSV,
    "text/tab-separated-values": QueryResultsFormat.TSV,
}
GRAPH_FORMATS: dict[str, RdfFormat] = {
    "text/turtle": RdfFormat.TURTLE,
    "application/rdf+xml": RdfFormat.RDF_XML,
    "application/n-triples": RdfFormat.N_TRIPLES,
    "application/ld+json": RdfFormat.JSON_LD,
}


@dataclass
class Answer:
    """A finished query: the body in the chosen format, its media type, and a row-cap notice."""

    kind: str                  # "solutions", "boolean" or "graph"
    media_type: str
    body: bytes
    rows: int | None = None
    truncated_at: int | None = None


class QueryFailed(Exception):
    """The query did not run; ``status`` is the HTTP status (400 syntax, 503 timeout, 500 else)."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


# --- terms across the process boundary ------------------------------------------------------

def term_to_wire(term: Any) -> tuple:
    if isinstance(term, NamedNode):
        return ("iri", term.value)
    if isinstance(term, BlankNode):
        return ("bnode", term.value)
    if isinstance(term, Literal):
        return ("literal", term.value, term.language, term.datatype.value)
    raise TypeError(f"cannot bind {term!r}")


def term_from_wire(wire: tuple) -> Any:
    if wire[0] == "iri":
        return NamedNode(wire[1])
    if wire[0] == "bnode":
        return BlankNode(wire[1])
    _, value, language, datatype = wire
    if language:
        return Literal(value, language=language)
    return Literal(value, datatype=NamedNode(datatype))


# --- the work itself (the same code in a worker and in-thread) -----------------------------

def execute(store: Any, sparql: str, bindings: dict[str, Any] | None, select_type: str, graph_type: str,
            row_limit: int) -> Answer:
    """Run ``sparql`` and serialise the result; SELECT results over ``row_limit`` rows are cut."""
    from kb.store import QuerySyntaxError

    try:
        result = store.query(sparql, bindings=bindings)
    except QuerySyntaxError as exc:
        raise QueryFailed(400, f"SPARQL syntax error: {exc}") from None
    if isinstance(result, QueryBoolean):
        return Answer("boolean", select_type, result.serialize(format=SELECT_FORMATS[select_type]))
    if isinstance(result, QueryTriples):
        fmt = GRAPH_FORMATS[graph_type]
        body = serialize(result, format=fmt, prefixes=PREFIXES if fmt == RdfFormat.TURTLE else None)
        return Answer("graph", graph_type, body or b"")
    assert isinstance(result, QuerySolutions)
    return _solutions(result, select_type, row_limit)


def _solutions(result: QuerySolutions, media_type: str, row_limit: int) -> Answer:
    """JSON first (pyoxigraph's own writer), cut to the row cap, then the wanted format."""
    as_json = result.serialize(format=QueryResultsFormat.JSON)
    data = json.loads(as_json)
    rows = len(data["results"]["bindings"])
    truncated = None
    if rows > row_limit:
        data["results"]["bindings"] = data["results"]["bindings"][:row_limit]
        truncated, rows = row_limit, row_limit
        as_json = json.dumps(data).encode()
    fmt = SELECT_FORMATS[media_type]
    if fmt == QueryResultsFormat.JSON:
        body = as_json
    else:
        body = parse_query_results(as_json, format=QueryResultsFormat.JSON).serialize(format=fmt)
    return Answer("solutions", media_type, body, rows=rows, truncated_at=truncated)


def _worker_main(location: str, conn: Any) -> None:
    """A worker process: open the store read-only once, then answer requests until told to stop."""
    from kb.store import StoreError, open_store

    store = open_store(location)
    while True:
        try:
            request = conn.recv()
        except EOFError:
            return
        if request is None:
            return
        sparql, wire_bindings, select_type, graph_type, row_limit = request
        try:
            bindings = {name: term_from_wire(w) for name, w in (wire_bindings or {}).items()}
            conn.send(("ok", execute(store, sparql, bindings or None, select_type, graph_type, row_limit)))
        except QueryFailed as exc:
            conn.send(("error", exc.status, exc.message))
        except (StoreError, RuntimeError, ValueError, TypeError) as exc:
            conn.send(("error", 400 if isinstance(exc, (RuntimeError, ValueError)) else 500, str(exc)))


class _Worker:
    def __init__(self, context: Any, location: str) -> None:
        self.conn, child = context.Pipe()
        self.process = context.Process(target=_worker_main, args=(location, child), daemon=True)
        self.process.start()
        child.close()

    def kill(self) -> None:
        self.process.kill()
        self.process.join(5)
        self.conn.close()


class WorkerPool:
    """``size`` worker processes over one store; a timed-out worker is killed and replaced."""

    def __init__(self, location: str, size: int = 2) -> None:
        self.location = location
        self.context = multiprocessing.get_context("spawn")
        self.idle: queue.Queue[_Worker] = queue.Queue()
        self.size = size
        self._lock = threading.Lock()
        self._closed = False
        for _ in range(size):
            self.idle.put(_Worker(self.context, location))

    def run(self, sparql: str, bindings: dict[str, Any] | None, select_type: str, graph_type: str,
            row_limit: int, timeout: float) -> Answer:
        deadline = time.monotonic() + timeout
        try:
            worker = self.idle.get(timeout=timeout)
        except queue.Empty:
            raise QueryFailed(503, f"all {self.size} query workers are busy; try again later") from None
        wire = {name: term_to_wire(term) for name, term in (bindings or {}).items()}
        try:
            if not worker.process.is_alive():
                worker = _Worker(self.context, self.location)
            worker.conn.send((sparql, wire, select_type, graph_type, row_limit))
            if not worker.conn.poll(max(deadline - time.monotonic(), 0.01)):
                worker.kill()
                worker = _Worker(self.context, self.location)
                raise QueryFailed(503, f"query stopped: it ran longer than the {timeout:g} s limit "
                                       "(setting QUERY_TIMEOUT)")
            reply = worker.conn.recv()
        except (EOFError, OSError, BrokenPipeError):
            worker.kill()
            worker = _Worker(self.context, self.location)
            raise QueryFailed(500, "the query worker died; the query was not answered") from None
        finally:
            if not self._closed:
                self.idle.put(worker)
            else:
                worker.kill()
        if reply[0] == "ok":
            return reply[1]
        raise QueryFailed(reply[1], reply[2])

    def close(self) -> None:
        self._closed = True
        while True:
            try:
                worker = self.idle.get_nowait()
            except queue.Empty:
                return
            try:
                worker.conn.send(None)
            except OSError:
                pass
            worker.kill()
