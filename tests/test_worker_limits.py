"""A query worker's own bounds (issue 35 items 5 and 6): an address-space cap (WORKER_MEMORY) that ends
a memory-doubling query with a clear error, against a live ``chesskb serve``; and a kernel alarm that
ends a worker whose query outlives its time limit when no server is left to kill it."""

from __future__ import annotations

import json
import multiprocessing
import os
import signal
import time
from urllib.parse import quote

from chesskb.service.query_runner import Limits, WorkerSettings, _worker_main, make_request
from tests.live_server import http, live_server

RUNAWAY = "SELECT (COUNT(*) AS ?n) WHERE { ?a ?b ?c . ?d ?e ?f . ?g ?h ?i . ?j ?k ?l }"


def doubling_query(doublings: int = 31) -> str:
    """A short query whose one string doubles ``doublings`` times: 16 bytes * 2**31 = 32 GiB."""
    binds = ['BIND("0123456789abcdef" AS ?v0)']
    binds += [f"BIND(CONCAT(?v{n - 1},?v{n - 1}) AS ?v{n})" for n in range(1, doublings + 1)]
    return f"SELECT (STRLEN(?v{doublings}) AS ?n) WHERE {{ {' '.join(binds)} }}"


def test_a_memory_doubling_query_ends_with_a_clear_error_and_the_next_query_runs(small_store):
    query = doubling_query()
    assert len(query) < 1100
    with live_server(small_store, "--worker-memory", str(768 << 20), "--query-timeout", "60") as base:
        started = time.monotonic()
        status, _, body = http("GET", base + "/sparql?query=" + quote(query), timeout=90)
        took = time.monotonic() - started
        assert status == 507, body[:300]
        message = json.loads(body)["error"]
        assert "WORKER_MEMORY" in message and "768 MiB" in message, message
        assert took < 55, took  # the cap ended it, not the time limit
        # the server goes on (this client now waits: QUERY_BACKOFF; another is answered at once)
        status, _, body = http(
            "GET", base + "/sparql?query=" + quote("SELECT (STRLEN(CONCAT('a','b')) AS ?n) {}"), source="127.0.1.5"
        )
        assert status == 200 and b'"2"' in body, body[:300]
        status, _, body = http("GET", base + "/sparql?query=" + quote("ASK {}"))
        assert status == 429 and b"QUERY_BACKOFF" in body, body[:300]


def test_a_small_doubling_still_answers_under_the_cap(small_store):
    """The cap is on growth, not on ordinary work: 2**16 copies (1 MiB) answer."""
    with live_server(small_store, "--worker-memory", str(768 << 20)) as base:
        status, _, body = http("GET", base + "/sparql?query=" + quote(doubling_query(16)))
        assert status == 200 and str(16 << 16).encode() in body, body[:300]


def test_a_worker_ends_itself_when_its_query_outlives_the_limit(small_store):
    """Nobody reads the answer or kills the worker (its server is stuck or gone): the worker's own
    alarm ends it shortly after the query's time limit, by SIGALRM."""
    context = multiprocessing.get_context("spawn")
    conn, child = context.Pipe()
    worker = context.Process(target=_worker_main, args=(WorkerSettings(str(small_store), parent=os.getpid()), child))
    worker.start()
    try:
        assert conn.poll(60) and conn.recv()[0] == "ready"
        conn.send(make_request(RUNAWAY, None, "application/sparql-results+json", "text/turtle", Limits(1.0, 1 << 20)))
        worker.join(30)
        assert worker.exitcode == -signal.SIGALRM, worker.exitcode
    finally:
        if worker.is_alive():
            worker.kill()
